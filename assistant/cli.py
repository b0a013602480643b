"""The ``assistant`` command line."""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import logging
import os
import sys
from collections.abc import Callable, Coroutine, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assistant.askclient import Answer, Declined, Unanswered, ask_running, wants_local

if TYPE_CHECKING:
    from zoneinfo import ZoneInfo

    from assistant.config import Settings
    from tasks import TaskRun
    from tools import ApprovalRequest

logger = logging.getLogger("assistant")

EXIT_USAGE = 2
"""Exit status for input the command cannot use (a refused schedule, a bad setting)."""
EXIT_BROKEN_PIPE = 141
"""Exit status when the reader of the output went away (``assistant doctor | head -2``): as a
process that SIGPIPE ends, and quietly."""
EXIT_WAITING = 4
"""Exit status of ``assistant call`` when the call waits for an approval nobody gave (no
terminal to ask at): the message says how to decide it."""
EXIT_TERMINATED = 143
"""Exit status after SIGTERM stopped a command (as a process the signal ends)."""
ONE_SHOT_MCP_WAIT = 10.0
"""Seconds ``assistant ask``, ``call`` and ``tools`` wait for MCP servers to start; a slower
one's tools are not offered to that command (one line names it)."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``assistant`` command; return its exit status.

    Collection is paused while the command starts, until ``_run`` resumes it: the imports
    make tens of thousands of objects that live as long as the process, and collecting
    among them as they were made, and again once the command ran, cost about 70 ms of the
    340 ms of ``assistant ask`` (docs/benchmarks.md).
    """
    gc.disable()
    try:
        return _command(argv)
    finally:
        gc.enable()


def _command(argv: Sequence[str] | None) -> int:
    parser = _build_parser()
    args = parser.parse_args(argv)
    declined = None
    if args.command == "ask" and not (args.local or wants_local()):
        # Before anything heavy is imported: a running assistant answers in milliseconds.
        answered = _ask_running(args)
        if isinstance(answered, int):
            return answered
        declined = answered
    # pydantic looks for plugins in every installed package's entry points when it builds
    # its first model (a tenth of `assistant ask`'s start); the assistant uses none.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    from assistant.config import ConfigError, load_settings
    from common import install_log_redaction, redact_text

    # python-telegram-bot 22 warns on every 429 unless told to use timedeltas (its future API).
    os.environ.setdefault("PTB_TIMEDELTA", "true")
    try:
        settings = load_settings()
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    logging.basicConfig(
        level=settings.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    # On the handler: every record of every logger (telegram.*, httpx, ours) is scrubbed.
    install_log_redaction(*settings.secret_values())
    # httpx logs every URL at INFO, and a Bot API URL carries the bot token.
    for noisy in ("httpx", "httpcore"):
        logging.getLogger(noisy).setLevel(
            max(logging.WARNING, logging.getLevelName(settings.log_level))
        )
    if declined is not None:
        logger.debug("assistant ask answers in this process: %s", declined)
    handler: Callable[[argparse.Namespace, Settings], int] = args.handler
    try:
        status = handler(args, settings)
        sys.stdout.flush()  # a reader that went away shows here, not at exit
        return status
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return _reader_left()
    except Exception as exc:
        from assistant.asking import expected_failure, one_line

        if not expected_failure(exc):
            raise
        # One line for the person; the traceback stays in the log, at DEBUG.
        logger.debug("assistant %s failed", args.command or "chat", exc_info=exc)
        print(f"error: {redact_text(one_line(exc), settings.secret_values())}", file=sys.stderr)
        return 1


def _ask_running(args: argparse.Namespace) -> int | str:
    """Have the assistant running on the data directory answer ``ask``; return the exit
    status once it did, or why it did not (the command then answers in process)."""
    try:
        answered = ask_running(" ".join(args.text), as_json=args.json)
    except Unanswered as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    if isinstance(answered, Declined):
        return answered.reason
    try:
        return _print_answer(answered)
    except BrokenPipeError:
        return _reader_left()


def _print_answer(answer: Answer) -> int:
    """Print what ``ask`` answered; return its exit status."""
    sys.stdout.write(answer.stdout)
    # Flushed now: a warning written after it to the terminal starts on a line of its own.
    sys.stdout.flush()
    sys.stderr.write(answer.stderr)
    sys.stderr.flush()
    return answer.status


def _reader_left() -> int:
    """End quietly: what is still buffered for stdout goes nowhere instead of failing again
    when Python flushes it at exit."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return EXIT_BROKEN_PIPE


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="assistant",
        description="A personal assistant with tools and a persistent scheduler.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    parser.set_defaults(handler=_run_chat)

    chat = commands.add_parser("chat", help="chat in the terminal (the scheduler runs too)")
    chat.set_defaults(handler=_run_chat)

    ask = commands.add_parser(
        "ask",
        help="one turn, non-interactively, for scripts (a running assistant answers it)",
    )
    ask.add_argument("text", nargs="+", help="what to say")
    ask.add_argument("--json", action="store_true", help="print the reply as JSON")
    ask.add_argument(
        "--local",
        action="store_true",
        help="answer in this process even when an assistant runs (as ASSISTANT_ASK_LOCAL=1)",
    )
    ask.set_defaults(handler=_run_ask)

    call = commands.add_parser(
        "call", help="run one tool directly as the local user (asks before a gated call)"
    )
    call.add_argument("tool", help="the tool's name, as `assistant tools` lists it")
    call.add_argument(
        "arguments",
        nargs="?",
        help="a JSON object of its arguments (default {}; '-' reads it from stdin)",
    )
    call.add_argument("--json", action="store_true", help="print the result as JSON")
    call.set_defaults(handler=_run_call)

    tools = commands.add_parser("tools", help="print the tool catalog")
    tools.add_argument(
        "--format", choices=["markdown", "json", "openai"], default="markdown", dest="fmt"
    )
    tools.set_defaults(handler=_run_tools)

    schedule = commands.add_parser("schedule", help="preview how a schedule phrase resolves")
    schedule.add_argument("text", nargs="+", help='e.g. "every weekday at 9am"')
    schedule.add_argument("--now", help="a naive local time in --tz (default: now)")
    schedule.add_argument("--tz", help="IANA zone (default: ASSISTANT_TIMEZONE)")
    schedule.add_argument("--count", type=int, default=5, help="runs to show (recurring)")
    schedule.add_argument("--recurring", action="store_true", help="read it as recurring")
    schedule.add_argument("--json", action="store_true", help="print JSON")
    schedule.set_defaults(handler=_run_schedule)

    _add_calendar_commands(commands)

    tasks = commands.add_parser("tasks", help="list the local user's active tasks")
    tasks.add_argument("--json", action="store_true", help="print a JSON array")
    tasks.set_defaults(handler=_run_tasks)

    cancel = commands.add_parser("cancel", help="cancel a task")
    cancel.add_argument("task_id")
    cancel.set_defaults(handler=_run_cancel)

    runs = commands.add_parser("runs", help="show a task's run ledger")
    runs.add_argument("task_id")
    runs.add_argument("--json", action="store_true", help="print a JSON array")
    runs.set_defaults(handler=_run_runs)

    doctor = commands.add_parser(
        "doctor", help="check the data directory and the database: what is wrong, what to do"
    )
    doctor.set_defaults(handler=_run_doctor)

    backup = commands.add_parser("backup", help="back up the database (SQLite online backup)")
    backup.add_argument(
        "path",
        nargs="?",
        type=Path,
        help="a new file, or a folder (default: DATA_DIR/backups/manual-<time>.db)",
    )
    backup.set_defaults(handler=_run_backup)

    serve = commands.add_parser(
        "serve", help="run only the scheduler; deliveries go to a JSON Lines file"
    )
    serve.add_argument(
        "--sink",
        type=Path,
        help="the file deliveries are appended to (default: DATA_DIR/deliveries.jsonl)",
    )
    serve.set_defaults(handler=_run_serve)

    migrate = commands.add_parser(
        "migrate", help="copy the SQLite database into PostgreSQL and verify the counts"
    )
    migrate.add_argument(
        "--from",
        dest="source",
        help="sqlite:PATH of the database to copy (default: DATA_DIR/assistant.db)",
    )
    migrate.add_argument(
        "--to",
        dest="target",
        help="postgresql://... of an empty database (default: ASSISTANT_DATABASE_URL)",
    )
    migrate.set_defaults(handler=_run_migrate)

    web = commands.add_parser(
        "web", help="run the HTTP API and the web page (and the Telegram bot if configured)"
    )
    web.add_argument("--host", help="the address to listen on (default: ASSISTANT_WEB_HOST)")
    web.add_argument(
        "--port",
        type=_port,
        help="the port, 0 for any free one (it is printed); default: ASSISTANT_WEB_PORT",
    )
    web.set_defaults(handler=_run_web)

    telegram = commands.add_parser("telegram", help="run the Telegram bot")
    telegram.add_argument("--webhook-url", help="use a webhook instead of long polling")
    telegram.set_defaults(handler=_run_telegram)

    mcp = commands.add_parser(
        "mcp",
        help="serve the assistant over MCP on stdin/stdout (for desktop MCP clients); "
        "the scheduler does not run here",
    )
    mcp.add_argument(
        "--user",
        type=_mcp_id("--user"),
        help="who the client acts as: a Telegram user id, 'local' (the terminal's user, the "
        "default) or an API token's user",
    )
    mcp.add_argument(
        "--chat",
        type=_mcp_id("--chat"),
        help="where deliveries go (default: the user's home chat: the Telegram chat of a "
        "numeric id, the terminal's for 'local', else the web page's 'web:main')",
    )
    mcp.set_defaults(handler=_run_mcp)
    return parser


def _add_calendar_commands(commands: Any) -> None:
    """``export-ics`` and ``import-ics`` (docs/calendar.md)."""
    export = commands.add_parser(
        "export-ics", help="write the local user's tasks as an iCalendar (.ics) file"
    )
    export.add_argument("path", nargs="?", type=Path, help="the file to write (default: print it)")
    export.set_defaults(handler=_run_export_ics)
    imports = commands.add_parser(
        "import-ics",
        help="turn the events with alarms of an .ics file (or address) into reminders",
    )
    imports.add_argument("source", help="an .ics file, or its http(s):// or webcal:// address")
    imports.add_argument(
        "--yes", action="store_true", help="make the reminders without asking first"
    )
    imports.set_defaults(handler=_run_import_ics)


def _mcp_id(option: str) -> Callable[[str], str]:
    """The check of a user or chat id given to ``assistant mcp``."""

    def check(text: str) -> str:
        from interfaces.mcp import checked_id

        try:
            return checked_id(text, option)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return check


def _port(text: str) -> int:
    """A TCP port from 0 (any free one) to 65535."""
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a port: use 1 to 65535, or 0 for any free one"
        )
    return port


def _run(coroutine: Coroutine[Any, Any, int]) -> int:
    """Run the command's work, start-up over: what start-up made is kept out of later
    collections (it lives as long as the process) with the switch interval a scheduler wants
    (``common.runtime``), and collection resumes. A task the command cannot act on (unknown,
    not the user's, in the wrong state) is one line and status 1."""
    import asyncio

    from common import settle_process
    from tasks import TaskError

    settle_process()
    gc.enable()
    try:
        return asyncio.run(_until_terminated(coroutine))
    except TaskError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except asyncio.CancelledError:  # SIGTERM, after everything it opened was closed
        return EXIT_TERMINATED


async def _until_terminated(coroutine: Coroutine[Any, Any, int]) -> int:
    """Run ``coroutine``; SIGTERM cancels it, so that what it opened is closed (MCP server
    processes are stopped, the stores flushed) instead of the process ending where it stands.
    Front ends that stop cleanly on SIGTERM set their own handler over this one."""
    import asyncio
    import signal

    task = asyncio.current_task()
    assert task is not None  # asyncio.run runs this as a task
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, task.cancel)
    try:
        return await coroutine
    finally:
        loop.remove_signal_handler(signal.SIGTERM)


def _safe(text: str) -> str:
    from interfaces import terminal_safe

    return terminal_safe(text)


def _show(text: str) -> None:
    """Print text that holds what others wrote (replies, task descriptions, server answers)
    without the control sequences it may carry."""
    print(_safe(text))


def _json(value: object) -> str:
    """``value`` as indented JSON whose strings cannot drive the terminal."""
    from assistant.asking import json_text

    return json_text(value)


# -- schedule -------------------------------------------------------------------------------


def _run_schedule(args: argparse.Namespace, settings: Settings) -> int:
    from tasks import ScheduleError, preview_schedule, zone_from_name

    try:
        zone = zone_from_name(args.tz) if args.tz else settings.zone
        now_local = _parse_local(args.now) if args.now else None
        preview = preview_schedule(
            " ".join(args.text),
            now_local=now_local,
            tz=zone,
            count=args.count,
            recurring=True if args.recurring else None,
        )
    except ScheduleError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.json:
        print(preview.to_json())
        return 0
    print(preview.description)
    for instant in preview.next:
        print(f"  {instant.astimezone(zone).isoformat()}")
    return 0


def _parse_local(text: str) -> datetime:
    from tasks import ScheduleError

    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        raise ScheduleError(
            f"--now {text!r} is not an ISO 8601 local time; e.g. --now 2026-03-10T14:30"
        ) from None
    if parsed.tzinfo is not None:
        raise ScheduleError(
            f"--now {text!r} has an offset; give a naive local time and the zone with --tz"
        )
    return parsed


# -- commands that need the whole application ----------------------------------------------


def _run_tools(args: argparse.Namespace, settings: Settings) -> int:
    from agent.llm import encode_tools
    from assistant.app import open_app
    from tools import markdown_catalog, schema_document, tool_definitions

    async def go() -> int:
        from tools.mcp import Startup

        # Each server's state is part of the listing: their first attempts are waited for.
        async with open_app(settings, mcp_startup=Startup.WAIT, mcp_wait=ONE_SHOT_MCP_WAIT) as app:
            statuses, problems = app.mcp.statuses(), app.mcp.other_problems()
            if args.fmt == "markdown":
                print(markdown_catalog(app.registry), end="")
                # Each MCP tool says its server; this says how each server stands, and what
                # is wrong in the file beyond the servers it left out.
                if statuses or problems:
                    print("\n# MCP servers\n")
                    lines = [status.line() for status in statuses] + problems
                    print("\n".join(f"- {line}" for line in lines))
            elif args.fmt == "json":
                document = {
                    **schema_document(app.registry),
                    "mcp_servers": [status.as_json() for status in statuses],
                    "mcp_problems": problems,
                }
                print(json.dumps(document, indent=2, ensure_ascii=False))
            else:
                openai = encode_tools(tool_definitions(app.registry))
                print(json.dumps(openai, indent=2, ensure_ascii=False))
        return 0

    return _run(go())


def _run_call(args: argparse.Namespace, settings: Settings) -> int:
    from assistant.app import LOCAL_USER, open_app
    from assistant.call import CallInputError, call_tool, read_arguments
    from common import redact_secrets
    from interfaces import request_line
    from tools import ToolStatus

    try:
        text = sys.stdin.read() if args.arguments == "-" else args.arguments
        arguments = read_arguments(text)
    except CallInputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE

    from tools.mcp import Startup

    # Only the MCP server whose tool is called is started (an MCP tool is SERVER.TOOL).
    server, dot, _ = args.tool.partition(".")
    servers = [server] if dot else []

    async def go() -> int:
        with _stdout_to_stderr() if args.json else contextlib.nullcontext():
            async with open_app(
                settings,
                mcp_servers=servers,
                mcp_startup=Startup.WAIT,
                mcp_wait=ONE_SHOT_MCP_WAIT,
            ) as app:
                if app.registry.find(args.tool) is None:
                    why = app.mcp.why_unknown(args.tool)
                    unknown = (
                        f"Unknown tool {args.tool!r}: {why}"
                        if why
                        else app.registry.unknown_tool_message(args.tool)
                    )
                    print(f"error: {_safe(unknown)}", file=sys.stderr)
                    return EXIT_USAGE
                zone = await app.agent.user_zone(LOCAL_USER)

                async def decide(request: ApprovalRequest) -> bool | None:
                    question = f"Approve {request_line(request, zone)}? [y/n] "
                    return await _yes_or_no(_safe(question))

                outcome = await call_tool(app, args.tool, arguments, decide)
        result, waiting = outcome.result, outcome.waiting
        how = (
            f"request {waiting.id} waits for your approval: run `assistant chat` and type "
            f"/approve {waiting.id} or /deny {waiting.id} (before it expires)"
            if waiting
            else None
        )
        # A wrong call gets the message written for whoever wrote it (a model, a script):
        # every problem, what each argument accepts; else what a person reads.
        invalid = result.status is ToolStatus.INVALID
        shown = result.text if invalid else (result.display or result.text)
        if args.json:
            payload: dict[str, Any] = {
                "tool": result.call.tool_name,
                "status": "pending_approval" if waiting else result.status.value,
                "text": shown,
                "output": _plain(result.output) if result.ok else None,
            }
            if waiting:
                payload["approval"] = {
                    "id": waiting.id,
                    "tool": waiting.tool_name,
                    "arguments": redact_secrets(waiting.arguments),
                    "expires_at": waiting.expires_at.astimezone(zone).isoformat(),
                }
            print(_json(payload))
        elif waiting:
            _show(f"Waiting for your approval: {request_line(waiting, zone)}".rstrip())
            print(f"({how})", file=sys.stderr)
        elif result.ok:
            _show(shown)
        else:
            print(f"error: {_safe(shown)}", file=sys.stderr)
        # 0 ran, 2 a wrong call, 4 waits for approval, 1 failed, timed out or denied.
        if waiting:
            return EXIT_WAITING
        if result.ok:
            return 0
        return EXIT_USAGE if invalid else 1

    return _run(go())


async def _yes_or_no(question: str) -> bool | None:
    """Ask ``question`` at the terminal: ``True`` for y/yes, ``False`` for n/no, ``None``
    when there is no terminal to ask at (a script, a pipe) or no answer was given."""
    if not sys.stdin.isatty():
        return None
    print(question, end="", file=sys.stderr, flush=True)
    answer = await _terminal_line()
    word = (answer or "").strip().lower()
    if word in ("y", "yes"):
        return True
    return False if word in ("n", "no") else None


async def _terminal_line() -> str | None:
    """The next line typed at the terminal (``None`` at its end).

    Read by a daemon thread with ``os.read``, so that Ctrl-C ends the wait at once: the
    thread, blocked on a read nobody waits for, ends with the process (``input()`` in a
    worker thread kept the process until Enter, and a daemon thread inside ``sys.stdin``
    would hold its lock at exit).
    """
    import asyncio
    import threading

    loop = asyncio.get_running_loop()
    typed: asyncio.Future[str | None] = loop.create_future()

    def settle(line: str | None) -> None:
        if not typed.done():
            typed.set_result(line)

    def read() -> None:
        data = b""
        try:
            while not data.endswith(b"\n"):
                chunk = os.read(0, 1024)
                if not chunk:
                    break
                data += chunk
        except OSError:
            pass  # the terminal went away: what was read so far (or nothing) is the answer
        line = data.decode("utf-8", errors="replace") if data else None
        with contextlib.suppress(RuntimeError):  # the loop is gone: nobody waits
            loop.call_soon_threadsafe(settle, line)

    threading.Thread(target=read, name="terminal-line", daemon=True).start()
    return await typed


def _plain(value: object) -> object:
    """A tool's output as JSON can carry it, at any depth: records (dataclasses, pydantic
    models) as objects, enums as their values, times as ISO 8601, anything else as its text."""
    return json.loads(json.dumps(value, default=_jsonable))


def _jsonable(value: object) -> object:
    import dataclasses
    from enum import Enum

    from pydantic import BaseModel

    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, set | frozenset | tuple):
        return list(value)
    return str(value)


@contextlib.contextmanager
def _stdout_to_stderr() -> Iterator[None]:
    """Send everything written to file descriptor 1 to descriptor 2 until the block ends.

    llama.cpp and other native code write to the descriptors directly, past ``sys.stdout``;
    only moving the descriptor itself keeps their lines out of output meant for a program.
    """
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        os.dup2(2, 1)
        yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)


def _run_ask(args: argparse.Namespace, settings: Settings) -> int:
    from assistant.app import open_app
    from assistant.asking import answer_ask
    from tools.mcp import Startup

    # The MCP servers start only if a model's turn offers tools (the offline planner calls
    # none), and a server that is slow to start holds that one turn up only so long.
    said = " ".join(args.text)

    async def go() -> int:
        # With --json, stdout carries the JSON alone, whatever a native library prints.
        with _stdout_to_stderr() if args.json else contextlib.nullcontext():
            async with open_app(
                settings, mcp_startup=Startup.FIRST_USE, mcp_wait=ONE_SHOT_MCP_WAIT
            ) as app:
                with _told_in_the_reply(settings):
                    answer = await answer_ask(
                        app, said, as_json=args.json, secrets=settings.secret_values()
                    )
        return _print_answer(answer)

    return _run(go())


@contextlib.contextmanager
def _told_in_the_reply(settings: Settings) -> Iterator[None]:
    """Keep the agent's warnings about the turn (a model that failed, a caught claim) off the
    terminal: ``ask`` says them in its reply or its error. ``ASSISTANT_LOG_LEVEL=INFO`` or
    ``DEBUG`` shows them still."""
    agent_log = logging.getLogger("agent")
    # The model backends' and the planner's warnings (a server retried, a model switched to
    # the text contract) are not the turn's: they keep the level everything else has.
    kept = [logging.getLogger(name) for name in ("agent.llm", "agent.planner")]
    before = [agent_log.level, *(log.level for log in kept)]
    if logging.getLevelName(settings.log_level) >= logging.WARNING:
        for log in kept:
            log.setLevel(logging.getLogger().getEffectiveLevel())
        agent_log.setLevel(logging.ERROR)
    try:
        yield
    finally:
        for log, level in zip([agent_log, *kept], before, strict=True):
            log.setLevel(level)


def _run_tasks(args: argparse.Namespace, settings: Settings) -> int:
    from assistant.app import LOCAL_USER, open_app
    from interfaces import task_out
    from tasks import task_line

    async def go() -> int:
        async with open_app(settings, mcp_servers=False) as app:
            tasks = await app.tasks.list_tasks(LOCAL_USER)
            zone = await app.agent.user_zone(LOCAL_USER)
        now = app.clock.now()
        if args.json:
            # The HTTP API's shape (GET /tasks), times in the user's zone (``/tz`` sets it).
            rows = [task_out(t, zone, now).model_dump(mode="json") for t in tasks]
            print(_json(rows))
        elif not tasks:
            print("No active tasks.")
        else:
            for task in tasks:
                _show(task_line(task, zone, now))
        return 0

    return _run(go())


def _run_cancel(args: argparse.Namespace, settings: Settings) -> int:
    from assistant.app import LOCAL_USER, open_app

    async def go() -> int:
        async with open_app(settings, mcp_servers=False) as app:
            task = await app.tasks.cancel(args.task_id, owner_id=LOCAL_USER)
        _show(f"Cancelled {task.id}: {task.description}")
        return 0

    return _run(go())


def _run_runs(args: argparse.Namespace, settings: Settings) -> int:
    from assistant.app import LOCAL_USER, open_app

    async def go() -> int:
        async with open_app(settings, mcp_servers=False) as app:
            runs = await app.tasks.history(args.task_id, owner_id=LOCAL_USER)
            zone = await app.agent.user_zone(LOCAL_USER)
        rows = [_run_row(r, zone) for r in runs]
        if args.json:
            print(_json(rows))
        elif not rows:
            _show(f"Task {args.task_id} has not run yet.")
        else:
            for row in rows:
                detail = row["error"] or row["result"] or ""
                _show(f"{row['scheduled_for']}  {row['status']}  {detail}".rstrip())
        return 0

    return _run(go())


def _run_row(run: TaskRun, zone: ZoneInfo) -> dict[str, Any]:
    """A ledger row, its times in the user's zone (``/tz`` sets it)."""

    def iso(value: datetime | None) -> str | None:
        return value.astimezone(zone).isoformat() if value else None

    return {
        "id": run.id,
        "scheduled_for": iso(run.scheduled_for),
        "started_at": iso(run.started_at),
        "finished_at": iso(run.finished_at),
        "status": run.status.value,
        "attempt": run.attempt,
        "result": run.result,
        "error": run.error,
    }


def _run_migrate(args: argparse.Namespace, settings: Settings) -> int:
    import asyncio

    from assistant.config import ConfigError
    from assistant.migrate import MigrationError, migrate, source_path
    from common import is_postgres_url, redact_url
    from memory import MemoryStoreError
    from tasks import TaskError

    target = args.target or settings.postgres_url
    if target is None or not is_postgres_url(target):
        raise ConfigError(
            "give the target as --to postgresql://user:password@host:5432/database "
            "(or set ASSISTANT_DATABASE_URL)"
        )
    try:
        source = source_path(args.source or f"sqlite:{settings.database_path}")
        copied = asyncio.run(migrate(source, target))
    except (MigrationError, TaskError, MemoryStoreError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"Copied {source} into {redact_url(target)}; every count verified:")
    for entry in copied:
        print(f"  {entry.table:<22} {entry.source:>9} rows")
    print("The copied tables were vacuumed and analysed, as after any bulk load.")
    print("Set ASSISTANT_DATABASE_URL to it and restart the assistant.")
    return 0


# -- calendars --------------------------------------------------------------------------------


def _run_export_ics(args: argparse.Namespace, settings: Settings) -> int:
    import asyncio

    from assistant.app import LOCAL_USER, open_app
    from common import create_private_file

    path: Path | None = None if args.path is None else args.path.expanduser()
    refused = None if path is None else _unwritable(path)
    if refused is not None:
        print(f"error: {refused}", file=sys.stderr)
        return EXIT_USAGE

    async def go() -> int:
        async with open_app(settings, mcp_servers=False) as app:
            data = await app.calendars.export(LOCAL_USER)
        events = data.count(b"BEGIN:VEVENT")
        if path is None:
            sys.stdout.write(data.decode())
            return 0
        try:
            create_private_file(path)  # 0600 when new: it lists what the user plans to do
            await asyncio.to_thread(path.write_bytes, data)
        except OSError as exc:
            print(f"error: cannot write {path}: {exc.strerror or exc}", file=sys.stderr)
            return 1
        print(f"Wrote {events} event{'s' if events != 1 else ''} to {path}")
        return 0

    return _run(go())


def _unwritable(path: Path) -> str | None:
    """Why ``export-ics`` cannot write ``path`` (``None``: it can try)."""
    folder = path.parent
    if path.is_dir():
        return f"{path} is a folder; give the file's name in it, e.g. {path / 'tasks.ics'}"
    if not folder.exists():
        return (
            f"the folder {folder} does not exist; create it first (mkdir -p {folder}) or "
            "give a path in a folder that exists"
        )
    if not folder.is_dir():
        return f"{folder} is a file, not a folder; give a path in a folder"
    return None


def _run_import_ics(args: argparse.Namespace, settings: Settings) -> int:
    from assistant.app import LOCAL_CHAT, LOCAL_USER, open_app
    from calendars import CalendarError, IcsError, address_or_path, read_path

    try:
        where = address_or_path(args.source)
    except CalendarError as exc:
        print(f"error: {_safe(str(exc))}", file=sys.stderr)
        return EXIT_USAGE

    async def go() -> int:
        async with open_app(settings, mcp_servers=False) as app:
            try:
                data = (
                    await app.calendars.read_address(where)
                    if isinstance(where, str)
                    else read_path(where, max_bytes=app.calendars.max_file_bytes)
                )
                plan = await app.calendars.plan(LOCAL_USER, data)
            except CalendarError as exc:
                print(f"error: {_safe(str(exc))}", file=sys.stderr)
                # The file is the person's to correct (a usage error); an address that does
                # not answer is a failure.
                return EXIT_USAGE if isinstance(exc, IcsError) else 1
            zone = await app.agent.user_zone(LOCAL_USER)
            _show(plan.preview(zone, app.clock.now()))
            if not plan.items:
                return 0
            go_ahead = True if args.yes else await _yes_or_no("Make them? [y/n] ")
            if go_ahead is None:
                print("Nothing was made: run it at a terminal, or with --yes.", file=sys.stderr)
                return EXIT_WAITING
            if not go_ahead:
                print("Nothing was made.")
                return 0
            result = await app.calendars.apply(plan, user_id=LOCAL_USER, chat_id=LOCAL_CHAT)
        count = len(result.created)
        _show(f"Made {count} reminder{'s' if count != 1 else ''}: "
              + ", ".join(task.id for task in result.created) + ".")  # fmt: skip
        if result.error:
            print(f"error: {_safe(result.error)}", file=sys.stderr)
            return 1
        return 0

    return _run(go())


# -- the data directory ---------------------------------------------------------------------


def _run_doctor(args: argparse.Namespace, settings: Settings) -> int:
    from assistant.doctor import examine, examine_postgres, render

    url = settings.postgres_url
    if url is not None:
        findings = examine_postgres(
            settings.data_dir, settings.database_path, url, retention=settings.ledger_policy
        )
    else:
        today = datetime.now(UTC).date()
        findings = examine(
            settings.data_dir,
            settings.database_path,
            today=today,
            retention=settings.ledger_policy,
        )
    _show(render(findings))
    return 0 if all(f.ok for f in findings) else 1


def _run_backup(args: argparse.Namespace, settings: Settings) -> int:
    from assistant.backup import BackupError, back_up, manual_target

    if settings.postgres_url is not None:
        # The SQLite file may still be there after `assistant migrate`: copying it would
        # look like a backup of data it no longer holds.
        print(
            "error: ASSISTANT_DATABASE_URL puts every store in PostgreSQL, which `assistant "
            "backup` does not copy; back it up with the server's tools, e.g. pg_dump "
            '--format=custom --file=assistant.dump "$ASSISTANT_DATABASE_URL"',
            file=sys.stderr,
        )
        return 1
    now = datetime.now(UTC)
    target: Path = args.path or manual_target(settings.data_dir, now)
    if target.is_dir():
        target = target / manual_target(settings.data_dir, now).name
    try:
        made = back_up(settings.database_path, target)
    except BackupError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"Backed up {settings.database_path} to {made}")
    return 0


# -- interactive front ends -----------------------------------------------------------------


def _run_chat(args: argparse.Namespace, settings: Settings) -> int:
    from assistant.frontends import chat

    return _run(chat(settings))


def _run_serve(args: argparse.Namespace, settings: Settings) -> int:
    from assistant.frontends import serve

    return _run(serve(settings, sink=args.sink or settings.data_dir / "deliveries.jsonl"))


def _run_web(args: argparse.Namespace, settings: Settings) -> int:
    from assistant.frontends import web

    return _run(web(settings, host=args.host, port=args.port))


def _run_mcp(args: argparse.Namespace, settings: Settings) -> int:
    from assistant.app import LOCAL_USER
    from assistant.frontends import mcp

    if settings.postgres_url is None and not settings.data_dir.is_absolute():
        # A desktop client starts the server in a folder of its own: a relative data
        # directory there is a new, empty one, not the data the other front ends use.
        logger.warning(
            "assistant mcp uses the data directory %s, relative to the folder the MCP client "
            "started it in (ASSISTANT_DATA_DIR is %s); set ASSISTANT_DATA_DIR to an absolute "
            "path in the client's 'env' so that it uses the same data as your other front ends",
            settings.data_dir.resolve(),
            repr(str(settings.data_dir)) if "ASSISTANT_DATA_DIR" in os.environ else "not set",
        )
    return _run(mcp(settings, user=args.user or LOCAL_USER, chat=args.chat))


def _run_telegram(args: argparse.Namespace, settings: Settings) -> int:
    from assistant.frontends import telegram

    return _run(telegram(settings, webhook_url=args.webhook_url))


if __name__ == "__main__":
    raise SystemExit(main())

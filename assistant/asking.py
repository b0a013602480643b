"""One ``assistant ask`` turn and what it prints, written once: the command runs it in its
own process when no assistant is running, and a running assistant runs it for the command
(``assistant.askserver``); either way the person reads the same lines."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TextIO

from agent import AgentReply
from assistant.app import LOCAL_CHAT, LOCAL_USER, App
from assistant.askclient import Answer
from common import redact_secrets, redact_text
from interfaces import one_command, request_line, terminal_safe
from tasks import TaskError

if TYPE_CHECKING:
    from zoneinfo import ZoneInfo

logger = logging.getLogger("assistant")

EXIT_NO_ANSWER = 3
"""Exit status of ``assistant ask`` when the model could not answer (unreachable, too small a
context): the message says why."""

LOCAL_SCHEDULERS = "`assistant chat` or `assistant serve`"
"""The front ends that fire the local chat's tasks (``assistant telegram`` and ``assistant
web`` fire their own chats')."""
_SCHEDULING_TOOLS = frozenset(
    {"add_reminder", "add_recurring_task", "add_monitor", "morning_briefing"}
)
"""The tools whose success the note follows with where scheduled tasks fire."""


@dataclass(frozen=True, slots=True)
class Answerer:
    """What the process answering ``ask`` lets its notes say.

    Attributes:
        fires_here: Whether it fires the local chat's tasks itself (``assistant chat`` and
            ``assistant serve`` do), so a reminder needs no note on where it fires.
        decide: How the person decides an approval request, ``{id}`` standing for its id.
    """

    fires_here: bool
    decide: str

    @classmethod
    def holding_the_scheduler(cls, command: str, *, fires_here: bool) -> Answerer:
        """A front end that runs the data directory's one scheduler: ``assistant chat``
        cannot start beside it, so deciding a request means stopping it first."""
        return cls(
            fires_here,
            f"stop `{command}` (one scheduler runs on a data directory), then run "
            "`assistant chat` and type /approve {id} or /deny {id}",
        )


IN_PROCESS = Answerer(False, "run `assistant chat` and type /approve {id} or /deny {id}")
"""The command answering in its own process (or ``assistant mcp``, which fires nothing)."""


async def answer_ask(
    app: App,
    text: str,
    *,
    as_json: bool,
    secrets: Sequence[str],
    answerer: Answerer = IN_PROCESS,
) -> Answer:
    """Answer ``text`` as the local user in the local chat, as ``assistant ask`` does: a slash
    command as the terminal chat answers it, anything else by the agent.

    Args:
        app: The running application.
        text: What the person said.
        as_json: ``--json``: the answer is one JSON object on stdout.
        secrets: Values an error line must not show (``Settings.secret_values``).
        answerer: The process answering, for what its notes say.

    Returns:
        What to print on stdout and stderr, and the exit status: 0, 1 for a failure the
        person fixes (the data, the database: its message says how), 3 when the model could
        not answer.
    """
    try:
        if text.lstrip().startswith("/"):
            reply = AgentReply(await _slash_command(app, text))
        else:
            reply = await app.agent.handle_message(text, user_id=LOCAL_USER, chat_id=LOCAL_CHAT)
        zone = await app.agent.user_zone(LOCAL_USER)
    except TaskError as exc:  # a task the command cannot act on: unknown, not the user's
        return Answer("", f"error: {exc}\n", 1)
    except Exception as exc:
        if not expected_failure(exc):
            raise
        # One line for the person; the traceback stays in the log, at DEBUG.
        logger.debug("assistant ask failed", exc_info=exc)
        return Answer("", f"error: {redact_text(one_line(exc), secrets)}\n", 1)
    out, err = io.StringIO(), io.StringIO()
    note = _note(reply, answerer)
    status = _print_reply(reply, note, zone, as_json=as_json, out=out, err=err)
    return Answer(out.getvalue(), err.getvalue(), status)


def expected_failure(exc: BaseException) -> bool:
    """Whether ``exc`` is a failure a person fixes (its message says how), not a bug: the
    data directory or the database cannot be used, Telegram cannot be reached, a file
    cannot be written."""
    from assistant.datadir import DataError
    from interfaces.telegram import TelegramSetupError
    from memory import MemoryStoreError

    failures = (DataError, MemoryStoreError, TaskError, TelegramSetupError, OSError)
    return isinstance(exc, failures)


def one_line(exc: BaseException) -> str:
    """The message of ``exc`` on one line (its type's name when it has none)."""
    return " ".join(str(exc).split()) or type(exc).__name__


# JSON escapes C0 controls by itself; these would reach the terminal as they are.
_UNSAFE_IN_JSON = {c: f"\\u{c:04x}" for c in [*range(0x7F, 0xA0), *range(0x202A, 0x202F)]}
_UNSAFE_IN_JSON.update({c: f"\\u{c:04x}" for c in range(0x2066, 0x206A)})


def json_text(value: object) -> str:
    """``value`` as indented JSON whose strings cannot drive the terminal."""
    return json.dumps(value, ensure_ascii=False, indent=2).translate(_UNSAFE_IN_JSON)


def _note(reply: AgentReply, answerer: Answerer) -> str | None:
    """What ``ask`` adds to a reply: where scheduled tasks fire, how to decide an approval."""
    scheduled = any(
        r.ok
        and r.call.tool_name in _SCHEDULING_TOOLS
        and getattr(r.output, "task", None) is not None  # not the briefing stopped
        for r in reply.results
    )
    notes = []
    if scheduled and not answerer.fires_here:
        notes.append(f"Scheduled tasks fire while {LOCAL_SCHEDULERS} runs.")
    notes.extend(
        f"To decide request {a.id}, {answerer.decide.format(id=a.id)}." for a in reply.approvals
    )
    return " ".join(notes) or None


def _print_reply(
    reply: AgentReply,
    note: str | None,
    zone: ZoneInfo,
    *,
    as_json: bool,
    out: TextIO,
    err: TextIO,
) -> int:
    """Write ``ask``'s answer (as JSON with ``as_json``); return its exit status."""
    if as_json:
        payload = {
            "reply": reply.text,
            "failed": reply.failed,
            "tools": [
                {"tool": r.call.tool_name, "status": r.status.value, "text": r.text}
                for r in reply.results
            ],
            "approvals": [
                {"id": a.id, "tool": a.tool_name, "arguments": redact_secrets(a.arguments)}
                for a in reply.approvals
            ],
            "note": note,
        }
        print(json_text(payload), file=out)
    elif reply.failed:
        print(f"error: {terminal_safe(reply.text)}", file=err)
    else:
        if reply.text:
            print(terminal_safe(reply.text), file=out)
        for request in reply.approvals:
            waiting = f"Waiting for your approval: {request_line(request, zone)}"
            print(terminal_safe(waiting), file=out)
        if note:
            print(terminal_safe(f"({note})"), file=out)
    return EXIT_NO_ANSWER if reply.failed else 0


async def _slash_command(app: App, text: str) -> str:
    """A slash command, answered as the terminal chat answers it (never by the planner)."""
    commands = app.slash_commands(buttons=False, local_files=True)
    return await one_command(commands, text, user_id=LOCAL_USER, chat_id=LOCAL_CHAT)

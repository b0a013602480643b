"""``assistant mcp`` as a desktop MCP client starts it: a child process on stdio, driven by
the SDK's own client (issue 26).

The child does not run the scheduler: what it schedules lands in the SQLite file, and a test
then opens the application on the same data directory, in process, with a manual clock and a
recording notifier (or the Telegram bot against the Bot API stand-in) and fires it there.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from datetime import datetime
from pathlib import Path
from typing import BinaryIO

import pytest

from assistant.app import open_app
from assistant.cli import main
from assistant.config import Settings
from common import ManualClock
from interfaces.mcp import CHAT_TOOLS
from testing.botapi_standin import BotApiStandin
from tests.interfaces.app_harness import TOKEN, running_app_bot
from tests.interfaces.mcp.harness import (
    STDIO_ENV,
    ok,
    pending,
    stdio_client,
    text_of,
    upcoming,
)
from tests.interfaces.world import RecordingNotifier
from tools import ToolCall

WITHIN = 60  # seconds: a bound on a fresh Python process answering, never waited out


def _settings(data_dir: Path) -> Settings:
    """The settings the child ran with, for the application opened in process after it."""
    return Settings.model_validate({**STDIO_ENV, "ASSISTANT_DATA_DIR": str(data_dir)})


async def _fire_at(data_dir: Path, when: str) -> RecordingNotifier:
    """Open the application on ``data_dir`` at ``when`` (ISO 8601), fire what is due, and
    return what was delivered."""
    notifier = RecordingNotifier()
    clock = ManualClock(datetime.fromisoformat(when))
    async with open_app(_settings(data_dir), notifier=notifier, clock=clock) as app:
        await app.tasks.run_due()
    return notifier


async def test_a_client_lists_the_tools_and_a_reminder_fires_in_the_users_chat(
    tmp_path: Path,
) -> None:
    async with stdio_client(tmp_path) as client:
        listed = await client.list_tools()
        added = await client.call_tool(
            "add_reminder", {"when": "in 10 minutes", "message": "take the cake out"}
        )
        [resource] = (await client.list_resources()).resources
        [row] = await upcoming(client)
        instructions = client.instructions or ""

    assert [tool.name for tool in listed.tools] == [
        *CHAT_TOOLS,
        "ask",
        "approve_request",
        "deny_request",
    ]
    reply = ok(added)
    task = reply["task"]
    assert text_of(added).startswith(f"{reply['text']}\n(Scheduled tasks fire while ")
    assert task["next_run"].endswith("+01:00") and "(Europe/Berlin)" in task["next_run_text"]
    assert "this MCP server only adds them" in instructions
    assert str(resource.uri) == "tasks://upcoming"
    assert (row["id"], row["description"], row["next_run"]) == (
        task["id"],
        "take the cake out",
        task["next_run"],
    )

    delivered = await _fire_at(tmp_path, task["next_run"])
    assert [(d.task_id, d.chat_id, d.text) for d in delivered.deliveries] == [
        (task["id"], "local", "take the cake out")
    ]


async def test_the_chat_flag_says_where_deliveries_go(tmp_path: Path) -> None:
    async with stdio_client(tmp_path, "--user", "alice", "--chat", "web:desk") as client:
        task = ok(await client.call_tool("add_reminder", {"when": "in 1 hour", "message": "tea"}))

    delivered = await _fire_at(tmp_path, task["task"]["next_run"])
    assert [(d.owner_id, d.chat_id) for d in delivered.deliveries] == [("alice", "web:desk")]


async def test_bad_arguments_get_the_words_chat_gives(tmp_path: Path) -> None:
    calls = [
        ToolCall("add_reminder", {"when": "yesterday at 9", "message": "x"}),
        ToolCall("add_reminder", {"message": "no time"}),
        ToolCall("snooze_task", {"task_id": "nosuch", "delay": "10m"}),
        ToolCall("add_recurring_task", {"schedule": "every day", "task_type": "poem"}),
    ]
    async with stdio_client(tmp_path, "--user", "bob") as client:
        results = [await client.call_tool(c.tool_name, c.arguments) for c in calls]
        unknown = await client.call_tool("execute_code", {"code": "print(1)"})

    async with open_app(_settings(tmp_path)) as app:
        ctx = await app.agent.tool_context("bob", "web:main")
        expected = [(await app.executor.execute(call, ctx)).text for call in calls]
    assert [(r.is_error, text_of(r)) for r in results] == [(True, text) for text in expected]
    assert "could not read 'yesterday at 9'" in expected[0]
    assert "missing required argument 'when'" in expected[1]
    assert unknown.is_error
    assert text_of(unknown).startswith("there is no tool 'execute_code' here; the tools are")


_DAY = [
    "the calendar events of today with their times and places",
    "the reminders due today",
    "the notes tagged #today",
    "yesterday's failed tasks, with the reason each gave",
    "the weather for Berlin in one line",
]


async def test_a_gated_call_waits_and_runs_only_with_its_exact_arguments(tmp_path: Path) -> None:
    arguments = {
        "schedule": "every day at 7am",
        "task_type": "api_call",
        "description": "morning brief",
        # Long enough that a refusal quoting it must not cut it.
        "execution_data": {
            "method": "POST",
            "url": "https://brief.example.com/today",
            "body": {"sections": _DAY},
        },
    }
    async with stdio_client(tmp_path) as client:
        waits = await client.call_tool("add_recurring_task", arguments)
        request = pending(waits)
        nothing_yet = await upcoming(client)
        elsewhere = {"method": "POST", "url": "https://mail.example.net/out"}
        changed = {**request["arguments"], "execution_data": elsewhere}
        refused = await client.call_tool(
            "approve_request",
            {"request_id": request["id"], "tool": request["tool"], "arguments": changed},
        )
        approved = await client.call_tool(
            "approve_request",
            {"request_id": request["id"], "tool": request["tool"], "arguments": arguments},
        )
        again = await client.call_tool("deny_request", {"request_id": request["id"]})
        scheduled = await upcoming(client)

    assert (request["tool"], request["arguments"]) == ("add_recurring_task", arguments)
    assert f"request {request['id']} to run add_recurring_task" in text_of(waits)
    assert nothing_yet == []
    assert refused.is_error
    assert text_of(refused).startswith(
        f"request {request['id']} was not approved and nothing ran: the approval's arguments "
        "differ from the request's in 'execution_data'"
    )
    # The request's arguments in full, to be repeated.
    as_sent = json.dumps(arguments, sort_keys=True, separators=(",", ":"))
    assert text_of(refused).endswith(f"with {as_sent}")
    turn = ok(approved)
    assert turn["decision"].startswith(
        f"Request {request['id']} was approved and add_recurring_task ran: Scheduled the HTTP "
        "call 'morning brief' every day at 07:00 (Europe/Berlin)"
    )
    assert text_of(approved).count("Scheduled the HTTP call") == 1  # said once, not twice
    assert again.is_error and "already approved" in text_of(again)
    assert [(t["type"], t["description"]) for t in scheduled] == [("api_call", "morning brief")]


_HANDSHAKE = [
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"},
        },
    },
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
]


async def _started(data_dir: Path, stderr: BinaryIO, **env: str) -> asyncio.subprocess.Process:
    """``assistant mcp`` on ``data_dir`` with pipes for stdin and stdout, after the handshake
    (its answer read)."""
    variables = {**STDIO_ENV, "ASSISTANT_DATA_DIR": str(data_dir), **env}
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "assistant.cli", "mcp",
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=stderr, env=variables, cwd=data_dir,
    )  # fmt: skip
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write("".join(json.dumps(m) + "\n" for m in _HANDSHAKE).encode())
    answer = json.loads(await asyncio.wait_for(process.stdout.readline(), WITHIN))
    assert answer["id"] == 1 and "result" in answer
    return process


async def test_stdout_carries_only_the_protocol(tmp_path: Path) -> None:
    # A custom tool that prints as it loads, before the server has begun: a short line, and
    # one long enough to leave Python's buffer at once.
    (tmp_path / "custom_tools").mkdir()
    (tmp_path / "custom_tools" / "noisy.py").write_text(
        "print('NOISY ' + 'x' * 9000)\nprint('noisy too')\n", encoding="utf-8"
    )
    log = tmp_path / "stderr.txt"
    with log.open("wb") as stderr:  # a file: a pipe nobody reads would fill and stop the child
        process = await _started(tmp_path, stderr, ASSISTANT_LOG_LEVEL="DEBUG")
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "get_current_time", "arguments": {"tz": "Asia/Tokyo"}}}  # fmt: skip
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write((json.dumps(call) + "\n").encode())
    # The input stays open until the answer came: its end ends the server.
    answer = json.loads(await asyncio.wait_for(process.stdout.readline(), WITHIN))
    process.stdin.close()
    code = await asyncio.wait_for(process.wait(), WITHIN)

    assert await process.stdout.read() == b""
    assert answer["id"] == 2
    assert "Asia/Tokyo" in answer["result"]["content"][0]["text"]
    assert " DEBUG " in log.read_text()  # the log went to stderr
    assert "NOISY" in log.read_text() and "noisy too" in log.read_text()  # and the prints
    assert code == 0


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
async def test_a_signal_stops_the_server_while_its_input_stays_open(
    tmp_path: Path, signum: signal.Signals
) -> None:
    with (tmp_path / "stderr.txt").open("wb") as stderr:
        process = await _started(tmp_path, stderr)
    process.send_signal(signum)  # Ctrl-C at a terminal, or a client stopping it

    # Its input is still open: before, only the end of it stopped the server.
    code = await asyncio.wait_for(process.wait(), 20)

    assert code == 0
    assert process.stdin is not None
    process.stdin.close()


def test_a_bad_user_id_is_refused_with_what_an_id_may_be(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["mcp", "--user", "alice smith"])
    assert exit_.value.code == 2
    assert "--user 'alice smith' is not an id: use letters, digits" in capsys.readouterr().err


@pytest.fixture
async def api() -> AsyncIterator[BotApiStandin]:
    """A stand-in whose token has the shape the settings accept."""
    async with BotApiStandin(token=TOKEN) as server:
        yield server


async def test_a_recurring_reminder_made_over_mcp_fires_in_telegram(
    tmp_path: Path, api: BotApiStandin
) -> None:
    """Issue 26, done when: a desktop MCP client configured with ``assistant mcp`` creates a
    recurring reminder, which then fires in Telegram."""
    async with stdio_client(tmp_path, "--user", "4242") as client:
        made = await client.call_tool(
            "add_recurring_task",
            {"schedule": "every day at 8am", "task_type": "reminder", "description": "stretch"},
        )
    task = ok(made)["task"]
    assert task["schedule"] == "every day at 08:00 (Europe/Berlin)"

    api.add_chat(4242)  # the user started the bot once, as Telegram requires
    clock = ManualClock(datetime.fromisoformat(task["next_run"]))
    async with running_app_bot(api, tmp_path, clock=clock, allowed_users=(4242,)) as bot:
        assert await bot.app.tasks.run_due() == 1
        [message] = await api.wait_for_messages(4242, 1)
    assert message.text == "⏰ Reminder: stretch"


def test_a_data_directory_relative_to_the_clients_folder_is_warned_of(tmp_path: Path) -> None:
    env = {**STDIO_ENV, "PATH": os.environ.get("PATH", ""), "ASSISTANT_DATA_DIR": "data"}
    done = subprocess.run(
        [sys.executable, "-m", "assistant.cli", "mcp"],
        input="",  # the client leaves at once
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=WITHIN,
        check=False,
    )

    assert done.returncode == 0 and done.stdout == ""
    assert (
        f"assistant mcp uses the data directory {tmp_path / 'data'}, relative to the folder "
        "the MCP client started it in (ASSISTANT_DATA_DIR is 'data')"
    ) in done.stderr

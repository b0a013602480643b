"""MCP servers' tools in the whole assistant: in chat, in scheduled agent tasks, in the
catalogs, and against content that tries to steer the model (real server processes; the
model is scripted, time is a manual clock)."""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from agent.llm import ChatMessage, LLMResponse, Role, ScriptedBackend, ToolMode
from assistant.app import LOCAL_CHAT, LOCAL_USER, App, open_app
from assistant.config import load_settings
from common import ManualClock
from tasks import RunStatus, Task, TaskDataError, parse_schedule
from tests.agent.agent_world import fence, native
from tests.assistant.test_cli import run
from tests.tasks.conftest import RecordingNotifier
from tests.tools.mcp.harness import TOKEN, WAIT, HttpToolbox, recorded, toolbox
from tools import ToolStatus, people_catalog
from tools.mcp import ServerState

START = datetime(2026, 3, 10, 9, 0, tzinfo=UTC)
Script = Callable[[Sequence[ChatMessage]], str | LLMResponse]


class Secrets:
    """The ``${NAME}`` values the app is given (``tasks.SecretSource``)."""

    def __init__(self, **values: str) -> None:
        self._values = values

    def secret(self, name: str) -> str:
        if name not in self._values:
            raise TaskDataError(f"${{{name}}} is not set")
        return self._values[name]


@pytest.fixture
def calls(tmp_path: Path) -> Path:
    return tmp_path / "calls.jsonl"


@asynccontextmanager
async def app_with(
    tmp_path: Path,
    servers: dict[str, Any],
    script: Script,
    *,
    mode: ToolMode = ToolMode.CONTRACT,
    chat: RecordingNotifier | None = None,
    clock: ManualClock | None = None,
    order: str = "model-first",
) -> AsyncIterator[App]:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    settings = load_settings(
        data_dir=tmp_path / "data",
        timezone="Europe/Berlin",
        llm_order=order,
        mcp_config=path,
    )
    async with open_app(
        settings,
        backend=ScriptedBackend(script, mode=mode),
        clock=clock or ManualClock(START),
        notifier=chat,
        secrets=Secrets(TOOLBOX_TOKEN=TOKEN),
    ) as app:
        yield app


async def say(app: App, text: str) -> Any:
    return await app.agent.handle_message(text, user_id=LOCAL_USER, chat_id=LOCAL_CHAT)


async def run_agent_task(app: App, clock: ManualClock, description: str, prompt: str) -> Task:
    """Schedule an agent task a minute ahead, move the clock there, and run what is due."""
    task = await app.tasks.add_task(
        owner_id=LOCAL_USER,
        chat_id=LOCAL_CHAT,
        task_type="agent_task",
        schedule=parse_schedule("in 1 minute", now=clock.now(), tz="Europe/Berlin"),
        description=description,
        execution_data={"prompt": prompt},
    )
    clock.advance(timedelta(minutes=1))
    assert await app.tasks.run_due() == 1
    return task


def contract(tool: str, args: dict[str, Any]) -> str:
    """A call in the text contract (for arguments ``fence`` cannot take by keyword)."""
    return f"```json\n{json.dumps({'tool': tool, 'args': args})}\n```"


def last_tool_text(messages: Sequence[ChatMessage]) -> str | None:
    return messages[-1].content if messages[-1].role is Role.TOOL else None


def looks_up(messages: Sequence[ChatMessage]) -> str:
    """Looks the word up in the toolbox, then answers with what it said."""
    if (answer := last_tool_text(messages)) is not None:
        return f"The toolbox says: {answer.rsplit('[ok]: ', 1)[-1]}"
    return fence("toolbox.lookup", word="ember")


async def test_the_model_calls_an_mcp_tool_in_chat(tmp_path: Path, calls: Path) -> None:
    servers = {"toolbox": toolbox(calls, readOnly=["lookup"])}
    async with app_with(tmp_path, servers, looks_up) as app:
        reply = await say(app, "what does the toolbox know about ember?")
    [result] = reply.results
    assert (result.call.tool_name, result.status) == ("toolbox.lookup", ToolStatus.OK)
    assert "ember: a word the toolbox knows" in reply.text
    assert recorded(calls) == ["lookup"]


async def test_a_native_call_of_an_http_servers_tool_in_chat(tmp_path: Path, calls: Path) -> None:
    with HttpToolbox(calls) as http:
        servers = {
            "remote": {
                "url": http.url,
                "headers": {"Authorization": "Bearer ${TOOLBOX_TOKEN}"},
                "readOnly": ["lookup"],
            }
        }
        offered: list[str] = []

        def model(messages: Sequence[ChatMessage]) -> LLMResponse:
            if (answer := last_tool_text(messages)) is not None:
                return LLMResponse(text=f"It says: {answer}")
            return native("remote.lookup", word="ember")

        async with app_with(tmp_path, servers, model, mode=ToolMode.NATIVE) as app:
            reply = await say(app, "look ember up")
            backend = app.model.backend if app.model is not None else None
            assert isinstance(backend, ScriptedBackend)
            offered = [each.name for each in backend.calls[0].tools or ()]
    assert reply.text == "It says: ember: a word the toolbox knows"
    assert "remote.lookup" in offered and "add_reminder" in offered


async def test_a_scheduled_agent_task_calls_an_mcp_tool_and_its_answer_is_delivered(
    tmp_path: Path, calls: Path
) -> None:
    chat, clock = RecordingNotifier(), ManualClock(START)
    servers = {"toolbox": toolbox(calls, readOnly=["lookup"])}
    async with app_with(tmp_path, servers, looks_up, chat=chat, clock=clock) as app:
        task = await run_agent_task(app, clock, "word of the day", "look up ember in the toolbox")
        [done] = await app.tasks.history(task.id, LOCAL_USER)
    assert done.status is RunStatus.SUCCEEDED
    assert chat.texts() == ["word of the day\n\nThe toolbox says: ember: a word the toolbox knows"]
    assert recorded(calls) == ["lookup"]


async def test_a_scheduled_run_meets_a_gated_mcp_tool_as_any_gated_tool_nothing_runs(
    tmp_path: Path, calls: Path
) -> None:
    def model(messages: Sequence[ChatMessage]) -> str:
        call = contract("toolbox.add_item", {"name": "nails"})
        return f"Adding the nails; it waits for your approval.\n{call}"

    chat, clock = RecordingNotifier(), ManualClock(START)
    async with app_with(
        tmp_path, {"toolbox": toolbox(calls)}, model, chat=chat, clock=clock
    ) as app:
        await run_agent_task(app, clock, "restock", "add nails to the stock with the toolbox")
        [waiting] = await app.memory.list_approvals(LOCAL_USER)  # what /approvals shows
    assert recorded(calls) == []
    assert chat.texts() == ["restock\n\nAdding the nails; it waits for your approval."]
    assert (waiting.tool_name, waiting.arguments) == ("toolbox.add_item", {"name": "nails"})


def obedient(messages: Sequence[ChatMessage]) -> str:
    """A model that does what the last thing it read says (as small models do)."""
    last = messages[-1]
    if last.role is Role.USER:
        return fence("toolbox.weather", city="Oslo")
    if last.role is Role.TOOL and "IMPORTANT SYSTEM NOTICE" in last.content:
        return "\n".join(
            [
                fence("execute_code", code="import os; os.system('rm -rf ~')"),
                contract("toolbox.add_item", {"name": "stolen"}),
                fence("save_note", content="the assistant was updated"),
            ]
        )
    return "Done."


async def test_an_answer_that_steers_the_model_cannot_run_a_gated_tool_without_approval(
    tmp_path: Path, calls: Path
) -> None:
    servers = {"toolbox": toolbox(calls, readOnly=["weather"])}
    async with app_with(tmp_path, servers, obedient) as app:
        reply = await say(app, "what is the weather in Oslo?")
        notes = await app.memory.list_notes(LOCAL_USER)
        pending = {request.tool_name: request for request in reply.approvals}
        assert set(pending) == {"execute_code", "toolbox.add_item", "save_note"}
        assert recorded(calls) == ["weather"]
        assert notes == []
        assert "follows content from toolbox.weather's answer" in pending["save_note"].reason
        # Approved by the person, exactly as asked: then it runs, once.
        await app.agent.resolve_approval(
            pending["toolbox.add_item"].id, approved=True, by=LOCAL_USER
        )
    assert recorded(calls) == ["weather", "add_item"]


async def test_a_description_that_steers_the_model_cannot_run_a_gated_tool_either(
    tmp_path: Path, calls: Path
) -> None:
    prompts: list[str] = []

    def model(messages: Sequence[ChatMessage]) -> str:
        prompts.append(messages[0].content)
        if messages[-1].role is Role.USER and "always call execute_code" in messages[0].content:
            return fence("execute_code", code="print('updated')")
        return "Done."

    async with app_with(tmp_path, {"toolbox": toolbox(calls)}, model) as app:
        reply = await say(app, "translate 'hello'")
    [request] = reply.approvals
    assert request.tool_name == "execute_code"
    line = next(x for x in prompts[0].splitlines() if x.startswith("- toolbox.translate("))
    assert line.startswith("- toolbox.translate(text: string): Translate text. IMPORTANT:")
    assert "\x1b" not in prompts[0] and "\u202e" not in prompts[0]


async def test_a_servers_new_tools_reach_the_models_catalog_at_the_next_round(
    tmp_path: Path, calls: Path
) -> None:
    prompts: list[str] = []

    def model(messages: Sequence[ChatMessage]) -> str:
        prompts.append(messages[0].content)
        asked = [m for m in messages if m.role is Role.USER][-1].content
        if messages[-1].role is Role.USER and "grow" in asked:
            return fence("toolbox.grow")
        return "Done."

    async with app_with(tmp_path, {"toolbox": toolbox(calls, readOnly=True)}, model) as app:
        await say(app, "grow the toolbox")
        async with asyncio.timeout(WAIT):
            await app.mcp.wait_for(lambda: "toolbox.extra" in app.registry)
        await say(app, "what can you do now?")
        tools_line = people_catalog(app.agent.available_tools())
    assert "- toolbox.lookup(" in prompts[0] and "- toolbox.extra(" not in prompts[0]
    assert "- toolbox.extra(n: integer)" in prompts[-1] and "- toolbox.lookup(" not in prompts[-1]
    assert "- toolbox.extra(n): Double a number. (from MCP server 'toolbox')" in tools_line


async def test_a_server_that_never_answers_holds_up_neither_the_scheduler_nor_the_planner(
    tmp_path: Path,
) -> None:
    hangs = {"command": sys.executable, "args": ["-c", "import time; time.sleep(600)"]}
    chat = RecordingNotifier()
    clock = ManualClock(START)

    def script(messages: Sequence[ChatMessage]) -> str:
        raise AssertionError("the model was asked: the planner answers this")

    servers = {"hangs": hangs}
    async with app_with(
        tmp_path, servers, script, chat=chat, clock=clock, order="planner-first"
    ) as app:
        # The app is ready while the server is still in its first attempt.
        [status] = app.mcp.statuses()
        made = await app.agent.handle_message(
            "remind me in 1 minute to stretch", user_id=LOCAL_USER, chat_id=LOCAL_CHAT
        )
        clock.advance(timedelta(minutes=1))
        fired = await app.tasks.run_due()
    assert status.state is ServerState.STARTING
    assert "stretch" in made.text
    assert fired == 1 and [d.text for d in chat.deliveries] == ["stretch"]


async def test_a_broken_configuration_is_said_and_the_assistant_still_starts(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "mcp.json"
    path.write_text('{"mcpServers": {"files": {"command": "npx",}}}', encoding="utf-8")
    settings = load_settings(data_dir=tmp_path / "data", mcp_config=path)
    with caplog.at_level(logging.WARNING):
        async with open_app(settings, clock=ManualClock(START)) as app:
            reply = await say(app, "remind me in 5 minutes to stretch")
            assert app.mcp.statuses() == []
    assert "reminder" in reply.text.lower() or "stretch" in reply.text
    [line] = [r.getMessage() for r in caplog.records if "mcp.json" in r.getMessage()]
    assert line == (
        f"{path}: not valid JSON at line 1, column 44: Expecting property name enclosed in "
        "double quotes; no MCP servers were loaded from it"
    )


@pytest.fixture
def data_dir(tmp_path: Path, calls: Path) -> Iterator[Path]:
    folder = tmp_path / "data"
    folder.mkdir()
    servers = {
        "toolbox": toolbox(calls, readOnly=["lookup"]),
        "gone": {"command": "no-such-mcp"},
        "typo": {"comand": "npx"},
        "off": {"command": "npx", "disabled": True},
    }
    (folder / "mcp.json").write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    yield folder


def test_assistant_tools_lists_mcp_tools_with_their_server(data_dir: Path) -> None:
    listed = run("tools", data_dir=data_dir).stdout
    document = json.loads(run("tools", "--format", "json", data_dir=data_dir).stdout)

    assert "## `toolbox.lookup`" in listed
    assert "*from MCP server 'toolbox'; risk: low; timeout: 60 s*" in listed
    assert "*from MCP server 'toolbox'; risk: medium; timeout: 60 s; may need approval*" in listed
    servers = listed.split("# MCP servers\n\n", 1)[1].splitlines()
    assert servers[0].startswith("- toolbox (stdio: ") and " tools" in servers[0]
    assert servers[1:] == [
        "- gone (stdio: no-such-mcp): failed, the command 'no-such-mcp' was not found on PATH; "
        "install it, or give its full path in 'command'",
        f"- typo: left out, {data_dir / 'mcp.json'}: MCP server 'typo' has neither 'command' nor "
        "'url': give 'command' (and 'args') for a server the assistant starts, or 'url' for one "
        "it reaches over HTTP; the server was left out",
        f"- off: disabled, in {data_dir / 'mcp.json'}",
        f"- {data_dir / 'mcp.json'}: MCP server 'typo': the key 'comand' is not one the assistant "
        "reads (did you mean 'command'? it reads type, command, args, env, cwd, url, headers, "
        "readOnly, timeout, disabled); it was ignored",
    ]
    origins = {each["name"]: each.get("origin") for each in document["tools"]}
    assert origins["toolbox.lookup"] == "MCP server 'toolbox'"
    assert origins["add_reminder"] is None
    # The JSON says how each server stands too, for scripts.
    states = {each["name"]: each["state"] for each in document["mcp_servers"]}
    assert states == {"toolbox": "up", "gone": "failed", "typo": "left out", "off": "disabled"}
    assert document["mcp_problems"] == [
        f"{data_dir / 'mcp.json'}: MCP server 'typo': the key 'comand' is not one the assistant "
        "reads (did you mean 'command'? it reads type, command, args, env, cwd, url, headers, "
        "readOnly, timeout, disabled); it was ignored"
    ]


@pytest.mark.parametrize(
    ("written", "problem"),
    [
        (
            '{"mcpServers": {"files": {"command": "npx",}}}',
            "not valid JSON at line 1, column 44",
        ),
        (None, "the file ASSISTANT_MCP_CONFIG names does not exist"),
    ],
)
def test_a_configuration_that_loads_no_server_is_said_by_tools_and_call(
    tmp_path: Path, written: str | None, problem: str
) -> None:
    path = tmp_path / "elsewhere.json"
    if written is not None:
        path.write_text(written, encoding="utf-8")
    env = {"ASSISTANT_MCP_CONFIG": str(path)}

    listed = run("tools", data_dir=tmp_path, env=env).stdout
    called = run("call", "files.read", "{}", data_dir=tmp_path, env=env, check=False)

    section = listed.split("# MCP servers\n\n", 1)[1]
    assert section.startswith(f"- {path}: ") and problem in section
    assert called.returncode == 2
    said = called.stderr.splitlines()[-1]  # after the log's warning
    assert said.startswith(
        "error: Unknown tool 'files.read': the MCP configuration loaded no server: "
    )
    assert problem in said

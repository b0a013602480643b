"""``/mcp`` of ``assistant web``: Streamable HTTP behind the API's bearer tokens, driven by
the SDK's own client against the web front end served by uvicorn on 127.0.0.1 (issue 26).

The web front end runs the scheduler with a manual clock: what a caller schedules over MCP
fires in this process, into the caller's home chat, when the test moves the clock.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import httpx
import pytest

from agent.llm import ScriptedBackend
from interfaces.mcp import CHAT_TOOLS
from tasks import DeliveryKind
from tests.interfaces.mcp.harness import (
    http_client,
    ok,
    pending,
    structured,
    text_of,
    upcoming,
)
from tests.interfaces.web.harness import ALICE_TOKEN, BOB_TOKEN, HeldBackend, Web, running_web
from tests.interfaces.world import fence
from tools import ToolCall


@pytest.fixture
async def web(tmp_path: Path) -> AsyncIterator[Web]:
    """The web front end with alice's and bob's tokens, the offline planner, Berlin time."""
    async with running_web(tmp_path) as running:
        yield running


async def test_without_a_valid_token_mcp_answers_401_and_nothing_else(web: Web) -> None:
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}
    async with httpx.AsyncClient(base_url=web.url) as client:
        none = await client.post("/mcp", json=initialize)
        wrong = await client.post(
            "/mcp", json=initialize, headers={"Authorization": "Bearer not-a-token-of-ours"}
        )
    for refused in (none, wrong):
        assert refused.status_code == 401
        assert refused.json() == {
            "detail": "a valid API token is needed: send the header 'Authorization: Bearer "
            "<token>' with a token from ASSISTANT_API_TOKENS"
        }


async def test_a_get_for_a_stream_is_405_and_holds_nothing_open(web: Web) -> None:
    headers = {"Authorization": f"Bearer {ALICE_TOKEN}", "Accept": "text/event-stream"}
    async with httpx.AsyncClient(base_url=web.url, timeout=10) as client:
        answered = await client.get("/mcp", headers=headers)
        refused = await client.get("/mcp")

    # The answer came whole (an open stream would have held the request): nothing is left
    # for the web server's stop to wait out.
    assert answered.status_code == 405
    assert answered.headers["allow"] == "POST"
    assert "send each request with POST" in answered.json()["detail"]
    assert refused.status_code == 401  # the token is checked first, as for every route


async def test_the_tools_are_chats_with_chats_names_descriptions_and_schemas(web: Web) -> None:
    async with http_client(web) as client:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
        instructions = client.instructions or ""

    registry = web.front.app.registry
    for name in CHAT_TOOLS:
        ours = registry[name]
        assert (listed[name].description, listed[name].input_schema) == (
            ours.description,
            ours.schema(None),
        )
    assert listed["list_tasks"].annotations is not None
    assert listed["list_tasks"].annotations.read_only_hint is True
    assert listed["cancel_task"].annotations is not None
    assert listed["cancel_task"].annotations.destructive_hint is True
    assert listed["approve_request"].input_schema["required"] == [
        "request_id",
        "tool",
        "arguments",
    ]
    # This process fires what is scheduled: nothing to say about another one.
    assert "this MCP server only adds them" not in instructions


async def test_a_reminder_made_over_mcp_fires_here_into_the_users_web_chat(web: Web) -> None:
    async with http_client(web) as client:
        made = await client.call_tool("add_reminder", {"when": "in 5 minutes", "message": "tea"})
    task = ok(made)["task"]
    assert (
        text_of(made)
        == f"I'll remind you today at 13:05 (Europe/Berlin) to tea (task {task['id']})."
    )

    web.clock.advance(timedelta(minutes=5))
    await web.run_due()  # it or the front end's own timer fires it
    [item] = web.front.interface.services.inbox.after("alice", None)
    assert (item.delivery.task_id, item.delivery.chat_id, item.delivery.text) == (
        task["id"],
        "web:main",
        "tea",
    )


async def test_quiet_hours_done_and_the_briefing_over_mcp_act_as_in_chat(web: Web) -> None:
    tasks = web.front.app.tasks
    inbox = web.front.interface.services.inbox

    async def tick(minutes: int) -> None:
        """Let the minutes pass; the front end's own scheduler may fire first."""
        web.clock.advance(timedelta(minutes=minutes))
        await web.run_due()
        await tasks.wait_idle()
        await tasks.release_due()

    async with http_client(web) as client:
        quiet = await client.call_tool("quiet_hours", {"hours": "13:00-13:30"})
        ok(await client.call_tool("add_reminder", {"when": "in 5 minutes", "message": "tea"}))
        nag = ok(
            await client.call_tool(
                "add_reminder", {"when": "in 40 minutes", "message": "call the bank", "nag": "5m"}
            )
        )
        briefing = await client.call_tool("morning_briefing", {"at": "7:30"})

        await tick(5)
        assert inbox.after("alice", None) == []  # quiet: held
        assert [each.delivery.text for each in await tasks.held("alice")] == ["tea"]
        await tick(25)
        await tick(10)  # the nag's first time
        done = await client.call_tool("acknowledge_task", {"task_id": nag["task"]["id"]})
        await tick(5)  # done: it does not come again
        await tick(5)

    assert "from 13:00 to 13:30 (Europe/Berlin)" in text_of(quiet)
    assert "every day at 07:30 (Europe/Berlin)" in text_of(briefing)
    assert text_of(done) == f"Done: task {nag['task']['id']} ('call the bank') will not repeat."
    assert [item.delivery.text for item in inbox.after("alice", None)] == [
        "tea\n(held during your quiet hours since 13:05)",
        "call the bank\n(again every 5 min until you press Done or say 'done')",
    ]


async def test_a_second_token_sees_none_of_the_first_users_things(web: Web) -> None:
    async with http_client(web) as alice:
        task = ok(await alice.call_tool("add_reminder", {"when": "in 1 hour", "message": "tea"}))
        ok(await alice.call_tool("save_note", {"content": "the wifi password is hunter2"}))
        request = pending(
            await alice.call_tool(
                "add_recurring_task",
                {
                    "schedule": "daily 7am",
                    "task_type": "agent_task",
                    "description": "brief",
                    "execution_data": {"prompt": "what time is it in Tokyo"},
                },
            )
        )
    task_id = task["task"]["id"]

    async with http_client(web, BOB_TOKEN) as bob:
        bobs = await upcoming(bob)
        listing = await bob.call_tool("list_tasks", {})
        found = await bob.call_tool("search_memory", {"query": "wifi password"})
        cancel = await bob.call_tool("cancel_task", {"task_id": task_id})
        history = await bob.call_tool("task_history", {"task_id": task_id})
        approve = await bob.call_tool(
            "approve_request",
            {
                "request_id": request["id"],
                "tool": request["tool"],
                "arguments": request["arguments"],
            },
        )
        deny = await bob.call_tool("deny_request", {"request_id": request["id"]})

    assert bobs == []
    assert text_of(listing) == "The user has no scheduled tasks."
    assert "hunter2" not in text_of(found)
    for refused in (cancel, history):
        assert refused.is_error and f"there is no task {task_id!r}" in text_of(refused)
    for refused in (approve, deny):
        assert refused.is_error and request["id"] in text_of(refused)
    async with http_client(web) as alice:
        [mine] = await upcoming(alice)
    assert mine["id"] == task_id and mine["status"] == "active"
    pending_ones = await web.front.app.memory.list_approvals("alice")
    assert [(r.id, r.status.value) for r in pending_ones] == [(request["id"], "pending")]


async def test_bad_arguments_get_the_words_chat_gives(web: Web) -> None:
    calls = [
        ToolCall("reschedule_task", {"task_id": "nosuch", "when": "6pm"}),
        ToolCall("list_tasks", {"period": "the twelfth of never"}),
        ToolCall("search_memory", {"query": "x", "limit": 500}),
        ToolCall("get_current_time", {"tz": "Mars/Olympus"}),
    ]
    async with http_client(web) as client:
        results = [await client.call_tool(c.tool_name, c.arguments) for c in calls]

    app = web.front.app
    ctx = await app.agent.tool_context("alice", "web:main")
    expected = [await app.executor.execute(call, ctx) for call in calls]
    assert [(r.is_error, text_of(r)) for r in results] == [(True, e.text) for e in expected]
    assert [structured(r)["status"] for r in results] == [e.status.value for e in expected]


async def test_ask_runs_a_turn_and_a_gated_call_waits_for_the_exact_approval(
    tmp_path: Path,
) -> None:
    code = "print(6 * 7)"
    backend = ScriptedBackend(
        [
            fence("execute_code", code=code),
            "It printed 42.",
            fence("execute_code", code="print('again')"),
            "Understood, I did not run it.",
        ]
    )
    async with running_web(tmp_path, backend=backend) as web, http_client(web) as client:
        asked = await client.call_tool("ask", {"text": "work out six times seven in Python"})
        turn = ok(asked)
        [request] = turn["approvals"]
        notices = web.front.interface.services.inbox.after("alice", None)
        wrong = await client.call_tool(
            "approve_request",
            {
                "request_id": request["id"],
                "tool": "execute_code",
                "arguments": {"code": "print(1)"},
            },
        )
        other_tool = await client.call_tool(
            "approve_request",
            {"request_id": request["id"], "tool": "api_call", "arguments": request["arguments"]},
        )
        approved = await client.call_tool(
            "approve_request",
            {
                "request_id": request["id"],
                "tool": "execute_code",
                "arguments": request["arguments"],
            },
        )
        second = ok(await client.call_tool("ask", {"text": "and print again"}))
        [waiting] = second["approvals"]
        denied = await client.call_tool("deny_request", {"request_id": waiting["id"]})
        missing = await client.call_tool("deny_request", {"request_id": "apnosuch00"})
        later = web.front.interface.services.inbox.after("alice", None)

    assert (request["tool"], request["arguments"]) == (
        "execute_code",
        {"code": code},
    )
    assert [t["tool"] for t in turn["tools"]] == ["execute_code"]
    assert turn["tools"][0]["status"] == "pending_approval"
    assert f"request {request['id']} to run execute_code" in text_of(asked)
    [notice] = [n.delivery for n in notices]
    assert (notice.kind, notice.chat_id) == (DeliveryKind.NOTICE, "web:main")
    assert request["id"] in notice.text and "/approvals" in notice.text
    assert wrong.is_error and "arguments differ from the request's in 'code'" in text_of(wrong)
    assert other_tool.is_error and "tool 'api_call' is not the request's 'execute_code'" in text_of(
        other_tool
    )
    done = ok(approved)
    assert done["decision"].startswith(
        f"Request {request['id']} was approved and execute_code ran: "
    )
    assert "42" in done["decision"] and done["reply"] == "It printed 42."
    assert (
        ok(denied)["decision"] == f"Request {waiting['id']} was denied: execute_code did not run."
    )
    assert missing.is_error and "apnosuch00" in text_of(missing)
    # Each decision made over MCP is told where the request was announced (the page then
    # lists approvals again, so no card of a decided request stays).
    assert [n.delivery.text for n in later if "over MCP." in n.delivery.text] == [
        f"Request {request['id']} (execute_code) was approved over MCP.",
        f"Request {waiting['id']} (execute_code) was denied over MCP.",
    ]


async def test_without_api_tokens_the_owners_mcp_calls_deliver_to_the_page(
    tmp_path: Path,
) -> None:
    async with running_web(tmp_path, tokens="") as web:
        assert web.front.local_token is not None
        async with http_client(web, web.front.local_token) as client:
            made = ok(
                await client.call_tool("add_reminder", {"when": "in 2 minutes", "message": "go"})
            )
        web.clock.advance(timedelta(minutes=2))
        await web.run_due()  # it or the front end's own timer fires it
        [item] = web.front.interface.services.inbox.after("local", None)
    assert (item.delivery.task_id, item.delivery.chat_id) == (made["task"]["id"], "web:main")


async def test_ask_over_mcp_takes_one_of_the_users_turns_as_the_page_does(
    tmp_path: Path,
) -> None:
    backend = HeldBackend()
    async with (
        running_web(tmp_path, backend=backend, ASSISTANT_MAX_TURNS_PER_USER=1) as web,
        web.client() as page,
        http_client(web) as client,
    ):
        held = asyncio.create_task(page.post("/agent/chat", json={"message": "think"}))
        await backend.until_waiting(1)
        refused = await client.call_tool("ask", {"text": "and this"})
        backend.release.set()
        assert (await held).status_code == 200
        after = await client.call_tool("ask", {"text": "now this"})

    assert refused.is_error
    assert text_of(refused).startswith("you have 1 turns running already")
    assert "ASSISTANT_MAX_TURNS_PER_USER=1" in text_of(refused)
    assert backend.waiting == 2  # the refused turn never reached the model
    assert not after.is_error and ok(after)["reply"]

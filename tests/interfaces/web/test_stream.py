"""The AG-UI stream and the deliveries stream, read from the real server as they arrive.

Models: the offline planner (answers in one piece), the scripted model (streams word by
word), and ``HeldBackend``, a scripted model that stops mid-answer until a test lets it go,
to disconnect in the middle of a turn and to be slow while another user is served.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator, Sequence
from pathlib import Path
from typing import Any

import httpx

from agent.llm import (
    ChatMessage,
    LLMResponse,
    ScriptedBackend,
    StreamEvent,
    TextDelta,
    ToolMode,
    Waiting,
)
from tests.interfaces.web.harness import ALICE_TOKEN, BOB_TOKEN, Web, read_stream, running_web
from tools import ToolDefinition

WITHIN = 10  # seconds: a safety bound on waits for things that happen at once


def fence(name: str, **args: Any) -> str:
    """A tool call in the text contract."""
    return f"```json\n{json.dumps({'tool': name, 'args': args})}\n```"


def types(events: list[dict[str, Any]]) -> list[str]:
    return [event["type"] for event in events]


def text_of(events: list[dict[str, Any]]) -> str:
    return "".join(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")


class HeldBackend:
    """Streams "Let me think about that" and then waits for ``release`` before finishing;
    a turn cancelled while it waits is recorded in ``cancelled``."""

    def __init__(self, *, hold: bool = True) -> None:
        self.release = asyncio.Event()
        self.waiting = asyncio.Event()
        self.cancelled = asyncio.Event()
        self._hold = hold

    @property
    def mode(self) -> ToolMode:
        return ToolMode.CONTRACT

    async def complete(
        self, messages: Sequence[ChatMessage], *, tools: Sequence[ToolDefinition] | None = None
    ) -> LLMResponse:
        if self._held(messages):
            await self._wait()
        return LLMResponse(text=f"You said: {messages[-1].content}")

    async def stream(
        self, messages: Sequence[ChatMessage], *, tools: Sequence[ToolDefinition] | None = None
    ) -> AsyncGenerator[StreamEvent, None]:
        if self._held(messages):
            for word in ("Let ", "me ", "think ", "about ", "that"):
                yield TextDelta(word)
            await self._wait()
            yield LLMResponse(text="Let me think about that")
            return
        yield LLMResponse(text=f"You said: {messages[-1].content}")

    async def aclose(self) -> None:
        return None

    def _held(self, messages: Sequence[ChatMessage]) -> bool:
        return self._hold and "slow" in messages[-1].content

    async def _wait(self) -> None:
        self.waiting.set()
        try:
            await self.release.wait()
        except asyncio.CancelledError:
            self.cancelled.set()
            raise


async def stream(web: Web, body: dict[str, Any], token: str = ALICE_TOKEN) -> list[dict[str, Any]]:
    async with web.client(token) as client:
        response = await client.post("/agent/stream", json=body)
        assert response.status_code == 200, response.text
        assert response.headers["content-type"].startswith("text/event-stream")
        return await read_stream(response)


async def test_the_offline_planner_streams_a_run_with_its_tool_call(tmp_path: Path) -> None:
    async with running_web(tmp_path) as web:
        events = await stream(web, {"message": "remind me in 2 seconds to stretch"})

    assert types(events)[0] == "RUN_STARTED" and types(events)[-1] == "RUN_FINISHED"
    assert events[0]["threadId"] == "main" and events[0]["runId"] == events[-1]["runId"]
    start = next(e for e in events if e["type"] == "TOOL_CALL_START")
    assert start["toolCallName"] == "add_reminder"
    args = next(e for e in events if e["type"] == "TOOL_CALL_ARGS")
    assert json.loads(args["delta"]) == {"when": "in 2 seconds", "message": "stretch"}
    calls = [e["type"] for e in events if e.get("toolCallId") == start["toolCallId"]]
    assert calls == ["TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "TOOL_CALL_RESULT"]
    reply = events[-1]["result"]["reply"]
    assert reply == "I'll remind you today at 13:00:02 (Europe/Berlin) to stretch" + (
        reply.removeprefix("I'll remind you today at 13:00:02 (Europe/Berlin) to stretch")
    )
    last_message = [e for e in events if e["type"] == "TEXT_MESSAGE_CONTENT"][-1]
    assert last_message["delta"].strip() == reply  # the planner's answer comes whole
    assert "outcome" not in events[-1]


async def test_a_streaming_model_arrives_word_by_word(tmp_path: Path) -> None:
    backend = ScriptedBackend(["Good afternoon! The weather looks fine for a walk today."])
    async with running_web(tmp_path, backend=backend) as web:
        events = await stream(web, {"message": "hello", "chat_id": "kitchen"})

    deltas = [e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT"]
    assert len(deltas) >= 8
    assert "".join(deltas) == "Good afternoon! The weather looks fine for a walk today."
    assert types(events) == [
        "RUN_STARTED",
        "TEXT_MESSAGE_START",
        *["TEXT_MESSAGE_CONTENT"] * len(deltas),
        "TEXT_MESSAGE_END",
        "RUN_FINISHED",
    ]
    assert events[-1]["result"]["chat_id"] == "kitchen"


async def test_a_busy_model_s_notice_comes_before_the_text(tmp_path: Path) -> None:
    backend = ScriptedBackend(["Good afternoon."], waiting=[Waiting(ahead=1, waited=2.5)])
    async with running_web(tmp_path, backend=backend) as web:
        events = await stream(web, {"message": "hello"})

    assert types(events)[:3] == ["RUN_STARTED", "CUSTOM", "TEXT_MESSAGE_START"]
    assert events[1]["name"] == "waiting"
    assert events[1]["value"]["text"] == (
        "The model is busy: 1 request ahead of yours. Your answer follows."
    )
    assert text_of(events) == "Good afternoon."


async def test_the_text_of_a_tool_call_never_streams(tmp_path: Path) -> None:
    lead = "Setting that up for you. " + fence("add_reminder", when="in 5 minutes", message="tea")
    backend = ScriptedBackend([lead, "Done: I'll remind you about tea at 13:05."])
    async with running_web(tmp_path, backend=backend) as web:
        events = await stream(web, {"message": "remind me in 5 minutes about tea"})
        async with web.client() as client:
            [task] = (await client.get("/tasks")).json()

    streamed = text_of(events)
    assert "```" not in streamed and "{" not in streamed and "add_reminder" not in streamed
    assert streamed == "Setting that up for you.Done: I'll remind you about tea at 13:05."
    starts = [e for e in events if e["type"] == "TEXT_MESSAGE_START"]
    assert len(starts) == 2  # one message per model call
    assert "TOOL_CALL_START" in types(events) and task["description"] == "tea"


async def test_an_approval_ends_the_run_with_an_interrupt_that_a_resume_answers(
    tmp_path: Path,
) -> None:
    call = fence(
        "api_call",
        url="https://example.org/lights/off",
        method="POST",
        headers={"Authorization": "Bearer s3cr3t-value"},
    )
    backend = ScriptedBackend([call, "Fine, I left the lights alone."])
    async with running_web(tmp_path, backend=backend) as web:
        events = await stream(web, {"message": "turn off the lights"})
        finished = events[-1]
        [interrupt] = finished["outcome"]["interrupts"]
        async with web.client(BOB_TOKEN) as bob:
            refused = await bob.post(f"/approvals/{interrupt['id']}/deny")
        resumed = await stream(
            web,
            {
                "threadId": "main",
                "runId": "r2",
                "messages": [],
                "resume": [
                    {
                        "interruptId": interrupt["id"],
                        "status": "resolved",
                        "payload": {"approved": False},
                    }
                ],
            },
        )
        async with web.client() as client:
            pending = (await client.get("/approvals")).json()

    assert finished["type"] == "RUN_FINISHED" and finished["outcome"]["type"] == "interrupt"
    assert interrupt["reason"] == "tool_approval"
    assert interrupt["metadata"]["tool"] == "api_call"
    # the approver sees the header the model chose; the call's own record stays redacted
    assert interrupt["metadata"]["arguments"]["headers"]["Authorization"] == "Bearer s3cr3t-value"
    assert "Authorization Bearer s3cr3t-value" in interrupt["message"]
    started = next(e for e in events if e["type"] == "TOOL_CALL_ARGS")
    assert "s3cr3t" not in started["delta"]
    assert interrupt["message"].startswith("Approval needed\nTool: api_call")
    assert interrupt["responseSchema"]["properties"]["approved"]["type"] == "boolean"
    assert "TOOL_CALL_RESULT" not in types(events)  # the call has no result until decided
    assert finished["result"]["approvals"][0]["id"] == interrupt["id"]
    assert refused.status_code == 404
    assert resumed[0]["runId"] == "r2"
    result = next(e for e in resumed if e["type"] == "TOOL_CALL_RESULT")
    assert "denied" in result["content"].lower()
    assert resumed[-1]["result"]["reply"] == "Fine, I left the lights alone."
    assert pending == []


async def test_an_ag_ui_run_input_is_read_as_its_last_user_message(tmp_path: Path) -> None:
    backend = ScriptedBackend(lambda messages: f"You said: {messages[-1].content}")
    async with running_web(tmp_path, backend=backend) as web:
        events = await stream(
            web,
            {
                "threadId": "t-1",
                "runId": "run-1",
                "state": {},
                "tools": [],
                "context": [],
                "forwardedProps": {},
                "messages": [
                    {"id": "1", "role": "user", "content": "first"},
                    {"id": "2", "role": "assistant", "content": "ok"},
                    {"id": "3", "role": "user", "content": [{"type": "text", "text": "second"}]},
                ],
            },
        )
        async with web.client() as client:
            bad = await client.post("/agent/stream", json={"messages": [{"role": "assistant"}]})
            empty = await client.post("/agent/stream", json={})

    assert events[0]["threadId"] == "t-1" and events[0]["runId"] == "run-1"
    assert events[-1]["result"]["reply"] == "You said: second"
    assert events[-1]["result"]["chat_id"] == "t-1"
    assert bad.status_code == 422 and "say something" in bad.text
    assert empty.status_code == 422


async def test_a_client_that_disconnects_cancels_the_turn_and_nothing_is_stored(
    tmp_path: Path,
) -> None:
    backend = HeldBackend()
    async with running_web(tmp_path, backend=backend) as web:
        async with (
            web.client() as client,
            client.stream("POST", "/agent/stream", json={"message": "slow"}) as response,
        ):
            async for line in response.aiter_lines():
                if "TEXT_MESSAGE_CONTENT" in line:
                    break  # the model is writing: hang up
        async with asyncio.timeout(WITHIN):
            await backend.cancelled.wait()
        stored = await web.front.app.memory.load_conversation("alice", "web:main")
        async with web.client() as client:
            after = await client.post("/agent/chat", json={"message": "still there?"})

    assert stored == []
    assert after.json()["reply"] == "You said: still there?"


async def test_a_slow_model_never_blocks_another_user(tmp_path: Path) -> None:
    backend = HeldBackend()
    async with (
        running_web(tmp_path, backend=backend) as web,
        web.client() as alice,
        web.client(BOB_TOKEN) as bob,
    ):
        slow = asyncio.create_task(alice.post("/agent/chat", json={"message": "slow"}))
        async with asyncio.timeout(WITHIN):
            await backend.waiting.wait()
        quick = await bob.post("/agent/chat", json={"message": "hi"})
        assert not slow.done()
        backend.release.set()
        answered = await slow

    assert quick.json()["reply"] == "You said: hi"
    assert answered.json()["reply"] == "You said: slow"


async def test_deliveries_reach_the_open_page_and_a_reconnecting_one(tmp_path: Path) -> None:
    async with running_web(tmp_path) as web:
        async with web.client() as client:
            await client.post("/agent/chat", json={"message": "remind me in 2 seconds to stretch"})
            await client.post("/agent/chat", json={"message": "remind me in 3 seconds to drink"})
            first = await _first_delivery(web, client, advance=2)
            # A page that reconnects with the last id it saw gets only what came after it.
            second = await _first_delivery(web, client, advance=1, last=first["id"])
        inbox = web.front.interface.services.inbox

    assert first["kind"] == "reminder" and first["text"] == "stretch"
    assert first["chat_id"] == "main" and first["delivered_at"].startswith("2025-03-10T12:00:02")
    assert second["text"] == "drink"
    assert [item.delivery.text for item in inbox.after("alice", None)] == ["stretch", "drink"]
    assert inbox.after("bob", None) == []
    lines = (tmp_path / "deliveries.jsonl").read_text().splitlines()
    assert [json.loads(line)["text"] for line in lines] == ["stretch", "drink"]


async def test_a_page_that_opens_later_asks_for_what_the_server_still_holds(
    tmp_path: Path,
) -> None:
    async with running_web(tmp_path) as web, web.client() as client:
        await client.post("/agent/chat", json={"message": "remind me in 2 seconds to stretch"})
        web.clock.advance(2)
        await web.run_due()  # delivered while no page listens
        await client.post("/agent/chat", json={"message": "remind me in 3 seconds to drink"})
        held = await _first_delivery(web, client, advance=3, recent=True)
        fresh = await _first_delivery(web, client, advance=0, last=held["id"])

    assert held["text"] == "stretch"
    assert fresh["text"] == "drink"


async def _first_delivery(
    web: Web,
    client: httpx.AsyncClient,
    *,
    advance: float,
    last: str | None = None,
    recent: bool = False,
) -> dict[str, Any]:
    headers = {"Last-Event-ID": last} if last else {}
    params = {"recent": "true"} if recent else {}
    async with client.stream("GET", "/events", headers=headers, params=params) as response:
        lines = response.aiter_lines()
        assert await anext(lines) == "retry: 3000"
        web.clock.advance(advance)
        async with asyncio.timeout(WITHIN):
            async for line in lines:
                if line.startswith("data: "):
                    found: dict[str, Any] = json.loads(line.removeprefix("data: "))
                    return found
    raise AssertionError("the stream ended without a delivery")

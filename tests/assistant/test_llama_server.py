"""The OpenAI-compatible backend against a real server: llama-cpp-python's, with SmolLM2-135M.

The same file is served twice: with its own chat template (which has no tool support: the
server accepts ``tools`` and silently ignores them) and with llama-cpp-python's
``chatml-function-calling`` format (which returns native calls). The assertions hold for any
model: the mode AUTO settles on, the protocol, streaming, failures; never the model's wisdom.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from agent import AgentEvent, AgentEventKind, AgentReply
from agent.llm import (
    ChatMessage,
    LLMResponse,
    OpenAIBackend,
    Role,
    TextDelta,
    ToolMode,
)
from assistant.app import LOCAL_CHAT, LOCAL_USER, open_app
from assistant.config import load_settings
from common import ManualClock
from tasks import AgentTaskData
from tests.agent.agent_world import World
from tests.agent.llm.real_models import smollm2_path
from tests.assistant.llama_server import LlamaServer, ServedModel
from tools import ToolDefinition, ToolStatus

STORY = [ChatMessage(Role.USER, "Tell me a long story about a dragon and a knight.")]
NOW = datetime(2026, 3, 10, 13, 30, tzinfo=UTC)
"""Tuesday 14:30 in Berlin."""


@pytest.fixture(scope="module")
def server() -> Iterator[LlamaServer]:
    path = smollm2_path()
    served = [
        ServedModel(path, "smollm2"),
        ServedModel(path, "smollm2-tools", chat_format="chatml-function-calling"),
    ]
    with LlamaServer(served) as running:
        yield running


def backend_for(url: str, model: str, mode: ToolMode, max_tokens: int = 32) -> OpenAIBackend:
    return OpenAIBackend(
        model=model,
        base_url=url,
        mode=mode,
        timeout=120.0,
        temperature=0.0,
        max_tokens=max_tokens,
    )


async def test_auto_finds_that_tools_are_ignored_and_uses_the_text_contract(
    server: LlamaServer,
) -> None:
    llm = backend_for(server.url, "smollm2", ToolMode.AUTO)
    world = World(llm, max_rounds=1)

    reply = await world.say("remind me in 10 minutes to check the oven")
    await llm.aclose()

    assert llm.mode is ToolMode.CONTRACT
    assert reply.text.strip()
    for result in reply.results:
        # Whatever the model wrote as a call was parsed from text and validated.
        assert result.call.span is not None
        known = result.call.tool_name in world.registry
        assert known or result.status is ToolStatus.INVALID


async def test_auto_stays_native_where_native_calls_come_back(server: LlamaServer) -> None:
    llm = backend_for(server.url, "smollm2-tools", ToolMode.AUTO)
    world = World(llm, max_rounds=1)

    reply = await world.say("remind me in 10 minutes to check the oven")
    await llm.aclose()

    assert llm.mode is ToolMode.NATIVE
    assert reply.text.strip()
    for result in reply.results:
        assert result.call.span is None  # came back in tool_calls
        known = result.call.tool_name in world.registry
        assert known or result.status is ToolStatus.INVALID


async def test_native_mode_sends_tools_and_reads_native_calls(server: LlamaServer) -> None:
    llm = backend_for(server.url, "smollm2-tools", ToolMode.NATIVE)
    # Choices, not free text: the server decodes a call under a grammar, which is slow for
    # free text on two cores.
    lights = ToolDefinition(
        "set_lights",
        "Turn the lights on or off.",
        {
            "type": "object",
            "properties": {"state": {"type": "string", "enum": ["on", "off"]}},
            "required": ["state"],
        },
    )

    response = await llm.complete(
        [ChatMessage(Role.USER, "Call set_lights to turn the lights off.")], tools=[lights]
    )
    await llm.aclose()

    [call] = response.tool_calls
    assert call.tool_name == "set_lights"
    assert call.arguments["state"] in {"on", "off"}


async def test_a_streamed_answer_from_the_real_server(server: LlamaServer) -> None:
    llm = backend_for(server.url, "smollm2", ToolMode.CONTRACT)
    pieces: list[str] = []
    responses: list[LLMResponse] = []

    async for event in llm.stream(STORY):
        if isinstance(event, TextDelta):
            pieces.append(event.text)
        elif isinstance(event, LLMResponse):
            responses.append(event)
    await llm.aclose()

    [response] = responses
    assert len(pieces) > 3
    assert "".join(pieces) == response.text
    assert response.finish_reason in {"stop", "length"}


async def test_a_server_that_dies_mid_stream_ends_the_turn_cleanly() -> None:
    with LlamaServer([ServedModel(smollm2_path(), "smollm2")]) as dying:
        llm = backend_for(dying.url, "smollm2", ToolMode.CONTRACT, max_tokens=400)
        world = World(llm)
        shown: list[str] = []

        def kill_at_first_text(event: AgentEvent) -> None:
            if event.kind is AgentEventKind.TEXT_DELTA:
                shown.append(event.text)
                dying.kill()

        reply = await world.agent.handle_message(
            STORY[0].content, user_id="alice", chat_id="chat-alice", on_event=kill_at_first_text
        )
        await llm.aclose()

    assert shown
    assert reply.text.startswith("Sorry, I could not get an answer from the language model")
    assert "broke off" in reply.text
    stored = await world.conversations.load_context("alice", "chat-alice", max_chars=10_000)
    assert stored.messages == ()


async def test_the_planner_first_pipeline_with_the_server(
    server: LlamaServer, tmp_path: Path
) -> None:
    settings = load_settings(data_dir=tmp_path / "data", timezone="Europe/Berlin")
    llm = backend_for(server.url, "smollm2", ToolMode.AUTO, max_tokens=48)
    async with open_app(settings, backend=llm, clock=ManualClock(NOW)) as app:

        async def say(text: str) -> AgentReply:
            return await app.agent.handle_message(text, user_id=LOCAL_USER, chat_id=LOCAL_CHAT)

        oven = await say("remind me in 10 minutes to check the oven")
        capital = await say("what is the capital of France?")
        news = await say("every morning at 7 summarize the news")
        [request] = news.approvals  # an agent task asks first, its whole prompt shown
        await app.agent.resolve_approval(request.id, approved=True, by=LOCAL_USER)
        [summary] = [
            t
            for t in await app.tasks.list_tasks(LOCAL_USER)
            if t.description == "summarize the news"
        ]

    assert oven.model_calls == 0
    assert oven.text.startswith("I'll remind you today at 14:40 (Europe/Berlin) to check the oven")
    assert capital.model_calls == 1 and capital.text.strip() and not capital.failed
    assert [r.call.tool_name for r in capital.results] == ["search_memory"]
    assert news.model_calls == 1 and not news.failed
    assert summary.schedule.describe() == "every day at 07:00 (Europe/Berlin)"
    assert isinstance(summary.execution, AgentTaskData) and summary.execution.prompt

"""Fitting a round into a small context window, counted by a real model's tokenizer."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from agent import AgentEventKind, fit_round, rank_tools
from agent.llm import (
    MIN_CONTEXT_TOKENS,
    ChatMessage,
    ContextTooSmallError,
    LocalBackend,
    Order,
    Role,
)
from assistant.app import LOCAL_CHAT, LOCAL_USER, open_app
from assistant.config import Settings, load_settings
from tests.agent.agent_world import World
from tests.agent.llm.real_models import smollm2_path
from tools import ToolDefinition

SYSTEM = [ChatMessage(Role.SYSTEM, "You are a helpful personal assistant.")]


def tool(name: str, description: str, *parameters: str) -> ToolDefinition:
    properties = {p: {"type": "string", "description": f"The {p} " * 12} for p in parameters}
    schema = {"type": "object", "properties": properties, "required": list(parameters)}
    return ToolDefinition(name, description, schema)


TOOLS = (
    tool("get_current_time", "Return the current date and time in a zone.", "tz"),
    tool("search_web", "Search the web and return the top results.", "query"),
    tool("save_note", "Keep a note the user can search later.", "content", "tags"),
    tool("cancel_task", "Cancel one of the user's scheduled tasks.", "task_id"),
    tool(
        "add_reminder", "Set a one-time reminder at a time in the user's words.", "when", "message"
    ),
    tool("fetch_url", "Fetch a web page and return its text.", "url"),
    tool("api_call", "Call an HTTP API; changes need approval.", "url", "method", "body"),
    tool("add_recurring_task", "Schedule a task that repeats.", "schedule", "description"),
)


def exchanges(count: int) -> list[ChatMessage]:
    history: list[ChatMessage] = []
    for i in range(count):
        history.append(ChatMessage(Role.USER, f"question {i}: " + "tell me more " * 20))
        history.append(ChatMessage(Role.ASSISTANT, f"answer {i}: " + "here is more " * 20))
    return history


@pytest.fixture
async def small() -> AsyncIterator[LocalBackend]:
    backend = LocalBackend(model_path=smollm2_path(), context_tokens=1024, max_tokens=256)
    yield backend
    await backend.aclose()


def test_tools_are_ranked_by_the_words_of_the_message() -> None:
    ranked = rank_tools(TOOLS, "remind me in 10 minutes to check the oven")
    assert ranked[0].name == "add_reminder"
    assert rank_tools(TOOLS, "search the web for news")[0].name == "search_web"
    assert rank_tools(TOOLS, "what time is it in Tokyo?")[0].name == "get_current_time"
    assert [t.name for t in rank_tools(TOOLS, "zzz")] == [t.name for t in TOOLS]


async def test_a_round_that_fits_is_sent_whole(small: LocalBackend) -> None:
    new = [ChatMessage(Role.USER, "hi")]
    fitted = await fit_round(small, system=SYSTEM, history=exchanges(1), new=new, tools=TOOLS[:2])

    assert fitted.tools == TOOLS[:2]
    assert len(fitted.history) == 2
    assert (fitted.dropped_tools, fitted.dropped_messages) == (0, 0)


async def test_a_round_too_big_keeps_the_relevant_tools_and_the_latest_exchanges(
    small: LocalBackend,
) -> None:
    history = exchanges(12)
    new = [ChatMessage(Role.USER, "remind me in 10 minutes to check the oven")]
    whole = await small.count_tokens([*SYSTEM, *history, *new], tools=TOOLS)

    fitted = await fit_round(small, system=SYSTEM, history=history, new=new, tools=TOOLS)

    assert whole > small.context_tokens
    assert fitted.tools is not None
    assert fitted.tools[0].name == "add_reminder"
    assert fitted.dropped_tools + len(fitted.tools) == len(TOOLS)
    assert fitted.history == history[-len(fitted.history) :]
    assert fitted.history[0].role is Role.USER
    assert fitted.dropped_messages > 0
    sent = await small.count_tokens([*SYSTEM, *fitted.history, *new], tools=fitted.tools)
    assert sent == fitted.prompt_tokens <= small.context_tokens - small.answer_tokens


async def test_a_message_too_big_for_the_window_is_refused(small: LocalBackend) -> None:
    new = [ChatMessage(Role.USER, "remember this: " + "lorem ipsum dolor " * 300)]

    with pytest.raises(ContextTooSmallError, match="or write a shorter message") as caught:
        await fit_round(small, system=SYSTEM, history=[], new=new, tools=TOOLS)

    assert caught.value.context == 1024
    assert caught.value.needed > 1024


async def test_the_agent_says_in_the_reply_when_the_context_is_too_small(
    small: LocalBackend,
) -> None:
    world = World(small)
    events: list[AgentEventKind] = []

    reply = await world.agent.handle_message(
        "remember this: " + "lorem ipsum dolor " * 300,
        user_id="alice",
        chat_id="chat-alice",
        on_event=lambda e: events.append(e.kind),
    )

    assert "ASSISTANT_LLM_CTX=1024 leaves" in reply.text
    assert "set ASSISTANT_LLM_CTX to at least" in reply.text
    assert AgentEventKind.TEXT_DELTA not in events
    stored = await world.conversations.load_context("alice", "chat-alice", max_chars=100_000)
    assert stored.messages == ()


async def test_instructions_too_big_for_the_window_are_named_with_a_window_that_works(
    tmp_path: Path,
) -> None:
    said = "remind me in 5 minutes to stretch"
    long_prompt = "You are a careful, friendly and helpful personal assistant. " * 50

    def settings(name: str, ctx: int, prompt: str | None = long_prompt) -> Settings:
        return load_settings(
            data_dir=tmp_path / name,
            llm_model_path=smollm2_path(),
            llm_ctx=ctx,
            llm_max_tokens=16,
            max_rounds=1,
            system_prompt=prompt,
            llm_order=Order.MODEL_FIRST,  # the model, not the planner, must read the request
        )

    async with open_app(settings("small", MIN_CONTEXT_TOKENS)) as app:
        refused = await app.agent.handle_message(said, user_id=LOCAL_USER, chat_id=LOCAL_CHAT)
    found = re.search(r"instructions take ([\d,]+) tokens and this message (\d+)", refused.text)
    assert found is not None, refused.text
    assert int(found.group(1).replace(",", "")) > 10 * int(found.group(2))
    assert "write a shorter message" not in refused.text
    wanted = re.search(r"set ASSISTANT_LLM_CTX to at least ([\d,]+)", refused.text)
    assert wanted is not None, refused.text

    for name, ctx, prompt in [
        ("suggested", int(wanted.group(1).replace(",", "")), long_prompt),
        ("smallest", MIN_CONTEXT_TOKENS, None),
    ]:
        async with open_app(settings(name, ctx, prompt)) as app:
            reply = await app.agent.handle_message(said, user_id=LOCAL_USER, chat_id=LOCAL_CHAT)
        assert "ASSISTANT_LLM_CTX" not in reply.text, (name, reply.text)

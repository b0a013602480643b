"""The in-process backend with real GGUF models: SmolLM2-135M and Gemma 3 270M.

What is asserted holds for any model: the protocol (text, streamed pieces, calls), the
grammar's promise, the queue, cancellation and the errors. Not the model's wisdom.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest

from agent import AgentEvent, AgentEventKind
from agent.llm import (
    ChatMessage,
    ContextTooSmallError,
    LLMModelError,
    LLMResponse,
    LocalBackend,
    Role,
    TextDelta,
    ToolMode,
    Waiting,
)
from tests.agent.agent_world import World
from tests.agent.llm.real_models import example_turns, gemma_path, smollm2_path
from tools import ToolRegistry, tool, tool_definitions, validate_tool_call

SYSTEM = ChatMessage(Role.SYSTEM, "You are a helpful personal assistant. Answer briefly.")


@tool
def add_reminder(when: str, message: str) -> str:
    """Set a one-time reminder.

    Args:
        when: When, in the user's words: 'in 5 minutes', 'tomorrow at 9am'.
        message: What to remind them of.
    """
    return f"reminder {when}: {message}"


@tool
def save_note(content: str) -> str:
    """Keep a note.

    Args:
        content: The text to remember.
    """
    return "saved"


@tool
def list_tasks() -> str:
    """List the user's scheduled tasks."""
    return "no tasks"


REGISTRY = ToolRegistry([add_reminder, save_note, list_tasks])
TOOLS = tool_definitions(REGISTRY)
CALL_OPENERS = set("`{[<")


def asking(text: str) -> list[ChatMessage]:
    return [SYSTEM, ChatMessage(Role.USER, text)]


async def test_a_chat_turn(smollm2: LocalBackend) -> None:
    response = await smollm2.complete(asking("Say hello."))

    assert smollm2.mode is ToolMode.NATIVE
    assert response.text.strip()
    assert response.tool_calls == ()
    assert response.finish_reason in {"stop", "length"}
    assert response.usage.prompt_tokens == await smollm2.count_tokens(asking("Say hello."))
    assert 0 < response.usage.completion_tokens <= 40


async def test_streamed_pieces_add_up_to_the_reply(smollm2: LocalBackend) -> None:
    pieces: list[str] = []
    responses: list[LLMResponse] = []
    async for event in smollm2.stream(asking("Tell me about the sea.")):
        if isinstance(event, TextDelta):
            assert not responses, "text came after the response"
            pieces.append(event.text)
        elif isinstance(event, LLMResponse):
            responses.append(event)

    [response] = responses
    assert len(pieces) > 3
    assert "".join(pieces) == response.text


async def test_the_tools_cost_prompt_tokens(smollm2: LocalBackend) -> None:
    bare = await smollm2.count_tokens(asking("hi"))
    with_tools = await smollm2.count_tokens(asking("hi"), tools=TOOLS)

    assert bare < 60
    assert with_tools > bare + 100


async def test_every_reply_under_the_grammar_is_a_call_or_an_answer(
    smollm2: LocalBackend,
) -> None:
    prompts = [
        "remind me in 10 minutes to check the oven",
        "note: the wifi password is hunter2",
        "what are my tasks?",
        "what is the capital of France?",
    ]
    calls = 0
    for prompt in prompts:
        messages = [SYSTEM, *example_turns(), ChatMessage(Role.USER, prompt)]
        response = await smollm2.complete(messages, tools=TOOLS)
        for call in response.tool_calls:
            calls += 1
            assert call.span is None  # a native call, whatever the model wrote
            assert validate_tool_call(call, REGISTRY).errors == [], (prompt, call)
        if not response.tool_calls:
            assert response.text.strip(), prompt
            assert not CALL_OPENERS & set(response.text), (prompt, response.text)
    # The examples in the history make even this small model call tools sometimes.
    assert calls >= 1


@tool
def tag_note(note_id: str, tags: list[Any]) -> str:
    """Tag a note.

    Args:
        note_id: The note.
        tags: Anything to tag it with.
    """
    return "tagged"


async def test_a_list_of_anything_gets_a_grammar(smollm2: LocalBackend) -> None:
    tools = tool_definitions(ToolRegistry([tag_note]))
    assert tools[0].parameters["properties"]["tags"]["items"] == {}

    response = await smollm2.complete(asking("tag note n1 with urgent"), tools=tools)

    for call in response.tool_calls:
        assert call.tool_name == "tag_note"
        assert isinstance(call.arguments.get("tags"), list)


async def test_a_closed_stream_stops_decoding_and_frees_the_model(
    smollm2: LocalBackend,
) -> None:
    stream = smollm2.stream(asking("Write a long story about a dragon."))
    async for event in stream:
        if isinstance(event, TextDelta):
            break
    await stream.aclose()

    response = await asyncio.wait_for(smollm2.complete(asking("Say hi.")), timeout=60)

    assert response.text
    assert smollm2.waiting == 0


async def test_a_cancelled_turn_stops_decoding(smollm2: LocalBackend) -> None:
    started = asyncio.Event()

    async def follow() -> None:
        async for event in smollm2.stream(asking("Write a long story about a dragon.")):
            if isinstance(event, TextDelta):
                started.set()

    task = asyncio.create_task(follow())
    await asyncio.wait_for(started.wait(), timeout=60)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    response = await asyncio.wait_for(smollm2.complete(asking("Say hi.")), timeout=60)
    assert response.text


async def test_requests_queue_and_a_long_wait_is_reported() -> None:
    backend = LocalBackend(model_path=smollm2_path(), max_tokens=24, notice_after=0.05)
    await backend.load()
    finished: list[str] = []
    notices: list[Waiting] = []

    async def ask(name: str) -> None:
        async for event in backend.stream(asking("Tell me a story.")):
            if isinstance(event, Waiting):
                notices.append(event)
            elif isinstance(event, LLMResponse):
                finished.append(name)

    first = asyncio.create_task(ask("first"))
    await asyncio.sleep(0)  # the first takes the model
    await asyncio.gather(first, ask("second"))
    await backend.aclose()

    assert finished == ["first", "second"]
    assert notices and notices[0].ahead == 1


async def test_a_prompt_that_leaves_no_room_is_refused() -> None:
    backend = LocalBackend(model_path=smollm2_path(), context_tokens=576)
    long = "please remember this sentence about nothing in particular. " * 60

    with pytest.raises(ContextTooSmallError, match="ASSISTANT_LLM_CTX") as caught:
        await backend.complete(asking(long))
    await backend.aclose()

    assert caught.value.context == 576
    assert caught.value.needed > 576


def test_a_missing_file_is_one_clear_message(tmp_path: Path) -> None:
    with pytest.raises(LLMModelError, match=r"ASSISTANT_LLM_MODEL_PATH: there is no file"):
        LocalBackend(model_path=tmp_path / "nope.gguf")


def test_a_file_that_is_not_gguf_is_one_clear_message(tmp_path: Path) -> None:
    weights = tmp_path / "model.safetensors"
    weights.write_bytes(b"\x08\x00\x00\x00{}" + bytes(100))

    with pytest.raises(LLMModelError, match="is not a GGUF model"):
        LocalBackend(model_path=weights)


@pytest.fixture
def damaged_gguf(tmp_path: Path) -> Path:
    """The first 4 KB of a real GGUF file: the right magic, a cut-off body."""
    damaged = tmp_path / "cut.gguf"
    with Path(smollm2_path()).open("rb") as whole:
        damaged.write_bytes(whole.read(4096))
    return damaged


async def test_a_damaged_gguf_is_one_clear_message(damaged_gguf: Path) -> None:
    backend = LocalBackend(model_path=damaged_gguf)

    with pytest.raises(LLMModelError, match=r"could not load .* damaged"):
        await backend.load()
    await backend.aclose()


async def test_a_file_without_a_template_writes_with_its_family_s_and_a_recital_is_cut() -> None:
    backend = LocalBackend(model_path=gemma_path(), max_tokens=16)
    started = time.perf_counter()

    response = await backend.complete(asking("What is the capital of France?"))
    await backend.aclose()

    # Gemma 3 270M answers this by reciting its system prompt; the user never sees that.
    assert response.usage.completion_tokens > 0
    assert "helpful personal assistant" not in response.text
    assert "<start_of_turn>" not in response.text
    assert time.perf_counter() - started < 120


async def test_a_waiting_user_is_told_their_place() -> None:
    backend = LocalBackend(model_path=smollm2_path(), max_tokens=24, notice_after=0.05)
    world = World(backend)
    seen: dict[str, list[AgentEvent]] = {"alice": [], "bob": []}

    async def turn(user: str) -> None:
        await world.agent.handle_message(
            "Tell me a story.", user_id=user, chat_id=user, on_event=seen[user].append
        )

    first = asyncio.create_task(turn("alice"))
    await asyncio.sleep(0.01)
    await asyncio.gather(first, turn("bob"))
    await backend.aclose()

    waits = [e for e in seen["bob"] if e.kind is AgentEventKind.WAITING]
    assert waits and "1 request ahead of yours" in waits[0].text
    assert not [e for e in seen["alice"] if e.kind is AgentEventKind.WAITING]


async def test_llama_cpp_logs_nothing_to_stderr_when_a_model_loads(
    capfd: pytest.CaptureFixture[str],
) -> None:
    backend = LocalBackend(model_path=gemma_path(), max_tokens=4)
    await backend.load()
    await backend.complete([SYSTEM, ChatMessage(Role.USER, "hi")])
    await backend.aclose()

    assert capfd.readouterr().err == ""

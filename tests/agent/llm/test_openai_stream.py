"""Streaming from an OpenAI-compatible server (``stream: true``), against a real stand-in."""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Iterator

import pytest

from agent.llm import (
    ChatMessage,
    LLMConnectionError,
    LLMResponse,
    LLMResponseError,
    OpenAIBackend,
    Role,
    StreamEvent,
    TextDelta,
    ToolMode,
)
from tests.agent.llm.openai_standin import (
    OpenAIStandin,
    StandinReply,
    completion,
    error,
    streamed,
)
from tools import ToolDefinition

HELLO = [ChatMessage(Role.USER, "hello")]
TIME = ToolDefinition(
    "get_current_time",
    "Return the current time.",
    {"type": "object", "properties": {"tz": {"type": "string"}}, "additionalProperties": False},
)


async def no_wait(seconds: float) -> None:
    """Backoff without waiting."""


@pytest.fixture
def standin() -> Iterator[OpenAIStandin]:
    with OpenAIStandin() as server:
        yield server


@pytest.fixture
async def backend(standin: OpenAIStandin) -> AsyncIterator[OpenAIBackend]:
    llm = OpenAIBackend(
        model="standin-model",
        base_url=standin.url,
        timeout=5.0,
        mode=ToolMode.NATIVE,
        sleep=no_wait,
    )
    yield llm
    await llm.aclose()


async def collect(events: AsyncGenerator[StreamEvent, None]) -> tuple[list[str], LLMResponse]:
    """The text deltas, and the response that must come last."""
    deltas: list[str] = []
    last: StreamEvent | None = None
    async for event in events:
        assert not isinstance(last, LLMResponse), "nothing may follow the response"
        if isinstance(event, TextDelta):
            deltas.append(event.text)
        last = event
    assert isinstance(last, LLMResponse)
    return deltas, last


async def test_text_arrives_piece_by_piece_and_adds_up(
    standin: OpenAIStandin, backend: OpenAIBackend
) -> None:
    standin.push(streamed("It is ", "14:05 ", "in Berlin."))

    deltas, response = await collect(backend.stream(HELLO))

    assert deltas == ["It is ", "14:05 ", "in Berlin."]
    assert response.text == "It is 14:05 in Berlin."
    assert response.finish_reason == "stop"
    assert response.usage.total_tokens == 18
    assert standin.requests[0].body["stream"] is True


async def test_native_calls_are_put_together_from_their_pieces(
    standin: OpenAIStandin, backend: OpenAIBackend
) -> None:
    standin.push(
        streamed(
            tool_calls=[("call_7", "get_current_time", ['{"tz": "Eur', 'ope/Berlin"}'])],
            finish_reason="tool_calls",
        )
    )

    deltas, response = await collect(backend.stream(HELLO, tools=[TIME]))

    assert deltas == []
    (call,) = response.tool_calls
    assert (call.id, call.tool_name, call.arguments) == (
        "call_7",
        "get_current_time",
        {"tz": "Europe/Berlin"},
    )
    assert standin.requests[0].body["tools"][0]["function"]["name"] == "get_current_time"


async def test_a_streamed_call_of_a_dotted_tool_comes_back_under_its_own_name(
    standin: OpenAIStandin, backend: OpenAIBackend
) -> None:
    files = ToolDefinition("files.read_file", "Read a file.", {"type": "object"})
    standin.push(
        streamed(
            tool_calls=[("call_8", "files-read_file", ['{"path": ', '"/a"}'])],
            finish_reason="tool_calls",
        )
    )

    _, response = await collect(backend.stream(HELLO, tools=[TIME, files]))

    assert [call.tool_name for call in response.tool_calls] == ["files.read_file"]
    assert standin.requests[0].body["tools"][1]["function"]["name"] == "files-read_file"


async def test_a_server_that_refuses_to_stream_is_asked_whole_from_then_on(
    standin: OpenAIStandin, backend: OpenAIBackend
) -> None:
    standin.push(
        error(400, "stream is not supported by this server"),
        completion("Hi."),
        completion("Hi again."),
    )

    first = await collect(backend.stream(HELLO))
    second = await collect(backend.stream(HELLO))

    assert first == (["Hi."], first[1]) and first[1].text == "Hi."
    assert second[1].text == "Hi again."
    assert [r.body.get("stream") for r in standin.requests] == [True, None, None]


async def test_a_server_that_answers_whole_anyway_is_one_piece(
    standin: OpenAIStandin, backend: OpenAIBackend
) -> None:
    standin.push(completion("Whole."))

    deltas, response = await collect(backend.stream(HELLO))

    assert (deltas, response.text) == (["Whole."], "Whole.")


async def test_a_server_that_dies_mid_stream_is_a_clear_error(
    standin: OpenAIStandin, backend: OpenAIBackend
) -> None:
    standin.push(streamed("one ", "two ", "three", break_after=2))

    seen: list[str] = []
    with pytest.raises(LLMConnectionError, match="broke off after 2 pieces"):
        async for event in backend.stream(HELLO):
            if isinstance(event, TextDelta):
                seen.append(event.text)

    assert seen == ["one "]  # what arrived was shown; the turn then fails as a whole


async def test_an_error_event_in_the_stream_is_reported(
    standin: OpenAIStandin, backend: OpenAIBackend
) -> None:
    standin.push(StandinReply(events=[{"error": {"message": "the model crashed"}}]))

    with pytest.raises(LLMResponseError, match="answered with an error: the model crashed"):
        await collect(backend.stream(HELLO))


async def test_rate_limits_before_the_stream_starts_are_retried(
    standin: OpenAIStandin, backend: OpenAIBackend
) -> None:
    standin.push(error(429, "slow down"), streamed("Fine."))

    deltas, response = await collect(backend.stream(HELLO))

    assert (deltas, response.text) == (["Fine."], "Fine.")
    assert len(standin.requests) == 2


async def test_stopping_early_closes_the_connection(
    standin: OpenAIStandin, backend: OpenAIBackend
) -> None:
    standin.push(streamed("a ", "b ", "c"), completion("next"))

    events = backend.stream(HELLO)
    async for event in events:
        assert isinstance(event, TextDelta)
        break
    await events.aclose()

    # The connection was given back: the next request is answered as usual.
    assert (await backend.complete(HELLO)).text == "next"

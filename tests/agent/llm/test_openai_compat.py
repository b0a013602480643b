"""The OpenAI-compatible backend against a real HTTP stand-in on 127.0.0.1."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from agent.llm import (
    ChatMessage,
    LLMAuthError,
    LLMConnectionError,
    LLMNotFoundError,
    LLMRateLimitError,
    LLMRequestError,
    LLMResponseError,
    LLMServerError,
    LLMTimeoutError,
    OpenAIBackend,
    Role,
    ToolMode,
    ToolsUnsupportedError,
    parse_retry_after,
)
from tests.agent.agent_world import World, fence
from tests.agent.llm.openai_standin import OpenAIStandin, StandinReply, completion, error
from tools import ToolCall, ToolDefinition, ToolResult, ToolStatus

TIME_PARAMETERS = {"type": "object", "properties": {}, "additionalProperties": False}
TOOLS = [ToolDefinition("get_current_time", "Return the current time.", TIME_PARAMETERS)]
HELLO = [ChatMessage(Role.SYSTEM, "be brief"), ChatMessage(Role.USER, "what time is it?")]
TIME_CALL = ToolCall("get_current_time", {}, id="call_1")


def answered(call: ToolCall, text: str) -> list[ChatMessage]:
    """The conversation after the native ``call`` and its result ``text``."""
    result = ToolResult(call=call, status=ToolStatus.OK, text=text)
    return [
        *HELLO,
        ChatMessage(Role.ASSISTANT, "", tool_calls=(call,)),
        ChatMessage(Role.TOOL, text, tool_call_id=call.id, results=(result,)),
    ]


ANSWERED = answered(TIME_CALL, "14:05")
"""The conversation after a native call of get_current_time and its result."""


class SleepRecorder:
    """Records backoff waits instead of sleeping."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


@pytest.fixture
def standin() -> Iterator[OpenAIStandin]:
    with OpenAIStandin() as server:
        yield server


@pytest.fixture
def sleep() -> SleepRecorder:
    return SleepRecorder()


def make_backend(standin: OpenAIStandin, sleep: SleepRecorder, **options: Any) -> OpenAIBackend:
    settings: dict[str, Any] = {
        "model": "standin-model",
        "base_url": standin.url,
        "api_key": "sk-test",
        "timeout": 5.0,
        "sleep": sleep,
    }
    settings.update(options)
    return OpenAIBackend(**settings)


@pytest.fixture
async def backend(standin: OpenAIStandin, sleep: SleepRecorder) -> AsyncIterator[OpenAIBackend]:
    llm = make_backend(standin, sleep, mode=ToolMode.NATIVE)
    yield llm
    await llm.aclose()


async def test_native_request_sends_tools_and_decodes_calls(
    standin: OpenAIStandin, backend: OpenAIBackend
) -> None:
    standin.push(
        completion(None, tool_calls=[("call_abc", "get_current_time", {"tz": "Europe/Berlin"})])
    )

    response = await backend.complete(HELLO, tools=TOOLS)

    assert response.tool_calls == (
        ToolCall(
            "get_current_time",
            {"tz": "Europe/Berlin"},
            raw_json='{"tz": "Europe/Berlin"}',
            id="call_abc",
        ),
    )
    assert response.text == ""
    assert response.usage.total_tokens == 18
    sent = standin.requests[0]
    assert sent.path == "/v1/chat/completions"
    assert sent.headers["authorization"] == "Bearer sk-test"
    assert sent.body["model"] == "standin-model"
    assert sent.body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "get_current_time",
                "description": "Return the current time.",
                "parameters": TIME_PARAMETERS,
            },
        }
    ]
    assert sent.messages == [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "what time is it?"},
    ]


async def test_broken_native_arguments_are_kept_raw(
    standin: OpenAIStandin, backend: OpenAIBackend
) -> None:
    standin.push(completion(None, tool_calls=[("c1", "get_current_time", '{"tz": "Eur')]))

    response = await backend.complete(HELLO, tools=TOOLS)

    assert response.tool_calls[0].arguments == {}
    assert response.tool_calls[0].raw_json == '{"tz": "Eur'


async def test_native_results_go_back_as_tool_messages(
    standin: OpenAIStandin, backend: OpenAIBackend
) -> None:
    standin.push(completion("It is 14:05."))

    response = await backend.complete(ANSWERED, tools=TOOLS)

    assert response.text == "It is 14:05."
    assert standin.requests[0].messages[2:] == [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "get_current_time", "arguments": "{}"},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "14:05"},
    ]


MCP_PARAMETERS = {"type": "object", "properties": {"path": {"type": "string"}}}
LONG_NAME = "warehouse_inventory_server." + "look_up_the_stock_of_one_article_" * 3


async def test_dotted_and_long_tool_names_travel_under_names_openai_accepts(
    standin: OpenAIStandin, backend: OpenAIBackend
) -> None:
    """An MCP tool's name (``files.read_file``) does not match OpenAI's ``^[a-zA-Z0-9_-]{1,64}$``:
    it is sent under one that does, in the tools and in the history's calls, and the call the
    model returns under it comes back with the name the registry knows."""
    tools = [
        *TOOLS,
        ToolDefinition("files.read_file", "Read a file.", MCP_PARAMETERS),
        ToolDefinition(LONG_NAME, "Look up the stock.", MCP_PARAMETERS),
    ]
    history = answered(ToolCall("files.read_file", {"path": "/a"}, id="call_0"), "text of a")
    first = await _sent_names(standin, backend, history, tools)
    wire_long = first[2]
    standin.push(
        completion(
            None,
            tool_calls=[
                ("c1", "files-read_file", {"path": "/b"}),
                ("c2", wire_long, {"path": "x"}),
            ],
        )
    )

    response = await backend.complete(history, tools=tools)

    assert first[:2] == ["get_current_time", "files-read_file"]
    assert len(wire_long) == 64 and wire_long.startswith("warehouse_inventory_server-look_up")
    assert [call.tool_name for call in response.tool_calls] == ["files.read_file", LONG_NAME]
    sent = standin.requests[-1]
    assert sent.messages[2]["tool_calls"][0]["function"]["name"] == "files-read_file"
    assert all(
        len(each["function"]["name"]) <= 64 and "." not in each["function"]["name"]
        for each in sent.body["tools"]
    )


async def _sent_names(
    standin: OpenAIStandin,
    backend: OpenAIBackend,
    messages: list[ChatMessage],
    tools: list[ToolDefinition],
) -> list[str]:
    """The function names one request sends for ``tools``."""
    standin.push(completion("ok"))
    await backend.complete(messages, tools=tools)
    return [each["function"]["name"] for each in standin.requests[-1].body["tools"]]


async def test_contract_mode_never_sends_tools(
    standin: OpenAIStandin, sleep: SleepRecorder
) -> None:
    backend = make_backend(standin, sleep, mode=ToolMode.CONTRACT)
    standin.push(completion("It is 14:05."))

    await backend.complete(ANSWERED)
    with pytest.raises(ToolsUnsupportedError):
        await backend.complete(ANSWERED, tools=TOOLS)
    await backend.aclose()

    assert backend.mode is ToolMode.CONTRACT
    assert len(standin.requests) == 1
    sent = standin.requests[0]
    assert "tools" not in sent.body
    assert sent.messages[2] == {
        "role": "assistant",
        "content": '```json\n{"tool": "get_current_time", "args": {}}\n```',
    }
    assert sent.messages[3] == {
        "role": "user",
        "content": "Tool results:\n- get_current_time [ok]: 14:05",
    }


@pytest.mark.parametrize(
    ("status", "message"),
    [
        (400, "registry.ollama.ai/library/gemma3:4b does not support tools"),
        (500, "tools param requires --jinja flag"),
        (500, "Unsupported param: tools"),
    ],
)
async def test_auto_falls_back_when_the_server_rejects_tools(
    standin: OpenAIStandin, sleep: SleepRecorder, status: int, message: str
) -> None:
    backend = make_backend(standin, sleep, mode=ToolMode.AUTO)
    standin.push(error(status, message), completion("It is 14:05."))

    with pytest.raises(ToolsUnsupportedError, match="switched to the text contract"):
        await backend.complete(HELLO, tools=TOOLS)
    assert backend.mode is ToolMode.CONTRACT
    response = await backend.complete(HELLO)
    await backend.aclose()

    assert response.text == "It is 14:05."
    assert sleep.waits == []
    assert "tools" in standin.requests[0].body
    assert "tools" not in standin.requests[1].body


async def test_native_mode_explains_a_tools_rejection(
    standin: OpenAIStandin, backend: OpenAIBackend
) -> None:
    standin.push(error(400, "llama3 does not support tools"))

    with pytest.raises(LLMRequestError, match="ASSISTANT_LLM_MODE=contract") as caught:
        await backend.complete(HELLO, tools=TOOLS)

    assert not isinstance(caught.value, ToolsUnsupportedError)
    assert backend.mode is ToolMode.NATIVE


async def test_fall_back_to_contract_only_switches_auto(
    standin: OpenAIStandin, sleep: SleepRecorder, backend: OpenAIBackend
) -> None:
    auto = make_backend(standin, sleep, mode=ToolMode.AUTO)

    assert auto.fall_back_to_contract("wrote calls as text") is True
    assert auto.fall_back_to_contract("again") is False
    assert auto.mode is ToolMode.CONTRACT
    assert backend.fall_back_to_contract("wrote calls as text") is False
    assert backend.mode is ToolMode.NATIVE
    await auto.aclose()


@pytest.mark.parametrize("status", [401, 403])
async def test_refused_key_names_the_setting(
    standin: OpenAIStandin, backend: OpenAIBackend, status: int
) -> None:
    standin.push(error(status, "Incorrect API key provided: sk-test"))

    with pytest.raises(LLMAuthError, match="ASSISTANT_LLM_API_KEY") as caught:
        await backend.complete(HELLO)

    assert "Incorrect API key provided" in str(caught.value)
    assert len(standin.requests) == 1


async def test_unknown_model_names_the_settings(
    standin: OpenAIStandin, backend: OpenAIBackend
) -> None:
    standin.push(error(404, "The model `gpt-9` does not exist"))

    with pytest.raises(LLMNotFoundError) as caught:
        await backend.complete(HELLO)

    assert "ASSISTANT_LLM_MODEL" in str(caught.value)
    assert "ASSISTANT_LLM_BASE_URL" in str(caught.value)
    assert "'standin-model'" in str(caught.value)


async def test_429_waits_as_retry_after_says(
    standin: OpenAIStandin, backend: OpenAIBackend, sleep: SleepRecorder
) -> None:
    standin.push(error(429, "slow down", Retry_After="2"), completion("fine"))

    response = await backend.complete(HELLO)

    assert response.text == "fine"
    assert sleep.waits == [2.0]
    assert len(standin.requests) == 2


async def test_persistent_429_ends_in_a_clear_error(
    standin: OpenAIStandin, backend: OpenAIBackend, sleep: SleepRecorder
) -> None:
    standin.push(*[error(429, "Rate limit reached for requests")] * 4)

    with pytest.raises(LLMRateLimitError, match="after 4 attempts") as caught:
        await backend.complete(HELLO)

    assert "Rate limit reached for requests" in str(caught.value)
    assert sleep.waits == [0.5, 1.0, 2.0]


async def test_500_is_retried_with_backoff(
    standin: OpenAIStandin, backend: OpenAIBackend, sleep: SleepRecorder
) -> None:
    standin.push(error(500, "boom"), error(503, "overloaded"), completion("fine"))

    response = await backend.complete(HELLO)

    assert response.text == "fine"
    assert sleep.waits == [0.5, 1.0]


async def test_persistent_500_ends_in_a_clear_error(
    standin: OpenAIStandin, sleep: SleepRecorder
) -> None:
    backend = make_backend(standin, sleep, max_retries=1)
    standin.push(error(500, "internal failure"), error(500, "internal failure"))

    with pytest.raises(LLMServerError, match=r"HTTP 500: internal failure"):
        await backend.complete(HELLO)
    await backend.aclose()

    assert len(standin.requests) == 2


async def test_timeout_is_a_clear_error(standin: OpenAIStandin, sleep: SleepRecorder) -> None:
    backend = make_backend(standin, sleep, timeout=0.2)
    standin.push(StandinReply(hang=True))

    with pytest.raises(LLMTimeoutError, match=r"did not answer within 0.2s"):
        await backend.complete(HELLO)
    await backend.aclose()


async def test_malformed_body_is_quoted(standin: OpenAIStandin, backend: OpenAIBackend) -> None:
    standin.push(StandinReply(body="<html>Bad Gateway</html>"))

    with pytest.raises(LLMResponseError, match="not JSON: '<html>Bad Gateway</html>'"):
        await backend.complete(HELLO)


@pytest.mark.parametrize(
    "body",
    [
        {"id": "x", "choices": []},
        {"id": "x"},
    ],
)
async def test_empty_choices_is_a_clear_error(
    standin: OpenAIStandin, backend: OpenAIBackend, body: dict[str, Any]
) -> None:
    standin.push(StandinReply(body=body))

    with pytest.raises(LLMResponseError, match="without any choices"):
        await backend.complete(HELLO)


async def test_error_inside_a_200_is_reported(
    standin: OpenAIStandin, backend: OpenAIBackend
) -> None:
    standin.push(StandinReply(body={"error": {"message": "upstream provider failed"}}))

    with pytest.raises(LLMResponseError, match="upstream provider failed"):
        await backend.complete(HELLO)


async def test_unreachable_server_names_the_base_url(sleep: SleepRecorder) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    backend = OpenAIBackend(model="m", base_url=f"http://127.0.0.1:{port}/v1", sleep=sleep)

    with pytest.raises(LLMConnectionError, match="ASSISTANT_LLM_BASE_URL"):
        await backend.complete(HELLO)
    await backend.aclose()


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="ASSISTANT_LLM_MODEL"):
        OpenAIBackend(model=" ")
    with pytest.raises(ValueError, match="-1"):
        OpenAIBackend(model="m", max_retries=-1)


def test_retry_after_accepts_seconds_and_dates() -> None:
    now = datetime(2025, 1, 1, 12, 0, tzinfo=UTC)

    assert parse_retry_after("3", now=now) == 3.0
    assert parse_retry_after("Wed, 01 Jan 2025 12:00:05 GMT", now=now) == 5.0
    assert parse_retry_after("soon", now=now) is None
    assert parse_retry_after(None, now=now) is None


# -- whole turns through the DialogAgent ---------------------------------------------------


def probe_answered() -> StandinReply:
    """A model answering the AUTO probe with the native call it asks for."""
    return completion(None, tool_calls=[("p1", "report_status", {"status": "ok"})])


def model_calls(mode: ToolMode, name: str, call_id: str = "c1", **args: Any) -> StandinReply:
    """The model asking for one call, natively or in the text contract."""
    if mode is ToolMode.NATIVE:
        return completion(None, tool_calls=[(call_id, name, args)], finish_reason="tool_calls")
    return completion(f"One moment.\n{fence(name, **args)}")


@pytest.fixture
async def world(
    standin: OpenAIStandin, sleep: SleepRecorder, request: pytest.FixtureRequest
) -> AsyncIterator[World]:
    mode = getattr(request, "param", ToolMode.NATIVE)
    backend = make_backend(standin, sleep, mode=mode)
    yield World(backend)
    await backend.aclose()


BOTH_MODES = pytest.mark.parametrize(
    "world", [ToolMode.NATIVE, ToolMode.CONTRACT], indirect=True, ids=["native", "contract"]
)


@BOTH_MODES
async def test_multi_round_turn(standin: OpenAIStandin, world: World) -> None:
    mode = world.backend.mode
    standin.push(
        model_calls(mode, "get_current_time", "c1"),
        model_calls(mode, "add_reminder", "c2", when="at 18:00", message="call mom"),
        completion("It is 13:00; I'll remind you at 18:00 to call mom."),
    )

    reply = await world.say("what time is it? and remind me at 6pm to call mom")

    assert reply.text == "It is 13:00; I'll remind you at 18:00 to call mom."
    assert reply.rounds == 3
    assert world.home.reminders == [("at 18:00", "call mom")]
    first, second, third = standin.requests
    if mode is ToolMode.NATIVE:
        assert {t["function"]["name"] for t in first.body["tools"]} >= {"add_reminder"}
        assert second.messages[-1] == {
            "role": "tool",
            "tool_call_id": "c1",
            "content": "13:00 Europe/Berlin",
        }
        assert third.messages[-2]["tool_calls"][0]["id"] == "c2"
    else:
        assert "tools" not in first.body
        assert "add_reminder(" in first.messages[0]["content"]
        assert second.messages[-1]["role"] == "user"
        assert second.messages[-1]["content"].startswith("Tool results:")
        assert "13:00 Europe/Berlin" in second.messages[-1]["content"]
    assert "2025-03-14 13:00" in first.messages[0]["content"]


@BOTH_MODES
async def test_self_correction_after_a_validation_error(
    standin: OpenAIStandin, world: World
) -> None:
    mode = world.backend.mode
    standin.push(
        model_calls(mode, "add_reminder", "c1", when="at 6pm"),
        model_calls(mode, "add_reminder", "c2", when="at 6pm", message="tea"),
        completion("Set for 6pm."),
    )

    reply = await world.say("remind me at 6pm about tea")

    assert reply.text == "Set for 6pm."
    assert [r.status for r in reply.results] == [ToolStatus.INVALID, ToolStatus.OK]
    correction = standin.requests[1].messages[-1]["content"]
    assert "'message'" in correction and "add_reminder" in correction
    assert world.home.reminders == [("at 6pm", "tea")]


@BOTH_MODES
async def test_max_rounds_over_http(standin: OpenAIStandin, world: World) -> None:
    mode = world.backend.mode
    standin.push(*[model_calls(mode, "get_current_time", f"c{i}") for i in range(5)])

    reply = await world.say("loop forever")

    assert reply.rounds == 5
    assert "I stopped after 5 rounds" in reply.text
    assert len(standin.requests) == 5


@BOTH_MODES
async def test_approval_pause_and_resume_over_http(standin: OpenAIStandin, world: World) -> None:
    mode = world.backend.mode
    standin.push(model_calls(mode, "post", "c1", url="http://home.lan/lights/off"))

    paused = await world.say("turn off the lights")

    assert world.home.posts == []
    (request,) = paused.approvals
    assert "```" not in paused.text and request.id not in paused.text
    standin.push(completion("The lights are off."))

    done = await world.agent.resolve_approval(request.id, approved=True, by="alice")

    assert done.text == "The lights are off."
    assert world.home.posts == ["http://home.lan/lights/off"]
    resumed = standin.requests[1].messages
    assert resumed[1] == {"role": "user", "content": "turn off the lights"}
    assert resumed[-1]["role"] == "user"
    assert "POST http://home.lan/lights/off -> 200" in resumed[-1]["content"]


@pytest.mark.parametrize(
    ("replies", "expected"),
    [
        ([error(401, "invalid key")], "ASSISTANT_LLM_API_KEY"),
        ([error(500, "down")] * 4, "kept failing after 4 attempts"),
        ([error(429, "slow down", Retry_After="7")] * 4, "still rate limiting"),
        ([StandinReply(body="not json at all")], "not JSON: 'not json at all'"),
        ([StandinReply(body={"choices": []})], "without any choices"),
    ],
    ids=["401", "500", "429", "malformed", "empty-choices"],
)
async def test_server_failures_end_in_a_clear_message(
    standin: OpenAIStandin,
    world: World,
    replies: list[StandinReply],
    expected: str,
) -> None:
    standin.push(*replies)

    reply = await world.say("hello")

    assert reply.text.startswith("Sorry, I could not get an answer from the language model")
    assert expected in reply.text
    assert "Traceback" not in reply.text
    assert await world.conversations.load_conversation("alice", "chat-alice") == []


async def test_timeout_ends_the_turn_with_a_clear_message(
    standin: OpenAIStandin, sleep: SleepRecorder
) -> None:
    backend = make_backend(standin, sleep, timeout=0.2)
    world = World(backend)
    standin.push(StandinReply(hang=True))

    reply = await world.say("hello")
    await backend.aclose()

    assert "did not answer within 0.2s" in reply.text
    assert "Traceback" not in reply.text


async def test_429_with_retry_after_then_an_answer(
    standin: OpenAIStandin, world: World, sleep: SleepRecorder
) -> None:
    standin.push(error(429, "slow down", Retry_After="7"), completion("Hello!"))

    reply = await world.say("hello")

    assert reply.text == "Hello!"
    assert sleep.waits == [7.0]


async def test_auto_retries_the_round_in_contract_mode(
    standin: OpenAIStandin, sleep: SleepRecorder
) -> None:
    backend = make_backend(standin, sleep, mode=ToolMode.AUTO)
    world = World(backend)
    standin.push(
        error(400, "registry.ollama.ai/library/gemma3:4b does not support tools"),
        model_calls(ToolMode.CONTRACT, "get_current_time"),
        completion("It is 13:00."),
    )

    reply = await world.say("time?")
    await backend.aclose()

    assert reply.text == "It is 13:00."
    assert "tools" in standin.requests[0].body
    assert "tools" not in standin.requests[1].body
    assert "get_current_time(" in standin.requests[1].messages[0]["content"]
    assert backend.mode is ToolMode.CONTRACT


async def test_auto_switches_when_the_model_writes_calls_as_text(
    standin: OpenAIStandin, sleep: SleepRecorder
) -> None:
    backend = make_backend(standin, sleep, mode=ToolMode.AUTO)
    world = World(backend)
    standin.push(
        probe_answered(),
        model_calls(ToolMode.CONTRACT, "get_current_time"),
        completion("13:00."),
    )

    reply = await world.say("time?")
    await backend.aclose()

    assert reply.text == "13:00."
    assert [r.status for r in reply.results] == [ToolStatus.OK]
    assert backend.mode is ToolMode.CONTRACT
    assert "tools" in standin.requests[1].body
    assert "tools" not in standin.requests[2].body
    assert standin.requests[2].messages[-1]["content"].startswith("Tool results:")


# -- credentials never leave in an error -------------------------------------------------


LEAKY_KEY = "sk-live-0123456789abcdefABCDEF"
PLAIN_KEY = "plain-secret-value-42"


@pytest.mark.parametrize(
    ("key", "said"),
    [
        (LEAKY_KEY, f"Incorrect API key provided: Bearer {LEAKY_KEY}"),
        (LEAKY_KEY, f"Incorrect API key provided: {LEAKY_KEY}. Find your key at ..."),
        (PLAIN_KEY, f"no such key {PLAIN_KEY!r}"),  # not key-shaped: hidden because it is the key
    ],
)
async def test_a_refused_key_is_never_echoed_to_the_user_or_the_log(
    standin: OpenAIStandin,
    sleep: SleepRecorder,
    caplog: pytest.LogCaptureFixture,
    key: str,
    said: str,
) -> None:
    standin.push(error(401, said), error(401, said))
    backend = make_backend(standin, sleep, api_key=key, mode=ToolMode.NATIVE)
    world = World(backend)

    with pytest.raises(LLMAuthError, match="ASSISTANT_LLM_API_KEY") as caught:
        await backend.complete(HELLO)
    reply = await world.say("hello")
    await backend.aclose()

    assert {k.lower(): v for k, v in standin.requests[0].headers.items()}["authorization"] == (
        f"Bearer {key}"
    )
    assert "refused the API key (HTTP 401: " in str(caught.value)
    for shown in (str(caught.value), reply.text, caplog.text):
        assert key not in shown
    assert "[redacted]" in str(caught.value) and "[redacted]" in reply.text


async def test_an_error_event_mid_stream_never_echoes_the_key(
    standin: OpenAIStandin, sleep: SleepRecorder
) -> None:
    standin.push(StandinReply(events=[{"error": {"message": f"bad key {PLAIN_KEY}"}}]))
    backend = make_backend(standin, sleep, api_key=PLAIN_KEY, mode=ToolMode.NATIVE)

    with pytest.raises(LLMResponseError, match="error") as caught:
        async for _ in backend.stream(HELLO):
            pass
    await backend.aclose()

    assert PLAIN_KEY not in str(caught.value)


async def test_max_tokens_is_sent_only_when_set(
    standin: OpenAIStandin, sleep: SleepRecorder
) -> None:
    capped = make_backend(standin, sleep, mode=ToolMode.CONTRACT, max_tokens=64)
    free = make_backend(standin, sleep, mode=ToolMode.CONTRACT)
    standin.push(completion("a"), completion("b"))

    await capped.complete(HELLO)
    await free.complete(HELLO)
    await capped.aclose()
    await free.aclose()

    assert standin.requests[0].body["max_tokens"] == 64
    assert "max_tokens" not in standin.requests[1].body

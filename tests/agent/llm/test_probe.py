"""AUTO mode finds out whether native calls come back (against the HTTP stand-in)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from agent.llm import (
    ChatMessage,
    OpenAIBackend,
    Role,
    ToolMode,
    ToolsUnsupportedError,
    ToolSupportCache,
)
from tests.agent.llm.openai_standin import OpenAIStandin, StandinReply, completion, error
from tools import ToolDefinition

TOOLS = [
    ToolDefinition(
        "get_current_time", "Return the current time.", {"type": "object", "properties": {}}
    )
]
HELLO = [ChatMessage(Role.USER, "what time is it?")]


class Ticker:
    """A monotonic clock moved by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def standin() -> Iterator[OpenAIStandin]:
    with OpenAIStandin() as server:
        yield server


def auto_backend(standin: OpenAIStandin, cache: ToolSupportCache | None = None) -> OpenAIBackend:
    return OpenAIBackend(
        model="standin-model",
        base_url=standin.url,
        mode=ToolMode.AUTO,
        timeout=5.0,
        tool_support=cache,
    )


def probe_call() -> StandinReply:
    return completion(None, tool_calls=[("p1", "report_status", {"status": "ok"})])


async def test_a_server_that_ignores_tools_gets_the_text_contract(standin: OpenAIStandin) -> None:
    backend = auto_backend(standin)
    standin.push(completion("Sure! Status is ok."), completion("It is 14:05."))

    with pytest.raises(ToolsUnsupportedError, match="no tool call came back"):
        await backend.complete(HELLO, tools=TOOLS)
    answer = await backend.complete(HELLO)
    await backend.aclose()

    assert backend.mode is ToolMode.CONTRACT
    assert answer.text == "It is 14:05."
    probe = standin.requests[0].body
    assert [t["function"]["name"] for t in probe["tools"]] == ["report_status"]
    assert probe["tool_choice"] == "auto"
    assert "tools" not in standin.requests[1].body


async def test_a_server_that_calls_stays_native_and_is_asked_once(standin: OpenAIStandin) -> None:
    backend = auto_backend(standin)
    standin.push(probe_call(), completion("14:05"), completion("14:06"))

    first = await backend.complete(HELLO, tools=TOOLS)
    second = await backend.complete(HELLO, tools=TOOLS)
    await backend.aclose()

    assert (first.text, second.text) == ("14:05", "14:06")
    assert backend.mode is ToolMode.NATIVE
    assert len(standin.requests) == 3
    assert standin.requests[1].body["tool_choice"] == "auto"
    assert standin.requests[1].body["tools"][0]["function"]["name"] == "get_current_time"


async def test_the_verdict_is_shared_per_base_url_and_model(standin: OpenAIStandin) -> None:
    cache = ToolSupportCache()
    standin.push(probe_call(), completion("a"), completion("b"))

    one, two = auto_backend(standin, cache), auto_backend(standin, cache)
    await one.complete(HELLO, tools=TOOLS)
    await two.complete(HELLO, tools=TOOLS)
    await one.aclose()
    await two.aclose()

    assert len(standin.requests) == 3


async def test_an_old_native_verdict_is_checked_again_when_calls_stop(
    standin: OpenAIStandin,
) -> None:
    ticker = Ticker()
    cache = ToolSupportCache(recheck_after=60.0, monotonic=ticker)
    backend = auto_backend(standin, cache)
    standin.push(
        probe_call(),
        completion("no call, but the verdict is young"),
        completion("no call, the verdict is old now"),
        completion("I cannot call tools."),  # the second probe: tools are ignored now
    )

    await backend.complete(HELLO, tools=TOOLS)
    ticker.now += 61
    await backend.complete(HELLO, tools=TOOLS)
    with pytest.raises(ToolsUnsupportedError):
        await backend.complete(HELLO, tools=TOOLS)
    await backend.aclose()

    assert backend.mode is ToolMode.CONTRACT
    assert standin.requests[3].body["tools"][0]["function"]["name"] == "report_status"


async def test_a_refused_probe_keeps_native(standin: OpenAIStandin) -> None:
    backend = auto_backend(standin)
    standin.push(error(400, "Unsupported parameter: 'max_tokens'"), completion("14:05"))

    answer = await backend.complete(HELLO, tools=TOOLS)
    await backend.aclose()

    assert answer.text == "14:05"
    assert backend.mode is ToolMode.NATIVE


async def test_a_probe_that_rejects_tools_switches_at_once(standin: OpenAIStandin) -> None:
    backend = auto_backend(standin)
    standin.push(error(400, "llama3 does not support tools"))

    with pytest.raises(ToolsUnsupportedError, match="rejected native tool calling"):
        await backend.complete(HELLO, tools=TOOLS)
    await backend.aclose()

    assert backend.mode is ToolMode.CONTRACT
    assert len(standin.requests) == 1


async def test_native_and_contract_modes_never_probe(standin: OpenAIStandin) -> None:
    native = OpenAIBackend(model="m", base_url=standin.url, mode=ToolMode.NATIVE)
    standin.push(completion("14:05"))

    await native.complete(HELLO, tools=TOOLS)
    await native.aclose()

    assert len(standin.requests) == 1
    assert standin.requests[0].body["tools"][0]["function"]["name"] == "get_current_time"

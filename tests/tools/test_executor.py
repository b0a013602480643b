import asyncio
import logging
import threading
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from common import HttpRequestError, ManualClock
from tools import (
    ApprovalError,
    ApprovalStatus,
    InMemoryApprovalStore,
    ToolCall,
    ToolContext,
    ToolDefinitionError,
    ToolError,
    ToolExecutor,
    ToolRegistry,
    ToolStatus,
    tool,
)

CTX = ToolContext(user_id="alice", chat_id="chat-1")


START = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


@dataclass
class Weather:
    city: str
    degrees: int


class Recorder:
    """Tools with observable side effects."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, str]] = []
        self.threads: list[int] = []
        self.gate = asyncio.Event()

    @tool(requires_approval=lambda args, ctx: args.get("method", "GET") not in {"GET", "HEAD"})
    def http(self, url: str, method: str = "GET") -> str:
        """Make an HTTP request."""
        self.requests.append((method, url))
        self.threads.append(threading.get_ident())
        return f"{method} {url} -> 200"

    @tool(
        llm_format="{city}: {degrees} C",
        gui_format=lambda w: f"It is {w.degrees} degrees in {w.city}",
    )
    async def weather(self, city: str) -> Weather:
        """Get the weather."""
        return Weather(city, 21)

    @tool(timeout=0.05)
    async def hang(self) -> None:
        """Never finish."""
        await asyncio.Event().wait()

    @tool
    def explode(self) -> None:
        """Fail."""
        raise RuntimeError("disk on fire\nsecond line")

    @tool(parallel=True)
    async def wait_for_gate(self) -> str:
        """Wait until open_gate runs."""
        await asyncio.wait_for(self.gate.wait(), 2)
        return "passed"

    @tool(parallel=True)
    async def open_gate(self) -> str:
        """Open the gate."""
        self.gate.set()
        return "opened"

    @tool(
        preprocess=lambda args: {**args, "text": args["text"].strip()},
        postprocess=lambda result: {"echo": result},
    )
    def echo(self, text: str) -> str:
        """Echo text."""
        return text

    @tool
    def big(self) -> str:
        """Return a lot."""
        return "x" * 100

    @tool
    def data(self) -> dict[str, Any]:
        """Return data."""
        return {"name": "Zoë", "items": [1, 2]}


def make(clock: ManualClock | None = None, **kwargs: Any) -> tuple[ToolExecutor, Recorder]:
    recorder = Recorder()
    executor = ToolExecutor(ToolRegistry([recorder]), clock=clock or ManualClock(START), **kwargs)
    return executor, recorder


async def test_sync_tool_runs_off_the_event_loop() -> None:
    executor, recorder = make()
    result = await executor.execute(ToolCall("http", {"url": "http://x"}), CTX)
    assert result.status is ToolStatus.OK
    assert result.output == "GET http://x -> 200"
    assert result.text == "GET http://x -> 200"
    assert recorder.threads[0] != threading.get_ident()
    assert result.duration >= 0


async def test_formats_for_model_and_person() -> None:
    executor, _ = make()
    result = await executor.execute(ToolCall("weather", {"city": "Oslo"}), CTX)
    assert result.text == "Oslo: 21 C"
    assert result.display == "It is 21 degrees in Oslo"
    data = await executor.execute(ToolCall("data", {}), CTX)
    assert data.text == '{"name":"Zoë","items":[1,2]}'


async def test_pre_and_post_processing_hooks() -> None:
    executor, _ = make()
    result = await executor.execute(ToolCall("echo", {"text": "  hi  "}), CTX)
    assert result.output == {"echo": "hi"}


async def test_timeout_becomes_a_result() -> None:
    executor, _ = make()
    result = await executor.execute(ToolCall("hang", {}), CTX)
    assert result.status is ToolStatus.TIMEOUT
    assert result.error == "hang did not finish within 0.05 s and was stopped"


async def test_exception_becomes_its_message_and_the_traceback_is_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    executor, _ = make()
    with caplog.at_level(logging.ERROR, logger="tools.run.executor"):
        result = await executor.execute(ToolCall("explode", {}), CTX)
    assert result.status is ToolStatus.ERROR
    # What people read is what went wrong; the class name stays in the log with the traceback.
    assert result.text == "disk on fire"
    assert "RuntimeError: disk on fire" in caplog.text
    assert "Traceback" in caplog.text
    assert "second line" in caplog.text


async def test_invalid_call_is_not_run() -> None:
    executor, recorder = make()
    result = await executor.execute(ToolCall("http", {"verb": "GET"}), CTX)
    assert result.status is ToolStatus.INVALID
    assert "missing required argument 'url'" in result.text
    assert "unknown argument 'verb'" in result.text
    assert result.display == "the url was missing; it takes no verb"  # what a person reads
    assert recorder.requests == []
    unknown = await executor.execute(ToolCall("htp", {}), CTX)
    assert unknown.status is ToolStatus.INVALID
    assert "Did you mean 'http'?" in unknown.text
    assert unknown.display == "I have no tool called 'htp'"


async def test_neighbouring_parallel_calls_run_together_and_keep_call_order() -> None:
    executor, _ = make()
    calls = [ToolCall("wait_for_gate", {}), ToolCall("open_gate", {}), ToolCall("nope", {})]
    results = await executor.execute_all(calls, CTX)
    assert [r.call for r in results] == calls
    assert [r.status for r in results] == [ToolStatus.OK, ToolStatus.OK, ToolStatus.INVALID]
    assert results[0].output == "passed"


async def test_calls_run_one_after_another_in_the_order_given() -> None:
    log: list[str] = []

    class Journal:
        @tool
        async def write(self, line: str) -> str:
            """Write a line, slowly."""
            await asyncio.sleep(0.01 if line == "first" else 0)
            log.append(line)
            return line

        @tool(parallel=True)
        def read(self) -> list[str]:
            """Read what was written."""
            return list(log)

    executor = ToolExecutor(ToolRegistry([Journal()]))
    calls = [
        ToolCall("write", {"line": "first"}),
        ToolCall("write", {"line": "second"}),
        ToolCall("read", {}),
    ]
    results = await executor.execute_all(calls, CTX)
    assert log == ["first", "second"]
    assert results[2].output == ["first", "second"]


async def test_output_is_capped_for_the_model() -> None:
    executor, _ = make(max_output_chars=10)
    result = await executor.execute(ToolCall("big", {}), CTX)
    assert result.text == "x" * 10 + "\n[... output truncated: 90 more characters]"
    assert result.output == "x" * 100


async def test_approval_gate_holds_the_call_until_approved() -> None:
    clock = ManualClock(START)
    store = InMemoryApprovalStore()
    executor, recorder = make(clock, approvals=store)
    call = ToolCall("http", {"url": "http://lamp/off", "method": "POST"})
    pending = await executor.execute(call, CTX)
    assert pending.status is ToolStatus.PENDING_APPROVAL
    assert recorder.requests == []
    request = pending.approval
    assert request is not None
    assert request.tool_name == "http"
    assert request.arguments == {"url": "http://lamp/off", "method": "POST"}
    assert request.user_id == "alice"
    assert request.expires_at == clock.now() + timedelta(minutes=30)
    assert await store.list_approvals("alice") == [request]

    with pytest.raises(ApprovalError, match="no approval request"):
        await executor.approve(request.id, by="mallory")
    assert recorder.requests == []

    done = await executor.approve(request.id, by="alice")
    assert done.status is ToolStatus.OK
    assert recorder.requests == [("POST", "http://lamp/off")]
    assert done.call.id == call.id

    with pytest.raises(ApprovalError, match="already approved"):
        await executor.approve(request.id, by="alice")
    assert recorder.requests == [("POST", "http://lamp/off")]


async def test_another_users_request_reads_like_a_missing_one() -> None:
    executor, recorder = make()
    pending = await executor.execute(ToolCall("http", {"url": "u", "method": "POST"}), CTX)
    request = pending.approval
    assert request is not None
    assert await executor.find_approval(request.id, user_id="alice") == request
    assert await executor.find_approval(request.id, user_id="mallory") is None
    assert await executor.find_approval("ap-unknown", user_id="alice") is None
    for request_id, by, decide in (
        (request.id, "mallory", executor.approve),
        (request.id, "mallory", executor.deny),
        ("ap-unknown", "alice", executor.approve),
    ):
        with pytest.raises(ApprovalError) as refused:
            await decide(request_id, by)
        assert str(refused.value) == f"there is no approval request {request_id!r} of yours"
    assert await executor.find_approval(request.id, user_id="alice") == request
    assert recorder.requests == []


async def test_get_needs_no_approval() -> None:
    executor, recorder = make()
    result = await executor.execute(ToolCall("http", {"url": "http://x", "method": "GET"}), CTX)
    assert result.status is ToolStatus.OK
    assert recorder.requests == [("GET", "http://x")]


async def test_deny_records_the_refusal_and_runs_nothing() -> None:
    store = InMemoryApprovalStore()
    executor, recorder = make(approvals=store)
    pending = await executor.execute(ToolCall("http", {"url": "u", "method": "DELETE"}), CTX)
    assert pending.approval is not None
    denied = await executor.deny(pending.approval.id, by="alice")
    assert denied.status is ToolStatus.DENIED
    assert denied.text == "The user denied the call to 'http'; it was not run."
    stored = await store.get_approval(pending.approval.id)
    assert stored is not None and stored.status is ApprovalStatus.DENIED
    assert stored.decided_by == "alice"
    assert recorder.requests == []


async def test_expired_request_cannot_be_approved() -> None:
    clock = ManualClock(START)
    executor, recorder = make(clock)
    pending = await executor.execute(ToolCall("http", {"url": "u", "method": "PUT"}), CTX)
    assert pending.approval is not None
    clock.advance(timedelta(minutes=31))
    with pytest.raises(ApprovalError, match="expired"):
        await executor.approve(pending.approval.id, by="alice")
    assert recorder.requests == []


async def test_before_and_after_hooks_observe_every_call() -> None:
    seen: list[str] = []

    async def before(call: ToolCall, ctx: ToolContext) -> None:
        seen.append(f"before {call.tool_name}")

    def after(result: Any, ctx: ToolContext) -> None:
        seen.append(f"after {result.status.value}")

    def broken(result: Any, ctx: ToolContext) -> None:
        raise ValueError("observer bug")

    executor, _ = make(before=[before], after=[after, broken])
    result = await executor.execute(ToolCall("big", {}), CTX)
    assert result.status is ToolStatus.OK
    assert seen == ["before big", "after ok"]


async def test_stats_count_calls_errors_and_latency() -> None:
    executor, _ = make()
    for _ in range(3):
        await executor.execute(ToolCall("big", {}), CTX)
    await executor.execute(ToolCall("explode", {}), CTX)
    await executor.execute(ToolCall("ghost", {}), CTX)
    stats = executor.stats()
    assert stats["big"].calls == 3
    assert stats["big"].errors == 0
    assert stats["big"].p99_ms >= stats["big"].p50_ms > 0
    assert stats["explode"].errors == 1
    assert stats["(unknown tool)"].calls == 1


async def test_execute_from_text_parses_and_runs_every_call() -> None:
    executor, recorder = make()
    reply = (
        "Let me do both.\n"
        '```json\n{"tool": "http", "arguments": {"url": "http://a"}}\n```\n'
        'and <tool_call>{"name": "echo", "arguments": {"text": " hi "}}</tool_call>'
    )
    results = await executor.execute_from_text(reply, CTX)
    assert [r.status for r in results] == [ToolStatus.OK, ToolStatus.OK]
    assert recorder.requests == [("GET", "http://a")]
    assert results[1].output == {"echo": "hi"}


async def test_a_tool_error_is_a_plain_message_without_a_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    @tool
    def refuse(when: str) -> str:
        """Refuse."""
        raise ToolError(f"I could not understand {when!r}; e.g. 'in 5 minutes'")

    executor = ToolExecutor(ToolRegistry([refuse]))
    with caplog.at_level(logging.DEBUG, logger="tools.run.executor"):
        result = await executor.execute(ToolCall("refuse", {"when": "blorp"}), CTX)
    assert result.status is ToolStatus.ERROR
    assert result.text == "I could not understand 'blorp'; e.g. 'in 5 minutes'"
    assert "Traceback" not in caplog.text


def judging(verdict: Exception) -> tuple[ToolRegistry, list[str]]:
    """A registry whose one tool's approval rule raises ``verdict``, and what the tool ran."""

    def rule(arguments: dict[str, Any], ctx: ToolContext) -> bool:
        raise verdict

    ran: list[str] = []

    @tool(requires_approval=rule)
    def fetch(url: str) -> str:
        """Fetch a URL."""
        ran.append(url)
        return "fetched"

    return ToolRegistry([fetch]), ran


@pytest.mark.parametrize("refusal", [ToolError, HttpRequestError], ids=["tool", "http"])
async def test_an_approval_rule_that_refuses_the_arguments_makes_the_call_invalid(
    refusal: type[Exception], caplog: pytest.LogCaptureFixture
) -> None:
    registry, ran = judging(refusal("invalid URL 'http://xn--localhost/': bad label"))
    executor = ToolExecutor(registry, clock=ManualClock(START))

    result = await executor.execute(ToolCall("fetch", {"url": "http://xn--localhost/"}), CTX)

    assert result.status is ToolStatus.INVALID
    assert (
        result.text
        == "tool 'fetch' refused the call: invalid URL 'http://xn--localhost/': bad label"
    )
    assert executor.stats()["fetch"].calls == 1 and ran == []
    assert "Traceback" not in caplog.text


async def test_a_refused_http_request_is_the_tool_s_answer_without_a_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    @tool
    def fetch(url: str) -> str:
        """Fetch a URL."""
        raise HttpRequestError(f"refusing to connect to {url}: a private address", permanent=True)

    executor = ToolExecutor(ToolRegistry([fetch]), clock=ManualClock(START))

    with caplog.at_level(logging.INFO):
        result = await executor.execute(ToolCall("fetch", {"url": "http://10.0.0.1/"}), CTX)

    assert result.status is ToolStatus.ERROR
    assert result.text.endswith("refusing to connect to http://10.0.0.1/: a private address")
    assert "Traceback" not in caplog.text and "failed (call" not in caplog.text


async def test_an_approval_rule_that_fails_runs_nothing_and_says_so(
    caplog: pytest.LogCaptureFixture,
) -> None:
    registry, ran = judging(RuntimeError("rule bug"))
    executor = ToolExecutor(registry, clock=ManualClock(START))

    result = await executor.execute(ToolCall("fetch", {"url": "http://x.test/"}), CTX)

    assert result.status is ToolStatus.ERROR
    assert "could not check whether this call needs approval (rule bug)" in result.text
    assert "so it was not run" in result.text
    assert "approval rule of tool 'fetch' failed" in caplog.text and ran == []


async def test_without_a_context_calls_run_for_the_local_user() -> None:
    @tool
    def whoami(ctx: ToolContext) -> str:
        """Say who is calling."""
        return f"{ctx.user_id} in {ctx.chat_id} at {ctx.now:%H:%M}"

    executor = ToolExecutor(ToolRegistry([whoami]), clock=ManualClock(START))
    expected = "local in local at 12:00"
    assert (await executor.execute(ToolCall("whoami", {}))).output == expected
    assert [r.output for r in await executor.execute_all([ToolCall("whoami", {})])] == [expected]
    [found] = await executor.execute_from_text('```json\n{"tool": "whoami", "args": {}}\n```')
    assert found.output == expected


def test_validate_tool_call_takes_the_dict_a_plan_writes() -> None:
    executor, _ = make()

    good = executor.validate_tool_call({"tool": "http", "sequence": 1, "args": {"url": "http://a"}})
    assert good.is_valid and good.errors == [] and good.arguments == {"url": "http://a"}
    assert executor.validate_tool_call(
        {"name": "weather", "arguments": '{"city": "Rome"}'}
    ).is_valid

    missing = executor.validate_tool_call({"tool": "http", "args": {}})
    assert not missing.is_valid
    assert missing.errors == ["tool 'http': missing required argument 'url': expected string"]
    unknown = executor.validate_tool_call({"tool": "htp", "args": {}})
    assert "Did you mean 'http'?" in unknown.errors[0]
    nonsense = executor.validate_tool_call({"colour": "blue"})
    assert not nonsense.is_valid and "is not one tool call" in nonsense.errors[0]


class Charts:
    """A tool whose missing arguments are filled in from the call's context."""

    def __init__(self) -> None:
        self.folder = "/charts"

    def next_path(self, ctx: ToolContext, arguments: dict[str, Any]) -> str:
        return f"{self.folder}/{ctx.user_id}-{arguments['y']}.png"

    @tool(
        resolvers={
            "x": lambda ctx: "date" if ctx.chat_id == "sales" else None,
            "output_path": next_path,
            "zone": lambda ctx: ctx.timezone.key,
        },
        argument_aliases={"y": ["column", "value"]},
    )
    def plot_line(self, x: str, y: str, output_path: str, zone: str = "UTC") -> str:
        """Plot y against x."""
        return f"{y} by {x} in {zone} -> {output_path}"


async def test_missing_arguments_are_filled_in_from_the_context_before_the_check() -> None:
    executor = ToolExecutor(ToolRegistry([Charts()]))
    ctx = ToolContext(user_id="ann", chat_id="sales")

    result = await executor.execute(ToolCall("plot_line", {"y": "revenue"}), ctx)

    assert result.output == "revenue by date in UTC -> /charts/ann-revenue.png"
    assert result.call.arguments == {
        "y": "revenue",
        "x": "date",
        "output_path": "/charts/ann-revenue.png",
        "zone": "UTC",
    }
    given = await executor.execute(ToolCall("plot_line", {"y": "cost", "x": "month"}), ctx)
    assert given.output == "cost by month in UTC -> /charts/ann-cost.png"
    assert executor.registry["plot_line"].schema()["required"] == ["y"]


async def test_an_argument_that_cannot_be_filled_in_is_asked_of_the_model() -> None:
    executor = ToolExecutor(ToolRegistry([Charts()]))

    result = await executor.execute(ToolCall("plot_line", {"y": "revenue"}), CTX)

    assert result.status is ToolStatus.INVALID
    assert result.text == (
        "tool 'plot_line': the argument 'x' is missing and could not be filled in from the "
        "context; give it in the call"
    )


async def test_an_argument_may_come_under_another_name() -> None:
    executor = ToolExecutor(ToolRegistry([Charts()]))
    ctx = ToolContext(user_id="ann", chat_id="sales")

    aliased = await executor.execute(ToolCall("plot_line", {"column": "profit"}), ctx)
    assert aliased.output == "profit by date in UTC -> /charts/ann-profit.png"
    both = executor.validate_tool_call(
        {"tool": "plot_line", "args": {"y": "a", "value": "b", "x": "d", "output_path": "p"}}
    )
    assert both.arguments["y"] == "a"
    assert "ignored 'value', another name of 'y'" in both.warnings[0]


async def test_an_unknown_argument_of_a_valid_call_is_left_out_and_the_model_told() -> None:
    executor, recorder = make()

    result = await executor.execute(ToolCall("http", {"url": "http://a", "retries": 3}), CTX)

    assert result.status is ToolStatus.OK
    assert recorder.requests == [("GET", "http://a")]
    assert result.text == "GET http://a -> 200\n(Left out unknown arguments: 'retries'.)"


def test_resolvers_and_argument_aliases_must_name_parameters() -> None:
    @tool(resolvers={"colour": lambda ctx: "red"})
    def paint(color: str) -> str:
        """Paint."""
        return color

    @tool(argument_aliases={"color": ["shade"], "size": ["color"]})
    def draw(color: str, size: int) -> str:
        """Draw."""
        return color

    with pytest.raises(ToolDefinitionError, match="resolvers names 'colour'"):
        ToolRegistry([paint])
    with pytest.raises(ToolDefinitionError, match=r"alias 'color' \(of 'size'\) is already taken"):
        ToolRegistry([draw])


async def test_execute_from_text_knows_tools_registered_after_the_first_call() -> None:
    registry = ToolRegistry()
    executor = ToolExecutor(registry)
    bare = 'Calling {"tool": "ping", "args": {}} now.'
    assert await executor.execute_from_text(bare) == []

    @tool
    def ping() -> str:
        """Answer pong."""
        return "pong"

    registry.add(ping)
    [result] = await executor.execute_from_text(bare)
    assert result.output == "pong"

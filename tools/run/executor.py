"""``ToolExecutor``: validate and run tool calls safely, with an approval gate."""

from __future__ import annotations

import asyncio
import inspect
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import replace
from datetime import timedelta
from typing import Any, TypeVar

from common import REDIRECT_CHECK, Clock, SystemClock
from tools.calls import ApprovalRequest, ApprovalStatus, ToolCall, ToolResult, ToolStatus
from tools.catalog import ArgumentConversionError, Tool, ToolRegistry
from tools.context import ToolContext
from tools.errors import REFUSALS, ApprovalError, ToolError
from tools.parse import ToolParser
from tools.provenance import Effect, Provenance, Verdict
from tools.run.approvals import ApprovalStore, InMemoryApprovalStore
from tools.run.arguments import fill_missing, read_aliases
from tools.run.telemetry import Telemetry, ToolStats
from tools.run.validation import ValidationResult, validate_tool_call

logger = logging.getLogger(__name__)
S = TypeVar("S")

BeforeHook = Callable[[ToolCall, ToolContext], Awaitable[None] | None]
AfterHook = Callable[[ToolResult, ToolContext], Awaitable[None] | None]

UNKNOWN_TOOL = "(unknown tool)"
"""The telemetry row that counts calls of names no tool has."""
DEFAULT_APPROVAL_TTL = timedelta(minutes=30)
DEFAULT_MAX_OUTPUT_CHARS = 12_000
DEFAULT_MAX_CALLS_PER_REPLY = 10
"""How many tool calls of one model reply run; the rest are answered as not run."""


class ToolExecutor:
    """Runs tool calls: validation, approval gate, timeout, formatting and telemetry.

    Every outcome is a ``ToolResult``: an unknown tool, invalid arguments, a timeout or an
    exception inside the tool is a result the model can read, never a crash. Sync tools run
    in worker threads so they never block the event loop. (A sync tool that overruns its
    timeout cannot be killed: its thread finishes in the background and its result is
    discarded.)
    """

    def __init__(
        self,
        registry: ToolRegistry,
        *,
        approvals: ApprovalStore | None = None,
        parser: ToolParser | None = None,
        clock: Clock | None = None,
        approval_ttl: timedelta = DEFAULT_APPROVAL_TTL,
        max_output_chars: int = DEFAULT_MAX_OUTPUT_CHARS,
        max_calls_per_reply: int = DEFAULT_MAX_CALLS_PER_REPLY,
        before: Sequence[BeforeHook] = (),
        after: Sequence[AfterHook] = (),
    ) -> None:
        self.registry = registry
        self.approvals: ApprovalStore = (
            approvals if approvals is not None else InMemoryApprovalStore()
        )
        self._parser = parser
        self._parser_names: tuple[str, ...] | None = None
        self._clock = clock or SystemClock()
        self._approval_ttl = approval_ttl
        self._max_output_chars = max_output_chars
        if max_calls_per_reply < 1:
            raise ValueError(f"max_calls_per_reply must be at least 1, got {max_calls_per_reply!r}")
        self.max_calls_per_reply = max_calls_per_reply
        self._before = list(before)
        self._after = list(after)
        self._telemetry = Telemetry()

    # -- running calls --------------------------------------------------------------------

    async def execute(self, call: ToolCall, ctx: ToolContext | None = None) -> ToolResult:
        """Validate ``call`` and run it, or stop at the approval gate.

        Per-user schema values come from ``ctx`` when it is already prepared (the agent
        prepares it for the round the model answered), else they are resolved now. Without
        ``ctx`` the call runs for the local user (see ``local_context``).
        """
        ctx = await self._ready(ctx)
        return await self._execute_prepared(call, ctx)

    async def execute_all(
        self, calls: Sequence[ToolCall], ctx: ToolContext | None = None
    ) -> list[ToolResult]:
        """Run ``calls`` in order, one after another; results come back in call order.

        A call sees what the calls before it did ("add a reminder, then list the tasks").
        Neighbouring calls of tools declared ``parallel`` (tools that only read) run at the
        same time, as one step of that order. ``calls`` are one model reply's: beyond
        ``max_calls_per_reply`` of them, each is answered INVALID without running, saying
        why (a reply that asks for a thousand reminders sets ten).
        """
        if not calls:
            return []
        ctx = await self._ready(ctx)
        allowed, refused = calls[: self.max_calls_per_reply], calls[self.max_calls_per_reply :]
        results: list[ToolResult] = []
        for step in self._steps(allowed):
            done = await asyncio.gather(*(self._execute_prepared(c, ctx) for c in step))
            results.extend(done)
            counted = self.counted(ctx.provenance, done)
            ctx = ctx if counted is ctx.provenance else replace(ctx, provenance=counted)
        return results + [self._over_the_limit(call, len(calls)) for call in refused]

    def _over_the_limit(self, call: ToolCall, asked: int) -> ToolResult:
        text = (
            f"Not run: one reply may make at most {self.max_calls_per_reply} tool calls "
            f"(ASSISTANT_MAX_CALLS_PER_REPLY) and this one made {asked}; the first "
            f"{self.max_calls_per_reply} ran. Tell the user what was done and that the rest "
            "was not; do not repeat the calls in a loop."
        )
        return ToolResult(call=call, status=ToolStatus.INVALID, text=text, display=text, error=text)

    def counted(self, provenance: Provenance, done: Sequence[ToolResult]) -> Provenance:
        """``provenance`` after ``done``: a removal that ran or waits counts for the calls
        after it (the second removal of a turn asks, ``tools.provenance``)."""
        for result in done:
            tool = self.registry.find(result.call.tool_name)
            if tool is not None and result.status in (ToolStatus.OK, ToolStatus.PENDING_APPROVAL):
                provenance = provenance.counted(tool.effects)
        return provenance

    def _steps(self, calls: Sequence[ToolCall]) -> list[list[ToolCall]]:
        """Split ``calls`` into steps: each call alone, neighbouring parallel calls together."""
        steps: list[list[ToolCall]] = []
        joinable = False
        for call in calls:
            found = self.registry.find(call.tool_name)
            parallel = found is not None and found.parallel
            if parallel and joinable:
                steps[-1].append(call)
            else:
                steps.append([call])
            joinable = parallel
        return steps

    async def execute_from_text(
        self, text: str, ctx: ToolContext | None = None
    ) -> list[ToolResult]:
        """Find the tool calls in a model's ``text`` and run them, in order."""
        parser = self._parser
        names = tuple(self.registry.all_names())
        if parser is None or self._parser_names not in (None, names):
            # Made for the registry's names as they are: tools may join it later.
            parser = self._parser = ToolParser(tool_names=names)
            self._parser_names = names
        return await self.execute_all(parser.extract_calls(text), ctx)

    def validate_tool_call(
        self, call: ToolCall | Mapping[str, Any], ctx: ToolContext | None = None
    ) -> ValidationResult:
        """Check a call without running it: ``is_valid``, ``errors`` and ``warnings``.

        The call may be a ``ToolCall`` or a dict as models and plans write them, such as
        ``{"tool": "add_reminder", "args": {...}}`` or ``{"name": ..., "arguments": ...}``.
        """
        return validate_tool_call(call, self.registry, ctx)

    def local_context(self) -> ToolContext:
        """The context of a call made without one: the local user and chat, in UTC, now."""
        return ToolContext(now=self._clock.now())

    async def _ready(self, ctx: ToolContext | None) -> ToolContext:
        ctx = ctx if ctx is not None else self.local_context()
        return ctx if ctx.prepared else await self.registry.prepare(ctx)

    async def _execute_prepared(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        await _run_hooks(self._before, call, ctx)
        call, unfilled = await self._fill(call, ctx)
        verdict = validate_tool_call(call, self.registry, ctx)
        if unfilled is not None:
            result = ToolResult(
                call=call,
                status=ToolStatus.INVALID,
                text=unfilled,
                display=unfilled,
                error=unfilled,
            )
        elif verdict.tool is None or not verdict.is_valid:
            # The message tells the model how to fix its call; a person reads what was wrong.
            result = ToolResult(
                call=call,
                status=ToolStatus.INVALID,
                text=verdict.message(),
                display=verdict.for_person(),
                error=verdict.message(),
            )
        elif isinstance(gate := self._gate(verdict.tool, call, verdict.arguments, ctx), ToolResult):
            result = gate  # the approval rule could not judge these arguments: nothing runs
        elif (why := self._provenance(verdict.tool, verdict.arguments, ctx)).refuse is not None:
            message = f"{verdict.tool.name!r} was not run: {why.refuse}"
            result = ToolResult(
                call=call, status=ToolStatus.DENIED, text=message, display=message, error=message
            )
        elif gate or why.ask is not None:
            result = await self._request_approval(
                verdict.tool, call, verdict.arguments, ctx, reason=why.ask or ""
            )
        else:
            result = await self._run(verdict.tool, call, verdict.arguments, ctx)
            if verdict.dropped and result.ok:
                left_out = ", ".join(repr(name) for name in verdict.dropped)
                note = f"\n(Left out unknown arguments: {left_out}.)"
                result = replace(result, text=result.text + note)
        await self._observe(verdict.tool.name if verdict.tool else UNKNOWN_TOOL, result, ctx)
        return result

    def _gate(
        self, tool: Tool, call: ToolCall, arguments: dict[str, object], ctx: ToolContext
    ) -> bool | ToolResult:
        """Whether the call needs approval, or the result of a call its rule cannot judge.

        A rule that refuses the arguments (a ``ToolError``: an invalid URL) makes the call
        invalid, for the model to fix; a rule that fails otherwise makes it an error. Either
        way the call does not run.
        """
        started = time.perf_counter()
        try:
            return tool.needs_approval(dict(arguments), ctx)
        except REFUSALS as exc:
            message = f"tool {tool.name!r} refused the call: {_first_line(exc) or 'invalid'}"
            return self._failure(call, ToolStatus.INVALID, message, started)
        except Exception as exc:
            logger.exception("the approval rule of tool %r failed (call %s)", tool.name, call.id)
            message = (
                f"tool {tool.name!r} could not check whether this call needs approval "
                f"({_short_error(exc)}), so it was not run"
            )
            return self._failure(call, ToolStatus.ERROR, message, started)

    @staticmethod
    def _provenance(tool: Tool, arguments: Mapping[str, object], ctx: ToolContext) -> Verdict:
        """Whether where the turn's content came from lets the call run (``tools.provenance``)."""
        return ctx.provenance.check(tool.effects, tool.reaches(arguments), arguments)

    async def _fill(self, call: ToolCall, ctx: ToolContext) -> tuple[ToolCall, str | None]:
        """Fill in the missing arguments the tool's resolvers can; or say what failed."""
        tool = self.registry.find(call.tool_name)
        if tool is None or not tool.spec.options.resolvers or not isinstance(call.arguments, dict):
            return call, None
        arguments, _ = read_aliases(tool, call.arguments)
        try:
            filled = await fill_missing(tool, arguments, ctx)
        except ToolError as exc:
            return call, str(exc)
        return replace(call, arguments=filled), None

    async def _observe(self, tool_name: str, result: ToolResult, ctx: ToolContext) -> None:
        """Count a finished call in the telemetry and show it to the after-hooks."""
        self._telemetry.record(tool_name, result.status, result.duration)
        await _run_hooks(self._after, result, ctx)

    async def _run(
        self, tool: Tool, call: ToolCall, arguments: dict[str, object], ctx: ToolContext
    ) -> ToolResult:
        started = time.perf_counter()
        try:
            output = await asyncio.wait_for(_invoke(tool, arguments, ctx), tool.timeout)
        except TimeoutError:
            message = f"{tool.name} did not finish within {tool.timeout:g} s and was stopped"
            return self._failure(call, ToolStatus.TIMEOUT, message, started)
        except ArgumentConversionError as exc:
            return self._failure(call, ToolStatus.INVALID, str(exc), started)
        except asyncio.CancelledError:
            raise
        except REFUSALS as exc:
            # A refusal the tool wrote for the model (bad schedule, blocked address): no traceback.
            # The text is read by people too, so it is the refusal alone: the result already
            # names the tool, and a class name means nothing to them.
            # Our own words, bounded as the tool's output is: an approval refused for other
            # arguments quotes the request's in full, so that they can be repeated.
            message = _first_line(exc, self._max_output_chars) or "it failed without saying why"
            return self._failure(call, ToolStatus.ERROR, message, started)
        except Exception as exc:
            logger.exception("tool %r failed (call %s)", tool.name, call.id)
            message = _short_error(exc)
            return self._failure(call, ToolStatus.ERROR, message, started)
        duration = time.perf_counter() - started
        text = self._cap(tool.format_for_model(output))
        logger.info("tool %r ok in %.1f ms (call %s)", tool.name, duration * 1000, call.id)
        return ToolResult(
            call=call,
            status=ToolStatus.OK,
            output=output,
            text=text,
            display=self._cap(tool.format_for_person(output)),
            duration=duration,
        )

    def _failure(
        self, call: ToolCall, status: ToolStatus, message: str, started: float
    ) -> ToolResult:
        logger.info("%s (call %s)", message, call.id)
        return ToolResult(
            call=call,
            status=status,
            text=message,
            display=message,
            error=message,
            duration=time.perf_counter() - started,
        )

    def _cap(self, text: str) -> str:
        if len(text) <= self._max_output_chars:
            return text
        cut = self._max_output_chars
        return f"{text[:cut]}\n[... output truncated: {len(text) - cut} more characters]"

    # -- approvals ----------------------------------------------------------------------

    async def _request_approval(
        self,
        tool: Tool,
        call: ToolCall,
        arguments: dict[str, object],
        ctx: ToolContext,
        *,
        reason: str = "",
    ) -> ToolResult:
        now = self._clock.now()
        request = ApprovalRequest(
            id="ap" + secrets.token_hex(4),
            tool_name=tool.name,
            arguments=dict(arguments),
            user_id=ctx.user_id,
            chat_id=ctx.chat_id,
            created_at=now,
            expires_at=now + self._approval_ttl,
            call_id=call.id,
            risk_level=tool.risk_level,
            reason=reason,
        )
        await self.approvals.save_approval(request)
        why = f" because {reason}" if reason else ""
        text = (
            f"The call to {tool.name!r} needs the user's approval (request {request.id}){why}; "
            "it runs only if the user approves it."
        )
        return ToolResult(
            call=call, status=ToolStatus.PENDING_APPROVAL, text=text, display=text, approval=request
        )

    async def approve(self, request_id: str, by: str, ctx: ToolContext | None = None) -> ToolResult:
        """Run exactly the approved call, once, for the user who asked.

        Raises:
            ApprovalError: when the request is unknown, not ``by``'s, expired or decided.
        """
        request = await self._decide(request_id, by, ApprovalStatus.APPROVED)
        tool = self.registry[request.tool_name]
        run_ctx = ctx or ToolContext(
            user_id=request.user_id, chat_id=request.chat_id, now=self._clock.now()
        )
        result = await self._run(tool, _requested_call(request), dict(request.arguments), run_ctx)
        await self._observe(tool.name, result, run_ctx)
        return replace(result, approval=replace(request, status=ApprovalStatus.APPROVED))

    async def deny(self, request_id: str, by: str) -> ToolResult:
        """Record that ``by`` refused the request; the call is not run.

        Raises:
            ApprovalError: when the request is unknown, not ``by``'s, expired or decided.
        """
        request = await self._decide(request_id, by, ApprovalStatus.DENIED)
        text = f"The user denied the call to {request.tool_name!r}; it was not run."
        self._telemetry.record(request.tool_name, ToolStatus.DENIED, 0.0)
        return ToolResult(
            call=_requested_call(request),
            status=ToolStatus.DENIED,
            text=text,
            display=text,
            approval=request,
        )

    async def find_approval(self, request_id: str, *, user_id: str) -> ApprovalRequest | None:
        """Return the approval request ``request_id`` if ``user_id`` made it, else ``None``.

        The one ownership check of approvals (``approve`` and ``deny`` decide only what it
        returns): another user's request reads exactly like a missing one, so ids leak nothing.
        """
        request = await self.approvals.get_approval(request_id)
        return request if request is not None and request.user_id == user_id else None

    async def _decide(self, request_id: str, by: str, status: ApprovalStatus) -> ApprovalRequest:
        request = await self.find_approval(request_id, user_id=by)
        if request is None:
            raise ApprovalError.not_found(request_id)
        now = self._clock.now()
        if request.status is ApprovalStatus.PENDING and request.is_expired(now):
            await self.approvals.decide_approval(request_id, ApprovalStatus.EXPIRED, by, now)
            raise ApprovalError(
                f"approval request {request_id!r} has expired; ask again to get a new one",
                status=ApprovalStatus.EXPIRED,
            )
        decided = await self.approvals.decide_approval(request_id, status, by, now)
        if decided is None:
            current = await self.approvals.get_approval(request_id)
            raise ApprovalError.decided(request_id, current.status if current else None)
        return decided

    # -- hooks and telemetry ----------------------------------------------------------------

    def stats(self) -> dict[str, ToolStats]:
        """Return call counts, error counts and latency percentiles per tool."""
        return self._telemetry.stats()


async def _invoke(tool: Tool, arguments: dict[str, object], ctx: ToolContext) -> object:
    """Run the tool; one that sends out runs with the redirects its call may follow."""
    check = _redirect_check(tool, arguments, ctx)
    if check is None:
        return await tool.invoke(dict(arguments), ctx)
    token = REDIRECT_CHECK.set(check)
    try:
        return await tool.invoke(dict(arguments), ctx)
    finally:
        REDIRECT_CHECK.reset(token)  # 3.12's wait_for runs the call in the caller's task


def _redirect_check(
    tool: Tool, arguments: Mapping[str, object], ctx: ToolContext
) -> Callable[[str], str | None] | None:
    """Why a redirect of this call to a host may not be followed (``None``: no rule)."""
    if Effect.SENDS_OUT not in tool.effects:
        return None
    if ctx.provenance.checked:

        def refusal(host: str) -> str | None:
            verdict = ctx.provenance.check(tool.effects, host, arguments)
            return verdict.refuse or verdict.ask

        return refusal
    if str(arguments.get("method") or "GET").upper() in _WITHOUT_BODY:
        return None
    # Approved (or asked for in words) for the host it names: its body goes nowhere else.
    approved = tool.reaches(arguments) or "the address it names"
    return lambda host: f"the request was approved for {approved}, and its body is not sent on"


_WITHOUT_BODY = frozenset({"GET", "HEAD"})


async def _run_hooks(
    hooks: Sequence[Callable[[S, ToolContext], Awaitable[None] | None]],
    subject: S,
    ctx: ToolContext,
) -> None:
    for hook in hooks:
        try:
            outcome = hook(subject, ctx)
            if inspect.isawaitable(outcome):
                await outcome
        except Exception:
            # A broken observer must not change the outcome of the call it observes.
            logger.exception("tool hook %r failed", hook)


def _requested_call(request: ApprovalRequest) -> ToolCall:
    """The call an approval request stands for, with the id the model gave it."""
    return ToolCall(
        tool_name=request.tool_name,
        arguments=dict(request.arguments),
        id=request.call_id or request.id,
    )


def _first_line(exc: BaseException, limit: int = 300) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _short_error(exc: BaseException) -> str:
    """What went wrong, for people: the error's first line (its class name stays in the log)."""
    return _first_line(exc) or "it failed unexpectedly (the log has the details)"

"""The DialogAgent: one conversation turn of model -> tool calls -> results -> model.

    handle_message(text)  load history, run rounds, commit the turn when it completes
    resolve_approval(id)  run (or refuse) exactly the approved call, then continue
    find_approval(id)     the request, if it is the asking user's (the executor's check)
    run_task(prompt)      a turn in a fresh context, for scheduled agent tasks

A round asks the model, takes its calls (native ``tool_calls`` or the text contract parsed
by ``ToolParser``), runs them through the ``ToolExecutor`` and sends the results back. The
turn ends with a final answer, a pause for approval, or honestly at ``max_rounds``.
"""

from __future__ import annotations

import json
import logging
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field, replace
from typing import Generic, TypeVar
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from assistant.agent.budget import fit_round
from assistant.agent.claims import check_claims
from assistant.agent.events import AgentEvent, AgentEventKind, EventCallback, emit
from assistant.agent.history import ConversationStore, InMemoryConversations, from_stored, to_stored
from assistant.agent.prompts import DEFAULT_BASE_PROMPT, build_system_prompt
from assistant.agent.streaming import VisibleText
from assistant.agent.wording import (
    APPROVAL_NEEDED,
    EMPTY_MESSAGE,
    approval_outcome,
    empty_answer,
    gave_up,
    llm_failed,
    waiting_notice,
)
from assistant.llm.base import (
    ChatMessage,
    LLMBackend,
    LLMResponse,
    Role,
    SupportsContractFallback,
    SupportsTokenBudget,
    ToolMode,
    Usage,
    Waiting,
)
from assistant.llm.contract import render_results
from assistant.llm.errors import LLMError, LLMResponseError, ToolsUnsupportedError
from common import Clock, KeyedLocks, SystemClock
from memory import DEFAULT_MAX_CHARS, UserProfile
from tools import (
    ApprovalError,
    ApprovalRequest,
    ToolCall,
    ToolContext,
    ToolExecutor,
    ToolParser,
    ToolRegistry,
    ToolResult,
    ToolStatus,
    prompt_catalog,
    tool_definitions,
)

logger = logging.getLogger(__name__)

ZoneLookup = Callable[[str], Awaitable[ZoneInfo]]

_FAILED = frozenset({ToolStatus.INVALID, ToolStatus.ERROR, ToolStatus.TIMEOUT})
_CACHE_SIZE = 256
V = TypeVar("V")


@dataclass(frozen=True, slots=True)
class AgentReply:
    """The outcome of a turn, for an interface to show.

    Attributes:
        text: What the user sees (tool-call blocks stripped).
        approvals: Requests waiting for the user's Approve/Deny.
        results: Every tool result of the turn, in order.
        rounds: How many model calls the turn took.
        usage: Tokens the turn consumed.
    """

    text: str
    approvals: tuple[ApprovalRequest, ...] = ()
    results: tuple[ToolResult, ...] = ()
    rounds: int = 0
    usage: Usage = field(default_factory=Usage)


class _Rendered(Generic[V]):
    """What ``render`` makes of the tools, cached by the dynamic values it was made with.

    The values (this user's task ids) rarely change between rounds, so a round reuses what
    an earlier round rendered instead of walking every tool's schema again.
    """

    def __init__(self, render: Callable[[ToolRegistry, ToolContext], V]) -> None:
        self._render = render
        self._found: dict[str, V] = {}

    def __call__(self, registry: ToolRegistry, ctx: ToolContext) -> V:
        key = f"{len(registry)}:{_resolved_key(ctx)}"
        found = self._found.get(key)
        if found is None:
            if len(self._found) >= _CACHE_SIZE:
                self._found.clear()
            found = self._found[key] = self._render(registry, ctx)
        return found


@dataclass
class _Turn:
    """The state of one turn while it runs; only ``new`` is committed."""

    ctx: ToolContext
    history: list[ChatMessage]
    new: list[ChatMessage]
    commit: bool = True
    listener: EventCallback | None = None
    visible: VisibleText | None = None
    results: list[ToolResult] = field(default_factory=list)
    failures: Counter[str] = field(default_factory=Counter)
    usage: Usage = field(default_factory=Usage)
    rounds: int = 0


class DialogAgent:
    """Runs conversation turns against an LLM backend with tools.

    Subclasses may override ``system_messages`` (what the model is told) and
    ``finalize_response`` (the last touch on what the user sees).
    """

    def __init__(
        self,
        *,
        backend: LLMBackend,
        registry: ToolRegistry,
        executor: ToolExecutor,
        memory: ConversationStore | None = None,
        parser: ToolParser | None = None,
        clock: Clock | None = None,
        default_zone: ZoneInfo | None = None,
        zone_lookup: ZoneLookup | None = None,
        services: Mapping[type, object] | None = None,
        base_prompt: str = DEFAULT_BASE_PROMPT,
        max_rounds: int = 5,
        tool_retries: int = 2,
        history_chars: int = DEFAULT_MAX_CHARS,
        on_event: EventCallback | None = None,
    ) -> None:
        """Create an agent.

        Args:
            backend: The model.
            registry: The tools the model may call.
            executor: Runs calls (validation, approvals, timeouts); its approval store
                should be the persistent one so pauses survive a restart.
            memory: Where conversations are kept and users' zones are found.
            parser: Reads contract-mode calls from text; defaults to one for ``registry``.
            clock: The source of time (tests inject a manual one).
            default_zone: The zone of users who never chose one (default UTC).
            zone_lookup: Overrides how a user's zone is found (default: ``memory``).
            services: What tools may ask their context for (tasks, memory), by type.
            base_prompt: The opening of the system prompt.
            max_rounds: Model calls per turn before the agent stops and says so.
            tool_retries: Failed calls of one tool per turn that the model may retry.
            history_chars: The size budget of the history sent with each turn.
            on_event: Receives progress events (tool started/finished, approval, reply).
        """
        if max_rounds < 1:
            raise ValueError(f"max_rounds must be 1 or more, got {max_rounds!r}")
        if tool_retries < 0:
            raise ValueError(f"tool_retries must be 0 or more, got {tool_retries!r}")
        self.backend = backend
        self.registry = registry
        self.executor = executor
        self.memory: ConversationStore = memory if memory is not None else InMemoryConversations()
        self.parser = parser or ToolParser(tool_names=registry.all_names())
        self._clock = clock or SystemClock()
        self._default_zone = default_zone or ZoneInfo("UTC")
        self._zone_lookup = zone_lookup
        self._services: Mapping[type, object] = dict(services or {})
        self.base_prompt = base_prompt
        self.max_rounds = max_rounds
        self._tool_retries = tool_retries
        self._history_chars = history_chars
        self._on_event = on_event
        self._locks: KeyedLocks[tuple[str, str]] = KeyedLocks()
        self._catalog = _Rendered(prompt_catalog)
        self._definitions = _Rendered(tool_definitions)

    # -- the public surface -------------------------------------------------------------

    async def handle_message(
        self, text: str, *, user_id: str, chat_id: str, on_event: EventCallback | None = None
    ) -> AgentReply:
        """Answer one message; the turn is stored once it completes.

        Args:
            text: What the user wrote.
            user_id: Who wrote it.
            chat_id: Where; the conversation is kept per user and chat.
            on_event: Receives this turn's events, the model's text as it is written
                (``TEXT_DELTA``) included; the reply is then streamed from the model.
        """
        if not text.strip():
            reply = AgentReply(text=EMPTY_MESSAGE)
            return await self._reply(user_id, chat_id, reply, on_event)
        async with self._lock(user_id, chat_id):
            turn = await self._start(user_id, chat_id, ChatMessage(Role.USER, text))
            turn.listener = on_event
            return await self._run_guarded(turn)

    async def resolve_approval(
        self,
        request_id: str,
        *,
        approved: bool,
        by: str,
        on_event: EventCallback | None = None,
    ) -> AgentReply:
        """Run (or refuse) exactly the call behind ``request_id`` and continue the turn.

        Only the user who asked can decide; any other user, an unknown, expired or already
        decided request gets a reply that says so, and nothing runs. ``on_event`` is as for
        ``handle_message``.
        """
        request = await self.find_approval(request_id, user_id=by)
        if request is None:
            reply = AgentReply(text=_sentence(str(ApprovalError.not_found(request_id))))
            return await self._reply(by, "", reply, on_event)
        async with self._lock(request.user_id, request.chat_id):
            ctx = await self._context(request.user_id, request.chat_id)
            try:
                if approved:
                    result = await self.executor.approve(request_id, by, ctx)
                else:
                    result = await self.executor.deny(request_id, by)
            except ApprovalError as exc:
                reply = AgentReply(text=_sentence(str(exc)))
                return await self._reply(request.user_id, request.chat_id, reply, on_event)
            finished = self._event(AgentEventKind.TOOL_FINISHED, ctx, result)
            await emit((self._on_event, on_event), finished)
            outcome = ChatMessage(
                Role.TOOL, approval_outcome(request_id, approved, result), results=(result,)
            )
            turn = await self._start(request.user_id, request.chat_id, outcome)
            turn.listener = on_event
            turn.results.append(result)
            return await self._run_guarded(turn)

    async def find_approval(self, request_id: str, *, user_id: str) -> ApprovalRequest | None:
        """Return the approval request if ``user_id`` made it; another user's reads as missing."""
        return await self.executor.find_approval(request_id, user_id=user_id)

    async def run_task(self, prompt: str, *, owner_id: str, chat_id: str) -> str:
        """Answer ``prompt`` in a fresh context (no history, nothing stored); for agent tasks.

        Raises:
            LLMError: the model failed; the scheduler records the run as failed.
        """
        ctx = await self._context(owner_id, chat_id)
        turn = _Turn(ctx=ctx, history=[], new=[ChatMessage(Role.USER, prompt)], commit=False)
        reply = await self._run(turn)
        return reply.text

    async def reset(self, *, user_id: str, chat_id: str) -> None:
        """Start a fresh conversation in this chat (old turns stay searchable)."""
        async with self._lock(user_id, chat_id):
            await self.memory.clear_conversation(user_id, chat_id)

    # -- hooks ----------------------------------------------------------------------------

    async def system_messages(self, ctx: ToolContext, mode: ToolMode) -> list[ChatMessage]:
        """Return the system messages of a round; ``ctx`` has its dynamic values resolved."""
        catalog = self._catalog(self.registry, ctx) if mode is ToolMode.CONTRACT else None
        prompt = build_system_prompt(
            base_prompt=self.base_prompt, mode=mode, catalog=catalog, now=ctx.local_now
        )
        return [ChatMessage(Role.SYSTEM, prompt)]

    def finalize_response(self, text: str) -> str:
        """Return the text the user sees; override to post-process every reply."""
        return text.strip()

    # -- the loop -------------------------------------------------------------------------

    async def _start(self, user_id: str, chat_id: str, first: ChatMessage) -> _Turn:
        # The profile comes with the history: one trip to the store instead of two.
        loaded = await self.memory.load_context(user_id, chat_id, max_chars=self._history_chars)
        if self._zone_lookup is not None:
            zone = await self._zone_lookup(user_id)
        else:
            zone = self._zone_of(user_id, loaded.user)
        ctx = self._new_context(user_id, chat_id, zone)
        return _Turn(ctx=ctx, history=[from_stored(m) for m in loaded.messages], new=[first])

    async def _run_guarded(self, turn: _Turn) -> AgentReply:
        """Run the turn; a model failure becomes a reply and the turn is not stored."""
        try:
            return await self._run(turn)
        except LLMError as exc:
            logger.warning("turn of %s failed: %s", turn.ctx.user_id, exc)
            reply = AgentReply(
                text=llm_failed(exc, turn.results),
                results=tuple(turn.results),
                rounds=turn.rounds,
                usage=turn.usage,
            )
            return await self._reply(turn.ctx.user_id, turn.ctx.chat_id, reply, turn.listener)

    async def _run(self, turn: _Turn) -> AgentReply:
        while turn.rounds < self.max_rounds:
            turn.rounds += 1
            turn.ctx = replace(turn.ctx, now=self._clock.now())
            response = await self._ask(turn)
            calls, native = self._calls_in(response)
            if not calls:
                text = self.finalize_response(response.text.strip() or empty_answer(turn.results))
                text = self._honest(turn, text)
                await self._show_rest(turn, text)
                return await self._finish(turn, text)
            await self._show_rest(turn, self.parser.strip_calls(response.text).strip())
            turn.new.append(
                ChatMessage(
                    Role.ASSISTANT, response.text, tool_calls=tuple(calls) if native else ()
                )
            )
            results = await self._execute(turn, calls)
            turn.new.extend(_result_messages(results, native=native))
            pending = [r.approval for r in results if r.approval is not None and _pending(r)]
            if pending:
                # The interface shows what waits (a card with buttons, a y/n question); the
                # reply keeps what the model said around its calls, and the history records
                # the pause for the model.
                said = self.parser.strip_calls(response.text) if not native else response.text
                text = self._honest(turn, self.finalize_response(said))
                await self._show_rest(turn, text)
                return await self._finish(
                    turn, text, tuple(pending), recorded=text or APPROVAL_NEEDED
                )
        return await self._finish(
            turn, self.finalize_response(gave_up(self.max_rounds, turn.results))
        )

    async def _ask(self, turn: _Turn) -> LLMResponse:
        """Ask the model for its next message; rebuild in contract mode if tools are refused."""
        # The round's calls are validated against the same per-user values the model was shown.
        ctx = turn.ctx = await self.registry.prepare(turn.ctx)
        mode = self.backend.mode
        try:
            response = await self._complete(turn, ctx, mode)
        except ToolsUnsupportedError:
            if mode is ToolMode.CONTRACT:
                raise
            response = await self._complete(turn, ctx, ToolMode.CONTRACT)
        turn.usage = turn.usage + response.usage
        return response

    async def _complete(self, turn: _Turn, ctx: ToolContext, mode: ToolMode) -> LLMResponse:
        system = await self.system_messages(ctx, mode)
        tools = self._definitions(self.registry, ctx) if mode is ToolMode.NATIVE else None
        history = turn.history
        if isinstance(self.backend, SupportsTokenBudget):
            # A small window gets the most relevant tools and the latest conversation.
            fitted = await fit_round(
                self.backend, system=system, history=history, new=turn.new, tools=tools
            )
            history, tools = fitted.history, fitted.tools
        messages = [*system, *history, *turn.new]
        if turn.listener is None:
            return await self.backend.complete(messages, tools=tools)
        # Someone follows this turn as it happens: stream, showing what may be shown.
        turn.visible = VisibleText()
        response: LLMResponse | None = None
        async for event in self.backend.stream(messages, tools=tools):
            if isinstance(event, LLMResponse):
                response = event
            elif isinstance(event, Waiting):
                await self._emit_text(turn, waiting_notice(event.ahead), AgentEventKind.WAITING)
            elif piece := turn.visible.feed(event.text):
                await self._emit_text(turn, piece)
        if response is None:
            raise LLMResponseError("the model's stream ended without its response")
        return response

    def _honest(self, turn: _Turn, text: str) -> str:
        """Return ``text``, or the truth when it claims an action no call of the turn did."""
        checked = check_claims(text, turn.results)
        for claim in checked.caught:
            logger.warning(
                "caught a claim no tool call backs (user %s): %.200r",
                turn.ctx.user_id,
                claim.sentence,
            )
        return checked.text

    async def _show_rest(self, turn: _Turn, shown: str) -> None:
        """Stream what is left of a round's text now that it is known (calls stripped)."""
        if turn.visible is not None and (rest := turn.visible.finish(shown)):
            await self._emit_text(turn, rest)
        turn.visible = None

    async def _emit_text(
        self, turn: _Turn, piece: str, kind: AgentEventKind = AgentEventKind.TEXT_DELTA
    ) -> None:
        event = AgentEvent(
            kind,
            turn.ctx.user_id,
            turn.ctx.chat_id,
            text=piece,
            round=turn.rounds,
        )
        await emit((self._on_event, turn.listener), event)

    def _calls_in(self, response: LLMResponse) -> tuple[list[ToolCall], bool]:
        """Return the calls of a response and whether they came natively."""
        if response.tool_calls:
            return list(response.tool_calls), True
        calls = self.parser.extract_calls(response.text) if response.text else []
        switch = calls and self.backend.mode is ToolMode.NATIVE
        if switch and isinstance(self.backend, SupportsContractFallback):
            self.backend.fall_back_to_contract("the model wrote its tool calls as text")
        return calls, False

    async def _execute(self, turn: _Turn, calls: Sequence[ToolCall]) -> list[ToolResult]:
        """Run the calls the turn's retry budget still allows; refuse the others."""
        results: list[ToolResult | None] = [self._refusal(turn, call) for call in calls]
        runnable = [call for call, refused in zip(calls, results, strict=True) if refused is None]
        for call in runnable:
            started = self._event(AgentEventKind.TOOL_STARTED, turn.ctx, call=call)
            await emit((self._on_event, turn.listener), started)
        ran = iter(await self.executor.execute_all(runnable, turn.ctx))
        done = [refused if refused is not None else next(ran) for refused in results]
        for result in done:
            if result.status in _FAILED:
                turn.failures[result.call.tool_name] += 1
            finished = self._event(AgentEventKind.TOOL_FINISHED, turn.ctx, result)
            await emit((self._on_event, turn.listener), finished)
            if result.approval is not None and _pending(result):
                event = self._event(AgentEventKind.APPROVAL_REQUESTED, turn.ctx, result)
                await emit((self._on_event, turn.listener), event)
        turn.results.extend(done)
        return done

    def _refusal(self, turn: _Turn, call: ToolCall) -> ToolResult | None:
        """Return an INVALID result for a call that must not run, or ``None``."""
        used = turn.failures[call.tool_name]
        if used > self._tool_retries:
            text = (
                f"The call to {call.tool_name!r} was not run: it already failed {used} times "
                "in this turn. Do not call it again; tell the user what went wrong."
            )
        elif _broken_native_arguments(call):
            text = (
                f"The call to {call.tool_name!r} was not run: its arguments are not a JSON "
                f"object: {call.raw_json!r}. Send the call again with valid JSON arguments."
            )
        else:
            return None
        return ToolResult(call=call, status=ToolStatus.INVALID, text=text, display=text, error=text)

    async def _finish(
        self,
        turn: _Turn,
        text: str,
        approvals: tuple[ApprovalRequest, ...] = (),
        *,
        recorded: str | None = None,
    ) -> AgentReply:
        turn.new.append(ChatMessage(Role.ASSISTANT, text if recorded is None else recorded))
        if turn.commit:
            await self.memory.append_turn(
                turn.ctx.user_id, turn.ctx.chat_id, [to_stored(m) for m in turn.new]
            )
        reply = AgentReply(
            text=text,
            approvals=approvals,
            results=tuple(turn.results),
            rounds=turn.rounds,
            usage=turn.usage,
        )
        return await self._reply(turn.ctx.user_id, turn.ctx.chat_id, reply, turn.listener)

    # -- helpers --------------------------------------------------------------------------

    async def _reply(
        self, user_id: str, chat_id: str, reply: AgentReply, listener: EventCallback | None
    ) -> AgentReply:
        event = AgentEvent(AgentEventKind.REPLY_READY, user_id, chat_id, text=reply.text)
        await emit((self._on_event, listener), event)
        return reply

    def _event(
        self,
        kind: AgentEventKind,
        ctx: ToolContext,
        result: ToolResult | None = None,
        *,
        call: ToolCall | None = None,
    ) -> AgentEvent:
        return AgentEvent(
            kind,
            ctx.user_id,
            ctx.chat_id,
            call=result.call if result is not None else call,
            result=result,
            approval=result.approval if result is not None else None,
        )

    async def _context(self, user_id: str, chat_id: str) -> ToolContext:
        return self._new_context(user_id, chat_id, await self.user_zone(user_id))

    def _new_context(self, user_id: str, chat_id: str, zone: ZoneInfo) -> ToolContext:
        return ToolContext(
            user_id=user_id,
            chat_id=chat_id,
            timezone=zone,
            now=self._clock.now(),
            services=self._services,
        )

    async def user_zone(self, user_id: str) -> ZoneInfo:
        """Return the user's time zone: their own choice, else the default zone."""
        if self._zone_lookup is not None:
            return await self._zone_lookup(user_id)
        return self._zone_of(user_id, await self.memory.get_user(user_id))

    def _zone_of(self, user_id: str, profile: UserProfile | None) -> ZoneInfo:
        """Return the zone ``profile`` names, else the default zone."""
        if profile is None or profile.timezone is None:
            return self._default_zone
        try:
            return ZoneInfo(profile.timezone)
        except (ZoneInfoNotFoundError, ValueError):
            logger.warning("user %s has an unknown zone %r", user_id, profile.timezone)
            return self._default_zone

    def _lock(self, user_id: str, chat_id: str) -> AbstractAsyncContextManager[None]:
        """One turn at a time per (user, chat)."""
        return self._locks.hold((user_id, chat_id))


def _sentence(text: str) -> str:
    """Return ``text`` capitalised and ending with a full stop."""
    text = text.strip()
    if not text:
        return text
    return text[0].upper() + text[1:] + ("" if text.endswith((".", "!", "?")) else ".")


def _resolved_key(ctx: ToolContext) -> str:
    return repr(sorted(ctx.resolved.items(), key=lambda item: item[0]))


def _pending(result: ToolResult) -> bool:
    return result.status is ToolStatus.PENDING_APPROVAL


def _broken_native_arguments(call: ToolCall) -> bool:
    """Whether a native call's arguments arrived as text that is not a JSON object."""
    if call.span is not None or call.arguments or not call.raw_json.strip():
        return False
    try:
        return not isinstance(json.loads(call.raw_json), dict)
    except ValueError:
        return True


def _result_messages(results: Sequence[ToolResult], *, native: bool) -> list[ChatMessage]:
    """Return the messages that carry results back: one per call natively, else one."""
    if native:
        return [
            ChatMessage(Role.TOOL, r.text, tool_call_id=r.call.id, results=(r,)) for r in results
        ]
    return [ChatMessage(Role.TOOL, render_results(results), results=tuple(results))]

"""The DialogAgent: one conversation turn of model -> tool calls -> results -> model.

    handle_message(text)  load history, run rounds, commit the turn when it completes
    resolve_approval(id)  run (or refuse) exactly the approved call, then continue
    find_approval(id)     the request, if it is the asking user's (the executor's check)
    run_task(prompt)      a turn in a fresh context, for scheduled agent tasks

A round asks the model, takes its calls (native ``tool_calls`` or the text contract parsed
by ``ToolParser``), runs them through the ``ToolExecutor`` and sends the results back. The
turn ends with a final answer, a pause for approval, or honestly at ``max_rounds``. With a
planner (``Order.PLANNER_FIRST``, ``pipeline``) the planner writes each round it understands,
and the model only what the planner leaves to it.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import replace
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from agent.budget import fit_round, rank_tools
from agent.drift import OFF_TOPIC, DriftGuard
from agent.events import (
    AgentEvent,
    AgentEventKind,
    AgentReply,
    ApprovalReply,
    Decided,
    EventCallback,
    emit,
)
from agent.history import ConversationStore, InMemoryConversations, from_stored, to_stored
from agent.honesty import HonestyCheck, check_honesty
from agent.llm.base import (
    ChatMessage,
    LLMBackend,
    LLMResponse,
    Order,
    Role,
    SupportsContractFallback,
    SupportsTokenBudget,
    ToolMode,
    Usage,
    Waiting,
)
from agent.llm.errors import LLMError, LLMResponseError, ToolsUnsupportedError
from agent.llm.lazy import LazyModel
from agent.llm.queue import REQUESTER
from agent.llm.visible import VisibleText
from agent.pipeline import (
    SMALL_MODEL_TOOLS,
    Decider,
    Reader,
    answer_request,
    is_small,
    last_exchanges,
    plain_history,
    prompt_request,
)
from agent.planner.handover import AnswerInWords, WritePrompt
from agent.planner.reading import Partial, Planned, Unread
from agent.prompts import DEFAULT_BASE_PROMPT, build_system_prompt
from agent.turn import (
    Rendered,
    Turn,
    as_messages,
    broken_native_arguments,
    is_pending,
    result_messages,
)
from agent.undone import ActionReader, with_undone_note
from agent.wording import (
    ANSWER_PLAINLY,
    APPROVAL_NEEDED,
    EMPTY_MESSAGE,
    approval_outcome,
    empty_answer,
    gave_up,
    llm_failed,
    waiting_notice,
)
from common import Clock, KeyedLocks, SystemClock, clean_text, clean_value
from memory import DEFAULT_MAX_CHARS, FROM_OUTSIDE, UserProfile
from tools import (
    ApprovalError,
    ApprovalRequest,
    ApprovalStatus,
    Effect,
    Provenance,
    Tool,
    ToolCall,
    ToolContext,
    ToolDefinition,
    ToolExecutor,
    ToolParser,
    ToolRegistry,
    ToolResult,
    ToolStatus,
    is_tool,
    prompt_catalog,
    tool_definitions,
)

__all__ = ["DialogAgent"]

logger = logging.getLogger(__name__)

ZoneLookup = Callable[[str], Awaitable[ZoneInfo]]
_FAILED = frozenset({ToolStatus.INVALID, ToolStatus.ERROR, ToolStatus.TIMEOUT})
_PLANNER_ROUNDS = 4
"""Rounds a turn may take besides the model's: the planner needs three at most."""


class DialogAgent:
    """Runs conversation turns against an LLM backend with tools.

    Subclasses may override ``system_messages`` (what the model is told) and
    ``finalize_response`` (the last touch on what the user sees), and may define tools as
    their own ``@tool`` methods: they join the agent's registry. The spellings other agent
    frameworks use for the same hooks (``chat``, ``_system_messages``, ``_finalize_response``,
    ``_build_tool_defs``) are ``agent.compat``'s.
    """

    def __init__(
        self,
        *,
        backend: LLMBackend | LazyModel | None = None,
        planner: Reader | None = None,
        order: Order = Order.PLANNER_FIRST,
        registry: ToolRegistry | None = None,
        executor: ToolExecutor | None = None,
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
        asked_action: ActionReader | None = None,
        tools_ready: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        """Create an agent.

        Args:
            backend: The language model (``None``: the planner alone answers); a
                ``LazyModel`` is made ready when a turn first needs it.
            planner: Reads each message first (``order``); what it understands completely
                it does without the model (``pipeline``).
            order: Who reads a message first when there are both a planner and a model.
            registry: The tools the model may call (the executor's, by default); a subclass's
                own ``@tool`` methods are added to it.
            executor: Runs calls (validation, approvals, timeouts); its approval store
                should be the persistent one so pauses survive a restart. By default, one
                for ``registry`` with approvals kept in memory.
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
            asked_action: Reads the action a message plainly asks for; a final answer of a
                turn in which no call did it says so (``undone``). ``None``: no such note.
            tools_ready: Awaited before each model round that offers tools: tools that join
                the registry late (MCP servers still starting) are there first. A planner's
                turn never waits for it.
        """
        if backend is None and planner is None:
            raise ValueError("an agent needs a backend (a language model), a planner, or both")
        if max_rounds < 1:
            raise ValueError(f"max_rounds must be 1 or more, got {max_rounds!r}")
        if tool_retries < 0:
            raise ValueError(f"tool_retries must be 0 or more, got {tool_retries!r}")
        self._model = backend if isinstance(backend, LazyModel | None) else LazyModel.of(backend)
        self._planner = planner
        self.order = order
        self._small_model = False
        if registry is None:
            registry = executor.registry if executor is not None else ToolRegistry()
        if _has_own_tools(type(self)):
            registry.add(self)
        self.registry = registry
        self.executor = executor or ToolExecutor(registry, clock=clock)
        self.memory: ConversationStore = memory if memory is not None else InMemoryConversations()
        self._given_parser = parser
        self._parsers: dict[tuple[str, ...], ToolParser] = {}
        self._clock = clock or SystemClock()
        self._default_zone = default_zone or ZoneInfo("UTC")
        self._zone_lookup = zone_lookup
        self._services: Mapping[type, object] = dict(services or {})
        self.base_prompt = base_prompt
        self.max_rounds = max_rounds
        self._tool_retries = tool_retries
        self._history_chars = history_chars
        self._on_event = on_event
        self._tools_ready = tools_ready
        self._asked_action = asked_action
        self._locks: KeyedLocks[tuple[str, str]] = KeyedLocks()
        self._catalog = Rendered(prompt_catalog)
        self._definitions = Rendered(tool_definitions)

    # -- the public surface -------------------------------------------------------------

    async def handle_message(
        self,
        text: str,
        *,
        user_id: str,
        chat_id: str,
        profile: Mapping[str, str] | None = None,
        on_event: EventCallback | None = None,
    ) -> AgentReply:
        """Answer one message; the turn is stored once it completes.

        Args:
            text: What the user wrote.
            user_id: Who wrote it.
            chat_id: Where; the conversation is kept per user and chat.
            profile: What the interface knows of the user (a name, a language); with the
                user's stored settings it is the tools' ``ToolContext.profile``.
            on_event: Receives this turn's events, the model's text as it is written
                (``TEXT_DELTA``) included; the reply is then streamed from the model.
        """
        text = clean_text(text)  # text from outside: it may not even be valid UTF-8
        if not text.strip():
            reply = AgentReply(text=EMPTY_MESSAGE)
            return await self._reply(user_id, chat_id, reply, on_event)
        async with self._lock(user_id, chat_id):
            first = ChatMessage(Role.USER, text)
            turn = await self._start(user_id, chat_id, first, profile or {})
            turn.listener = on_event
            return await self._run_guarded(turn)

    async def resolve_approval(
        self,
        request_id: str,
        *,
        approved: bool,
        by: str,
        on_event: EventCallback | None = None,
    ) -> ApprovalReply:
        """Run (or refuse) exactly the call behind ``request_id`` and continue the turn.

        Only the user who asked can decide; any other user, an unknown, expired or already
        decided request gets a reply that says so, and nothing runs; ``decided`` says which,
        and ``request`` is the request as it stands after. ``on_event`` is as for
        ``handle_message``.
        """
        request = await self.find_approval(request_id, user_id=by)
        if request is None or request.status is not ApprovalStatus.PENDING:
            # Refused at once, without waiting for a turn running in that chat.
            refusal = (
                ApprovalError.not_found(request_id)
                if request is None
                else ApprovalError.decided(request_id, request.status)
            )
            reply = AgentReply(text=_sentence(str(refusal)))
            reply = await self._reply(by, request.chat_id if request else "", reply, on_event)
            return ApprovalReply.of(reply, ApprovalReply.refused(refusal.status), request)
        async with self._lock(request.user_id, request.chat_id):
            ctx = await self.tool_context(request.user_id, request.chat_id)
            try:
                if approved:
                    result = await self.executor.approve(request_id, by, ctx)
                else:
                    result = await self.executor.deny(request_id, by)
            except ApprovalError as exc:
                reply = AgentReply(text=_sentence(str(exc)))
                reply = await self._reply(request.user_id, request.chat_id, reply, on_event)
                found = replace(request, status=exc.status) if exc.status else None
                return ApprovalReply.of(reply, ApprovalReply.refused(exc.status), found)
            finished = self._event(AgentEventKind.TOOL_FINISHED, ctx, result)
            await emit((self._on_event, on_event), finished)
            outcome = ChatMessage(
                Role.TOOL, approval_outcome(request_id, approved, result), results=(result,)
            )
            turn = await self._start(request.user_id, request.chat_id, outcome)
            turn.listener = on_event
            turn.results.append(result)
            # The turn goes on: the approved call counts (a removal) and what it read steers.
            turn.provenance = self._after(turn, [result], counted=True)
            reply = await self._run_guarded(turn)
            decided = Decided.APPROVED if approved else Decided.DENIED
            return ApprovalReply.of(reply, decided, result.approval)

    async def find_approval(self, request_id: str, *, user_id: str) -> ApprovalRequest | None:
        """Return the approval request if ``user_id`` made it; another user's reads as missing."""
        return await self.executor.find_approval(request_id, user_id=user_id)

    async def run_task(
        self, prompt: str, *, owner_id: str, chat_id: str, material: str | None = None
    ) -> str:
        """Answer ``prompt`` in a fresh context (no history, nothing stored); for agent tasks.

        ``material`` (search results to summarise) follows the prompt as outside content:
        the hosts it names are not granted, and the run has read from outside.

        Raises:
            LLMError: the model failed; the scheduler records the run as failed.
        """
        ctx = await self.tool_context(owner_id, chat_id)
        said = prompt if material is None else f"{prompt}\n\n{material}"
        outside = () if material is None else ("the material it was given to read",)
        turn = Turn(
            ctx=ctx,
            history=[],
            new=[ChatMessage(Role.USER, said)],
            commit=False,
            decider=self._first_decider(),
            # Nobody is there to approve: only the hosts its prompt names, no changes.
            provenance=Provenance.of_model([prompt], outside=outside, unattended=True),
        )
        reply = await self._run(turn)
        return reply.text

    @property
    def model(self) -> LazyModel | None:
        """The language model, made ready when first needed; ``None`` without one."""
        return self._model

    def available_tools(self) -> list[Tool]:
        """The tools the model may call, in registration order (``/tools`` lists them)."""
        return list(self.registry)

    async def reset(self, *, user_id: str, chat_id: str) -> None:
        """Start a fresh conversation in this chat (old turns stay searchable)."""
        async with self._lock(user_id, chat_id):
            await self.memory.clear_conversation(user_id, chat_id)

    # -- hooks ----------------------------------------------------------------------------

    async def system_messages(self, ctx: ToolContext, mode: ToolMode) -> list[ChatMessage]:
        """Return the system messages of a round; ``ctx`` has its dynamic values resolved.

        A small model (a window of ``pipeline.SMALL_WINDOW`` tokens or less) gets the short
        form of the rules.
        """
        catalog = self._catalog(self.registry, ctx) if mode is ToolMode.CONTRACT else None
        prompt = build_system_prompt(
            base_prompt=self.base_prompt,
            mode=mode,
            catalog=catalog,
            now=ctx.local_now,
            short=self._small_model,
        )
        return [ChatMessage(Role.SYSTEM, prompt)]

    def finalize_response(self, text: str) -> str:
        """Return the text the user sees; override to post-process every reply."""
        return text.strip()

    # -- the loop -------------------------------------------------------------------------

    async def _start(
        self,
        user_id: str,
        chat_id: str,
        first: ChatMessage,
        profile: Mapping[str, str] | None = None,
    ) -> Turn:
        # The profile comes with the history: one trip to the store instead of two.
        loaded = await self.memory.load_context(user_id, chat_id, max_chars=self._history_chars)
        ctx = await self._new_context(user_id, chat_id, loaded.user, profile)
        history = [from_stored(m) for m in loaded.messages]
        said = [m.content for m in [*history, first] if m.role is Role.USER]
        # What the conversation fetched before is still in its history: it steers this turn too.
        names = [name for m in loaded.messages if m.name for name in m.name.split(",")]
        outside = [
            "a task's result delivered earlier in this conversation"
            if name == FROM_OUTSIDE
            else f"what {name} returned earlier in this conversation"
            for name in names
            if name == FROM_OUTSIDE or self._reads(name, Effect.READS_OUTSIDE)
        ]
        private = [
            f"what {name} returned earlier in this conversation"
            for name in names
            if self._reads(name, Effect.READS_PRIVATE)
        ]
        return Turn(
            ctx=ctx,
            history=history,
            new=[first],
            decider=self._first_decider(),
            provenance=Provenance.of_model(said, outside=outside, private=private),
        )

    def _reads(self, tool_name: str, effect: Effect) -> bool:
        found = self.registry.find(tool_name)
        return found is not None and effect in found.effects

    def _first_decider(self) -> Decider:
        """The planner reads a turn first, unless the model is to see everything."""
        if self._planner is not None and (self._model is None or self.order is Order.PLANNER_FIRST):
            return Decider.PLANNER
        return Decider.MODEL

    async def _run_guarded(self, turn: Turn) -> AgentReply:
        """Run the turn; a model failure becomes a reply and the turn is not stored."""
        try:
            return await self._run(turn)
        except LLMError as exc:
            logger.warning("turn of %s failed: %s", turn.ctx.user_id, exc)
            reply = AgentReply(
                text=llm_failed(exc, turn.results),
                results=tuple(turn.results),
                rounds=turn.rounds,
                model_calls=turn.model_rounds,
                usage=turn.usage,
                failed=True,
            )
            return await self._reply(turn.ctx.user_id, turn.ctx.chat_id, reply, turn.listener)

    async def _run(self, turn: Turn) -> AgentReply:
        # The model's queues serve users in turn: its requests are this user's.
        asking = REQUESTER.set(turn.ctx.user_id)
        try:
            return await self._rounds(turn)
        finally:
            REQUESTER.reset(asking)

    async def _rounds(self, turn: Turn) -> AgentReply:
        while self._may_go_on(turn):
            turn.rounds += 1
            turn.ctx = replace(turn.ctx, now=self._clock.now())
            response = await self._next(turn)
            turn.nudge = ()
            calls, native = self._calls_in(turn, response)
            if not calls:
                answer = self._answer_in(turn, response.text)
                if answer is None:
                    await self._show_rest(turn, "")
                    continue
                checked = self._checked(turn, self.finalize_response(answer))
                text = checked.text if checked.caught else self._noted(turn, checked.text)
                await self._show_rest(turn, text)
                return await self._finish(turn, text)
            await self._show_rest(turn, self.parser.strip_calls(response.text).strip())
            turn.new.append(
                ChatMessage(
                    Role.ASSISTANT, response.text, tool_calls=tuple(calls) if native else ()
                )
            )
            results = await self._execute(turn, calls)
            turn.new.extend(result_messages(results, native=native))
            pending = [r.approval for r in results if r.approval is not None and is_pending(r)]
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

    def _may_go_on(self, turn: Turn) -> bool:
        """Whether the turn gets another round: ``max_rounds`` counts the model's calls; the
        planner's own rounds (a listing, the call on the task it picked, the report) are
        bounded apart."""
        if turn.rounds >= self.max_rounds + _PLANNER_ROUNDS:
            return False
        return turn.decider is Decider.PLANNER or turn.model_rounds < self.max_rounds

    async def _next(self, turn: Turn) -> LLMResponse:
        """The round's next message: the planner's, or the model's when it has the turn."""
        if turn.decider is Decider.PLANNER:
            # The round's calls are validated against the same per-user values as a model's.
            turn.ctx = await self.registry.prepare(turn.ctx)
            messages = [*turn.history, *turn.new]
            assert self._planner is not None  # a turn starts with the planner only if there is one
            reading = self._planner.read(messages, model=self._model is not None)
            match reading:
                case Planned() as planned:
                    return await self._planned(turn, planned)
                case Partial(missing=WritePrompt() as missing):
                    proposal = await self._words(turn, prompt_request(missing))
                    return await self._planned(turn, self._planner.fill(missing, proposal))
                case Partial(missing=AnswerInWords()):
                    turn.decider = Decider.ANSWER
                case Unread():
                    turn.decider = Decider.MODEL
        if turn.decider is Decider.ANSWER:
            return await self._answer(turn)
        return await self._ask(turn)

    async def _planned(self, turn: Turn, planned: Planned) -> LLMResponse:
        """The planner's message as the round's response, shown as it would be streamed."""
        text = planned.text
        turn.planned_calls = planned.calls
        if turn.listener is not None:
            turn.visible = VisibleText()
            if piece := turn.visible.feed(text):
                await self._emit_text(turn, piece)
        return LLMResponse(text=text)

    async def _answer(self, turn: Turn) -> LLMResponse:
        """The model's answer in words to the turn's question (no tools); off the subject,
        the user is told so instead."""
        backend = await self._ready(turn)
        question = turn.new[0].content
        request = answer_request(
            base_prompt=self.base_prompt,
            now=turn.ctx.local_now,
            history=turn.history,
            question=question,
            small=self._small_model,
        )
        shown = [m.content for m in request[1:-1]]
        guard = DriftGuard(question=question, examples=shown, small=self._small_model)
        response = await self._stream(turn, backend, request, None, guard)
        # No tools were offered: a call written anyway is no answer.
        said = _guarded(guard, self.parser.strip_calls(response.text))
        return replace(response, text=said or (OFF_TOPIC if response.text.strip() else ""))

    async def _words(self, turn: Turn, request: list[ChatMessage]) -> str:
        """A few words the model writes for the planner (not shown): its first line, cut at
        the first sign of drift."""
        backend = await self._ready(turn)
        guard = DriftGuard(
            question=request[-1].content, examples=[m.content for m in request[1:-1]], small=True
        )
        response = await self._stream(turn, backend, request, None, guard, first_line=True)
        return guard.finish(response.text).text

    async def _ready(self, turn: Turn) -> LLMBackend:
        """The model, made ready (built and loaded) if this is its first turn.

        Raises:
            LLMError: there is no model, or it cannot be made ready.
        """
        if self._model is None:
            raise LLMError("no language model is configured")
        turn.model_rounds += 1
        backend = await self._model.ready()
        self._small_model = is_small(backend)
        return backend

    async def _ask(self, turn: Turn) -> LLMResponse:
        """Ask the model for its next message; rebuild in contract mode if tools are refused."""
        backend = await self._ready(turn)
        if self._tools_ready is not None:
            await self._tools_ready()
        # The round's calls are validated against the same per-user values the model was shown.
        ctx = turn.ctx = await self.registry.prepare(turn.ctx)
        mode = backend.mode
        try:
            response = await self._complete(turn, ctx, mode, backend)
        except ToolsUnsupportedError:
            if mode is ToolMode.CONTRACT:
                raise
            response = await self._complete(turn, ctx, ToolMode.CONTRACT, backend)
        return response

    def _answer_in(self, turn: Turn, text: str) -> str | None:
        """Return the answer in a reply without calls; ``None`` to ask the model once more.

        A reply that is a JSON answer (``{"type": "final", "content": ...}``) answers with
        its content. One that only says no tool is needed (``{"tool": "none", ...}``) gets
        one more round, in which the model is asked for the answer itself; that exchange is
        not kept in the history.
        """
        answer = self.parser.final_answer(text)
        if answer is None:
            return text.strip() or empty_answer(turn.results)
        if answer.text is not None:
            return answer.text.strip() or empty_answer(turn.results)
        if turn.nudged or turn.model_rounds >= self.max_rounds:
            return empty_answer(turn.results)
        turn.nudged = True
        turn.nudge = (ChatMessage(Role.ASSISTANT, text), ChatMessage(Role.USER, ANSWER_PLAINLY))
        return None

    async def _system_prompt(self, ctx: ToolContext, mode: ToolMode) -> list[ChatMessage]:
        """The ``system_messages`` hook's messages (a subclass may write it sync, or return
        ``{"role", "content"}`` dicts)."""
        own: object = self.system_messages(ctx, mode)
        own = await own if inspect.isawaitable(own) else own
        return as_messages(own)

    async def _complete(
        self, turn: Turn, ctx: ToolContext, mode: ToolMode, backend: LLMBackend
    ) -> LLMResponse:
        system = await self._system_prompt(ctx, mode)
        tools = self._definitions(self.registry, ctx) if mode is ToolMode.NATIVE else None
        history, new = turn.history, [*turn.new, *turn.nudge]
        question = turn.new[0].content if turn.new[0].role is Role.USER else ""
        if self._planner is not None and self.order is Order.PLANNER_FIRST:
            history = plain_history(history)  # what was said, not the planner's calls
        if self._small_model:
            # A small model chooses among few tools (the most relevant to the message) and
            # is shown only the last exchange: more of either only leads it astray.
            tools = tuple(rank_tools(tools, question)[:SMALL_MODEL_TOOLS]) if tools else tools
            history = last_exchanges(history, 1)
        if isinstance(backend, SupportsTokenBudget):
            # A small window gets the most relevant tools and the latest conversation.
            fitted = await fit_round(backend, system=system, history=history, new=new, tools=tools)
            history, tools = fitted.history, fitted.tools
        messages = [*system, *history, *new]
        if turn.listener is None and not self._small_model:
            response = _cleaned(await backend.complete(messages, tools=tools))
            turn.usage = turn.usage + response.usage
            return response
        # Someone follows the turn, or a small model may drift: stream, showing what may be
        # shown, and stop a small model's answer at the first sign of drift.
        if not self._small_model:
            return await self._stream(turn, backend, messages, tools, None)
        shown = [m.content for m in history]
        guard = DriftGuard(question=question, examples=shown, small=True, tools=True)
        response = await self._stream(turn, backend, messages, tools, guard)
        if response.tool_calls or guard.calls:
            return response
        return replace(response, text=_guarded(guard, response.text))

    async def _stream(
        self,
        turn: Turn,
        backend: LLMBackend,
        messages: Sequence[ChatMessage],
        tools: Sequence[ToolDefinition] | None,
        guard: DriftGuard | None,
        *,
        first_line: bool = False,
    ) -> LLMResponse:
        """Stream one completion: its shown text goes to the turn's listener (through
        ``guard``, which may end it early), or, for ``first_line``, nowhere: decoding stops
        at the end of its first line. Returns the whole (or stopped) response."""
        shown = not first_line and turn.listener is not None
        turn.visible = VisibleText() if shown else None
        response: LLMResponse | None = None
        written: list[str] = []
        stream = backend.stream(messages, tools=tools)
        try:
            async for event in stream:
                if isinstance(event, LLMResponse):
                    response = event
                elif isinstance(event, Waiting):
                    if shown:
                        notice = waiting_notice(event.ahead)
                        await self._emit_text(turn, notice, AgentEventKind.WAITING)
                else:
                    written.append(event.text)
                    piece = guard.feed(event.text) if guard is not None else event.text
                    if shown and turn.visible is not None and (seen := turn.visible.feed(piece)):
                        await self._emit_text(turn, seen)
                    if (guard is not None and guard.stop) or (
                        first_line and "\n" in "".join(written).strip()
                    ):
                        break  # closing the stream stops the decoding
        finally:
            await stream.aclose()
        if response is None:
            if not written:
                raise LLMResponseError("the model's stream ended without its response")
            # Stopped early: the pieces received are what is known of its usage.
            usage = Usage(completion_tokens=len(written))
            response = LLMResponse(text="".join(written), usage=usage, finish_reason="stop")
        response = _cleaned(response)
        turn.usage = turn.usage + response.usage
        return response

    def _honest(self, turn: Turn, text: str) -> str:
        """Return ``text``, or the truth when it claims an action no call of the turn did."""
        return self._checked(turn, text).text

    def _checked(self, turn: Turn, text: str) -> HonestyCheck:
        checked = check_honesty(text, turn.results)
        for claim in checked.caught:
            logger.warning(
                "caught a claim no tool call backs (user %s): %.200r",
                turn.ctx.user_id,
                claim.sentence,
            )
        return checked

    def _noted(self, turn: Turn, text: str) -> str:
        """``text``, saying so when the message asked for an action that no call did (of the
        model's answers only: the planner does what it reads or says why not)."""
        if turn.decider is Decider.PLANNER or self._asked_action is None:
            return text
        if not turn.new or turn.new[0].role is not Role.USER:
            return text
        asked = self._asked_action(turn.new[0].content)
        return with_undone_note(text, asked, turn.results)

    async def _show_rest(self, turn: Turn, shown: str) -> None:
        """Stream what is left of a round's text now that it is known (calls stripped)."""
        if turn.visible is not None and (rest := turn.visible.finish(shown)):
            await self._emit_text(turn, rest)
        turn.visible = None

    async def _emit_text(
        self, turn: Turn, piece: str, kind: AgentEventKind = AgentEventKind.TEXT_DELTA
    ) -> None:
        event = AgentEvent(
            kind,
            turn.ctx.user_id,
            turn.ctx.chat_id,
            text=clean_text(piece),
            round=turn.rounds,
        )
        await emit((self._on_event, turn.listener), event)

    def _calls_in(self, turn: Turn, response: LLMResponse) -> tuple[list[ToolCall], bool]:
        """Return the calls of a response and whether they came natively."""
        if turn.decider is Decider.ANSWER:
            return [], False  # an answer in words: no tools were offered
        if turn.decider is Decider.PLANNER and not turn.planned_calls:
            return [], False  # a report may quote a page's text: never read it for calls
        if response.tool_calls:
            return list(response.tool_calls), True
        calls = self.parser.extract_calls(response.text) if response.text else []
        if calls and turn.decider is Decider.MODEL:
            self._fall_back_to_contract()
        return calls, False

    def _fall_back_to_contract(self) -> None:
        """The model wrote its calls as text: an ``AUTO`` backend sends the contract now."""
        backend = self._model.backend if self._model is not None else None
        if backend is None or backend.mode is not ToolMode.NATIVE:
            return
        if isinstance(backend, SupportsContractFallback):
            backend.fall_back_to_contract("the model wrote its tool calls as text")

    async def _execute(self, turn: Turn, calls: Sequence[ToolCall]) -> list[ToolResult]:
        """Run the calls the turn's retry budget still allows; refuse the others."""
        results: list[ToolResult | None] = [self._refusal(turn, call) for call in calls]
        runnable = [call for call, refused in zip(calls, results, strict=True) if refused is None]
        for call in runnable:
            started = self._event(AgentEventKind.TOOL_STARTED, turn.ctx, call=call)
            await emit((self._on_event, turn.listener), started)
        # The planner's calls do what the user's words say; the model's are checked against
        # where the turn's content came from.
        checked = turn.decider is not Decider.PLANNER
        ctx = replace(turn.ctx, provenance=turn.provenance if checked else Provenance())
        ran = iter(await self.executor.execute_all(runnable, ctx))
        done = [refused if refused is not None else next(ran) for refused in results]
        for result in done:
            if result.status in _FAILED:
                turn.failures[result.call.tool_name] += 1
            finished = self._event(AgentEventKind.TOOL_FINISHED, turn.ctx, result)
            await emit((self._on_event, turn.listener), finished)
            if result.approval is not None and is_pending(result):
                event = self._event(AgentEventKind.APPROVAL_REQUESTED, turn.ctx, result)
                await emit((self._on_event, turn.listener), event)
        turn.results.extend(done)
        turn.provenance = self._after(turn, done, counted=checked)
        return done

    def _after(self, turn: Turn, results: Sequence[ToolResult], *, counted: bool) -> Provenance:
        """The turn's provenance after ``results``: what they read, what the model removed."""
        provenance = self.executor.counted(turn.provenance, results) if counted else turn.provenance
        for result in results:
            tool = self.registry.find(result.call.tool_name)
            if tool is not None and result.status is ToolStatus.OK:
                source = tool.reaches(result.call.arguments) or f"{tool.name}'s answer"
                provenance = provenance.read(tool.effects, source, result.text)
        return provenance

    def _refusal(self, turn: Turn, call: ToolCall) -> ToolResult | None:
        """Return an INVALID result for a call that must not run, or ``None``."""
        used = turn.failures[call.tool_name]
        if used > self._tool_retries:
            text = (
                f"The call to {call.tool_name!r} was not run: it already failed {used} times "
                "in this turn. Do not call it again; tell the user what went wrong."
            )
            shown = f"it failed {used} times in a row, so I stopped trying"
        elif broken_native_arguments(call):
            text = (
                f"The call to {call.tool_name!r} was not run: its arguments are not a JSON "
                f"object: {call.raw_json!r}. Send the call again with valid JSON arguments."
            )
            shown = "the request's details could not be read"
        else:
            return None
        # ``text`` instructs the model; a person only ever reads ``shown``.
        return ToolResult(
            call=call, status=ToolStatus.INVALID, text=text, display=shown, error=text
        )

    async def _finish(
        self,
        turn: Turn,
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
            model_calls=turn.model_rounds,
            usage=turn.usage,
        )
        return await self._reply(turn.ctx.user_id, turn.ctx.chat_id, reply, turn.listener)

    # -- helpers --------------------------------------------------------------------------

    @property
    def parser(self) -> ToolParser:
        """Reads contract-mode calls: the one given, else one that knows the registry's
        names as they are now (tools may be registered after the agent is made)."""
        if self._given_parser is not None:
            return self._given_parser
        names = tuple(self.registry.all_names())
        found = self._parsers.get(names)
        if found is None:
            self._parsers.clear()
            found = self._parsers[names] = ToolParser(tool_names=names)
        return found

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

    async def tool_context(self, user_id: str, chat_id: str) -> ToolContext:
        """The context a call made for ``user_id`` in ``chat_id`` runs in (their zone and
        settings, now): for calls a person makes directly (``assistant call``, MCP)."""
        return await self._new_context(user_id, chat_id, await self.memory.get_user(user_id))

    async def _new_context(
        self,
        user_id: str,
        chat_id: str,
        stored: UserProfile | None,
        profile: Mapping[str, str] | None = None,
    ) -> ToolContext:
        """The context of a call: the user's zone, and their settings with ``profile``."""
        if self._zone_lookup is not None:
            zone = await self._zone_lookup(user_id)
        else:
            zone = self._zone_of(user_id, stored)
        return ToolContext(
            user_id=user_id,
            chat_id=chat_id,
            timezone=zone,
            now=self._clock.now(),
            services=self._services,
            profile={**(stored.settings if stored is not None else {}), **(profile or {})},
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


def _cleaned(response: LLMResponse) -> LLMResponse:
    """A model's reply with its text and call arguments made storable (``clean_text``)."""
    calls = tuple(
        replace(
            call,
            tool_name=clean_text(call.tool_name),
            arguments=clean_value(call.arguments),
            raw_json=clean_text(call.raw_json),
        )
        for call in response.tool_calls
    )
    return replace(response, text=clean_text(response.text), tool_calls=calls)


def _guarded(guard: DriftGuard, text: str) -> str:
    """A model's answer cut at its first sign of drift; when nothing is left, the truth."""
    judged = guard.finish(text)
    return OFF_TOPIC if judged.off_topic else judged.text


def _has_own_tools(cls: type) -> bool:
    """Whether a subclass of ``DialogAgent`` defines ``@tool`` methods."""
    return any(is_tool(member) for _, member in inspect.getmembers(cls, inspect.isfunction))


def _sentence(text: str) -> str:
    """Return ``text`` capitalised and ending with a full stop."""
    text = text.strip()
    if not text:
        return text
    return text[0].upper() + text[1:] + ("" if text.endswith((".", "!", "?")) else ".")

"""The tools an MCP caller has beyond chat's: a whole assistant turn (``ask``) and the
decision on a pending request (``approve_request``, ``deny_request``).

They are ``@tool`` methods like chat's, so their schemas, their argument checks and their
messages come from the same framework (``tools``); ``McpAssistant`` runs them through an
executor of their own, as the caller (``ToolContext.user_id``), in the caller's chat.

An approval over MCP repeats the request: ``approve_request`` names the tool and the exact
arguments the pending result gave, and a request whose tool or arguments differ (as canonical
JSON) is refused without deciding it. Only the person who asked can decide a request; another
user's reads as missing, as everywhere.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import Any, Protocol
from zoneinfo import ZoneInfo

from mcp_types import ToolAnnotations

from agent import AgentReply, ApprovalReply, Decided
from interfaces.mcp.replies import TurnReply, canonical, listed, turn_reply
from interfaces.protocols import ChatAgent
from interfaces.slots import SlotsTaken, UserSlots
from interfaces.views import request_line
from tasks import Delivery, DeliveryKind, DeliveryStatus, Notifier
from tools import ApprovalRequest, ApprovalStatus, Effect, ToolContext, ToolError, tool

logger = logging.getLogger(__name__)

ASK_TIMEOUT = 900.0
"""Seconds one ``ask`` may take (a local model on a small machine is slow; the model's own
timeouts end a turn that hangs long before)."""
_TURN_EFFECTS = [Effect.CHANGES, Effect.REMOVES, Effect.READS_PRIVATE, Effect.READS_OUTSIDE]
"""A turn (or a decided approval) may do whatever chat's tools do. Sending requests out is
not among these: the framework ties that effect to the URL parameter a tool sends to, which
these tools have not; ``HINTS`` tells clients instead."""
HINTS = {
    "ask": ToolAnnotations(read_only_hint=False, destructive_hint=True, open_world_hint=True),
    "approve_request": ToolAnnotations(
        read_only_hint=False, destructive_hint=True, open_world_hint=True
    ),
    "deny_request": ToolAnnotations(
        read_only_hint=False, destructive_hint=False, open_world_hint=False
    ),
}
"""What a client may show about these tools: a turn may do anything chat's tools do."""


class McpAgent(ChatAgent, Protocol):
    """What the MCP server uses of the agent (``agent.DialogAgent``): what every front end
    uses, the context of a call made directly, and the request behind an id, to compare an
    approval with."""

    async def tool_context(self, user_id: str, chat_id: str) -> ToolContext:
        """The context a call made for ``user_id`` in ``chat_id`` runs in, as chat's."""
        ...

    async def find_approval(self, request_id: str, *, user_id: str) -> ApprovalRequest | None:
        """The request, if ``user_id`` made it."""
        ...


class ApprovalNotices:
    """Tells a user's chat that a call made over MCP waits for their approval, and how to
    decide it there; without a notifier (``assistant mcp``, which delivers nothing) it is
    silent. A notice that cannot be delivered is logged: the call's result still says it all.

    Args:
        notifier: Delivers to the user's chat (the front end's router of deliveries).
    """

    def __init__(self, notifier: Notifier | None = None) -> None:
        self._notifier = notifier

    async def tell(self, requests: Sequence[ApprovalRequest], zone: ZoneInfo) -> None:
        """Tell each request's chat that it waits."""
        for request in requests:
            await self._say(
                request,
                f"A call made over MCP waits for your approval: {request_line(request, zone)}"
                f"Send /approvals to approve or deny it (in the terminal: /approve {request.id} "
                f"or /deny {request.id}).",
            )

    async def decided(self, reply: ApprovalReply) -> None:
        """Tell the request's chat that it was decided over MCP: the notice that it waited
        is out of date there (the page lists approvals again when a notice comes)."""
        request = reply.request
        if request is None or reply.decided not in (Decided.APPROVED, Decided.DENIED):
            return
        verb = "approved" if reply.decided is Decided.APPROVED else "denied"
        await self._say(request, f"Request {request.id} ({request.tool_name}) was {verb} over MCP.")

    async def _say(self, request: ApprovalRequest, text: str) -> None:
        if self._notifier is None:
            return
        # Not a task's delivery: a notice outside any run, so no task id.
        notice = Delivery(
            task_id="",
            run_id=None,
            owner_id=request.user_id,
            chat_id=request.chat_id,
            kind=DeliveryKind.NOTICE,
            text=text,
        )
        try:
            status = await self._notifier.deliver(notice)
        except Exception:
            logger.exception("could not tell chat %s about request %s", notice.chat_id, request.id)
            return
        if status is not DeliveryStatus.DELIVERED:
            logger.warning("chat %s was not told about request %s", notice.chat_id, request.id)


class McpTools:
    """``ask``, ``approve_request`` and ``deny_request``, for the caller of the context.

    Args:
        agent: Answers messages and decides approvals.
        notices: Tells the caller's chat about requests that wait for them.
        schedules: The tools whose success means something was scheduled.
        scheduler_note: Said after a turn that scheduled something, when this process does
            not fire tasks (``None`` when it does).
        max_message_chars: The longest message a turn takes (what the planner reads).
        turns: The turns each user may have running at once (``ask`` and a decision each
            take one); ``None``: no limit.
    """

    def __init__(
        self,
        *,
        agent: McpAgent,
        notices: ApprovalNotices,
        schedules: frozenset[str],
        scheduler_note: str | None = None,
        max_message_chars: int = 4000,
        turns: UserSlots | None = None,
    ) -> None:
        self._agent = agent
        self._notices = notices
        self._schedules = schedules
        self._note = scheduler_note
        self._max_chars = max_message_chars
        self._turns = turns

    @tool(llm_format=TurnReply.for_model, timeout=ASK_TIMEOUT, effects=_TURN_EFFECTS)
    async def ask(self, ctx: ToolContext, text: str) -> TurnReply:
        """Say something to the assistant as in chat and get its answer: one whole turn, in
        which it may use its tools (a call that needs approval waits, and the answer says so).

        Args:
            text: What you say, e.g. 'every weekday at 9am remind me to check the mail'.
        """
        if len(text) > self._max_chars:
            raise ToolError(
                f"the message is {len(text)} characters long; the assistant reads up to "
                f"{self._max_chars} (ASSISTANT_MAX_MESSAGE_CHARS): shorten it or split it"
            )
        with self._turn(ctx.user_id):
            reply = await self._agent.handle_message(text, user_id=ctx.user_id, chat_id=ctx.chat_id)
        if reply.failed:
            raise ToolError(reply.text)
        return await self._answer(reply, ctx)

    @tool(llm_format=TurnReply.for_model, timeout=ASK_TIMEOUT, effects=_TURN_EFFECTS)
    async def approve_request(
        self, ctx: ToolContext, request_id: str, tool: str, arguments: dict[str, Any]
    ) -> TurnReply:
        """Approve a call that waits for approval: it runs once, exactly as requested, and
        the assistant's turn goes on. Repeat the tool and the arguments exactly as the
        pending request gave them; a request named with another tool or other arguments is
        refused, and nothing runs.

        Args:
            request_id: The request's id, e.g. 'ap1b2c3d4e'.
            tool: The tool the request runs, as the request names it.
            arguments: Its arguments, exactly as the request gave them.
        """
        request = await self._agent.find_approval(request_id, user_id=ctx.user_id)
        if request is not None and _undecided(request, ctx.now):
            _check_repeats(request, tool, arguments)
        with self._turn(ctx.user_id):
            reply = await self._agent.resolve_approval(request_id, approved=True, by=ctx.user_id)
        return await self._decided(reply, ctx)

    @tool(llm_format=TurnReply.for_model, timeout=ASK_TIMEOUT, effects=[Effect.CHANGES])
    async def deny_request(self, ctx: ToolContext, request_id: str) -> TurnReply:
        """Refuse a call that waits for approval: it never runs, and the assistant's turn
        goes on knowing that.

        Args:
            request_id: The request's id, e.g. 'ap1b2c3d4e'.
        """
        with self._turn(ctx.user_id):
            reply = await self._agent.resolve_approval(request_id, approved=False, by=ctx.user_id)
        return await self._decided(reply, ctx)

    @contextlib.contextmanager
    def _turn(self, user: str) -> Iterator[None]:
        """Hold one of ``user``'s turns while the block runs.

        Raises:
            ToolError: every turn of theirs is taken (nothing ran).
        """
        if self._turns is None:
            yield
            return
        try:
            slot = self._turns.take(user)
        except SlotsTaken as exc:
            raise ToolError(str(exc)) from None
        try:
            yield
        finally:
            slot.release()

    async def _decided(self, reply: ApprovalReply, ctx: ToolContext) -> TurnReply:
        """The turn after a decision; a request that could not be decided (missing, expired,
        decided before) is a refusal in the agent's words."""
        if reply.decided not in (Decided.APPROVED, Decided.DENIED):
            raise ToolError(reply.text)
        await self._notices.decided(reply)
        return await self._answer(reply, ctx)

    async def _answer(self, reply: AgentReply, ctx: ToolContext) -> TurnReply:
        await self._notices.tell(reply.approvals, ctx.timezone)
        return turn_reply(reply, ctx.timezone, note=self._note, schedules=self._schedules)


def _undecided(request: ApprovalRequest, now: datetime) -> bool:
    return request.status is ApprovalStatus.PENDING and not request.is_expired(now)


def _check_repeats(request: ApprovalRequest, tool_name: str, arguments: dict[str, Any]) -> None:
    """Refuse an approval that does not repeat the request's tool and arguments exactly.

    Raises:
        ToolError: saying what differs and what the request holds.
    """
    asked, named = canonical(request.arguments), canonical(arguments)
    if request.tool_name == tool_name and asked == named:
        return
    if request.tool_name != tool_name:
        differs = f"tool {tool_name!r} is not the request's {request.tool_name!r}"
    else:
        differs = (
            f"arguments differ from the request's in {_differing(request.arguments, arguments)}"
        )
    raise ToolError(
        f"request {request.id} was not approved and nothing ran: the approval's {differs}; "
        "repeat the tool and the arguments exactly as the pending request gave them, or refuse "
        f"it with deny_request. The request runs {request.tool_name!r} with {asked}"
    )


def _differing(asked: dict[str, Any], named: dict[str, Any]) -> str:
    """The names of the arguments that are not the same in both, as a sentence lists them."""
    keys = sorted(
        key
        for key in asked.keys() | named.keys()
        if key not in asked or key not in named or canonical(asked[key]) != canonical(named[key])
    )
    return listed(keys)

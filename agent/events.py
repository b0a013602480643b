"""What the agent tells the front ends: the progress events of a turn, and its outcome.

The front ends import these types as they are (there is no mirror of them in
``interfaces``), and match ``AgentEventKind`` exhaustively: a new kind of event is a type
error in every front end that does not show it yet.

    AgentEvent, AgentEventKind   a step of a turn as it happens (text, a tool, a wait, ...)
    AgentReply                   the outcome of a turn
    ApprovalReply, Decided       the outcome of deciding an approval request: the turn it
                                 continued, or why nothing ran (missing, expired, decided)
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field, fields
from enum import StrEnum

from agent.llm import Usage
from tools import ApprovalRequest, ApprovalStatus, ToolCall, ToolResult

logger = logging.getLogger(__name__)


class AgentEventKind(StrEnum):
    """What happened."""

    TEXT_DELTA = "text_delta"
    WAITING = "waiting"
    TOOL_STARTED = "tool_started"
    TOOL_FINISHED = "tool_finished"
    APPROVAL_REQUESTED = "approval_requested"
    REPLY_READY = "reply_ready"


@dataclass(frozen=True, slots=True)
class AgentEvent:
    """One step of a turn.

    Attributes:
        kind: What happened.
        user_id: Whose turn it is.
        chat_id: The chat the turn answers.
        call: The tool call (``TOOL_STARTED``, ``TOOL_FINISHED``).
        result: The tool result (``TOOL_FINISHED``).
        approval: The request waiting for the user (``APPROVAL_REQUESTED``).
        text: A piece of the model's text as it is written (``TEXT_DELTA``), the notice to
            show a person whose request waits for a busy model (``WAITING``), or the whole
            reply (``REPLY_READY``).
        round: Which model call of the turn wrote it (``TEXT_DELTA``): the pieces of one
            round make one message; the lead sentence before a tool call is a round of its own.
    """

    kind: AgentEventKind
    user_id: str
    chat_id: str
    call: ToolCall | None = None
    result: ToolResult | None = None
    approval: ApprovalRequest | None = None
    text: str = ""
    round: int = 0


EventCallback = Callable[[AgentEvent], Awaitable[None] | None]


async def emit(callbacks: Iterable[EventCallback | None], event: AgentEvent) -> None:
    """Deliver ``event`` to each callback; a failing one is logged and never breaks the turn."""
    for callback in callbacks:
        if callback is None:
            continue
        try:
            outcome = callback(event)
            if inspect.isawaitable(outcome):
                await outcome
        except Exception:
            logger.exception("the agent event callback failed on %s", event.kind)


@dataclass(frozen=True, slots=True)
class AgentReply:
    """The outcome of a turn, for an interface to show.

    Attributes:
        text: What the user sees (tool-call blocks stripped).
        approvals: Requests waiting for the user's Approve/Deny.
        results: Every tool result of the turn, in order.
        rounds: How many rounds the turn took (the planner's and the model's).
        model_calls: How many of them asked the language model (0: the planner did it all).
        usage: Tokens the turn consumed.
        failed: The model could not answer (unreachable, too small a context...); ``text``
            says why and the turn was not stored.
    """

    text: str
    approvals: tuple[ApprovalRequest, ...] = ()
    results: tuple[ToolResult, ...] = ()
    rounds: int = 0
    model_calls: int = 0
    usage: Usage = field(default_factory=Usage)
    failed: bool = False


class Decided(StrEnum):
    """What became of a decision on an approval request."""

    APPROVED = "approved"
    """The call ran; the turn went on."""
    DENIED = "denied"
    """The call was refused; the turn went on."""
    MISSING = "missing"
    """No such request of the person deciding (another person's reads the same): nothing ran."""
    EXPIRED = "expired"
    """The request expired before the decision: nothing ran."""
    ALREADY = "already"
    """The request had been decided before (``request.status`` says how): nothing ran again."""


@dataclass(frozen=True, slots=True)
class ApprovalReply(AgentReply):
    """The outcome of ``DialogAgent.resolve_approval``: the reply to show, and what became
    of the decision, so a front end answers it (404, 409, a notice) without reading the
    request again.

    Attributes:
        decided: What became of the decision.
        request: The request as it stands after it (``None`` when ``MISSING``).
    """

    decided: Decided = Decided.MISSING
    request: ApprovalRequest | None = None

    @classmethod
    def of(
        cls, reply: AgentReply, decided: Decided, request: ApprovalRequest | None
    ) -> ApprovalReply:
        """``reply`` with what became of the decision."""
        values = {each.name: getattr(reply, each.name) for each in fields(AgentReply)}
        return cls(**values, decided=decided, request=request)

    @staticmethod
    def refused(status: ApprovalStatus | None) -> Decided:
        """Why a request found in ``status`` (``None``: not found) could not be decided."""
        if status is None:
            return Decided.MISSING
        return Decided.EXPIRED if status is ApprovalStatus.EXPIRED else Decided.ALREADY

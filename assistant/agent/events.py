"""Progress events the agent reports while it works, for interfaces to show."""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum

from tools import ApprovalRequest, ToolCall, ToolResult

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

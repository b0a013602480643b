"""Data types that flow through the tool framework: calls, results and approval requests."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any


def new_call_id() -> str:
    """Return a fresh, short identifier for a tool call."""
    return "call_" + secrets.token_hex(6)


class RiskLevel(StrEnum):
    """How much harm a tool can do if it is called with bad arguments."""

    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"


class ToolStatus(StrEnum):
    """The outcome of one tool call."""

    OK = "ok"
    INVALID = "invalid"
    ERROR = "error"
    TIMEOUT = "timeout"
    DENIED = "denied"
    PENDING_APPROVAL = "pending_approval"


class ApprovalStatus(StrEnum):
    """Where an approval request stands."""

    PENDING = "pending"
    APPROVED = "approved"
    DENIED = "denied"
    EXPIRED = "expired"


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One call of a tool, as a model asked for it.

    Attributes:
        tool_name: The name (or alias) the model used.
        arguments: The arguments, as parsed from the model's output.
        raw_json: The text the call was parsed from ("" for native calls).
        span: ``(start, end)`` offsets of that text in the reply, or ``None``.
        id: A call id; native calls keep the provider's id so results can answer it.
    """

    tool_name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    raw_json: str = ""
    span: tuple[int, int] | None = None
    id: str = field(default_factory=new_call_id)


@dataclass(frozen=True, slots=True)
class ApprovalRequest:
    """A call that waits for a person to approve it, bound to its exact arguments."""

    id: str
    tool_name: str
    arguments: dict[str, Any]
    user_id: str
    chat_id: str
    created_at: datetime
    expires_at: datetime
    call_id: str = ""
    risk_level: RiskLevel = RiskLevel.MEDIUM
    status: ApprovalStatus = ApprovalStatus.PENDING
    decided_by: str | None = None
    decided_at: datetime | None = None
    reason: str = ""
    """Why it asks, when more than the tool's own rule asks ("this request follows content
    from attacker.example"); empty when the tool always asks for such a call."""

    def is_expired(self, now: datetime) -> bool:
        """Return whether the request can no longer be decided at ``now``."""
        return self.status is ApprovalStatus.EXPIRED or (
            self.status is ApprovalStatus.PENDING and now >= self.expires_at
        )


@dataclass(frozen=True, slots=True)
class ToolResult:
    """What one tool call produced.

    Attributes:
        call: The call this result answers.
        status: The outcome.
        output: The raw value the tool returned (``None`` unless ``status`` is ``OK``).
        text: What the model reads: the formatted output, or the error written for the model.
        display: What a person sees.
        error: A short error message, or ``None``.
        duration: Seconds spent running the tool.
        approval: The pending request when ``status`` is ``PENDING_APPROVAL``.
    """

    call: ToolCall
    status: ToolStatus
    output: Any = None
    text: str = ""
    display: str = ""
    error: str | None = None
    duration: float = 0.0
    approval: ApprovalRequest | None = None

    @property
    def ok(self) -> bool:
        """Whether the tool ran and succeeded."""
        return self.status is ToolStatus.OK

    @property
    def success(self) -> bool:
        """The same as ``ok``."""
        return self.ok

    def __str__(self) -> str:
        """What the model reads (``text``)."""
        return self.text

"""The tool framework's exceptions.

    ToolError                  base of everything this package raises on purpose
    ├── ToolDefinitionError    a decorated function cannot become a tool (bad signature, type)
    ├── ToolNotFoundError      no tool has that name or alias
    └── ApprovalError          an approval request is unknown, expired, decided, or not yours

Tool *call* failures (unknown tool, invalid arguments, timeouts, exceptions inside tools) are
not raised: they become ``ToolResult`` values the model can read.
"""

from __future__ import annotations

from common import HttpRequestError
from tools.calls import ApprovalStatus


class ToolError(Exception):
    """Base class of the tool framework's errors."""


class ToolDefinitionError(ToolError, TypeError):
    """A function or method cannot be turned into a tool."""


class ToolNotFoundError(ToolError, KeyError):
    """No tool is registered under the requested name or alias."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "tool not found"


class ApprovalError(ToolError):
    """An approval request cannot be decided (unknown, expired, already decided, not yours).

    Args:
        message: What happened and what to do.
        status: The status the request was found in (``EXPIRED``, or how it was decided
            before); ``None`` when there is no such request of the person deciding.
    """

    def __init__(self, message: str, *, status: ApprovalStatus | None = None) -> None:
        super().__init__(message)
        self.status = status

    @classmethod
    def not_found(cls, request_id: str) -> ApprovalError:
        """The error for a request that is unknown or another user's: the two read alike."""
        return cls(f"there is no approval request {request_id!r} of yours")

    @classmethod
    def decided(cls, request_id: str, status: ApprovalStatus | None) -> ApprovalError:
        """The error for a request decided before (``None``: gone since it was read)."""
        state = status.value if status is not None else "gone"
        return cls(f"approval request {request_id!r} was already {state}", status=status)


REFUSALS: tuple[type[Exception], ...] = (ToolError, HttpRequestError)
"""What a tool raises to refuse a call in words meant for the model and the person: its own
``ToolError``, or a request the guarded HTTP path would not send or got no answer to (those
messages already hide secrets). Anything else is a bug, logged with its traceback."""

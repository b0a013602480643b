"""The tool framework's exceptions.

    ToolError                  base of everything this package raises on purpose
    ├── ToolDefinitionError    a decorated function cannot become a tool (bad signature, type)
    ├── ToolNotFoundError      no tool has that name or alias
    └── ApprovalError          an approval request is unknown, expired, decided, or not yours

Tool *call* failures (unknown tool, invalid arguments, timeouts, exceptions inside tools) are
not raised: they become ``ToolResult`` values the model can read.
"""

from __future__ import annotations


class ToolError(Exception):
    """Base class of the tool framework's errors."""


class ToolDefinitionError(ToolError, TypeError):
    """A function or method cannot be turned into a tool."""


class ToolNotFoundError(ToolError, KeyError):
    """No tool is registered under the requested name or alias."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "tool not found"


class ApprovalError(ToolError):
    """An approval request cannot be decided (unknown, expired, already decided, not yours)."""

    @classmethod
    def not_found(cls, request_id: str) -> ApprovalError:
        """The error for a request that is unknown or another user's: the two read alike."""
        return cls(f"there is no approval request {request_id!r} of yours")

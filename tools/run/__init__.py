"""Running tool calls: ``ToolExecutor`` checks each call against its tool's schema
(``validate_tool_call``), fills in and renames arguments (``arguments``), stops at the approval
gate (``ApprovalStore``), runs the tool with a timeout, and counts what happened
(``ToolStats``).
"""

from tools.run.approvals import ApprovalStore, InMemoryApprovalStore
from tools.run.executor import ToolExecutor
from tools.run.telemetry import ToolStats
from tools.run.validation import ValidationResult, validate_tool_call

__all__ = [
    "ApprovalStore",
    "InMemoryApprovalStore",
    "ToolExecutor",
    "ToolStats",
    "ValidationResult",
    "validate_tool_call",
]

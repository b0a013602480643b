"""The tool framework: turn typed Python functions into tools an LLM can call, find tool
calls in whatever a model writes, validate them, and run them safely."""

from tools.approvals import ApprovalStore, InMemoryApprovalStore
from tools.binding import Tool, render_output
from tools.calls import (
    ApprovalRequest,
    ApprovalStatus,
    RiskLevel,
    ToolCall,
    ToolResult,
    ToolStatus,
)
from tools.catalog import (
    ToolDefinition,
    markdown_catalog,
    prompt_catalog,
    schema_document,
    tool_definitions,
)
from tools.context import ToolContext
from tools.custom import LoadFailure, LoadReport, load_custom_tools
from tools.decorator import DEFAULT_TIMEOUT, ToolSpec, is_tool, normalize_name, spec_of, tool
from tools.docstrings import parse_docstring
from tools.errors import ApprovalError, ToolDefinitionError, ToolError, ToolNotFoundError
from tools.executor import ToolExecutor
from tools.parser import ToolParser
from tools.registry import ToolRegistry
from tools.schema import JsonSchema
from tools.telemetry import ToolStats
from tools.validation import ValidationResult, validate_tool_call

__all__ = [
    "DEFAULT_TIMEOUT",
    "ApprovalError",
    "ApprovalRequest",
    "ApprovalStatus",
    "ApprovalStore",
    "InMemoryApprovalStore",
    "JsonSchema",
    "LoadFailure",
    "LoadReport",
    "RiskLevel",
    "Tool",
    "ToolCall",
    "ToolContext",
    "ToolDefinition",
    "ToolDefinitionError",
    "ToolError",
    "ToolExecutor",
    "ToolNotFoundError",
    "ToolParser",
    "ToolRegistry",
    "ToolResult",
    "ToolSpec",
    "ToolStats",
    "ToolStatus",
    "ValidationResult",
    "is_tool",
    "load_custom_tools",
    "markdown_catalog",
    "normalize_name",
    "parse_docstring",
    "prompt_catalog",
    "render_output",
    "schema_document",
    "spec_of",
    "tool",
    "tool_definitions",
    "validate_tool_call",
]

"""The tool framework: turn typed Python functions into tools an LLM can call, find tool
calls in whatever a model writes, validate them, and run them safely."""

from tools import compat
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
    ParameterSchema,
    ToolDefinition,
    ToolSchema,
    markdown_catalog,
    openai_spec,
    people_catalog,
    prompt_catalog,
    schema_document,
    tool_definitions,
    tool_schema,
)
from tools.context import ToolContext
from tools.custom import LoadFailure, LoadReport, load_custom_tools
from tools.decorator import is_tool, spec_of, tool, tool_output
from tools.docstrings import parse_docstring
from tools.errors import ApprovalError, ToolDefinitionError, ToolError, ToolNotFoundError
from tools.executor import ToolExecutor
from tools.options import DEFAULT_TIMEOUT
from tools.parser import ToolParser
from tools.provenance import REDIRECT_CHECK, Effect, Provenance, Verdict, host_of, hosts_named
from tools.registry import ToolRegistry
from tools.schema import JsonSchema
from tools.spec import ToolSpec, normalize_name
from tools.telemetry import ToolStats
from tools.validation import ValidationResult, validate_tool_call

__all__ = [
    "DEFAULT_TIMEOUT",
    "REDIRECT_CHECK",
    "ApprovalError",
    "ApprovalRequest",
    "ApprovalStatus",
    "ApprovalStore",
    "Effect",
    "InMemoryApprovalStore",
    "JsonSchema",
    "LoadFailure",
    "LoadReport",
    "ParameterSchema",
    "Provenance",
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
    "ToolSchema",
    "ToolSpec",
    "ToolStats",
    "ToolStatus",
    "ValidationResult",
    "Verdict",
    "compat",
    "host_of",
    "hosts_named",
    "is_tool",
    "load_custom_tools",
    "markdown_catalog",
    "normalize_name",
    "openai_spec",
    "parse_docstring",
    "people_catalog",
    "prompt_catalog",
    "render_output",
    "schema_document",
    "spec_of",
    "tool",
    "tool_definitions",
    "tool_output",
    "tool_schema",
    "validate_tool_call",
]

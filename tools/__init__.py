"""The tool framework: turn typed Python functions into tools an LLM can call, find tool
calls in whatever a model writes, validate them, and run them safely.

Five rooms, each importing only the ones below it (``[tool.importlinter]`` in pyproject.toml)::

    compat      the names other tool frameworks give our operations (``tools.compat``)
    run         ToolExecutor: validation, argument filling, approvals, timeouts, telemetry
    mcp         MCP servers' tools as ours, kept connected (``tools.mcp``; beside ``run``)
    catalog     Tool, ToolRegistry, custom tools, the catalog for models and people
    define      @tool, ToolSpec, options, JSON Schemas from annotations   | parse: ToolParser
    context, provenance, calls, errors    what every room shares: the call's context, where
                                          its content came from, calls and results, exceptions

Other packages import only what this module exports (and ``tools.compat`` and ``tools.mcp``,
which it does not import: the MCP SDK is loaded only when a server is configured).
"""

from tools import compat
from tools.calls import (
    ApprovalRequest,
    ApprovalStatus,
    RiskLevel,
    ToolCall,
    ToolResult,
    ToolStatus,
)
from tools.catalog import (
    LoadFailure,
    LoadReport,
    ParameterSchema,
    Tool,
    ToolDefinition,
    ToolRegistry,
    ToolSchema,
    load_custom_tools,
    markdown_catalog,
    openai_spec,
    people_catalog,
    prompt_catalog,
    render_output,
    schema_document,
    tool_definitions,
    tool_schema,
)
from tools.context import ToolContext
from tools.define import (
    DEFAULT_TIMEOUT,
    JsonSchema,
    ToolSpec,
    is_tool,
    normalize_name,
    parse_docstring,
    spec_of,
    tool,
    tool_output,
)
from tools.errors import ApprovalError, ToolDefinitionError, ToolError, ToolNotFoundError
from tools.parse import ToolParser
from tools.provenance import Effect, Provenance, Verdict, host_of, hosts_named
from tools.run import (
    ApprovalStore,
    InMemoryApprovalStore,
    ToolExecutor,
    ToolStats,
    ValidationResult,
    validate_tool_call,
)

__all__ = [
    "DEFAULT_TIMEOUT",
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

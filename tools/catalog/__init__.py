"""What tools there are: ``Tool`` (a specification bound to its instance), the
``ToolRegistry`` that holds tools by name and alias, the tools loaded from a directory of
files, and the catalog that describes them to models and people (``describe``: prompt text,
Markdown, JSON, ``ToolDefinition``).
"""

from tools.catalog.binding import ArgumentConversionError, Tool, render_output
from tools.catalog.custom import LoadFailure, LoadReport, load_custom_tools
from tools.catalog.describe import (
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
from tools.catalog.registry import Registrable, ToolRegistry, tools_in

__all__ = [
    "ArgumentConversionError",
    "LoadFailure",
    "LoadReport",
    "ParameterSchema",
    "Registrable",
    "Tool",
    "ToolDefinition",
    "ToolRegistry",
    "ToolSchema",
    "load_custom_tools",
    "markdown_catalog",
    "openai_spec",
    "people_catalog",
    "prompt_catalog",
    "render_output",
    "schema_document",
    "tool_definitions",
    "tool_schema",
    "tools_in",
]

"""How a Python function becomes a tool: ``@tool`` and its options, the specification built
from the signature and docstring, JSON Schemas inferred from annotations, the functions a
tool's options may hold (``Hook``), and tools written as a function of the arguments dict.

Nothing here knows a registry, a parser or an executor: the other rooms build on this one.
"""

from tools.define.decorator import is_tool, spec_of, tool, tool_output
from tools.define.docstrings import parse_docstring
from tools.define.hooks import Hook
from tools.define.mapping import mapping_spec
from tools.define.options import DEFAULT_TIMEOUT, ApprovalRule, Formatter, ToolOptions
from tools.define.schema import JsonSchema
from tools.define.spec import ToolSpec, normalize_name

__all__ = [
    "DEFAULT_TIMEOUT",
    "ApprovalRule",
    "Formatter",
    "Hook",
    "JsonSchema",
    "ToolOptions",
    "ToolSpec",
    "is_tool",
    "mapping_spec",
    "normalize_name",
    "parse_docstring",
    "spec_of",
    "tool",
    "tool_output",
]

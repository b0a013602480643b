"""Finding tool calls in whatever a model writes: ``ToolParser`` and the readers behind it.

``_scanner`` finds the candidate blocks (fences, tags, ``[TOOL_CALLS]``, bare JSON, Python-style
calls), ``_reader`` decodes them, ``_jsonrepair`` reads the JSON models get almost right,
``_pycalls`` reads ``name(arg=value)`` calls, and ``_callshapes`` turns the many shapes a call
takes (``{"tool", "args"}``, ``{"name", "arguments"}``, plans of steps...) into one. Parsing
needs no tool definitions: it only produces ``ToolCall`` values.
"""

from tools.parse._callshapes import read_calls
from tools.parse.parser import Answer, ToolParser

__all__ = ["Answer", "ToolParser", "read_calls"]

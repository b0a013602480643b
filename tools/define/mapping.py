"""Tools whose function takes all the arguments as one dict: ``fn(arguments)`` or
``fn(arguments, user_context)``, sync or async.

This is how tools are often written without a decorator::

    async def sales_report(args: dict, user_context: dict) -> dict: ...
    registry.add(Tool.from_mapping("sales_report", sales_report, description="Sales by region"))

The arguments are checked against ``parameters`` (a JSON Schema of an object; without one,
any arguments are accepted) and passed as given; ``user_context`` is
``ToolContext.user_context()``: the user's id, chat, zone, the time and their profile.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any

from tools.define.docstrings import parse_docstring
from tools.define.options import ToolOptions
from tools.define.schema import JsonSchema
from tools.define.spec import ToolSpec, normalize_name
from tools.errors import ToolDefinitionError


def mapping_spec(
    *,
    name: str,
    func: Callable[..., Any],
    description: str | None = None,
    parameters: Mapping[str, Any] | None = None,
    options: ToolOptions | None = None,
) -> ToolSpec:
    """Return the specification of a tool whose ``func`` takes the arguments as one dict.

    Raises:
        ToolDefinitionError: when ``func`` is not callable, the name is empty, or
            ``parameters`` does not describe an object.
    """
    if not callable(func):
        raise ToolDefinitionError(f"tool {name!r} needs a function, got {func!r}")
    normalized = normalize_name(name)
    if not normalized:
        raise ToolDefinitionError(f"the tool name {name!r} is empty once normalised")
    doc = parse_docstring(getattr(func, "__doc__", None))
    return ToolSpec(
        name=normalized,
        description=(description or doc.summary or normalized).strip(),
        parameters=_object_schema(normalized, parameters),
        func=func,
        params=(),
        context_param=None,
        is_method=False,
        is_async=inspect.iscoroutinefunction(func),
        options=options or ToolOptions(),
        takes_mapping=True,
    )


def _object_schema(name: str, parameters: Mapping[str, Any] | None) -> JsonSchema:
    schema: JsonSchema = dict(parameters or {})
    if schema.setdefault("type", "object") != "object":
        raise ToolDefinitionError(
            f"tool {name!r}: parameters must describe an object (a JSON Schema with "
            f'"type": "object"), got type {schema["type"]!r}'
        )
    schema.setdefault("properties", {})
    schema.setdefault("required", [])
    return schema

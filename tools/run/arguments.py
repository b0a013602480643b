"""What happens to a call's arguments before they are checked.

- ``read_aliases``: an argument given under one of its other names (``argument_aliases``) is
  read as if it used the parameter's own name (``delay`` -> ``when``).
- ``fill_missing``: an argument the call left out is filled in by the tool's resolver for it
  (``resolvers``), from the call's context: the user's zone, the chat, a path made per call.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Mapping
from typing import Any

from tools.catalog import Tool
from tools.context import ToolContext
from tools.define import Hook
from tools.errors import ToolError

logger = logging.getLogger(__name__)


def read_aliases(tool: Tool, arguments: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """Return ``arguments`` with aliases renamed to their parameters, and what was done.

    When a call gives both a parameter and one of its aliases, the parameter wins and the
    alias is left out; the notes say so.
    """
    table = tool.spec.options.argument_aliases
    if not table or not any(alias in arguments for aliases in table.values() for alias in aliases):
        return dict(arguments), []
    owner = {alias: name for name, aliases in table.items() for alias in aliases}
    renamed: dict[str, Any] = {}
    notes: list[str] = []
    for key, value in arguments.items():
        name = owner.get(key, key)
        if name == key:
            renamed[key] = value
        elif name in arguments or name in renamed:
            notes.append(f"tool {tool.name!r}: ignored {key!r}, another name of {name!r}")
        else:
            renamed[name] = value
    return renamed, notes


async def fill_missing(
    tool: Tool, arguments: Mapping[str, Any], ctx: ToolContext
) -> dict[str, Any]:
    """Return ``arguments`` with the missing ones the tool's resolvers can fill filled in.

    A resolver answering ``None`` leaves its argument out (the function's default applies).

    Raises:
        ToolError: when a resolver fails, or answers ``None`` for an argument the function
            has no default for; the message names the argument.
    """
    filled = dict(arguments)
    for name, resolver in tool.spec.options.resolvers.items():
        if name in filled:
            continue
        try:
            value = Hook.of(resolver, tool.instance)(ctx, dict(filled))
            if inspect.isawaitable(value):
                value = await value
        except Exception as exc:
            logger.exception("tool %r: filling in %r failed", tool.name, name)
            raise ToolError(
                f"tool {tool.name!r}: could not fill in the argument {name!r} ({exc}); "
                "give it in the call"
            ) from exc
        if value is not None:
            filled[name] = value
        elif name in _needed(tool):
            raise ToolError(
                f"tool {tool.name!r}: the argument {name!r} is missing and could not be "
                "filled in from the context; give it in the call"
            )
    return filled


def _needed(tool: Tool) -> set[str]:
    """The parameters the function cannot do without (no default of its own)."""
    return {param.name for param in tool.spec.params if param.required}

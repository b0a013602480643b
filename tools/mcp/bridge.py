"""An MCP server's tools as our ``Tool``s: named ``server.tool``, checked like ours, gated.

Each tool a server lists becomes a tool that takes its arguments as one dict
(``Tool.from_mapping``) and hands them to the server. Its schema is converted once
(``tools.mcp.schema``); its description is kept, on one line, without control characters and
at most ``MAX_DESCRIPTION`` characters. What it may do without asking is decided here, from the
configuration alone: the server's own ``readOnlyHint`` is a claim by the party being guarded
against, so it is never read.

- A tool the configuration marks read-only runs without asking. Its answer is content from
  outside (``Effect.READS_OUTSIDE``): a turn that read it is steered by someone else, and what
  follows is checked by the provenance rules (``tools.provenance``).
- Any other tool waits for the user's approval of its exact arguments, every time, and also
  counts as changing things (``Effect.CHANGES``): after outside content the approval says so,
  and a scheduled run that read outside content may not call it at all. It is not declared
  ``SENDS_OUT``: that effect is judged by the host a call's URL names, and where an MCP tool
  sends its data is not in its arguments; the approval asked for every call covers it.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any

from tools.calls import RiskLevel
from tools.catalog import Tool
from tools.errors import ToolDefinitionError
from tools.mcp.config import ServerConfig
from tools.mcp.schema import convert_schema
from tools.mcp.text import one_line
from tools.provenance import Effect

logger = logging.getLogger(__name__)

Caller = Callable[[str, dict[str, Any]], Awaitable[str]]
"""Calls the server's tool (by the server's own name) with the arguments; returns its answer
as text, or raises ``ToolError`` saying what went wrong."""

MAX_DESCRIPTION = 1000
"""The most characters of a tool's description the model reads."""
MAX_TOOLS = 200
"""The most tools taken from one server (a catalog of thousands would drown the model's
prompt); the rest are left out, and the log says so."""
MAX_NAME = 128
"""The longest tool name taken (the MCP specification's own limit)."""
_NOT_NAME = re.compile(r"[^A-Za-z0-9_]")


@dataclass(frozen=True, slots=True)
class ListedTool:
    """One tool as a server lists it, in no SDK's types.

    Attributes:
        name: The server's name for it (what a call sends).
        description: What the server says it does ("" when nothing).
        input_schema: Its arguments' JSON Schema, as sent (maybe not one at all).
        title: Its display name, when the server gives one.
    """

    name: str
    description: str = ""
    input_schema: object = None
    title: str | None = None


def mcp_tools(server: ServerConfig, listed: Iterable[ListedTool], caller: Caller) -> list[Tool]:
    """Return the tools of ``server`` as ours, named ``server.tool``.

    A tool whose name is unusable, taken twice, or beyond ``MAX_TOOLS`` is left out with a
    log line; so is every schema simplification (``tools.mcp.schema``).
    """
    tools: dict[str, Tool] = {}
    listed = list(listed)
    for each in listed[:MAX_TOOLS]:
        made = _tool(server, each, caller, tools)
        if made is not None:
            tools[made.name] = made
    if len(listed) > MAX_TOOLS:
        logger.warning(
            "MCP server %r lists %d tools; only the first %d are used",
            server.name,
            len(listed),
            MAX_TOOLS,
        )
    _unknown_read_only(server, listed)
    return list(tools.values())


def tool_name(server: str, name: str) -> str:
    """Our name for the server's tool ``name``: ``server.tool``, each part in letters, digits
    and ``_``."""
    return f"{server}.{_NOT_NAME.sub('_', name)}"


def _tool(
    server: ServerConfig, listed: ListedTool, caller: Caller, taken: dict[str, Tool]
) -> Tool | None:
    if not listed.name or len(listed.name) > MAX_NAME:
        logger.warning(
            "MCP server %r lists a tool named %r, which is empty or longer than %d characters; "
            "it was left out",
            server.name,
            listed.name[:40],
            MAX_NAME,
        )
        return None
    name = tool_name(server.name, listed.name)
    if name in taken:
        logger.warning(
            "MCP server %r lists two tools that are both %r here; the second (%r) was left out",
            server.name,
            name,
            listed.name,
        )
        return None
    converted = convert_schema(listed.input_schema)
    if converted.lost:
        logger.warning(
            "MCP tool %r: its schema was simplified, so the assistant checks less than the "
            "server asks for (the server still checks it): %s",
            name,
            "; ".join(converted.lost[:5]),
        )
    if converted.unchecked:
        logger.info("MCP tool %r: only the server checks %s", name, ", ".join(converted.unchecked))
    read_only = server.is_read_only(listed.name)
    remote = listed.name

    async def call(arguments: dict[str, Any]) -> str:
        return await caller(remote, arguments)

    try:
        return Tool.from_mapping(
            name,
            call,
            description=_description(listed, name),
            parameters=converted.schema,
            requires_approval=not read_only,
            risk_level=RiskLevel.LOW if read_only else RiskLevel.MEDIUM,
            timeout=server.timeout,
            effects=_READS if read_only else _CHANGES,
            origin=f"MCP server {server.name!r}",
        )
    except ToolDefinitionError as exc:  # the schema's own mistake, said by our definition
        logger.warning("MCP tool %r was left out: %s", name, exc)
        return None


_READS = (Effect.READS_OUTSIDE,)
_CHANGES = (Effect.READS_OUTSIDE, Effect.CHANGES)


def _description(listed: ListedTool, name: str) -> str:
    return (
        one_line(listed.description, MAX_DESCRIPTION)
        or one_line(listed.title, MAX_DESCRIPTION)
        or f"The MCP tool {name}."
    )


def _unknown_read_only(server: ServerConfig, listed: list[ListedTool]) -> None:
    """Say which tools the configuration marks read-only that the server does not have
    (a misspelt name leaves that tool asking for approval)."""
    if isinstance(server.read_only, bool):
        return
    missing = sorted(server.read_only - {each.name for each in listed})
    if missing:
        logger.warning(
            "MCP server %r: readOnly names %s, which it does not list (its tools: %s)",
            server.name,
            ", ".join(repr(name) for name in missing),
            ", ".join(each.name for each in listed[:20]) or "none",
        )

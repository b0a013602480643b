"""MCP servers' tools as the assistant's own: the client side of the Model Context Protocol.

    config      ``mcp.json`` in the format MCP clients share, our keys beside (``readOnly``,
                ``timeout``, ``disabled``), ``${NAME}`` secrets resolved, every mistake one line
    schema      a server's input schema converted once into what our checks read
    bridge      a listed tool as our ``Tool``: ``server.tool``, approval unless marked read-only,
                its answer outside content
    hub         ``McpServers``: every server connected, its tools kept in a registry
    connection  one server's connection (the SDK's ``Client``): reconnects with backoff,
                follows its tool changes; imported only when a server is configured
    status      what is told about a server (``ServerStatus``) and its ``Backoff``

The rooms of ``tools`` below this one know nothing of it; the composition root opens
``McpServers`` (``assistant.app``). This module is imported as ``tools.mcp``.
"""

from tools.mcp.bridge import ListedTool, mcp_tools, tool_name
from tools.mcp.config import (
    DEFAULT_CALL_TIMEOUT,
    HttpEndpoint,
    McpConfig,
    SecretLookup,
    ServerConfig,
    StdioLaunch,
    load_config,
    parse_config,
)
from tools.mcp.hub import DEFAULT_CONNECT_TIMEOUT, McpServers, Startup
from tools.mcp.schema import Converted, convert_schema
from tools.mcp.status import Backoff, ServerState, ServerStatus

__all__ = [
    "DEFAULT_CALL_TIMEOUT",
    "DEFAULT_CONNECT_TIMEOUT",
    "Backoff",
    "Converted",
    "HttpEndpoint",
    "ListedTool",
    "McpConfig",
    "McpServers",
    "SecretLookup",
    "ServerConfig",
    "ServerState",
    "ServerStatus",
    "Startup",
    "StdioLaunch",
    "convert_schema",
    "load_config",
    "mcp_tools",
    "parse_config",
    "tool_name",
]

"""The assistant as an MCP server: chat's scheduling, note and time tools, a whole turn
(``ask``) and the decision on a pending request, over stdio (``assistant mcp``) and Streamable
HTTP (``/mcp`` of ``assistant web``); the caller's upcoming tasks as a resource.

    server   build_server: the SDK's low-level server; serve_stdio; McpHttp (ASGI)
    service  McpAssistant: which tools, each call run as chat runs it, the upcoming tasks
    turns    McpTools: ask, approve_request, deny_request; notices of requests that wait
    replies  a tool's outcome as an MCP result: text, and the same as structured content
    stdio    claim_stdio: stdin and stdout claimed for the protocol, read and written so that
             a signal stops the server at once

A caller is a user (a token's, or ``--user``) in their home chat (``interfaces.home_chat``):
what they schedule is delivered there by whichever front end fires tasks, never to MCP.
"""

from __future__ import annotations

from interfaces.mcp.server import (
    UPCOMING,
    McpHttp,
    build_server,
    checked_id,
    http_caller,
    serve_stdio,
)
from interfaces.mcp.service import CHAT_TOOLS, Caller, McpAssistant
from interfaces.mcp.stdio import StdioWire, claim_stdio
from interfaces.mcp.turns import McpAgent

__all__ = [
    "CHAT_TOOLS",
    "UPCOMING",
    "Caller",
    "McpAgent",
    "McpAssistant",
    "McpHttp",
    "StdioWire",
    "build_server",
    "checked_id",
    "claim_stdio",
    "http_caller",
    "serve_stdio",
]

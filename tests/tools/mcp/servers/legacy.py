"""An MCP server of the handshake era (protocol 2025-11-25), written by hand, run as a process.

Most servers in use today are of that era: they answer ``initialize`` and send
``notifications/tools/list_changed`` on the connection itself. It also sends what the SDK's
own server never would, so the client's tests can hand it a hostile or broken server: its
tools and answers are read, as raw JSON, from the scenario file given as its argument::

    {"tools": [{"name": ..., "description": ..., "inputSchema": ...}],
     "results": {"TOOL": {"content": [...], "isError": false} or any JSON at all},
     "after": {"TOOL": [{"name": ...}, ...]}}

``after`` replaces the tool list once a call of TOOL is answered, and says so in a
``notifications/tools/list_changed``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

VERSION = "2025-11-25"


def _send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
    sys.stdout.flush()


def _answer(request: dict[str, Any], scenario: dict[str, Any], tools: list[Any]) -> list[Any]:
    """Answer one request; return the tool list from now on."""
    method, ident = request.get("method"), request.get("id")
    params = request.get("params") or {}
    if method == "initialize":
        result = {
            "protocolVersion": VERSION,
            "capabilities": {"tools": {"listChanged": True}},
            "serverInfo": {"name": "legacy", "version": "1"},
        }
        _send({"id": ident, "result": result})
    elif method == "tools/list":
        _send({"id": ident, "result": {"tools": tools}})
    elif method == "tools/call":
        name = params.get("name")
        results = scenario.get("results", {})
        if name not in results:
            _send({"id": ident, "error": {"code": -32602, "message": f"unknown tool {name}"}})
            return tools
        _send({"id": ident, "result": results[name]})
        if name in scenario.get("after", {}):
            tools = scenario["after"][name]
            _send({"method": "notifications/tools/list_changed"})
    elif method == "ping":
        _send({"id": ident, "result": {}})
    elif ident is not None:  # server/discover among them: this server is of the older era
        _send({"id": ident, "error": {"code": -32601, "message": f"Method not found: {method}"}})
    return tools


def main() -> None:
    scenario = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    tools: list[Any] = scenario.get("tools", [])
    for line in sys.stdin:
        if line.strip():
            tools = _answer(json.loads(line), scenario, tools)


if __name__ == "__main__":
    main()

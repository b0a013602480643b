"""What the MCP client's tests share: real server processes and a backoff the test controls.

``toolbox`` and ``legacy`` are the configuration entries that start the servers of
``servers/`` over stdio; ``HttpToolbox`` runs the toolbox over Streamable HTTP on 127.0.0.1 in
a process of its own. ``Backoffs`` stands in for the backoff's sleep: it records each wait and
holds the reconnection until the test lets it go, so a test sees a server while it is down.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from tools import ToolCall, ToolExecutor, ToolRegistry, ToolResult
from tools.mcp import McpConfig, McpServers, ServerState, parse_config

SERVERS = Path(__file__).parent / "servers"
TOKEN = "tb-7Hq2Lx9Vw4Rk8Zp3"
"""The bearer token the HTTP toolbox wants (``TOOLBOX_TOKEN``)."""
WAIT = 20.0
"""The longest a test waits for a real process (a start, a reconnection)."""


def toolbox(calls: Path, **entry: Any) -> dict[str, Any]:
    """The configuration entry that starts the toolbox over stdio, recording calls in
    ``calls``; ``entry`` adds keys (``readOnly``, ``timeout``, ``env``...)."""
    env = {"TOOLBOX_CALLS": str(calls), **entry.pop("env", {})}
    return {"command": sys.executable, "args": [str(SERVERS / "toolbox.py")], "env": env, **entry}


def legacy(tmp_path: Path, scenario: dict[str, Any], **entry: Any) -> dict[str, Any]:
    """The entry that starts the hand-written server of the handshake era on ``scenario``."""
    path = tmp_path / f"scenario-{len(list(tmp_path.glob('scenario-*')))}.json"
    path.write_text(json.dumps(scenario), encoding="utf-8")
    return {"command": sys.executable, "args": [str(SERVERS / "legacy.py"), str(path)], **entry}


def config_of(servers: dict[str, Any], secrets: dict[str, str] | None = None) -> McpConfig:
    """A configuration of ``servers`` (the ``mcpServers`` object) with these secrets."""
    values = secrets or {}

    def lookup(name: str) -> str:
        if name not in values:
            raise LookupError(f"${{{name}}} is not set: set {name} in the environment")
        return values[name]

    return parse_config(json.dumps({"mcpServers": servers}), secrets=lookup)


def recorded(calls: Path) -> list[str]:
    """The tools the toolbox was called with, in order (what reached the server)."""
    if not calls.exists():
        return []
    lines = calls.read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["tool"] for line in lines if line.strip()]


class Backoffs:
    """The backoff's sleep: records each wait; holds it until ``release`` (or never, with
    ``hold=False``: then it returns at once)."""

    def __init__(self, *, hold: bool = True) -> None:
        self.waits: list[float] = []
        self._hold = hold
        self._go = asyncio.Event()

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)
        if self._hold:
            await self._go.wait()
            self._go = asyncio.Event()

    def release(self) -> None:
        """Let the waiting reconnection go (once)."""
        self._go.set()


class Hub:
    """An ``McpServers`` over a registry, with an executor to call the tools through."""

    def __init__(self, servers: McpServers, registry: ToolRegistry) -> None:
        self.servers = servers
        self.registry = registry
        self.executor = ToolExecutor(registry)

    async def call(self, tool: str, /, **arguments: Any) -> ToolResult:
        return await self.executor.execute(ToolCall(tool, arguments))

    async def until(self, condition: Callable[[], bool]) -> None:
        """Wait (a real process is involved, at most ``WAIT``) until ``condition`` holds."""
        async with asyncio.timeout(WAIT):
            await self.servers.wait_for(condition)

    async def down(self, backoffs: Backoffs) -> None:
        """Wait until a server stopped and its reconnection waits out its backoff."""
        await self.until(lambda: bool(backoffs.waits))

    async def back(self, server: str, backoffs: Backoffs) -> None:
        """Let the waiting reconnection go, and wait until ``server`` is up again."""
        backoffs.release()
        await self.until(lambda: self.state(server) is ServerState.UP)

    def state(self, server: str) -> ServerState:
        return next(s.state for s in self.servers.statuses() if s.name == server)


class HttpToolbox:
    """The toolbox served over Streamable HTTP on 127.0.0.1, in a process of its own.

    ``url`` is its endpoint; ``stop`` kills it (a server that dies), ``start`` serves again
    on the same port.
    """

    def __init__(self, calls: Path) -> None:
        self._calls = calls
        self._process: subprocess.Popen[str] | None = None
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def start(self) -> None:
        command = [sys.executable, str(SERVERS / "toolbox.py"), "--http", str(self.port)]
        env = {"TOOLBOX_TOKEN": TOKEN, "TOOLBOX_CALLS": str(self._calls), "PATH": ""}
        self._process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env
        )
        assert self._process.stdout is not None
        self.port = int(self._process.stdout.readline())  # bound and listening by then

    def stop(self) -> None:
        if self._process is not None:
            self._process.kill()
            self._process.wait(timeout=WAIT)
            if self._process.stdout is not None:
                self._process.stdout.close()
            self._process = None

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

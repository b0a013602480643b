"""``McpServers``: the configured MCP servers, kept connected, their tools kept in a registry.

The composition root opens it on its exit stack::

    config = load_config(settings.mcp_config_path, secrets=lookup)
    servers = await stack.enter_async_context(McpServers(config, registry, clock=clock))

Entering says every problem of the configuration in the log and starts one
``ServerConnection`` per server; by ``Startup`` it then waits for each one's first attempt
(at most ``wait``), or returns at once (a front end: the agent calls ``ready`` before a
model's turn), or starts nothing until ``ready`` is first called (a one-shot command the
offline planner may answer alone). A server that is slower keeps starting and its tools
join when it is up. Its tools
join the registry as ``server.tool``, and leave and join again whenever the server lists them
anew (it said they changed, or it reconnected): the registry's ``version`` changes, and the
agent renders its catalog again. Closing stops every server.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

from common import AsyncLifecycle, Clock, SystemClock
from tools.catalog import Tool, ToolRegistry
from tools.mcp.bridge import ListedTool, mcp_tools
from tools.mcp.config import McpConfig, ServerConfig
from tools.mcp.status import Backoff, ServerState, ServerStatus

if TYPE_CHECKING:
    from tools.mcp.connection import ServerConnection, Sleep

logger = logging.getLogger(__name__)

_STATE_WORDS = {
    ServerState.DOWN: "is down",
    ServerState.FAILED: "could not be started",
    ServerState.STOPPED: "has stopped",
}

DEFAULT_CONNECT_TIMEOUT = 30.0
"""Seconds a server may take to start and list its tools (``npx`` may first download it)."""


class Startup(StrEnum):
    """When the servers start, and whether entering waits for them."""

    WAIT = "wait"
    """Entering starts them and waits for each one's first attempt (at most ``wait``)."""
    BACKGROUND = "background"
    """Entering starts them and returns at once; ``ready`` waits for them when asked."""
    FIRST_USE = "first-use"
    """Nothing starts until ``ready`` is first called (a command that may never use them)."""


class McpServers(AsyncLifecycle):
    """The MCP servers of a configuration (see the module's docstring).

    Args:
        config: The servers (``load_config``); its problems are logged on ``start``.
        registry: Where their tools join and leave.
        clock: Tells when a server is tried again.
        sleep: Waits out a backoff (by default the clock's ``sleep``).
        backoff: How long to wait before each attempt to reconnect.
        connect_timeout: Seconds an attempt may take.
        startup: When they start, and whether entering waits (``Startup``).
        wait: The most entering (``Startup.WAIT``) or ``ready`` waits for the servers'
            first attempts; a server still starting then offers no tools yet. By default
            ``connect_timeout`` and a second.
        stderr_dir: Where stdio servers' stderr goes (``NAME.log``); temporary files when
            ``None``.
    """

    def __init__(
        self,
        config: McpConfig,
        registry: ToolRegistry,
        *,
        clock: Clock | None = None,
        sleep: Sleep | None = None,
        backoff: Backoff | None = None,
        connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
        startup: Startup = Startup.WAIT,
        wait: float | None = None,
        stderr_dir: Path | None = None,
    ) -> None:
        if connect_timeout <= 0:
            raise ValueError(f"connect_timeout must be positive seconds, got {connect_timeout!r}")
        if wait is not None and wait <= 0:
            raise ValueError(f"wait must be positive seconds, got {wait!r}")
        self.config = config
        self._registry = registry
        self._clock = clock or SystemClock()
        self._sleep = sleep or self._clock.sleep
        self._backoff = backoff or Backoff()
        self._connect_timeout = connect_timeout
        self._startup = startup
        self._wait = wait or connect_timeout + 1
        self._stderr_dir = stderr_dir
        self._connections: dict[str, ServerConnection] = {}
        self._names: dict[str, list[str]] = {}
        self._changed = asyncio.Event()
        self._told_slow: set[str] = set()

    async def _enter(self) -> None:
        for problem in self.config.problems:
            logger.warning("%s", problem)
        for name in self.config.disabled:
            logger.info("MCP server %r is disabled in %s", name, self.config.source)
        if self._startup is Startup.FIRST_USE:
            return
        self._start()
        if self._startup is Startup.WAIT:
            await self._first_attempts()

    async def _exit(self) -> None:
        await self.aclose()

    async def ready(self) -> None:
        """Start the servers if nothing has yet, and wait for those still in their first
        attempt (at most ``wait``); at once when every one has had it. The agent calls this
        before a model's turn, so that a server still starting joins the catalog first."""
        self._start()
        await self._first_attempts()

    def _start(self) -> None:
        if not self.config.servers or self._connections:
            return
        # Here, not at the top: the SDK takes most of a second to import, which an assistant
        # without MCP servers (and every `assistant tasks`) should not pay.
        from tools.mcp.connection import ServerConnection

        for server in self.config.servers:
            self._connections[server.name] = ServerConnection(
                server,
                publish=self._publish,
                on_change=self._notify,
                clock=self._clock,
                sleep=self._sleep,
                backoff=self._backoff,
                connect_timeout=self._connect_timeout,
                stderr_dir=self._stderr_dir,
            )
        for connection in self._connections.values():
            connection.start()

    async def _first_attempts(self) -> None:
        pending = [c for c in self._connections.values() if not c.first_done]
        if not pending:
            return
        try:
            async with asyncio.timeout(self._wait):
                await asyncio.gather(*(c.first_outcome() for c in pending))
        except TimeoutError:
            slow = [c.config.name for c in pending if not c.first_done]
            if new := [name for name in slow if name not in self._told_slow]:
                self._told_slow.update(new)
                logger.warning(
                    "MCP servers not started within %g s (their tools join once they are): %s",
                    self._wait,
                    ", ".join(new),
                )

    async def aclose(self) -> None:
        """Stop every server; their tools leave the registry."""
        connections = list(self._connections.values())
        await asyncio.gather(*(connection.aclose() for connection in connections))
        for server in list(self._names):
            self._replace(server, [])

    def statuses(self) -> list[ServerStatus]:
        """Every server the file names: those started, in the configuration's order, then
        those a mistake left out and those it disables."""
        return [
            *(connection.status() for connection in self._connections.values()),
            *(
                ServerStatus(name=name, transport="", state=ServerState.LEFT_OUT, error=problem)
                for name, problem in self.config.left_out.items()
            ),
            *(
                ServerStatus(
                    name=name,
                    transport="",
                    state=ServerState.DISABLED,
                    error=f"in {self.config.source}" if self.config.source else None,
                )
                for name in self.config.disabled
            ),
        ]

    def other_problems(self) -> list[str]:
        """The configuration's problems that no status shows (a file that is not JSON, a
        key the assistant does not read...): those of the servers left out are theirs."""
        shown = set(self.config.left_out.values())
        return [problem for problem in self.config.problems if problem not in shown]

    def why_unknown(self, tool: str) -> str | None:
        """Why ``tool``, named ``server.tool``, is not in the registry when its server is one
        the file names (left out, disabled, not started, down); ``None`` otherwise."""
        server, dot, _ = tool.partition(".")
        if not dot:
            return None
        config = self.config
        if not config.servers and not config.left_out and config.problems:
            return f"the MCP configuration loaded no server: {config.problems[0]}"
        if server in config.left_out:
            return f"its MCP server {server!r} was left out: {config.left_out[server]}"
        if server in config.disabled:
            return f"its MCP server {server!r} is disabled in {config.source or 'mcp.json'}"
        if server in config.not_started:
            return f"its MCP server {server!r} was not started by this command"
        connection = self._connections.get(server)
        if connection is None:
            return None
        status = connection.status()
        if status.state is ServerState.UP:
            listed = ", ".join(status.tools) or "none"
            return f"its MCP server {server!r} has no such tool (it lists: {listed})"
        if status.state is ServerState.STARTING:
            return (
                f"its MCP server {server!r} is still starting; try again once it is up "
                "('assistant tools' shows how each server stands)"
            )
        how = _STATE_WORDS.get(status.state, status.state.value)
        why = f": {status.error}" if status.error else ""
        return f"its MCP server {server!r} {how}{why}"

    def tools_by_server(self) -> dict[str, list[str]]:
        """Our names of each server's tools now in the registry, by server."""
        return {server: list(names) for server, names in self._names.items()}

    async def wait_for(self, condition: Callable[[], bool]) -> None:
        """Return once ``condition()`` holds; it is checked again whenever a server's state or
        tools change (a caller bounds the wait with its own timeout)."""
        while not condition():
            await self._changed.wait()

    def _notify(self) -> None:
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()

    def _publish(self, server: ServerConfig, listed: list[ListedTool]) -> list[str]:
        connection = self._connections[server.name]
        names = self._replace(server.name, mcp_tools(server, listed, connection.call))
        self._notify()
        return names

    def _replace(self, server: str, tools: list[Tool]) -> list[str]:
        """Put ``tools`` in the registry in place of the server's earlier ones."""
        for name in self._names.pop(server, []):
            if name in self._registry.names():
                self._registry.remove(name)
        added: list[str] = []
        for each in tools:
            try:
                self._registry.add(each)
            except ValueError:
                logger.warning(
                    "MCP tool %r was left out: a tool of that name is already registered",
                    each.name,
                )
                continue
            added.append(each.name)
        if added:
            self._names[server] = added
        return added

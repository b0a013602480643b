"""One MCP server's connection, kept up by a task of its own: ``ServerConnection``.

The task connects (the SDK's ``Client`` over stdio or Streamable HTTP), lists the tools and
publishes them, then waits: for the server to say its tools changed (they are listed again
and published), or for the connection to end. A connection that ends, or that cannot be made,
is made again after a backoff (1 s, 2 s, 4 s ... at most 5 min, ``Backoff``); a server that
cannot be started at all (its command does not exist) is not tried again. Every one of these
events is one log line naming the server and why: a warning when the server stops or first
fails, information while it keeps failing and when it is back.

Calls go through ``call`` from whatever task runs the tool. A call while the server is down
answers at once with a ``ToolError`` naming the server and when it is tried again; a call
while it starts waits for that attempt (the executor's timeout bounds every call). A call the
connection dies under answers with the reason, and the connection is made again.

The SDK's own failures are translated here: nothing of ``mcp``, ``anyio`` or ``httpx2``
leaves this module but ``ToolError``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import os
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager
from datetime import datetime, timedelta
from pathlib import Path
from types import TracebackType
from typing import IO, Any, Self

import anyio
import httpx2
import mcp_types
from mcp import Client, MCPError, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.client.subscriptions import SubscriptionLost
from mcp.shared.message import SessionMessage
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError

from common import Clock, make_private_dir, open_private
from tools.errors import ToolError
from tools.mcp.bridge import ListedTool
from tools.mcp.config import HttpEndpoint, ServerConfig, StdioLaunch
from tools.mcp.status import Backoff, ServerState, ServerStatus
from tools.mcp.text import one_line, readable

logger = logging.getLogger(__name__)

Sleep = Callable[[float], Awaitable[None]]
"""Waits the given seconds (a backoff); tests pass one they control."""
Publish = Callable[[ServerConfig, list[ListedTool]], list[str]]
"""Receives a server's tools each time they are listed; returns our names of those it took."""

_SDK_ERROR_STATUS = "Server returned an error response"
"""How the SDK says an HTTP server answered with an error status (which it does not name)."""
_STDERR_TAIL = 4000
MAX_PAGES = 20
"""Pages of ``tools/list`` read at most (a server whose cursor never ends cannot hang us)."""
_CLIENT_INFO = mcp_types.Implementation(name="assistant", version="0.1.0")


class _CannotStart(Exception):
    """The server cannot be started as configured; trying again would not help."""


class ServerConnection:
    """Keeps one MCP server connected and calls its tools (see the module's docstring).

    Args:
        config: The server.
        publish: Receives its tools each time they are listed.
        on_change: Called whenever its state changes (the hub wakes those who wait on it).
        clock: Tells the time of the next attempt.
        sleep: Waits out a backoff.
        backoff: How long to wait before each attempt.
        connect_timeout: Seconds an attempt (start, handshake, listing) may take.
        stderr_dir: Where a stdio server's stderr goes (``NAME.log``, rewritten each attempt);
            a temporary file when ``None``. Its last line is quoted when the server fails.
    """

    def __init__(
        self,
        config: ServerConfig,
        *,
        publish: Publish,
        on_change: Callable[[], None],
        clock: Clock,
        sleep: Sleep,
        backoff: Backoff,
        connect_timeout: float,
        stderr_dir: Path | None = None,
    ) -> None:
        self.config = config
        self._publish = publish
        self._on_change = on_change
        self._clock = clock
        self._sleep = sleep
        self._backoff = backoff
        self._connect_timeout = connect_timeout
        self._stderr_dir = stderr_dir
        self._state = ServerState.STARTING
        self._client: Client | None = None
        self._error: str | None = None
        self._retry_at: datetime | None = None
        self._tools: tuple[str, ...] = ()
        self._settled = asyncio.Event()
        self._first = asyncio.Event()  # set once the first attempt ended; never cleared
        self._wake = asyncio.Event()
        self._lost: str | None = None
        self._stale = False
        self._task: asyncio.Task[None] | None = None
        self._scope: anyio.CancelScope | None = None
        self._failures = 0
        self._was_up = False
        self._stderr: IO[str] | None = None
        self._http_error: str | None = None

    # -- lifecycle ------------------------------------------------------------------------

    def start(self) -> None:
        """Start the task that keeps the server connected."""
        if self._task is None:
            self._task = asyncio.create_task(self._supervise(), name=f"mcp:{self.config.name}")

    async def first_outcome(self) -> None:
        """Wait until the first attempt to connect has ended, either way (at once after)."""
        await self._first.wait()

    @property
    def first_done(self) -> bool:
        """Whether the first attempt to connect has ended."""
        return self._first.is_set()

    async def aclose(self) -> None:
        """Disconnect (a stdio server is stopped, its process reaped) and stop trying.

        The task is stopped through its own cancel scope, not ``Task.cancel``: the SDK stops a
        stdio server inside a shielded scope, which only a scope's cancellation respects; a
        native cancel breaks into it and leaves the process behind, unreaped.
        """
        task, self._task = self._task, None
        if task is not None:
            if self._scope is not None:
                self._scope.cancel()
            else:  # cancelled before its first step: it holds nothing yet
                task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._set(ServerState.STOPPED, error=None)

    def status(self) -> ServerStatus:
        """Where the server stands now."""
        return ServerStatus(
            name=self.config.name,
            transport=_transport_text(self.config.transport),
            state=self._state,
            tools=self._tools,
            error=self._error,
            retry_at=self._retry_at if self._state is ServerState.DOWN else None,
        )

    # -- calls ----------------------------------------------------------------------------

    async def call(self, tool: str, arguments: dict[str, Any]) -> str:
        """Call the server's ``tool`` and return its answer as text.

        Raises:
            ToolError: the server is down, failed, refused the call, answered with an error
                or with something that is not MCP; the message names the server and says
                what happens next.
        """
        client = await self._client_for_call()
        try:
            result = await client.call_tool(tool, arguments)
        except MCPError as exc:
            if exc.code == mcp_types.CONNECTION_CLOSED:
                raise self._broke("the connection closed during the call") from None
            raise ToolError(
                f"MCP server {self.config.name!r} refused the call of {tool!r}: "
                f"{self._explained(one_line(exc.message))}"
            ) from None
        except ValidationError as exc:
            raise ToolError(
                f"MCP server {self.config.name!r} answered the call of {tool!r} with something "
                f"that is not an MCP result ({_first_error(exc)})"
            ) from None
        except (
            OSError,
            httpx2.TransportError,
            anyio.BrokenResourceError,
            anyio.ClosedResourceError,
            anyio.EndOfStream,
        ) as exc:
            raise self._broke(describe(exc)) from None
        return render_result(self.config.name, tool, result)

    async def _client_for_call(self) -> Client:
        while self._state is ServerState.STARTING:
            await self._settled.wait()
        if self._state is ServerState.UP and self._client is not None:
            return self._client
        name = self.config.name
        if self._state is ServerState.DOWN and self._retry_at is None:
            raise ToolError(
                f"MCP server {name!r} stopped ({self._error}); the assistant is reconnecting "
                "to it, try again in a moment"
            )
        if self._state is ServerState.DOWN and self._retry_at is not None:
            wait = max(0, round((self._retry_at - self._clock.now()).total_seconds()))
            when = f"in {wait} s" if wait else "any moment now"
            raise ToolError(
                f"MCP server {name!r} is not connected ({self._error}); the assistant tries "
                f"again at {self._retry_at:%H:%M:%S} UTC, {when}"
            )
        if self._state is ServerState.FAILED:
            raise ToolError(
                f"MCP server {name!r} could not be started ({self._error}); fix its entry in "
                "the MCP configuration and restart the assistant"
            )
        raise ToolError(f"MCP server {name!r} is not connected: the assistant is stopping")

    def _broke(self, reason: str) -> ToolError:
        """Mark the connection lost (it is made again) and say so to the caller."""
        self._lose(reason)
        return ToolError(
            f"MCP server {self.config.name!r} stopped answering: {reason}; the assistant "
            f"reconnects to it (first attempt in {self._backoff.first:g} s)"
        )

    def _lose(self, reason: str) -> None:
        """The connection is gone: calls are answered so at once, and the task that keeps it
        makes it again."""
        if self._lost is None:
            self._lost = reason
        if self._state is ServerState.UP:
            self._set(ServerState.DOWN, error=reason)
        self._wake.set()

    # -- the task that keeps the connection -------------------------------------------------

    async def _supervise(self) -> None:
        with anyio.CancelScope() as self._scope:
            while True:
                self._set(ServerState.STARTING, error=None)
                with self._errlog() as errlog:
                    try:
                        reason = await self._connection()
                    except Exception as exc:  # every failure of an attempt: said, then retried
                        leaf = _first_leaf(exc)
                        if isinstance(leaf, _CannotStart):
                            self._failed(str(leaf))
                            return
                        reason = self._explained(describe(exc))
                    reason = _with_stderr(reason, errlog)
                await self._down(reason)

    async def _connection(self) -> str:
        """Connect, publish the tools, and serve until the connection is lost; return why."""
        self._lost, self._stale, self._http_error = None, False, None
        self._wake.clear()
        # An anyio deadline, not asyncio's: the SDK's shielded clean-up respects only a
        # scope's cancellation. One scope around the whole connection (cancel scopes must
        # close in the order they opened); its deadline is lifted once the tools are listed.
        with anyio.CancelScope(deadline=anyio.current_time() + self._connect_timeout) as scope:
            async with self._client_of() as client:
                listed = await _list_tools(client)
                scope.deadline = math.inf
                self._up(client, listed)
                try:
                    async with anyio.create_task_group() as group:
                        if _can_listen(client):
                            group.start_soon(self._listen, client)
                        await self._serve(client)
                        group.cancel_scope.cancel()
                finally:
                    self._client = None
        if scope.cancelled_caught:
            return f"it did not start and list its tools within {self._connect_timeout:g} s"
        return self._lost or "the connection ended"

    def _client_of(self) -> Client:
        transport = self.config.transport
        if isinstance(transport, StdioLaunch):
            stream = _Watched(self._stdio(transport), self._lose)
        else:
            stream = _Watched(_http(transport, self._saw_response), self._lose)
        return Client(stream, message_handler=self._on_message, client_info=_CLIENT_INFO)

    @asynccontextmanager
    async def _stdio(self, launch: StdioLaunch) -> AsyncIterator[tuple[Any, Any]]:
        """The SDK's stdio transport; a process that cannot be spawned is ``_CannotStart``."""
        parameters = StdioServerParameters(
            command=launch.command, args=list(launch.args), env=dict(launch.env), cwd=launch.cwd
        )
        assert self._stderr is not None  # opened by _supervise for each attempt
        spawned = False
        try:
            async with stdio_client(parameters, errlog=self._stderr) as streams:  # type: ignore[arg-type]
                spawned = True
                yield streams
        except OSError as exc:
            if spawned:
                raise
            raise _CannotStart(_spawn_error(launch, exc)) from None

    async def _saw_response(self, response: httpx2.Response) -> None:
        """Keep the status of an HTTP error: the SDK turns it into "Server returned an
        error response", and a 401 is what people need to hear."""
        if response.status_code >= 400:
            self._http_error = f"HTTP {response.status_code} {response.reason_phrase}".strip()

    def _explained(self, reason: str) -> str:
        """``reason``, with the HTTP error status behind it (once); the SDK's own words for
        an error status ("Server returned an error response") give way to the status."""
        status, self._http_error = self._http_error, None
        if status is None or status in reason:
            return reason
        if reason.startswith(_SDK_ERROR_STATUS):
            return f"it answered {status}"
        return f"{reason} ({status})"

    @contextlib.contextmanager
    def _errlog(self) -> Iterator[IO[str] | None]:
        """The file a stdio server's stderr goes to during one attempt (``None`` for HTTP)."""
        if not isinstance(self.config.transport, StdioLaunch):
            yield None
            return
        with self._new_errlog() as opened:
            self._stderr = opened
            try:
                yield opened
            finally:
                self._stderr = None

    def _new_errlog(self) -> IO[str]:
        if self._stderr_dir is None:
            return tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")
        make_private_dir(self._stderr_dir)
        path = self._stderr_dir / f"{self.config.name}.log"
        path.unlink(missing_ok=True)
        return open_private(path, "a+")

    async def _serve(self, client: Client) -> None:
        """Wait; list the tools again when they changed; return when the connection is lost."""
        while True:
            await self._wake.wait()
            self._wake.clear()
            if self._lost is not None:
                return
            if self._stale:
                self._stale = False
                await self._relist(client)

    async def _relist(self, client: Client) -> None:
        try:
            with anyio.fail_after(self._connect_timeout):
                listed = await _list_tools(client)
        except TimeoutError:
            logger.warning(
                "MCP server %r said its tools changed but did not list them within %g s; "
                "its old tools stay",
                self.config.name,
                self._connect_timeout,
            )
            return
        except MCPError as exc:
            if exc.code == mcp_types.CONNECTION_CLOSED:
                self._lose("the connection closed")
                return
            logger.warning(
                "MCP server %r said its tools changed but refused to list them (%s); its old "
                "tools stay",
                self.config.name,
                one_line(exc.message),
            )
            return
        except Exception as exc:  # the connection broke under the listing
            self._lose(describe(exc))
            return
        self._tools = tuple(self._publish(self.config, listed))
        logger.info("MCP server %r changed its tools: now %d", self.config.name, len(self._tools))
        self._on_change()

    async def _listen(self, client: Client) -> None:
        """Keep a 2026-era server's stream of change events open (older servers send their
        notifications on the connection itself; both reach ``_on_message``)."""
        try:
            async with client.listen(tools_list_changed=True) as events:
                async for _ in events:
                    self._changed()
        except SubscriptionLost:
            self._lose("its stream of change events broke off")
        except (MCPError, TimeoutError, RuntimeError) as exc:
            logger.info(
                "MCP server %r: no stream of tool changes (%s); its tools are listed again "
                "when it reconnects",
                self.config.name,
                describe(exc),
            )

    async def _on_message(self, message: object) -> None:
        if isinstance(message, mcp_types.ToolListChangedNotification):
            self._changed()

    def _changed(self) -> None:
        self._stale = True
        self._wake.set()

    # -- state ----------------------------------------------------------------------------

    def _up(self, client: Client, listed: list[ListedTool]) -> None:
        self._client = client
        self._tools = tuple(self._publish(self.config, listed))
        came_back = self._failures > 0
        self._failures = 0
        self._was_up = True
        self._set(ServerState.UP, error=None)
        level = logging.WARNING if came_back else logging.INFO
        logger.log(
            level,
            "MCP server %r is %s with %d tools",
            self.config.name,
            "back" if came_back else "connected",
            len(self._tools),
        )

    async def _down(self, reason: str) -> None:
        self._failures += 1
        delay = self._backoff.delay(self._failures)
        self._set(
            ServerState.DOWN,
            error=reason,
            retry_at=self._clock.now() + timedelta(seconds=delay),
        )
        first = self._failures == 1
        what = "stopped" if self._was_up and first else "failed to start"
        logger.log(
            logging.WARNING if first else logging.INFO,
            "MCP server %r %s: %s; trying again in %g s",
            self.config.name,
            what if first else "is still down",
            reason,
            delay,
        )
        await self._sleep(delay)

    def _failed(self, reason: str) -> None:
        self._set(ServerState.FAILED, error=reason)
        logger.warning("MCP server %r cannot start: %s", self.config.name, reason)

    def _set(
        self, state: ServerState, *, error: str | None, retry_at: datetime | None = None
    ) -> None:
        self._state, self._error, self._retry_at = state, error, retry_at
        if state is not ServerState.STARTING:
            self._settled.set()
            self._first.set()
        else:
            self._settled = asyncio.Event() if self._settled.is_set() else self._settled
        self._on_change()


class _Watched:
    """A transport whose end is reported: the read stream's end calls ``ended``.

    A stdio server that exits between calls closes its stdout and nothing else would notice
    until the next call; with this, the connection is made again at once.
    """

    def __init__(self, inner: Any, ended: Callable[[str], None]) -> None:
        self._inner = inner
        self._ended = ended

    async def __aenter__(self) -> tuple[Any, Any]:
        read, write = await self._inner.__aenter__()
        return _EndOfRead(read, self._ended), write

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> bool | None:
        result: bool | None = await self._inner.__aexit__(kind, exc, traceback)
        return result


class _EndOfRead:
    """A read stream that calls ``ended`` when it ends (the SDK's ``ReadStream`` protocol)."""

    def __init__(self, inner: Any, ended: Callable[[str], None]) -> None:
        self._inner = inner
        self._ended = ended

    @property
    def last_context(self) -> Any:
        """The sender's context, for the streams that carry one (the SDK looks for it)."""
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> SessionMessage | Exception:
        try:
            item: SessionMessage | Exception = await self._inner.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            self._ended("the connection ended: the server exited or closed it")
            raise
        return item

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> bool | None:
        await self.aclose()
        return None


@asynccontextmanager
async def _http(
    endpoint: HttpEndpoint, saw: Callable[[httpx2.Response], Awaitable[None]]
) -> AsyncIterator[tuple[Any, Any]]:
    """The Streamable HTTP transport with the endpoint's headers on every request; ``saw``
    sees every response."""
    timeout = httpx2.Timeout(30.0, read=300.0)  # the SDK's own: a stream may stay open
    hooks = {"response": [saw]}
    async with (
        httpx2.AsyncClient(
            headers=dict(endpoint.headers), timeout=timeout, event_hooks=hooks
        ) as http,
        streamable_http_client(endpoint.url, http_client=http) as streams,
    ):
        yield streams


async def _list_tools(client: Client) -> list[ListedTool]:
    listed: list[ListedTool] = []
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        page = await client.list_tools(cursor=cursor, cache_mode="bypass")
        listed.extend(
            ListedTool(
                name=each.name,
                description=each.description or "",
                input_schema=each.input_schema,
                title=each.title,
            )
            for each in page.tools
        )
        cursor = page.next_cursor
        if cursor is None:
            break
    return listed


def _can_listen(client: Client) -> bool:
    """Whether the server sends tool changes on a stream of its own (2026-era servers)."""
    tools = client.server_capabilities.tools
    return (
        client.protocol_version in MODERN_PROTOCOL_VERSIONS
        and tools is not None
        and bool(tools.list_changed)
    )


def render_result(server: str, tool: str, result: mcp_types.CallToolResult) -> str:
    """A tool's result as the text the model reads.

    Text comes as it is (control characters removed); pictures, audio and binary resources
    are named, not shown; a result with structured content only is its JSON.

    Raises:
        ToolError: the server says the call failed (``isError``), with what it said.
    """
    parts = [_block_text(block) for block in result.content]
    text = "\n".join(part for part in parts if part)
    if not text and result.structured_content is not None:
        text = json.dumps(result.structured_content, ensure_ascii=False, default=str)
    text = readable(text).strip()
    if result.is_error:
        raise ToolError(
            f"MCP tool {tool!r} of server {server!r} reported an error: "
            f"{one_line(text) or 'it said nothing more'}"
        )
    return text or "(the tool answered with nothing)"


def _block_text(block: object) -> str:
    if isinstance(block, mcp_types.TextContent):
        return block.text
    if isinstance(block, mcp_types.ImageContent | mcp_types.AudioContent):
        kind = "an image" if isinstance(block, mcp_types.ImageContent) else "audio"
        return f"[{kind} ({block.mime_type}, about {len(block.data) * 3 // 4} bytes), not shown]"
    if isinstance(block, mcp_types.ResourceLink):
        return f"[a resource: {block.name} at {block.uri}]"
    if isinstance(block, mcp_types.EmbeddedResource):
        resource = block.resource
        if isinstance(resource, mcp_types.TextResourceContents):
            return resource.text
        return f"[a resource at {resource.uri} ({resource.mime_type or 'binary'}), not shown]"
    return f"[content of a kind the assistant does not read: {type(block).__name__}]"


def describe(exc: BaseException) -> str:
    """What went wrong, in one line: the first real error inside exception groups."""
    leaf = _first_leaf(exc)
    if isinstance(leaf, MCPError):
        text = "the connection closed" if leaf.code == mcp_types.CONNECTION_CLOSED else leaf.message
    elif isinstance(leaf, TimeoutError):
        text = "it did not answer in time"
    elif isinstance(leaf, ValidationError):
        text = f"it answered with something that is not valid MCP ({_first_error(leaf)})"
    elif isinstance(leaf, httpx2.HTTPStatusError):
        response = leaf.response
        text = f"it answered HTTP {response.status_code} {response.reason_phrase}"
    elif isinstance(leaf, httpx2.ConnectError):
        text = f"cannot connect ({leaf})"
    elif isinstance(leaf, OSError) and leaf.strerror:
        text = leaf.strerror
    else:
        text = str(leaf) or type(leaf).__name__
    return one_line(text)


def _first_error(exc: ValidationError) -> str:
    """Where the first mistake of an answer is, and what it is."""
    errors = exc.errors()
    if not errors:
        return one_line(str(exc))
    where = ".".join(str(part) for part in errors[0]["loc"])
    return one_line(f"{where}: {errors[0]['msg']}" if where else errors[0]["msg"], 200)


def _first_leaf(exc: BaseException) -> BaseException:
    if isinstance(exc, BaseExceptionGroup):
        leaves = [_first_leaf(inner) for inner in exc.exceptions]
        real = [leaf for leaf in leaves if not isinstance(leaf, asyncio.CancelledError)]
        return real[0] if real else leaves[0]
    return exc


def _with_stderr(reason: str, stream: IO[str] | None) -> str:
    """``reason``, with the last line a stdio server wrote to its stderr."""
    if stream is None or stream.closed:
        return reason
    try:
        stream.flush()
        size = os.fstat(stream.fileno()).st_size
        tail = os.pread(stream.fileno(), _STDERR_TAIL, max(0, size - _STDERR_TAIL))
    except (OSError, ValueError):
        return reason
    lines = [line.strip() for line in tail.decode("utf-8", "replace").splitlines() if line.strip()]
    return f"{reason} (it wrote: {one_line(lines[-1], 200)!r})" if lines else reason


def _spawn_error(launch: StdioLaunch, exc: OSError) -> str:
    if isinstance(exc, FileNotFoundError) and launch.cwd is not None and not launch.cwd.is_dir():
        return f"its folder {str(launch.cwd)!r} does not exist"
    if isinstance(exc, FileNotFoundError) and ("/" in launch.command or "\\" in launch.command):
        return f"the command {launch.command!r} does not exist; check the path in 'command'"
    if isinstance(exc, FileNotFoundError):
        return (
            f"the command {launch.command!r} was not found on PATH; install it, or give its "
            "full path in 'command'"
        )
    if isinstance(exc, PermissionError):
        return f"the command {launch.command!r} may not be run (permission denied)"
    return f"the command {launch.command!r} could not be started: {exc.strerror or exc}"


def _transport_text(transport: StdioLaunch | HttpEndpoint) -> str:
    kind = "stdio" if isinstance(transport, StdioLaunch) else "http"
    return f"{kind}: {one_line(transport.describe(), 120)}"

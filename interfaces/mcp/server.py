"""The MCP server over ``McpAssistant``, and its two transports.

    build_server(assistant, caller)   the SDK's low-level ``Server``: tools, their calls, and
                                      the resource tasks://upcoming
    serve_stdio(server, wire)         serve one client on stdin/stdout (``assistant mcp``)
    McpHttp(server, user_of=...)      Streamable HTTP as an ASGI app (``/mcp`` of the web)

The low-level server, not ``MCPServer``: that one makes each tool's schema from a Python
signature and checks the arguments with it before the tool runs, where chat's schemas come
from our registry and chat's checks and messages must be the ones the caller gets.

Over HTTP each request stands alone (stateless, JSON answers): its caller is the user its
bearer token stands for, checked by the web front end's gate before the request gets here,
so no MCP session can outlive or change its user.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import json
import logging
import re
import secrets
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from typing import Any, cast

import anyio
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    CallToolRequestParams,
    CallToolResult,
    ListResourcesResult,
    ListToolsResult,
    PaginatedRequestParams,
    ReadResourceRequestParams,
    ReadResourceResult,
    Resource,
    TextResourceContents,
)
from starlette.types import Receive, Scope, Send

from interfaces.mcp.replies import error_result
from interfaces.mcp.service import Caller, McpAssistant
from interfaces.mcp.stdio import StdioWire

logger = logging.getLogger(__name__)

NAME = "assistant"
UPCOMING = "tasks://upcoming"
"""The resource of the caller's upcoming tasks."""
_UPCOMING = Resource(
    uri=UPCOMING,
    name="upcoming_tasks",
    title="Your upcoming tasks",
    description=(
        "Your tasks that have not finished, soonest next run first, as GET /tasks of the web "
        "API shows them: id, type, description, schedule in words, status, next run (ISO 8601 "
        "in your zone, and in words), run count, and the task on one line."
    ),
    mime_type="application/json",
)
ID_PATTERN = re.compile(r"^[A-Za-z0-9_.@:-]{1,64}$")
"""What a user or chat id given on the command line may be: a Telegram id (digits, or a
group's with a minus sign), ``local``, ``web:main``, an API token's user such as ``alice``."""

CallerOf = Callable[[ServerRequestContext[Any, Any]], Caller]
"""Who makes the request a handler serves."""


def checked_id(text: str, what: str) -> str:
    """``text`` as a user or chat id.

    Raises:
        ValueError: saying what an id may be, with examples.
    """
    if not ID_PATTERN.match(text):
        raise ValueError(
            f"{what} {text!r} is not an id: use letters, digits and '_.@:-' (at most 64), "
            "e.g. 123456789 (a Telegram user's), 'local', 'web:main' or 'alice'"
        )
    return text


def instructions(scheduler_note: str | None) -> str:
    """What the server tells a client about itself when it connects."""
    said = [
        "A personal assistant with a durable scheduler: reminders and recurring tasks fire on "
        "time, survive restarts and are never sent twice. Give times in the user's own words "
        "('in 10 minutes', 'every weekday at 9am', '0 9 * * 1-5'): the assistant resolves them "
        "in the user's time zone, and every result says the exact time it resolved.",
        "Reminders and task results are delivered to the user's chat (Telegram, the web page "
        "or the terminal), not to this connection; a scheduling call answers with the task's "
        "id, its schedule and its next run.",
        "A call that needs the user's approval does not run: its result is the pending request "
        "(id, tool, exact arguments, expiry). The user decides it in chat (/approvals), or "
        "approve_request repeats its tool and arguments exactly; deny_request refuses it.",
        "ask says something to the assistant as in chat (it may use every tool it has). "
        f"{UPCOMING} lists the user's upcoming tasks as JSON.",
    ]
    if scheduler_note:
        said.append(scheduler_note)
    return "\n\n".join(said)


def build_server(assistant: McpAssistant, *, caller: CallerOf) -> Server[Any]:
    """The MCP server of ``assistant``; ``caller`` says who makes each request."""

    async def list_tools(
        ctx: ServerRequestContext[Any, Any], params: PaginatedRequestParams | None
    ) -> ListToolsResult:
        return ListToolsResult(tools=assistant.tools())

    async def call_tool(
        ctx: ServerRequestContext[Any, Any], params: CallToolRequestParams
    ) -> CallToolResult:
        who = caller(ctx)
        try:
            return await assistant.call(params.name, params.arguments, who)
        except Exception:
            # A database that cannot be reached, or a bug: the log has it, the caller an id.
            error_id = secrets.token_hex(3)
            logger.exception("MCP call of %r failed (error id %s)", params.name, error_id)
            return error_result(
                f"something went wrong on the server (error id {error_id}); the server's log "
                "says what, and whether the call took effect: list your tasks before trying again"
            )

    async def list_resources(
        ctx: ServerRequestContext[Any, Any], params: PaginatedRequestParams | None
    ) -> ListResourcesResult:
        return ListResourcesResult(resources=[_UPCOMING])

    async def read_resource(
        ctx: ServerRequestContext[Any, Any], params: ReadResourceRequestParams
    ) -> ReadResourceResult:
        uri = str(params.uri)
        if uri != UPCOMING:
            raise MCPError(
                code=INVALID_PARAMS,
                message=f"there is no resource {uri!r}; the one resource is {UPCOMING!r}",
            )
        text = await assistant.upcoming(caller(ctx))
        return ReadResourceResult(
            contents=[TextResourceContents(uri=UPCOMING, mime_type="application/json", text=text)]
        )

    return Server(
        NAME,
        version=_version(),
        title="Personal assistant",
        instructions=instructions(assistant.scheduler_note),
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_read_resource=read_resource,
    )


async def serve_stdio(server: Server[Any], wire: StdioWire | None) -> None:
    """Serve one client on ``wire`` (``claim_stdio``) until it closes its input, or the
    caller cancels: the wait for its next line is cancelled at once.

    Without a wire (the process lacks stdin or stdout) the SDK's own transport serves.
    """
    # The SDK reads and writes any objects with its file's methods; its types name its own.
    stdin = cast("anyio.AsyncFile[str] | None", wire.lines if wire else None)
    stdout = cast("anyio.AsyncFile[str] | None", wire.out if wire else None)
    async with stdio_server(stdin=stdin, stdout=stdout) as (read, write):
        await server.run(read, write, server.create_initialization_options())


class McpHttp:
    """The server over Streamable HTTP: an ASGI app to mount behind the token check.

    Stateless and answering in JSON: each request opens and ends its own exchange, so the
    user its token stands for is the caller of everything it asks, and no session state is
    kept between requests. ``running`` must be entered (the SDK's task group) while it serves.

    A GET, which asks for a stream of the server's own messages, is answered 405 as the
    protocol allows: a stateless server has nothing to send on one, and a stream left open
    would only hold up the web server's stop.

    Args:
        server: The MCP server (``build_server`` with ``http_caller``).
    """

    def __init__(self, server: Server[Any]) -> None:
        self._manager = StreamableHTTPSessionManager(app=server, json_response=True, stateless=True)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("method") == "GET":
            await _no_stream(send)
            return
        await self._manager.handle_request(scope, receive, send)

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Serve requests until the block ends (requests in progress are cancelled then).

        The SDK's task group lives in a task of its own, entered and left there: the block
        may end in another task than the one that began it (a test fixture's teardown).
        """
        started, stop = asyncio.Event(), asyncio.Event()

        async def serve() -> None:
            async with self._manager.run():
                started.set()
                await stop.wait()

        task = asyncio.create_task(serve(), name="mcp-http")
        ready = asyncio.create_task(started.wait())
        await asyncio.wait({task, ready}, return_when=asyncio.FIRST_COMPLETED)
        if task.done():
            ready.cancel()
            task.result()  # it failed to start: say why
        try:
            yield
        finally:
            stop.set()
            await task


def http_caller(
    *, user_of: Callable[[Mapping[str, Any]], str | None], home: Callable[[str], str]
) -> CallerOf:
    """Who makes an HTTP request: the user ``user_of`` finds in its ASGI scope (put there by
    the token check), in their ``home`` chat.

    A request that reaches the server without a user is refused: the app is mounted wrong.
    """

    def caller(ctx: ServerRequestContext[Any, Any]) -> Caller:
        scope = getattr(ctx.request, "scope", None)
        user = user_of(scope) if isinstance(scope, Mapping) else None
        if user is None:
            raise MCPError(
                code=INVALID_REQUEST,
                message="this request carries no checked user: send 'Authorization: Bearer "
                "<token>' with a token of the assistant's API",
            )
        return Caller(user, home(user))

    return caller


async def _no_stream(send: Send) -> None:
    body = json.dumps(
        {
            "detail": "this MCP endpoint is stateless and offers no stream of its own "
            "messages; send each request with POST"
        }
    ).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 405,
            "headers": [
                (b"allow", b"POST"),
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def _version() -> str:
    """The assistant's version, as its package says it (what a client shows of the server)."""
    try:
        return importlib.metadata.version("assistant")
    except importlib.metadata.PackageNotFoundError:  # run from a checkout not installed
        return "unknown"

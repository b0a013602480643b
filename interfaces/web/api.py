"""``WebInterface``: the HTTP API and the web page, a thin adapter over the agent and tasks.

The FastAPI application (``WebInterface.app``) is an ordinary ASGI app: ``WebServer`` serves
it with uvicorn, and tests drive it through httpx. Errors of the layers below become HTTP
answers that say what was wrong: a task that is not yours or does not exist is 404, one in a
state that does not allow the action 409, other refusals 400; invalid bodies are 422
(FastAPI's own detail, with text that is not text, such as a lone surrogate, named and never
echoed); a database that cannot be reached is 503 with ``Retry-After``; anything unexpected is
500 with an error id that the log explains.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Mapping
from datetime import timedelta

from fastapi import FastAPI, Request, Security
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.security import HTTPBearer
from starlette.routing import Route
from starlette.types import ASGIApp

from calendars import MAX_FILE_BYTES, CalendarError, Calendars, hidden_path
from common import Clock, SystemClock, clean_value
from interfaces.commands import SlashCommands
from interfaces.protocols import ChatAgent
from interfaces.quiet import QuietHoursBook
from interfaces.slots import SlotsTaken, UserSlots, turn_slots
from interfaces.web import calendar_routes, chat, page, proactive_routes, resources, task_routes
from interfaces.web.auth import ApiTokens
from interfaces.web.gate import MAX_BODY, Gate
from interfaces.web.inbox import WebInbox
from interfaces.web.models import MAX_MESSAGE_CHARS
from interfaces.web.services import SchedulerStatus, WebServices, stream_slots
from memory import MemoryInputError, MemoryStore, MemoryStoreError
from tasks import TaskError, TaskManager, TaskNotFoundError, TaskStateError, TaskStoreError

logger = logging.getLogger(__name__)

_BEARER = "A token from ASSISTANT_API_TOKENS"
_DESCRIPTION = """\
Chat with the assistant, stream its answers as [AG-UI](https://docs.ag-ui.com) events, and
manage your tasks, approvals and notes. Every route except `/health` needs
`Authorization: Bearer <token>` with a token from `ASSISTANT_API_TOKENS`; each token's user
sees only their own conversations, tasks, notes and approvals.
"""


class WebInterface:
    """The assistant over HTTP: the JSON API, the AG-UI stream and the page.

    Args:
        agent: Answers messages and decides approvals.
        tasks: The task manager.
        memory: The memory store.
        scheduler: The scheduler's health (the task manager).
        inbox: Deliveries to web chats (the notifier the composition root routes them to).
        tokens: The accepted bearer tokens and their users.
        loopback_only: Answer only requests addressed to a loopback name (a server without
            API tokens, whose one token is made at each start).
        commands: The slash commands; built from ``tasks``, ``memory`` and ``agent`` by default.
        clock: The current time (tests inject a manual one).
        max_body: The largest request body read, in bytes.
        keepalive: Seconds of silence after which a stream sends a comment line.
        max_message_chars: The longest message a turn takes (what the planner reads).
        max_turns_per_user: Turns one user may have running at once (429 beyond).
        turns: The turn slots, when others share them (MCP's ``ask`` at ``/mcp``); by
            default slots of its own, ``max_turns_per_user`` each.
        max_event_streams: ``/events`` streams one user may have open at once (429 beyond).
        health_max_late: How late on-time runs may start before ``/health`` says degraded.
        mounts: Other ASGI apps served behind the same token check, by path (``/mcp``: the
            MCP server); each finds its caller with ``scope_user``.
        quiet: The users' quiet hours (the scheduler's book), for the default commands.
        calendars: The feeds (``/calendar/<token>.ics``, no bearer token), ``/calendar`` and
            imports of .ics files; also ``/calendar`` typed in the chat.
    """

    def __init__(
        self,
        *,
        agent: ChatAgent,
        tasks: TaskManager,
        memory: MemoryStore,
        scheduler: SchedulerStatus,
        inbox: WebInbox,
        tokens: ApiTokens,
        loopback_only: bool = False,
        commands: SlashCommands | None = None,
        clock: Clock | None = None,
        max_body: int = MAX_BODY,
        keepalive: float = 15.0,
        max_message_chars: int = MAX_MESSAGE_CHARS,
        max_turns_per_user: int = 3,
        turns: UserSlots | None = None,
        max_event_streams: int = 5,
        health_max_late: timedelta = timedelta(seconds=2),
        mounts: Mapping[str, ASGIApp] | None = None,
        quiet: QuietHoursBook | None = None,
        calendars: Calendars | None = None,
    ) -> None:
        clock = clock or SystemClock()
        self.services = WebServices(
            agent=agent,
            tasks=tasks,
            memory=memory,
            scheduler=scheduler,
            inbox=inbox,
            commands=commands
            or SlashCommands(
                tasks=tasks,
                memory=memory,
                agent=agent,
                clock=clock,
                buttons=False,
                quiet=quiet,
                calendars=calendars,
            ),
            clock=clock,
            keepalive=keepalive,
            closing=asyncio.Event(),
            max_message_chars=max_message_chars,
            turns=turns or turn_slots(max_turns_per_user),
            streams=stream_slots(max_event_streams),
            health_max_late=health_max_late,
            calendars=calendars,
        )
        self.app = self._build(tokens, loopback_only, max_body, mounts or {})

    def close(self) -> None:
        """End the open streams (the server is stopping); turns in progress finish."""
        self.services.closing.set()

    def _build(
        self,
        tokens: ApiTokens,
        loopback_only: bool,
        max_body: int,
        mounts: Mapping[str, ASGIApp],
    ) -> FastAPI:
        app = FastAPI(
            title="assistant",
            summary="A personal assistant with tools and a persistent scheduler.",
            description=_DESCRIPTION,
            version="1",
            docs_url=None,
            redoc_url=None,
        )
        # The bearer dependency documents the token in /docs; the gate checks it before any
        # route runs.
        bearer = Security(HTTPBearer(auto_error=False, description=_BEARER))
        for routes in (
            chat.router,
            task_routes.router,
            proactive_routes.router,
            resources.router,
            calendar_routes.router,
        ):
            app.include_router(routes, dependencies=[bearer])
        app.include_router(page.router)
        app.include_router(calendar_routes.feed_router)  # the address is the secret
        for path, mounted in mounts.items():
            # A route, not a Mount: it answers the path itself ("/mcp"), not only "/mcp/...".
            app.router.routes.append(Route(path, endpoint=mounted, include_in_schema=False))
        app.state.services = self.services  # what the routes' `Services` reads
        app.add_exception_handler(RequestValidationError, _invalid)
        app.add_exception_handler(TaskStoreError, _unavailable)
        app.add_exception_handler(MemoryInputError, _bad_value)
        app.add_exception_handler(MemoryStoreError, _unavailable)
        app.add_exception_handler(TaskError, _task_error)
        app.add_exception_handler(SlotsTaken, _too_many)
        app.add_exception_handler(CalendarError, _bad_value)
        app.add_exception_handler(Exception, _unexpected)
        app.add_middleware(
            Gate,
            tokens=tokens,
            loopback_only=loopback_only,
            max_body=max_body,
            # A calendar file is larger than a message.
            large_bodies={calendar_routes.IMPORT_PATH: MAX_FILE_BYTES},
        )
        return app


async def _task_error(request: Request, error: Exception) -> JSONResponse:
    if isinstance(error, TaskNotFoundError):
        status = 404
    elif isinstance(error, TaskStateError):
        status = 409
    else:
        status = 400
    return JSONResponse({"detail": str(error)}, status_code=status)


_UNICODE = (
    "the text holds a lone UTF-16 surrogate (half of a character, such as \\ud800), which is "
    "not text; send the whole pair (e.g. \\ud83d\\ude00) or the character itself"
)
RETRY_AFTER = 5
"""Seconds a client is asked to wait when the database cannot be reached."""


async def _invalid(request: Request, error: Exception) -> JSONResponse:
    """FastAPI's 422, without echoing what cannot be encoded, and saying why in words."""
    assert isinstance(error, RequestValidationError)
    details = []
    for entry in error.errors():
        shown = {**entry, "input": clean_value(entry.get("input"))}
        if entry.get("type") == "string_unicode":
            shown["msg"] = _UNICODE
        details.append(clean_value(jsonable_encoder(shown)))
    return JSONResponse({"detail": details}, status_code=422)


async def _too_many(request: Request, error: Exception) -> JSONResponse:
    """Every turn (or stream) slot of the user is taken: 429, refused before any work."""
    return JSONResponse({"detail": str(error)}, status_code=429, headers={"Retry-After": "1"})


async def _bad_value(request: Request, error: Exception) -> JSONResponse:
    return JSONResponse({"detail": str(error)}, status_code=400)


async def _unavailable(request: Request, error: Exception) -> JSONResponse:
    """The database is down or unreachable: 503 with the reason; the client may try again."""
    error_id = secrets.token_hex(3)
    logger.error(
        "%s %s: the database failed (error id %s): %s",
        request.method,
        hidden_path(request.url.path),  # a feed's path holds its secret
        error_id,
        error,
    )
    detail = (
        "the assistant's database cannot be reached right now; nothing was changed by this "
        f"request; try again in a few seconds (error id {error_id})"
    )
    return JSONResponse(
        {"detail": detail}, status_code=503, headers={"Retry-After": str(RETRY_AFTER)}
    )


async def _unexpected(request: Request, error: Exception) -> JSONResponse:
    error_id = secrets.token_hex(3)
    logger.error(
        "%s %s failed (error id %s)",
        request.method,
        hidden_path(request.url.path),  # a feed's path holds its secret
        error_id,
        exc_info=error,
    )
    detail = f"something went wrong on the server (error id {error_id})"
    return JSONResponse({"detail": detail}, status_code=500)

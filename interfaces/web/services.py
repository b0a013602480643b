"""What the web API's routes work with, handed in by the composition root.

``WebInterface`` keeps the ``WebServices`` on ``app.state``; the routes (module-level
routers) receive them, and the caller, as dependencies:

    async def route(services: Services, user: User) -> ...
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Annotated, Protocol

from fastapi import Depends, HTTPException, Request
from fastapi.exceptions import RequestValidationError

from calendars import Calendars
from common import Clock
from interfaces.commands import SlashCommands
from interfaces.notifiers import WEB_CHAT_PREFIX, WEB_MAIN_CHAT
from interfaces.protocols import ChatAgent
from interfaces.slots import UserSlots, turn_slots
from interfaces.web.gate import UNAUTHORIZED, USER_KEY
from interfaces.web.inbox import WebInbox
from interfaces.web.models import MAX_MESSAGE_CHARS
from memory import MemoryStore
from tasks import SchedulerHealth, TaskManager


class SchedulerStatus(Protocol):
    """How the scheduler is doing (``tasks.TaskManager.health``)."""

    async def health(self, *, grace: timedelta = ...) -> SchedulerHealth:
        """Whether the timer runs, when it last woke up, how many tasks are overdue."""
        ...


@dataclass(frozen=True, slots=True)
class WebServices:
    """The agent, the task manager, memory and the rest, as the routes use them.

    Attributes:
        agent: Answers messages and decides approvals.
        tasks: The task manager.
        memory: Notes, zones and approval requests.
        scheduler: The scheduler's health.
        inbox: Deliveries to web chats, for the pages.
        commands: The shared slash commands (``/tz`` and friends typed in the chat).
        clock: The current time.
        keepalive: Seconds of silence after which a stream sends a comment line (proxies
            close quiet connections).
        closing: Set when the server stops: open streams end.
        max_message_chars: The longest message a turn takes (the planner reads as much).
        turns: The turns each user has running (``/agent/chat``, ``/agent/stream``, an
            approval's decision), at most ``ASSISTANT_MAX_TURNS_PER_USER``.
        streams: The ``/events`` streams each user has open, at most
            ``ASSISTANT_MAX_EVENT_STREAMS``.
        health_max_late: How late on-time runs may start before ``/health`` says degraded.
        calendars: The feeds and calendar files (``None``: the calendar routes answer 404).
    """

    agent: ChatAgent
    tasks: TaskManager
    memory: MemoryStore
    scheduler: SchedulerStatus
    inbox: WebInbox
    commands: SlashCommands
    clock: Clock
    keepalive: float = 15.0
    closing: asyncio.Event = field(default_factory=asyncio.Event)
    max_message_chars: int = MAX_MESSAGE_CHARS
    turns: UserSlots = field(default_factory=lambda: turn_slots(3))
    streams: UserSlots = field(default_factory=lambda: stream_slots(5))
    health_max_late: timedelta = timedelta(seconds=2)
    web_chat: str = WEB_CHAT_PREFIX + WEB_MAIN_CHAT
    """Where what is made outside a chat (a monitor, the briefing from the page) delivers."""
    calendars: Calendars | None = None

    def check_length(self, text: str, where: tuple[str, ...]) -> None:
        """Refuse a message longer than ``max_message_chars`` as a 422 naming the limit.

        Raises:
            RequestValidationError: saying how long it is and how long it may be.
        """
        if len(text) <= self.max_message_chars:
            return
        message = (
            f"the message is {len(text)} characters long; the assistant reads up to "
            f"{self.max_message_chars} (ASSISTANT_MAX_MESSAGE_CHARS): shorten it or split it"
        )
        error = {
            "type": "string_too_long",
            "loc": where,
            "msg": message,
            "input": None,
            "ctx": {"max_length": self.max_message_chars},
        }
        raise RequestValidationError([error])


def stream_slots(limit: int) -> UserSlots:
    """The ``/events`` streams one user may have open at once."""
    return UserSlots(
        limit,
        what="event streams open",
        setting="ASSISTANT_MAX_EVENT_STREAMS",
        advice="close a page or tab of the assistant (each keeps one open), then try again",
    )


async def app_services(request: Request) -> WebServices:
    """The services of the application that received the request (``app.state.services``).

    A coroutine, so FastAPI calls it on the event loop rather than in its thread pool.
    """
    services = getattr(request.app.state, "services", None)
    if not isinstance(services, WebServices):
        raise RuntimeError(f"app.state.services is {services!r}, not the app's WebServices")
    return services


def current_user(request: Request) -> str:
    """The user the request's token stands for (the gate has checked it)."""
    user = request.scope.get("state", {}).get(USER_KEY)
    if not isinstance(user, str):
        raise HTTPException(401, UNAUTHORIZED, headers={"WWW-Authenticate": "Bearer"})
    return user


Services = Annotated[WebServices, Depends(app_services)]
"""A route's parameter for the application's services."""
User = Annotated[str, Depends(current_user)]
"""A route's parameter for the caller's user id."""

"""Each user's calendar feed: the ``.ics`` of their tasks behind a secret, revocable address.

A calendar app subscribes to a URL and sends no bearer header, so the address is the
capability: ``/calendar/<token>.ics``, the token 32 random bytes (256 bits). Memory keeps only
its SHA-256 digest, so it cannot be shown again: a person who lost it makes a new one (the old
one stops working at once), and revoking it makes its address answer 404 like any unknown one.
The token never goes to a log: ``hidden_path`` is what a path that holds one is logged as.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime, timedelta

from calendars.events import task_event
from calendars.writing import write_calendar
from common import Clock, LazyPattern
from memory import CalendarFeed, MemoryStore
from tasks import TaskManager

FEED_PREFIX = "/calendar/"
FEED_SUFFIX = ".ics"
HORIZON = timedelta(days=400)
"""How far the feed's lists of dates go (where a rule cannot say everything); a calendar app
reads the feed again every few hours, so the window moves on with it."""
_TOKEN = LazyPattern(r"[A-Za-z0-9_-]{43}")
FEED_NAME = "Assistant"
"""The calendar's name in calendar apps."""


def new_token() -> str:
    """A fresh token: 32 random bytes, URL-safe (43 characters)."""
    return secrets.token_urlsafe(32)


def token_digest(token: str) -> str:
    """What memory keeps of a token."""
    return hashlib.sha256(token.encode()).hexdigest()


def feed_path(token: str) -> str:
    """The feed's path under the web server's address."""
    return f"{FEED_PREFIX}{token}{FEED_SUFFIX}"


def token_in_path(path: str) -> str | None:
    """The token of a feed's path, or ``None`` when the path is not one."""
    if not path.startswith(FEED_PREFIX) or not path.endswith(FEED_SUFFIX):
        return None
    token = path[len(FEED_PREFIX) : -len(FEED_SUFFIX)]
    return token if _TOKEN.fullmatch(token) else None


def hidden_path(path: str) -> str:
    """``path`` as logs may show it: a feed's token replaced by ``…``."""
    if path.startswith(FEED_PREFIX) and path.endswith(FEED_SUFFIX):
        return f"{FEED_PREFIX}…{FEED_SUFFIX}"
    return path


class Feeds:
    """Makes, revokes and serves the users' feeds.

    Args:
        memory: Where the tokens' digests are kept.
        tasks: Whose tasks the feeds show.
        clock: The current time.
        horizon: How far lists of dates go.
    """

    def __init__(
        self, *, memory: MemoryStore, tasks: TaskManager, clock: Clock, horizon: timedelta = HORIZON
    ) -> None:
        self._memory = memory
        self._tasks = tasks
        self._clock = clock
        self._horizon = horizon

    async def make(self, user_id: str) -> str:
        """A new feed for the user (the old address stops working); its token."""
        token = new_token()
        await self._memory.make_calendar_feed(user_id, token_digest(token))
        return token

    async def revoke(self, user_id: str) -> bool:
        """End the user's feed; whether there was one."""
        return await self._memory.revoke_calendar_feed(user_id)

    async def status(self, user_id: str) -> CalendarFeed | None:
        """The user's feed, or ``None``."""
        return await self._memory.calendar_feed(user_id)

    async def owner(self, token: str) -> str | None:
        """Whose feed ``token`` opens (``None``: none, or revoked)."""
        if not _TOKEN.fullmatch(token):
            return None
        return await self._memory.calendar_feed_owner(token_digest(token))

    async def calendar(self, user_id: str, *, now: datetime | None = None) -> bytes:
        """The user's tasks as an iCalendar file: what will still fire; paused tasks left out."""
        now = now or self._clock.now()
        horizon = now + self._horizon
        tasks = await self._tasks.list_tasks(user_id)
        events = [e for t in tasks if (e := task_event(t, now=now, horizon=horizon)) is not None]
        return write_calendar(events, name=FEED_NAME, now=now)

"""``Calendars``: the feed, export and import, subscriptions, the day's events and the CalDAV
sync, for the front ends and the tools (the composition root builds one).

Calendars read by address (``import-ics URL``, subscriptions) come through the program's one
guarded HTTP path (``tasks.HttpSender``: private and metadata addresses refused unless allowed,
checked on every redirect); ``webcal://`` is read as ``https://``. The CalDAV server is the
operator's own setting and is reached directly.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

from calendars.days import DayEvent, events_between
from calendars.errors import CalendarError, IcsError, SyncError
from calendars.feeds import Feeds, feed_path
from calendars.importing import ImportPlan, ImportResult, apply_import, plan_import
from calendars.reading import MAX_FILE_BYTES, read_events, read_file
from calendars.remote import CaldavCalendar, CaldavSettings
from calendars.sync import CALDAV_SOURCE, CalendarSync, SyncReport
from common import AsyncLifecycle, Clock, HttpRequest, HttpRequestError
from memory import CalendarSource, MemoryStore
from tasks import HttpSender, Notifier, TaskManager

logger = logging.getLogger(__name__)

ZoneOf = Callable[[str], Awaitable[ZoneInfo]]
"""The user's zone, by user id (the agent's ``user_zone``)."""
SUBSCRIPTION_MAX_AGE = timedelta(hours=1)
"""How old a subscribed calendar may be before it is read again for a day's events."""
MAX_SUBSCRIPTIONS = 10


@dataclass(frozen=True, slots=True)
class SyncSettings:
    """The CalDAV sync (``ASSISTANT_CALDAV_*``).

    Attributes:
        calendar: Where the calendar is and how to log in.
        user_id: The assistant user whose reminders are kept in step.
        chat_id: Where reminders made from the calendar are delivered.
        every: How long between two passes.
    """

    calendar: CaldavSettings
    user_id: str
    chat_id: str
    every: timedelta = timedelta(minutes=5)


@dataclass(frozen=True, slots=True)
class DayListing:
    """The events of the user's calendars in a span, and what could not be read.

    Attributes:
        events: The events, earliest first.
        problems: The calendars that could not be read now (their last copy is used).
        read: Whether any calendar is read for the user at all.
    """

    events: tuple[DayEvent, ...] = ()
    problems: tuple[str, ...] = ()
    read: bool = False


@dataclass(frozen=True, slots=True)
class Subscription:
    """A calendar subscribed to, and its events left out of the days as they cannot be read
    (each named with what is wrong)."""

    source: CalendarSource
    left_out: tuple[str, ...] = ()


@dataclass
class _SyncState:
    last: datetime | None = None
    report: SyncReport | None = None
    error: str | None = None


class Calendars(AsyncLifecycle):
    """Everything calendars offer the front ends (see the package docstring).

    Args:
        memory: Feeds, links and calendars read.
        tasks: The task manager.
        clock: The current time.
        zone_of: The user's zone.
        http: The guarded HTTP client for calendars read by address (``None``: none are).
        public_url: The address people reach ``assistant web`` at (feeds' URLs start with
            it, ``ASSISTANT_WEB_PUBLIC_URL``); ``None``: ``local_url`` is used, and said to be.
        local_url: The address ``assistant web`` listens on here.
        sync: The CalDAV sync, when configured.
        notifier: Tells the synced user of conflicts.
        max_file_bytes: The largest calendar file read.
    """

    def __init__(
        self,
        *,
        memory: MemoryStore,
        tasks: TaskManager,
        clock: Clock,
        zone_of: ZoneOf,
        http: HttpSender | None = None,
        public_url: str | None = None,
        local_url: str = "http://127.0.0.1:8080",
        sync: SyncSettings | None = None,
        notifier: Notifier | None = None,
        max_file_bytes: int = MAX_FILE_BYTES,
    ) -> None:
        self._memory = memory
        self._tasks = tasks
        self._clock = clock
        self._zone_of = zone_of
        self._http = http
        self.public_url = public_url.rstrip("/") if public_url else None
        self.local_url = local_url.rstrip("/")
        self._sync = sync
        self._notifier = notifier
        self.max_file_bytes = max_file_bytes
        self.feeds = Feeds(memory=memory, tasks=tasks, clock=clock)
        self._state = _SyncState()
        self._loop: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()

    # -- the feed --

    def feed_url(self, token: str) -> str:
        """The address of the feed with ``token``."""
        return f"{self.public_url or self.local_url}{feed_path(token)}"

    def address_note(self) -> str:
        """What to say of the feed's address: which server serves it, and when only here."""
        if self.public_url is not None:
            return " It is served while `assistant web` runs."
        return (
            f" It is served while `assistant web` runs, at {self.local_url} on this machine; "
            "a calendar app elsewhere needs the address it reaches that server at "
            "(ASSISTANT_WEB_PUBLIC_URL, behind an HTTPS proxy)."
        )

    async def export(self, user_id: str) -> bytes:
        """The user's tasks as an iCalendar file (the feed's content)."""
        return await self.feeds.calendar(user_id)

    # -- import --

    async def read_address(self, url: str) -> bytes:
        """A calendar file read by its address (``webcal://`` as ``https://``).

        Raises:
            CalendarError: when no HTTP client is configured, the address is refused or
                does not answer with a calendar.
        """
        if self._http is None:
            raise CalendarError("reading calendars by address is not set up here")
        address = _http_address(url)
        try:
            answer = await self._http.send(
                HttpRequest("GET", address, timeout=30.0, max_bytes=self.max_file_bytes + 1)
            )
        except HttpRequestError as error:
            raise CalendarError(f"could not read {address}: {error}") from None
        if answer.status_code != 200:
            raise CalendarError(
                f"{address} answered {answer.status_code} {answer.reason}, not a calendar"
            )
        if answer.truncated or len(answer.content) > self.max_file_bytes:
            raise IcsError(
                f"the calendar at {address} is larger than {self.max_file_bytes:,} bytes"
            )
        return answer.content

    async def plan(self, user_id: str, data: bytes) -> ImportPlan:
        """What the file will become for the user (nothing is made yet).

        Raises:
            IcsError: when the file cannot be read.
        """
        zone = await self._zone_of(user_id)
        events = read_file(data, zone=zone, now=self._clock.now(), max_bytes=self.max_file_bytes)
        existing = await self._tasks.list_tasks(user_id)
        return plan_import(events, now=self._clock.now(), zone=zone, existing=existing)

    async def apply(self, plan: ImportPlan, *, user_id: str, chat_id: str) -> ImportResult:
        """Make the plan's reminders for the user, delivered to ``chat_id``."""
        return await apply_import(plan, tasks=self._tasks, owner_id=user_id, chat_id=chat_id)

    # -- the day --

    async def events(self, user_id: str, start: datetime, end: datetime) -> DayListing:
        """The events of the user's calendars from ``start`` to ``end`` (not their tasks)."""
        sources = await self._memory.calendar_sources(user_id)
        if not sources:
            return DayListing()
        sources = [await self._fresh(source) for source in sources]
        zone = await self._zone_of(user_id)
        own = {link.uid for link in await self._memory.calendar_links(user_id) if link.task_id}
        problems = [
            f"the calendar {s.name!r} could not be read ({s.error}); shown as last read"
            for s in sources
            if s.error
        ]
        found: list[DayEvent] = []
        for source in sources:
            try:
                events, left_out = events_between([source], start, end, zone, own_uids=own)
            except IcsError as error:
                problems.append(str(error))
            else:
                found += events
                problems += left_out
        found.sort(key=lambda event: (event.start, event.summary))
        return DayListing(tuple(found), tuple(problems), read=True)

    async def _fresh(self, source: CalendarSource) -> CalendarSource:
        """A subscribed calendar read again when older than ``SUBSCRIPTION_MAX_AGE``."""
        if source.name == CALDAV_SOURCE or self._http is None:
            return source
        now = self._clock.now()
        if source.fetched_at is not None and now - source.fetched_at < SUBSCRIPTION_MAX_AGE:
            return source
        try:
            data = await self.read_address(source.url)
            # An event it cannot read does not keep the rest of it old: the days leave it out.
            read_events(data, zone=ZoneInfo("UTC"), now=now, max_bytes=self.max_file_bytes)
        except CalendarError as error:
            kept = replace(source, error=str(error))
        else:
            kept = replace(source, ics=data.decode("utf-8", "replace"), fetched_at=now, error=None)
        await self._memory.save_calendar_source(kept)
        return kept

    # -- subscriptions --

    async def subscribe(self, user_id: str, url: str, name: str | None = None) -> Subscription:
        """Read the calendar at ``url`` for the user's days, as ``name`` (by default its
        host's first word); reading it now checks that it is one, and names the events the
        days will leave out as they cannot be read.

        Raises:
            CalendarError: when it cannot be read, or the user has too many.
        """
        address = _http_address(url)
        sources = await self._memory.calendar_sources(user_id)
        label = (name or (urlsplit(address).hostname or "calendar").split(".")[0]).strip()
        if label == CALDAV_SOURCE:
            raise CalendarError(f"{CALDAV_SOURCE!r} is the synced calendar's name; pick another")
        others = [s for s in sources if s.name != label and s.name != CALDAV_SOURCE]
        if len(others) >= MAX_SUBSCRIPTIONS:
            raise CalendarError(
                f"you read {len(others)} calendars already (at most {MAX_SUBSCRIPTIONS}); "
                "unsubscribe from one first"
            )
        data = await self.read_address(address)
        read = read_events(
            data,
            zone=await self._zone_of(user_id),
            now=self._clock.now(),
            max_bytes=self.max_file_bytes,
        )
        source = CalendarSource(
            user_id=user_id,
            name=label,
            url=address,
            ics=data.decode("utf-8", "replace"),
            fetched_at=self._clock.now(),
        )
        await self._memory.save_calendar_source(source)
        return Subscription(source, read.broken)

    async def unsubscribe(self, user_id: str, name: str) -> bool:
        """Stop reading the calendar ``name``; whether it was read."""
        if name == CALDAV_SOURCE:
            raise CalendarError("the synced calendar is set by ASSISTANT_CALDAV_URL, not here")
        return await self._memory.delete_calendar_source(user_id, name)

    async def sources(self, user_id: str) -> list[CalendarSource]:
        """The calendars read for the user."""
        return await self._memory.calendar_sources(user_id)

    # -- the CalDAV sync --

    def syncs(self, user_id: str) -> bool:
        """Whether the user's reminders are kept in step with a CalDAV calendar."""
        return self._sync is not None and self._sync.user_id == user_id

    @property
    def sync_settings(self) -> SyncSettings | None:
        """The CalDAV sync's settings (``None``: not configured)."""
        return self._sync

    def sync_state(self) -> tuple[datetime | None, SyncReport | None, str | None]:
        """When the last pass ran, what it did, and why it failed (if it did)."""
        return self._state.last, self._state.report, self._state.error

    async def sync_now(self) -> SyncReport:
        """One pass of the CalDAV sync now.

        Raises:
            CalendarError: when no sync is configured.
            SyncError: when the server cannot be reached or refuses (recorded too).
        """
        settings = self._require_sync()
        zone = await self._zone_of(settings.user_id)
        async with self._lock:
            try:
                async with CaldavCalendar(settings.calendar) as remote:
                    report = await self._syncer(remote, settings, zone).run()
            except SyncError as error:
                self._state = _SyncState(self._clock.now(), self._state.report, str(error))
                raise
            self._state = _SyncState(self._clock.now(), report, None)
        return report

    async def resolve(self, uid: str, keep: Literal["here", "there"]) -> str:
        """Settle a sync conflict by keeping one side (``CalendarSync.resolve``)."""
        settings = self._require_sync()
        zone = await self._zone_of(settings.user_id)
        async with self._lock, CaldavCalendar(settings.calendar) as remote:
            return await self._syncer(remote, settings, zone).resolve(uid, keep)

    def _syncer(
        self, remote: CaldavCalendar, settings: SyncSettings, zone: ZoneInfo
    ) -> CalendarSync:
        return CalendarSync(
            remote=remote,
            tasks=self._tasks,
            memory=self._memory,
            clock=self._clock,
            user_id=settings.user_id,
            chat_id=settings.chat_id,
            zone=zone,
            notifier=self._notifier,
        )

    def _require_sync(self) -> SyncSettings:
        if self._sync is None:
            raise CalendarError(
                "no CalDAV calendar is configured: set ASSISTANT_CALDAV_URL (and its username "
                "and password) to keep your reminders in step with one"
            )
        return self._sync

    async def start(self) -> None:
        """Start the sync's passes in the background (when one is configured)."""
        if self._sync is not None and self._loop is None:
            self._loop = asyncio.create_task(self._passes(self._sync), name="caldav-sync")

    async def stop(self) -> None:
        """Stop the passes (one in progress is cancelled: its writes were conditional)."""
        loop, self._loop = self._loop, None
        if loop is not None:
            loop.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await loop

    async def _enter(self) -> None:
        await self.start()

    async def _exit(self) -> None:
        await self.stop()

    async def _passes(self, settings: SyncSettings) -> None:
        while True:
            try:
                report = await self.sync_now()
            except SyncError as error:
                logger.warning("calendar sync: %s", error)
            except Exception:  # one failed pass is logged; the next one runs
                logger.exception("a calendar sync pass failed")
            else:
                for line in report.lines():
                    logger.info("calendar sync: %s", line)
            await self._clock.sleep(settings.every.total_seconds())


def address_or_path(source: str) -> str | Path:
    """What a calendar to import names: a web address (``http``, ``https``, ``webcal``: as
    given) or a file's path.

    Raises:
        CalendarError: when it is an address of another kind (``ftp://``, ``file://``).
    """
    text = source.strip()
    scheme, found, _ = text.partition("://")
    if not found:
        return Path(text)
    if scheme.lower() in ("http", "https", "webcal"):
        _http_address(text)  # it names a host
        return text
    raise CalendarError(
        f"{source[:80]!r} is a {scheme[:10]}:// address; calendars are read from http://, "
        "https:// or webcal:// addresses, or from an .ics file"
    )


def _http_address(url: str) -> str:
    """``url`` as an http(s) address (``webcal://`` is https).

    Raises:
        CalendarError: when it is no web address.
    """
    text = url.strip()
    if text.lower().startswith("webcal://"):
        text = "https://" + text[len("webcal://") :]
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise CalendarError(
            f"{url!r} is not a calendar's web address; give one like "
            "https://calendar.example.org/basic.ics (or webcal://...)"
        )
    return text


def source_lines(sources: Sequence[CalendarSource], zone: ZoneInfo) -> list[str]:
    """How the calendars read are listed, times in the user's ``zone``:
    ``work: https://... (read 2026-11-29 09:58)``."""
    lines = []
    for source in sources:
        when = (
            "never read"
            if source.fetched_at is None
            else f"read {source.fetched_at.astimezone(zone):%Y-%m-%d %H:%M}"
        )
        problem = f"; last read failed: {source.error}" if source.error else ""
        lines.append(f"{source.name}: {source.url} ({when}{problem})")
    return lines

"""The CalDAV calendar the sync keeps in step with, through the ``caldav`` library (3.x, async).

``RemoteCalendar`` is what the sync needs of it: list the events with their ETags, create,
update and delete one on the condition that it is still as last seen (``If-Match``; a change
made meanwhile is ``RemoteChanged``, never overwritten). ``CaldavCalendar`` is that over the
library's ``AsyncDAVClient``, imported when it starts, so nothing else loads ``caldav``.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar
from urllib.parse import quote, urlsplit, urlunsplit

from calendars.errors import SyncError
from common import AsyncLifecycle

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class RemoteEvent:
    """A calendar object on the server.

    Attributes:
        href: Its URL.
        etag: Its ETag as last seen ("" when the server gave none).
        data: Its iCalendar text.
    """

    href: str
    etag: str
    data: bytes


class RemoteChanged(SyncError):
    """The event changed (or went) on the server since it was read: nothing was written."""


class RemoteCalendar(Protocol):
    """One CalDAV calendar, as the sync uses it."""

    @property
    def where(self) -> str:
        """The calendar's URL without credentials (for messages)."""
        ...

    async def events(self) -> list[RemoteEvent]:
        """Every event of the calendar."""
        ...

    async def create(self, name: str, data: bytes) -> RemoteEvent:
        """Store a new event under ``name`` (its UID); ``RemoteChanged`` if one is there."""
        ...

    async def update(self, event: RemoteEvent, data: bytes) -> RemoteEvent:
        """Replace ``event`` if it is unchanged since read; ``RemoteChanged`` otherwise."""
        ...

    async def delete(self, event: RemoteEvent) -> None:
        """Delete ``event`` if it is unchanged since read; ``RemoteChanged`` otherwise."""
        ...


@dataclass(frozen=True, slots=True)
class CaldavSettings:
    """Where the CalDAV calendar is and how to log in (the password never shown).

    Attributes:
        url: The calendar's collection URL, or the server's (then ``calendar`` names it).
        username: The login name ("" for none).
        password: The password ("" for none).
        calendar: The calendar's display name when ``url`` is the server's (``None``: the
            first calendar; one named "Reminders" is made when there is none).
        timeout: Seconds a request may take.
    """

    url: str
    username: str = ""
    password: str = ""
    calendar: str | None = None
    timeout: float = 30.0

    @property
    def shown_url(self) -> str:
        """The URL without any credentials in it."""
        parts = urlsplit(self.url)
        host = parts.hostname or ""
        netloc = host + (f":{parts.port}" if parts.port else "")
        return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


class CaldavCalendar(AsyncLifecycle):
    """A ``RemoteCalendar`` on a CalDAV server, with the ``caldav`` library.

    Use ``async with CaldavCalendar(settings) as calendar:``; ``start`` connects and finds the
    calendar.

    Raises (from every method):
        SyncError: the server cannot be reached, refuses the login or the request.
        RemoteChanged: an update or a deletion found the event changed meanwhile.
    """

    def __init__(self, settings: CaldavSettings) -> None:
        self._settings = settings
        # The library's objects answer a value or a coroutine by how they were made (its
        # "dual mode"), which its types cannot say: they are kept as Any, inside this class.
        self._client: Any = None
        self._calendar: Any = None

    @property
    def where(self) -> str:
        """The calendar's URL without credentials."""
        if self._calendar is not None:
            return str(self._calendar.url)
        return self._settings.shown_url

    async def start(self) -> None:
        """Connect and find (or make) the calendar."""
        from caldav.aio import AsyncDAVClient

        settings = self._settings
        client = AsyncDAVClient(
            url=settings.url,
            username=settings.username or None,
            password=settings.password or None,
            timeout=int(settings.timeout),
        )
        # An event is created under its own UID with If-None-Match: *, so the server refuses
        # to overwrite in the same request. Unless told that the server also refuses a UID
        # held under another name (CALDAV:no-uid-conflict), the library first searches the
        # whole calendar for the UID: one REPORT per event, so a first sync's time grew with
        # the square of the reminders. A sync pass reads every event first and links any of
        # ours it finds under any name; the search could only find what that read found.
        if client.features is not None:
            client.features.set_feature("save.no-uid-conflict", True)  # type: ignore[no-untyped-call]
        self._client = client
        self._calendar = await self._guarded(self._find(client))

    async def _find(self, client: Any) -> Any:
        settings = self._settings
        if settings.calendar is None and _looks_like_collection(settings.url):
            return client.calendar(url=settings.url)
        principal = await _awaited(client.get_principal())
        calendars: list[Any] = await _awaited(principal.get_calendars())
        wanted = settings.calendar
        for calendar in calendars:
            name = await _awaited(calendar.get_display_name())
            if wanted is None or name == wanted:
                return calendar
        if calendars and wanted is None:
            return calendars[0]
        return await _awaited(principal.make_calendar(name=wanted or "Reminders"))

    async def stop(self) -> None:
        """Close the connection."""
        client, self._client, self._calendar = self._client, None, None
        if client is not None:
            await client.close()

    async def _enter(self) -> None:
        await self.start()

    async def _exit(self) -> None:
        await self.stop()

    def _ready(self) -> tuple[Any, Any]:
        if self._client is None or self._calendar is None:
            raise SyncError(f"the CalDAV calendar {self._settings.shown_url} is not connected")
        return self._client, self._calendar

    async def events(self) -> list[RemoteEvent]:
        """Every event of the calendar, with its ETag."""
        _, calendar = self._ready()
        found: list[Any] = await self._guarded(calendar.get_events())
        return [_remote(event) for event in found]

    async def create(self, name: str, data: bytes) -> RemoteEvent:
        """PUT a new event (``If-None-Match: *``)."""
        from caldav.aio import Event

        client, calendar = self._ready()
        url = str(calendar.url).rstrip("/") + "/" + quote(name, safe="") + ".ics"
        event = Event(client=client, url=url, data=data.decode(), parent=calendar)
        await self._guarded(event.save(no_overwrite=True, increase_seqno=False))
        return RemoteEvent(href=str(event.url), etag=event.etag or "", data=data)

    async def update(self, event: RemoteEvent, data: bytes) -> RemoteEvent:
        """PUT over ``event`` with ``If-Match`` its ETag."""
        from caldav.aio import Event

        client, calendar = self._ready()
        stored = Event(client=client, url=event.href, data=data.decode(), parent=calendar)
        if event.etag:
            stored.props["{DAV:}getetag"] = event.etag
        await self._guarded(stored.save(increase_seqno=False, precondition="etag"))
        return RemoteEvent(href=event.href, etag=stored.etag or "", data=data)

    async def delete(self, event: RemoteEvent) -> None:
        """DELETE ``event`` with ``If-Match`` its ETag."""
        from caldav.aio import Event

        client, calendar = self._ready()
        stored = Event(client=client, url=event.href, parent=calendar)
        await self._guarded(stored.delete(if_match=event.etag or "*"))

    async def _guarded(self, work: Awaitable[T] | T) -> T:
        """Run a library call; its errors become ours, saying what failed where."""
        from caldav.lib import error

        try:
            return await _awaited(work)
        except (error.ETagMismatchError, error.ConsistencyError) as exc:
            raise RemoteChanged(
                f"the event changed on {self._settings.shown_url} since it was read: {exc}"
            ) from None
        except error.NotFoundError as exc:
            raise RemoteChanged(
                f"the event is gone from {self._settings.shown_url}: {exc}"
            ) from None
        except error.AuthorizationError:
            raise SyncError(
                f"{self._settings.shown_url} refused the login: check ASSISTANT_CALDAV_USERNAME "
                "and ASSISTANT_CALDAV_PASSWORD"
            ) from None
        except (error.DAVError, OSError, ValueError) as exc:
            said = " ".join(str(exc).split())[:300]
            raise SyncError(
                f"the CalDAV server {self._settings.shown_url} failed: {said}"
            ) from None


async def _awaited(value: Awaitable[T] | T) -> T:
    """The library's calls answer a value or an awaitable (its dual mode)."""
    if inspect.isawaitable(value):
        return await value
    return value


def _looks_like_collection(url: str) -> bool:
    """A calendar collection's URL ends with a slash after a path of two parts or more."""
    path = urlsplit(url).path
    return path.endswith("/") and len([p for p in path.split("/") if p]) >= 2


def _remote(event: Any) -> RemoteEvent:
    data = event.data
    raw = data.encode() if isinstance(data, str) else bytes(data or b"")
    return RemoteEvent(href=str(event.url), etag=str(event.etag or ""), data=raw)

"""``QuietHoursBook``: each user's quiet hours, kept with their settings, read at every delivery.

The scheduler asks it of every delivery (``tasks.QuietHours``), so it answers from memory:
the users who have quiet hours, with their zones, are read in one query and read again
every ``refresh`` (another process, or ``/tz``, may have changed them). What this process
changes (``/quiet``, the page, the tools: all go through ``set``) counts at once. Ending
quiet hours lets through at once what they held.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from common import Clock, SystemClock
from memory import MemoryStore
from tasks import QuietWindow, TaskManager, stored_quiet_hours, zone_from_name

QUIET_HOURS = "quiet_hours"
"""The user setting that keeps a user's quiet hours (``22:00-07:00``)."""


@dataclass(frozen=True, slots=True)
class QuietChange:
    """What setting a user's quiet hours did.

    Attributes:
        window: Their quiet hours now (``None``: off).
        zone: The zone they are said in.
        released: Messages held that go out now (quiet hours ended).
    """

    window: QuietWindow | None
    zone: ZoneInfo
    released: int = 0

    def said(self) -> str:
        """The change in words, for the user."""
        if self.window is None:
            text = "Quiet hours are off: messages arrive when they are due."
            if self.released:
                held = "1 message" if self.released == 1 else f"{self.released} messages"
                verb = "arrives" if self.released == 1 else "arrive"
                text += f" The {held} they held {verb} now."
            return text
        end = f"{self.window.end:%H:%M}"
        return (
            f"Quiet hours: {self.window.words()} ({self.zone.key}). Messages due then wait "
            f"and arrive together at {end}, marked as held; reminders you mark urgent still "
            "come at once."
        )


class QuietHoursBook:
    """Users' quiet hours (``tasks.QuietHours`` for the scheduler).

    Args:
        memory: Where users' settings and zones are kept.
        default_zone: The zone of users who never chose one.
        clock: When the book was last read.
        refresh: How long a reading of everyone's quiet hours is used.
    """

    def __init__(
        self,
        *,
        memory: MemoryStore,
        default_zone: ZoneInfo,
        clock: Clock | None = None,
        refresh: timedelta = timedelta(seconds=30),
    ) -> None:
        self._memory = memory
        self._default = default_zone
        self._clock = clock or SystemClock()
        self._refresh = refresh
        self._known: dict[str, tuple[QuietWindow, ZoneInfo]] = {}
        self._read_at: datetime | None = None
        self._lock = asyncio.Lock()

    async def quiet_until(self, owner_id: str, at: datetime) -> datetime | None:
        """When the owner's quiet hours holding ``at`` end (in their zone), or ``None``."""
        await self._fresh()
        found = self._known.get(owner_id)
        if found is None:
            return None
        window, zone = found
        return window.until(at, zone)

    async def get(self, user_id: str) -> QuietWindow | None:
        """The user's quiet hours, as their settings keep them."""
        return stored_quiet_hours(await self._memory.get_setting(user_id, QUIET_HOURS))

    async def set(
        self, user_id: str, window: QuietWindow | None, *, tasks: TaskManager, zone: ZoneInfo
    ) -> QuietChange:
        """Set (or, with ``None``, end) the user's quiet hours, in ``zone`` (theirs); ending
        them lets through at once what they held."""
        if window is None:
            await self._memory.delete_setting(user_id, QUIET_HOURS)
            self._known.pop(user_id, None)
            released = await tasks.release_quiet(user_id)
            return QuietChange(None, zone, released)
        await self._memory.set_setting(user_id, QUIET_HOURS, window.canonical())
        self._known[user_id] = (window, zone)
        return QuietChange(window, zone)

    async def _fresh(self) -> None:
        now = self._clock.now()
        if self._read_at is not None and now - self._read_at < self._refresh:
            return
        async with self._lock:
            if self._read_at is not None and now - self._read_at < self._refresh:
                return
            known: dict[str, tuple[QuietWindow, ZoneInfo]] = {}
            for holder in await self._memory.users_with_setting(QUIET_HOURS):
                window = stored_quiet_hours(holder.value)
                if window is not None:
                    known[holder.user_id] = (window, self._zone(holder.timezone))
            self._known, self._read_at = known, now

    def _zone(self, name: str | None) -> ZoneInfo:
        if name is None:
            return self._default
        try:
            return zone_from_name(name)
        except ValueError:
            return self._default

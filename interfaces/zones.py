"""A user's time zone: asked once, chosen with ``/tz`` (or the browser), hinted at until then.

A user who never chose a zone has the default one (``ASSISTANT_TIMEZONE``, else the
machine's). ``ZoneGuide`` is what every front end asks about it:

    question / note(user, shown)   on first contact, the question which zone (once per user);
                                   later, under a reply that shows a time in the default zone,
                                   one line that says how to set it
    choose(user, name)             set the zone; on the first choice, the tasks made under the
                                   default move to it at the same clock times (09:00 stays 09:00)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol
from zoneinfo import ZoneInfo

from memory import MemoryStore
from tasks import Task, TaskManager

ZONE_ASKED = "timezone_asked"
"""The user setting that records that the question was asked."""


class ZoneOf(Protocol):
    """The zone a user has now: their own, else the default (``DialogAgent.user_zone``)."""

    async def __call__(self, user_id: str) -> ZoneInfo: ...


@dataclass(frozen=True, slots=True)
class ZoneChoice:
    """What choosing a zone did.

    Attributes:
        zone: The zone chosen.
        moved: The tasks that moved to it (made under the default zone before).
        first: Whether it was the user's first choice.
    """

    zone: ZoneInfo
    moved: tuple[Task, ...] = ()
    first: bool = False

    def said(self, now: datetime) -> str:
        """The choice in a sentence: ``Your time zone is now Europe/Berlin (it is 14:35
        there). Your 2 tasks made before keep their clock times there ...``."""
        local = now.astimezone(self.zone).strftime("%H:%M")
        text = f"Your time zone is now {self.zone.key} (it is {local} there)."
        count = len(self.moved)
        if count:
            what = (
                "Your task made before keeps its clock time"
                if count == 1
                else f"Your {count} tasks made before keep their clock times"
            )
            text += f" {what} there: a reminder for 09:00 is at 09:00 {self.zone.key} now."
        return text


class ZoneGuide:
    """Asks a user's zone once, says how to set it, and sets it (``choose``).

    Args:
        memory: Where zones and the "asked" mark are kept.
        tasks: The tasks that move with the first choice.
        zone_of: The zone a user has now (the default when they never chose one).
    """

    def __init__(self, *, memory: MemoryStore, tasks: TaskManager, zone_of: ZoneOf) -> None:
        self._memory = memory
        self._tasks = tasks
        self._zone_of = zone_of

    async def chosen(self, user_id: str) -> bool:
        """Whether the user chose a zone (``/tz``, or the page from their browser)."""
        profile = await self._memory.get_user(user_id)
        return profile is not None and profile.timezone is not None

    async def question(self, user_id: str) -> str | None:
        """On first contact with a user who never chose a zone, the question which one (and
        it is recorded as asked); ``None`` once asked, or when a zone was chosen."""
        if await self.chosen(user_id) or await self._memory.get_setting(user_id, ZONE_ASKED):
            return None
        await self._memory.set_setting(user_id, ZONE_ASKED, "yes")
        return ask(await self._zone_of(user_id))

    async def note(self, user_id: str, shown: str) -> str | None:
        """What to add under ``shown`` (a reply): the question on first contact; after it,
        while no zone is chosen, how to set one when ``shown`` says a time in the default
        zone; else ``None``."""
        asked = await self.question(user_id)
        if asked is not None or await self.chosen(user_id):
            return asked
        default = await self._zone_of(user_id)
        says_it = re.search(rf"(?<![\w/]){re.escape(default.key)}(?![\w/])", shown)
        return hint(default) if says_it else None

    async def choose(self, user_id: str, name: str) -> ZoneChoice:
        """Set the user's zone to ``name``. On the first choice, the tasks made under the
        default zone move to it at the same clock times.

        Raises:
            MemoryInputError: when ``name`` is not an IANA zone, saying what works.
        """
        first = not await self.chosen(user_id)
        before = await self._zone_of(user_id)
        profile = await self._memory.set_timezone(user_id, name)
        zone = ZoneInfo(profile.timezone or name)
        if not first or zone.key == before.key:
            return ZoneChoice(zone, first=first)
        moved = await self._tasks.rezone(user_id, made_in=before, to=zone)
        return ZoneChoice(zone, tuple(moved), first=True)


def ask(default: ZoneInfo) -> str:
    """The question a user who never chose a zone is asked once."""
    return (
        f"Which time zone are you in? Until you say, I use {default.key} for every time. "
        "Send /tz followed by your zone, e.g. /tz Europe/Berlin or /tz America/New_York; "
        "reminders you made before keep their clock times there (09:00 stays 09:00)."
    )


def hint(default: ZoneInfo) -> str:
    """The line under a reply that says a time in the default zone, until one is chosen."""
    example = "America/New_York" if default.key == "Europe/Berlin" else "Europe/Berlin"
    return f"(Times are in {default.key} until you set your zone: /tz {example}, or yours.)"

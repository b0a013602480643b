"""What a morning briefing shows beside the tasks: notes tagged for the day, and the calendar.

The scheduler builds a briefing from the task store (``tasks.runners.briefing``) and asks a
``tasks.BriefingSource`` for the rest; ``DayNotes`` is that source. It reads:

- notes tagged for the day: with its date (``#2026-03-11``), its weekday (``#wednesday``,
  every week), ``#today`` saved that day before the briefing, or ``#tomorrow`` saved the day
  before;
- the calendars the assistant reads for the user (the CalDAV calendar it syncs, those
  subscribed to by address): a ``DayCalendar``; ``CalendarDays`` is the one over
  ``calendars.Calendars``. Without one, or without events that day, the section is left out.

Each line names its row (``note #3``, ``event <ref>``), so a summary of the briefing can be
checked against them.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Protocol

from memory import MemoryStore, Note
from tasks import BriefingLine, BriefingSection

if TYPE_CHECKING:
    from calendars import Calendars

logger = logging.getLogger(__name__)

MAX_NOTES = 10


@dataclass(frozen=True, slots=True)
class CalendarEvent:
    """One event of a connected calendar, on the briefing's day.

    Attributes:
        title: What it is.
        starts: When it starts (aware), or ``None`` for an all-day event.
        ref: Where it comes from, as the briefing cites it (``calendar work/abc123``).
    """

    title: str
    starts: datetime | None
    ref: str


class DayCalendar(Protocol):
    """The events of a user's connected calendars on a day (issue 27 plugs in here)."""

    async def events(self, user_id: str, *, start: datetime, end: datetime) -> list[CalendarEvent]:
        """The events from ``start`` to ``end`` (the day, aware), by start; all-day first."""
        ...


class CalendarDays:
    """The day's events of the calendars ``calendars`` reads for a user (a ``DayCalendar``):
    not the user's own tasks, which the briefing lists already."""

    def __init__(self, calendars: Calendars) -> None:
        self._calendars = calendars

    async def events(self, user_id: str, *, start: datetime, end: datetime) -> list[CalendarEvent]:
        """The events from ``start`` to ``end``; a calendar that cannot be read now is used as
        last read (and logged)."""
        listing = await self._calendars.events(user_id, start, end)
        for problem in listing.problems:
            logger.warning("morning briefing of user %s: %s", user_id, problem)
        return [
            CalendarEvent(
                title=event.summary
                if event.location is None
                else f"{event.summary}, {event.location}",
                starts=None if event.all_day else event.start,
                ref=f"calendar {event.calendar}" + (f"/{event.uid}" if event.uid else ""),
            )
            for event in listing.events
        ]


class DayNotes:
    """The briefing's notes and calendar sections (``tasks.BriefingSource``).

    Args:
        memory: Where notes are kept.
        calendar: The connected calendars, or ``None`` (no calendar section).
    """

    def __init__(self, *, memory: MemoryStore, calendar: DayCalendar | None = None) -> None:
        self._memory = memory
        self.calendar = calendar
        """The connected calendars (settable: the app makes them after the scheduler)."""

    async def sections(
        self, owner_id: str, *, day: datetime, since: datetime, now: datetime
    ) -> Sequence[BriefingSection]:
        """The notes tagged for ``day`` and, when connected, its calendar."""
        found = [BriefingSection("Notes for today", await self._notes(owner_id, day, now))]
        if self.calendar is not None:
            end = day + timedelta(days=1)
            events = await self.calendar.events(owner_id, start=day, end=end)
            found.insert(0, BriefingSection("Calendar", tuple(_event(e, day) for e in events)))
        return found

    async def _notes(self, owner_id: str, day: datetime, now: datetime) -> tuple[BriefingLine, ...]:
        date = day.date()
        dated = {date.isoformat(), day.strftime("%A").lower()}
        tags = [*dated, "today", "tomorrow"]
        lines: list[BriefingLine] = []
        for note in await self._memory.tagged_notes(owner_id, tags, limit=50):
            if _for_the_day(note, dated, day, now):
                lines.append(BriefingLine(_one_line(note.content), f"note #{note.number}"))
        return tuple(reversed(lines[:MAX_NOTES]))  # oldest first


def _for_the_day(note: Note, dated: set[str], day: datetime, now: datetime) -> bool:
    if dated & set(note.tags):
        return True
    saved = note.created_at.astimezone(day.tzinfo)
    if "today" in note.tags and day <= saved <= now:
        return True
    return "tomorrow" in note.tags and day - timedelta(days=1) <= saved < day


def _event(event: CalendarEvent, day: datetime) -> BriefingLine:
    when = (
        "all day" if event.starts is None else event.starts.astimezone(day.tzinfo).strftime("%H:%M")
    )
    return BriefingLine(f"{when} {event.title}", event.ref)


def _one_line(text: str, limit: int = 200) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"

"""The events of the user's calendars in a span of days: "what's on my calendar tomorrow?".

The calendars are the ones the assistant reads for the user (``memory.CalendarSource``: the
CalDAV calendar it syncs, and those subscribed to by address), as last read. Their events are
other people's rules, not tasks, so ``recurring-ical-events`` expands them as any calendar app
would (RDATEs, EXDATEs, moved instances and all). The events that are the user's own tasks
(written by the assistant, or kept in step with a task by the sync) are left out: the tasks
are listed beside them. ``recurring_ical_events`` is imported when a calendar is read.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from calendars.errors import IcsError
from calendars.events import task_of_uid
from calendars.parsing import event_name, parse_calendars, take_out_broken
from calendars.reading import moment_of
from calendars.writing import TASK_PROPERTY
from memory import CalendarSource

if TYPE_CHECKING:
    from icalendar import Component

MAX_DAY_EVENTS = 200
"""The most events one span lists."""


@dataclass(frozen=True, slots=True)
class DayEvent:
    """One occurrence of an event of the user's calendars.

    Attributes:
        summary: Its title.
        start: When it starts, aware (an all-day event: midnight in the user's zone).
        end: When it ends (``None``: it has no end).
        all_day: Whether it takes whole days.
        calendar: The calendar it is in (``caldav`` or a subscription's name).
        location: Where, when it says.
        uid: The event's UID ("" when it has none).
    """

    summary: str
    start: datetime
    end: datetime | None
    all_day: bool
    calendar: str
    location: str | None = None
    uid: str = ""

    def line(self, zone: ZoneInfo) -> str:
        """``09:00-10:00 Dentist (work)``, ``all day: Mom's birthday (family)``."""
        where = f", {self.location}" if self.location else ""
        if self.all_day:
            when = "all day"
        else:
            start = self.start.astimezone(zone)
            when = start.strftime("%a %H:%M")
            if self.end is not None and self.end > self.start:
                end = self.end.astimezone(zone)
                when += "-" + end.strftime("%H:%M" if end.date() == start.date() else "%a %H:%M")
        return f"{when} {self.summary}{where} ({self.calendar})"


def events_between(
    sources: Sequence[CalendarSource],
    start: datetime,
    end: datetime,
    zone: ZoneInfo,
    *,
    own_uids: Collection[str] = (),
) -> tuple[list[DayEvent], list[str]]:
    """The occurrences of the sources' events that overlap ``start`` to ``end``, earliest
    first, without the user's own tasks (written by the assistant, or in ``own_uids``); and
    the events left out as their calendar is malformed there, one line each.

    Raises:
        IcsError: when a source's calendar cannot be read at all (naming the source).
    """
    import recurring_ical_events

    found: list[DayEvent] = []
    problems: list[str] = []
    for source in sources:
        if not source.ics.strip():
            continue
        try:
            (calendar,) = parse_calendars(source.ics)
            problems += _without_broken(calendar, source.name)
            occurrences = recurring_ical_events.of(calendar).between(start, end)
        except (IcsError, ValueError, KeyError, IndexError, TypeError) as exc:
            said = " ".join(str(exc).split())[:200]
            raise IcsError(f"the calendar {source.name!r} cannot be read: {said}") from None
        for component in occurrences:
            uid = str(component.get("UID", ""))
            if TASK_PROPERTY in component or task_of_uid(uid) or uid in own_uids:
                continue
            if str(component.get("STATUS", "")).upper() == "CANCELLED":
                continue
            try:
                found.append(_day_event(component, source.name, zone))
            except IcsError as error:
                problems.append(str(error))
    found.sort(key=lambda event: (event.start, event.summary))
    return found[:MAX_DAY_EVENTS], problems


def _without_broken(calendar: Component, name: str) -> list[str]:
    """Take the events with a value that cannot be read (their alarms do not count: a day
    shows none), or without a start, out of ``calendar``; one line for each."""
    taken = take_out_broken(calendar, ("VEVENT",), alarms=False)
    unstarted = [c for c in calendar.walk("VEVENT") if "DTSTART" not in c]
    taken += [(c, ["it has no start (DTSTART)"]) for c in unstarted]
    left = {id(c) for c in unstarted}
    calendar.subcomponents[:] = [c for c in calendar.subcomponents if id(c) not in left]
    return [
        f"{event_name(component)} of the calendar {name!r} is left out, as it cannot be read: "
        + "; ".join(problems)
        for component, problems in taken
    ]


def _day_event(component: Component, calendar: str, zone: ZoneInfo) -> DayEvent:
    begins = moment_of(component, "DTSTART")
    if begins is None:
        raise IcsError(
            f"{event_name(component)} of the calendar {calendar!r} is left out, as it has no "
            "start (DTSTART)"
        )
    ends = moment_of(component, "DTEND")
    location = component.get("LOCATION")
    all_day = not isinstance(begins, datetime)
    return DayEvent(
        summary=" ".join(str(component.get("SUMMARY", "")).split()) or "(no title)",
        start=_instant(begins, zone),
        end=None if ends is None else _instant(ends, zone),
        all_day=all_day,
        calendar=calendar,
        location=None if location is None else " ".join(str(location).split()) or None,
        uid=str(component.get("UID", "")),
    )


def _instant(value: date | datetime, zone: ZoneInfo) -> datetime:
    if isinstance(value, datetime):
        return value if value.tzinfo is not None else value.replace(tzinfo=zone)
    return datetime.combine(value, time(0), tzinfo=zone)


def day_span(day: date, zone: ZoneInfo, days: int = 1) -> tuple[datetime, datetime]:
    """The instants from the start of ``day`` to the start of the day ``days`` later."""
    start = datetime.combine(day, time(0), tzinfo=zone)
    return start, datetime.combine(day + timedelta(days=days), time(0), tzinfo=zone)

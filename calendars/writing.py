"""Task events written as an iCalendar file (RFC 5545) with ``icalendar``.

Each zone the events use gets its VTIMEZONE, made from the IANA database for the years the
file covers. Reminders carry an alarm at their time (``TRIGGER:P0D``: no time before it). An
event also carries ``X-ASSISTANT-SCHEDULE``: the task's schedule in its JSON form, with the
horizon its lists of dates were made to; ``calendars.importing`` reads it back when the event
is as written (an app that keeps unknown properties keeps it; one that drops them leaves the
rule, which says the same up to that horizon).

``icalendar`` is imported when a file is written, not with the package: commands that never
write one (``assistant ask``) do not load it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING

from calendars.events import TaskEvent

if TYPE_CHECKING:
    from icalendar import Event

PRODUCT = "-//assistant//calendar feed//EN"
SCHEDULE_PROPERTY = "X-ASSISTANT-SCHEDULE"
HORIZON_PARAMETER = "X-HORIZON"
TASK_PROPERTY = "X-ASSISTANT-TASK"


def write_calendar(events: Sequence[TaskEvent], *, name: str, now: datetime) -> bytes:
    """The iCalendar file of ``events``, called ``name`` in calendar apps."""
    from icalendar import Calendar

    calendar = Calendar()
    calendar.add("prodid", PRODUCT)
    calendar.add("version", "2.0")
    calendar.add("calscale", "GREGORIAN")
    calendar.add("method", "PUBLISH")
    calendar.add("x-wr-calname", name)
    last = now
    for event in events:
        calendar.add_component(event_component(event))
        last = max(last, event.horizon)
    # The zones' rules from a year before now to the end of the lists of dates.
    calendar.add_missing_timezones(
        first_date=date(now.year - 1, 1, 1), last_date=date(last.year + 1, 12, 31)
    )
    return bytes(calendar.to_ical())


def event_component(event: TaskEvent) -> Event:
    """One task event as a VEVENT."""
    from icalendar import Alarm, Event, vRecur

    component = Event()
    component.add("uid", event.uid)
    component.add("dtstamp", event.updated)
    component.add("summary", event.summary)
    component.add("description", event.description)
    recurrence = event.recurrence
    component.add("dtstart", recurrence.start)
    if recurrence.rule is not None:
        component.add("rrule", vRecur.from_ical(recurrence.rule))
    if recurrence.exdates:
        component.add("exdate", list(recurrence.exdates))
    if recurrence.rdates:
        component.add("rdate", list(recurrence.rdates))
    component.add("transp", "TRANSPARENT")  # a reminder takes no time in a busy calendar
    component.add(TASK_PROPERTY, event.task_id)
    component.add(
        SCHEDULE_PROPERTY,
        event.schedule_json,
        parameters={HORIZON_PARAMETER: event.horizon.strftime("%Y%m%dT%H%M%SZ")},
    )
    if event.alarm:
        alarm = Alarm()
        alarm.add("action", "DISPLAY")
        alarm.add("description", event.summary)
        alarm.add("trigger", timedelta(0))
        component.add_component(alarm)
    return component

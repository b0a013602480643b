"""How long a snooze lasts, in a person's words: a delay ("10m", "an hour and a half") or
until when ("until 5pm", "till tomorrow", "friday at 9", "morning").

Every front end reads a snooze with ``read_snooze`` (the snooze tool, ``/snooze ID ...``, a
message's Later button, the HTTP API), so the same words mean the same thing everywhere. A
delay stays a ``timedelta`` (it keeps its exact length whatever clock reads it later); a time
becomes an instant in the owner's zone. "morning" is ``quiet.MORNING`` (the Later button's
"tomorrow morning"); words that name a day and no time of day ("until friday") keep the time
of day of the run they put off, when the caller knows it.
"""

from __future__ import annotations

import re
from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo

from common import LazyPattern
from tasks.errors import PastTimeError, ScheduleError
from tasks.models import Task
from tasks.quiet import morning_after
from tasks.schedule import (
    DateOrder,
    OnceSchedule,
    read_delay,
    read_schedule,
    resolve_local,
    says_time_of_day,
    time_of_day,
)

MORNING_WORDS = frozenset({"morning", "tomorrow morning", "tomorrow-morning"})
"""Words a snooze reads as the coming morning (``quiet.MORNING``)."""
_UNTIL = LazyPattern(r"^(?:until|till|til|'til|to|for)\s+", re.IGNORECASE)
_BARE_HOUR = LazyPattern(r"^\d{1,2}(?:[:.]\d{2})?$")
_EXAMPLES = "'10m', '1h30m', 'until 5pm' or 'tomorrow at 9am'"


def read_snooze(
    words: str,
    now: datetime,
    zone: ZoneInfo,
    *,
    date_order: DateOrder = "mdy",
    time_of_day: time | None = None,
) -> timedelta | datetime:
    """When a snooze of ``words`` ends: a delay, or an instant in ``zone``.

    Args:
        words: What the person said after "snooze": "10m", "for an hour", "until 5pm",
            "till tomorrow", "morning".
        now: The current instant.
        zone: The owner's zone, in which times are read.
        date_order: How the owner writes dates ("3/4": March 4th or April 3rd).
        time_of_day: The local time of day of the run the snooze puts off: words that name
            only a day ("until friday") keep it; without it they mean that day's default
            time (09:00).

    Raises:
        ScheduleError: when the words are neither a delay nor one time, with forms that work.
    """
    said = " ".join(words.split())
    if not said:
        raise ScheduleError(f"a snooze needs a delay or a time; say e.g. {_EXAMPLES}")
    span = read_delay(said)
    if span is not None:
        return span.total
    when = _UNTIL.sub("", said, count=1)
    if when.lower() in MORNING_WORDS:
        return morning_after(now, zone)
    if _BARE_HOUR.fullmatch(when):
        when = f"at {when}"  # "until 9": a clock time, as "move it to 9" reads it
    try:
        reading = read_schedule(when, now=now, tz=zone, date_order=date_order)
    except PastTimeError as exc:
        raise ScheduleError(f"{exc}; a snooze also takes a delay, e.g. '10m' or '1h30m'") from None
    except ScheduleError:
        raise ScheduleError(
            f"could not read {said!r} as a delay or a time; say e.g. {_EXAMPLES}"
        ) from None
    if not isinstance(reading.schedule, OnceSchedule):
        raise ScheduleError(
            f"{said!r} repeats ({reading.schedule.describe()}), but a snooze puts off one "
            f"run; say a delay or one time, e.g. {_EXAMPLES}"
        )
    at = reading.schedule.at.astimezone(zone)
    if time_of_day is not None and not says_time_of_day(when):
        at = resolve_local(datetime.combine(at.date(), time_of_day), zone).astimezone(zone)
    return at


def run_time_of_day(task: Task, zone: ZoneInfo) -> time | None:
    """The local time of day (in ``zone``, to the minute) that words naming only a day keep
    when they snooze ``task``: a repeating task's usual time ("until tomorrow" on a daily
    21:00 task is tomorrow at 21:00, even when today's run was already put off), else the
    time of the run the snooze puts off (also when the task keeps another zone than
    ``zone``)."""
    usual = time_of_day(task.schedule) if task.schedule.tz.key == zone.key else None
    if task.schedule.kind == "recurring" and usual is not None:
        return usual
    if task.next_run is not None:
        return task.next_run.astimezone(zone).time().replace(second=0, microsecond=0)
    at = time_of_day(task.schedule)
    return None if at is None else at.replace(second=0, microsecond=0)

"""How long a snooze lasts, in a person's words: a delay ("10m", "an hour and a half") or
until when ("until 5pm", "till tomorrow", "friday at 9", "morning").

Every front end reads a snooze with ``read_snooze`` (the snooze tool, ``/snooze ID ...``, a
message's Later button, the HTTP API), so the same words mean the same thing everywhere. A
delay stays a ``timedelta`` (it keeps its exact length whatever clock reads it later); a time
becomes an instant in the owner's zone. "morning" and "tomorrow morning" alone are
``quiet.MORNING`` (the Later button's); words that name a day and no time of day ("until
friday") keep the time of day of the task (``run_time_of_day``), when the caller knows it.
A number alone ("10") is neither: it is refused with both readings to choose from.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
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
_UNTIL = LazyPattern(r"^(?P<lead>until|till|til|'til|to|for|by|at)\s+", re.IGNORECASE)
_NUMBER = LazyPattern(r"^\d{1,3}(?:[:.]\d{2})?$")
_HOUR_BEFORE_DAY = LazyPattern(
    r"\b(to|until|till|til)\s+(\d{1,2}(?:[:.]\d{2})?)\s+(?:on\s+)?(today|tonight|tomorrow|tmrw?|tmw"
    r"|(?:(?:next|this)\s+)?(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)(?:day)?"
    r"|next\s+week(?:end)?|(?:this|the)\s+weekend(?:\s+after\s+next)?)\b",
    re.IGNORECASE,
)
_WHY = LazyPattern(r"^could not read .*? as a (?:repeating )?time: (?P<why>.*?); say e\.g\. ")
_EXAMPLES = "'10m', '1h30m', 'until 5pm' or 'tomorrow at 9am'"


@dataclass(frozen=True, slots=True)
class KeptTime:
    """The time of day words naming only a day keep: ``at`` on the clocks of ``zone``."""

    at: time
    zone: ZoneInfo


def read_snooze(
    words: str,
    now: datetime,
    zone: ZoneInfo,
    *,
    date_order: DateOrder = "mdy",
    keep: KeptTime | None = None,
) -> timedelta | datetime:
    """When a snooze of ``words`` ends: a delay, or an instant in ``zone``.

    Args:
        words: What the person said after "snooze": "10m", "for an hour", "until 5pm",
            "till tomorrow", "morning".
        now: The current instant.
        zone: The owner's zone, in which times are read.
        date_order: How the owner writes dates ("3/4": March 4th or April 3rd).
        keep: The task's time of day (``run_time_of_day``): words that name only a day
            ("until friday") mean that day at it; without it, that day's default time
            (09:00).

    Raises:
        ScheduleError: when the words are neither a delay nor one time, with forms that work.
    """
    said = " ".join(str(words).split())
    if not said:
        raise ScheduleError(f"a snooze needs a delay or a time; say e.g. {_EXAMPLES}")
    span = read_delay(said)
    if span is not None:
        return span.total
    said = hour_before_day(said)
    lead = _UNTIL.match(said)
    when = said[lead.end() :] if lead is not None else said
    if when.lower() in MORNING_WORDS:
        return morning_after(now, zone)
    if _NUMBER.fullmatch(when):
        if lead is None or lead["lead"].lower() in ("for", "by"):
            # "snooze it 10": ten minutes, or until ten? Asked, never guessed.
            raise ScheduleError(f"{said!r} is a number alone; say {_readings(when)}")
        when = f"at {when}"  # "until 9": a clock time, as "move it to 9" reads it
    try:
        reading = read_schedule(when, now=now, tz=zone, date_order=date_order)
    except PastTimeError as exc:
        raise ScheduleError(f"{exc}; a snooze also takes a delay, e.g. '10m' or '1h30m'") from None
    except ScheduleError as exc:
        why = _WHY.match(str(exc))
        reason = f": {why['why']}" if why is not None else ""
        raise ScheduleError(
            f"could not read {said!r} as a delay or a time{reason}; say e.g. {_EXAMPLES}"
        ) from None
    if not isinstance(reading.schedule, OnceSchedule):
        raise ScheduleError(
            f"{said!r} repeats ({reading.schedule.describe()}), but a snooze puts off one "
            f"run; say a delay or one time, e.g. {_EXAMPLES}"
        )
    at = reading.schedule.at.astimezone(zone)
    if keep is not None and not says_time_of_day(when):
        at = _kept_on(at.date(), keep, zone)
    return at


def hour_before_day(words: str) -> str:
    """ "until 10 tomorrow", "to 3 on friday", "till 10 next weekend" said the way the time
    language reads them: "until tomorrow at 10" (the hour before its day is read nowhere else,
    as "buy 10 eggs tomorrow" must stay what it says)."""
    return _HOUR_BEFORE_DAY.sub(r"\1 \3 at \2", words)


def _readings(number: str) -> str:
    """The forms a number alone may have meant: minutes, hours, a clock time."""
    hour, _, minutes = number.replace(".", ":").partition(":")
    forms = []
    if not minutes and int(hour) > 0:
        forms += [f"'{number} minutes'", f"'{number}h'"]
    if int(hour) < 24 and (not minutes or int(minutes) < 60):
        forms.append(f"'until {number}' (a clock time)")
    if not forms:
        return "a delay such as '10m' or a time such as 'until 5pm'"
    return ", ".join(forms[:-1]) + (" or " if len(forms) > 1 else "") + forms[-1]


def _kept_on(day: date, keep: KeptTime, zone: ZoneInfo) -> datetime:
    """The task's time of day on its own clocks that falls on ``day`` in ``zone`` (a task
    kept in Los Angeles at 21:00 is 05:00 the next day in Berlin: "until friday" in Berlin
    is Thursday 21:00 there), else that time on the same date there."""
    for shift in (0, -1, 1):
        wall = datetime.combine(day + timedelta(days=shift), keep.at)
        candidate = resolve_local(wall, keep.zone).astimezone(zone)
        if candidate.date() == day:
            return candidate
    return resolve_local(datetime.combine(day, keep.at), keep.zone).astimezone(zone)


def run_time_of_day(task: Task) -> KeptTime | None:
    """The time of day, on the task's own clocks, that words naming only a day keep when they
    snooze ``task``: a repeating task's usual time ("until tomorrow" on a daily 21:00 task is
    tomorrow at 21:00, even when today's run was already put off), else the time of the run
    the snooze puts off (to the minute), else the one-time task's own time."""
    zone = task.schedule.tz
    usual = time_of_day(task.schedule)
    if task.schedule.kind == "recurring" and usual is not None:
        return KeptTime(usual, zone)
    if task.next_run is not None:
        return KeptTime(_minute(task.next_run.astimezone(zone).time()), zone)
    return None if usual is None else KeptTime(_minute(usual), zone)


def _minute(at: time) -> time:
    return at.replace(second=0, microsecond=0)

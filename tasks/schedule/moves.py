"""Moving a schedule to another time of day: "move the dentist reminder to 6pm".

A time of day alone keeps the day (a reminder tomorrow at 09:00 moved "to 6pm" fires tomorrow at
18:00) and keeps a repeating schedule's days (every Monday at 18:00 moved "to 7pm" becomes every
Monday at 19:00). ``read_time_of_day`` tells such words from a full phrase; ``retime`` applies
them to a schedule value.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime, time

from tasks.errors import ScheduleError
from tasks.schedule.model import (
    CronSchedule,
    CycleSchedule,
    IntervalSchedule,
    OnceSchedule,
    Schedule,
    resolve_local,
)
from tasks.schedule.phrases import (
    apply_period,
    bare_hour_times,
    normalize,
    say_clock,
    take_clock_times,
    take_period,
)

_FILLER = frozenset({"at", "to", "for", "around", "about"})
_TO_HOUR = re.compile(r"^(?:to|for)\s+(?=\d{1,2}(?::\d{2})?$)")


def read_time_of_day(text: str) -> time | None:
    """Read words that name only a time of day ("6pm", "at 18:30", "7 in the evening").

    Returns ``None`` for anything more ("tomorrow at 6pm", "in 2 hours") or less.

    Raises:
        ScheduleError: when a clock time in it is impossible ("25:00").
    """
    if not isinstance(text, str) or len(text) > 60:
        return None
    clocks, rest = take_clock_times(_TO_HOUR.sub("at ", normalize(text)))
    try:
        period, rest = take_period(rest)
    except ScheduleError:
        return None
    if len(clocks) > 1 or any(word not in _FILLER for word in rest.split()):
        return None
    if not clocks and period is None:
        return None
    if clocks and period is None:
        return bare_hour_times(clocks[0], day_named=True)[0]  # "to 5" on that day is 17:00
    return apply_period(clocks[0] if clocks else None, period)


def retime(schedule: Schedule, at: time) -> Schedule:
    """The same schedule at the time of day ``at``: the same day, or the same days.

    Raises:
        ScheduleError: for a schedule that has no time of day ("every 2 hours"), or a time with
            seconds for a repeating schedule.
    """
    if isinstance(schedule, OnceSchedule):
        day = schedule.at.astimezone(schedule.tz).date()
        return OnceSchedule(resolve_local(datetime.combine(day, at), schedule.tz), schedule.tz)
    if at.second:
        raise ScheduleError(
            f"a repeating schedule runs at whole minutes, not at {at.isoformat()}; "
            f"say e.g. {say_clock(at.replace(second=0))!r}"
        )
    if isinstance(schedule, CronSchedule):
        _minute, _hour, days = schedule.expression.split(maxsplit=2)
        return CronSchedule(f"{at.minute} {at.hour} {days}", schedule.tz)
    if isinstance(schedule, CycleSchedule):
        return replace(schedule, times=(at,))
    assert isinstance(schedule, IntervalSchedule), schedule
    raise ScheduleError(
        f"it repeats {schedule.describe()}, which has no time of day to move; give it a new "
        f"schedule instead, e.g. 'every day at {say_clock(at)}'"
    )

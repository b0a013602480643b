"""Moving a schedule: "move the dentist reminder to 6pm", "move the mail reminder to friday".

A time of day alone keeps the day (a reminder tomorrow at 09:00 moved "to 6pm" fires tomorrow at
18:00) and keeps a repeating schedule's days (every Monday at 18:00 moved "to 7pm" becomes every
Monday at 19:00). ``read_time_of_day`` tells such words from a full phrase; ``retime`` applies
them to a schedule value. The other way round, words that name only a day keep the time of day
(every weekday at 08:30 moved "to friday" becomes every Friday at 08:30, not 09:00):
``keep_time_of_day`` applies the old schedule's ``time_of_day`` when ``says_time_of_day`` finds
none in the words.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime, time

from common import LazyPattern
from tasks.errors import ScheduleError
from tasks.schedule.calendar_rules import BoundedSchedule, CalendarSchedule
from tasks.schedule.clocks import apply_period, bare_hour_times, say_clock
from tasks.schedule.durations import read_delay
from tasks.schedule.model import (
    CronSchedule,
    CycleSchedule,
    IntervalSchedule,
    OnceSchedule,
    Schedule,
    resolve_local,
)
from tasks.schedule.pieces import Bad, Clock, Later, Part, Piece, SameTime
from tasks.schedule.reader import covers
from tasks.schedule.tokens import tokenize

_LEAD = LazyPattern(r"^(?:(?:to|for)\s+(?=\d)|(?:to|for)\s+)", re.IGNORECASE)
_CRON = LazyPattern(r"[\d*/,\-?]+(?:\s+[\w*/,\-?#]+){4}")


def _time_pieces(text: str) -> list[Piece] | None:
    """The pieces of words that name only a time of day, or ``None``."""
    tokens = tokenize(_LEAD.sub("at ", text.strip(), count=1))
    if not tokens:
        return None
    for cover in covers(tokens):
        if cover.unread:
            return None
        pieces = cover.pieces
        if pieces and all(isinstance(p, Clock | Part | Bad) for p in pieces):
            return pieces
    return None


def read_time_of_day(text: str) -> time | None:
    """Read words that name only a time of day ("6pm", "at 18:30", "7 in the evening").

    Returns ``None`` for anything more ("tomorrow at 6pm", "in 2 hours") or less.

    Raises:
        ScheduleError: when a clock time in it is impossible ("25:00").
    """
    if not isinstance(text, str) or len(text) > 60:
        return None
    pieces = _time_pieces(text)
    if pieces is None:
        return None
    for piece in pieces:
        if isinstance(piece, Bad):
            raise ScheduleError(piece.problem)
    clocks = [p.time for p in pieces if isinstance(p, Clock)]
    parts = [p.period for p in pieces if isinstance(p, Part)]
    if len(clocks) > 1 or len(parts) > 1:
        return None
    period = parts[0] if parts else None
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
    if isinstance(schedule, CycleSchedule | CalendarSchedule):
        return replace(schedule, times=(at,))
    if isinstance(schedule, BoundedSchedule):
        return replace(schedule, inner=retime(schedule.inner, at))
    assert isinstance(schedule, IntervalSchedule), schedule
    raise ScheduleError(
        f"it repeats {schedule.describe()}, which has no time of day to move; give it a new "
        f"schedule instead, e.g. 'every day at {say_clock(at)}'"
    )


def time_of_day(schedule: Schedule) -> time | None:
    """The one local time of day the schedule fires at, or ``None`` when it has none
    ("every 2 hours") or several ("at 9am and 6pm")."""
    if isinstance(schedule, OnceSchedule):
        return schedule.at.astimezone(schedule.tz).time()
    if isinstance(schedule, CycleSchedule | CalendarSchedule):
        return schedule.times[0] if len(schedule.times) == 1 else None
    if isinstance(schedule, BoundedSchedule):
        return time_of_day(schedule.inner)
    if isinstance(schedule, CronSchedule):
        minute, hour, _days = schedule.expression.split(maxsplit=2)
        if minute.isdigit() and hour.isdigit():
            return time(int(hour), int(minute))
    return None


def says_time_of_day(text: str) -> bool:
    """Whether the words say when in the day: a clock time ("6pm", "noon"), a part of the day
    ("tomorrow morning"), a delay in hours or minutes ("in 2 hours"), "later", "this time
    tomorrow", a cron expression or an ISO time with its time. "friday", "every weekday" and
    "in 3 days" say only a day."""
    if _CRON.fullmatch(text.strip()):
        return True
    span = read_delay(text)
    if span is not None:
        return bool(span.elapsed)
    tokens = tokenize(text)
    if any(token.kind == "iso" and "T" in token.text for token in tokens):
        return True
    for cover in covers(tokens):
        if cover.unread:
            return True  # words the parser refuses anyway: leave them as they are
        return any(isinstance(p, Clock | Part | Later | SameTime) for p in cover.pieces)
    return False


def in_the_morning(text: str) -> str:
    """Say that a bare hour in ``text`` is in the morning ("wake me up at 6:45").

    Returns ``text`` with "in the morning" added when its only clock time is a bare hour and
    no part of the day is named, else ``text`` as it is.
    """
    tokens = tokenize(text)
    for cover in covers(tokens):
        if cover.unread:
            return text
        clocks = [p.time for p in cover.pieces if isinstance(p, Clock)]
        parts = [p for p in cover.pieces if isinstance(p, Part)]
        if len(clocks) != 1 or not clocks[0].ambiguous or parts:
            return text
        return f"{text} in the morning"
    return text


def keep_time_of_day(moved: Schedule, old: Schedule, words: str) -> Schedule:
    """``moved`` (what ``words`` gave) at ``old``'s time of day, when the words name only a
    day and both schedules have a time of day; otherwise ``moved`` itself."""
    at = time_of_day(old)
    if at is None or says_time_of_day(words) or time_of_day(moved) is None:
        return moved
    if moved.kind == "recurring":
        at = at.replace(second=0, microsecond=0)
    return retime(moved, at)

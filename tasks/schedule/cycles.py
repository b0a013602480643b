"""Repeating every few days or weeks: "every other day", "every 3 days at 8am", "every 2 weeks
on monday", "every other thursday", "fortnightly on friday".

These are calendar arithmetic on local dates, anchored at the first occurrence after now (a
``CycleSchedule``), so "every 3 days at 8am" stays at 08:00 across DST changes instead of
drifting by an hour the way a fixed 72-hour interval would.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from tasks.errors import ScheduleError
from tasks.schedule.model import MAX_CYCLE_DAYS, CycleSchedule, resolve_local
from tasks.schedule.phrases import (
    NUMBER_WORDS,
    WEEKDAYS,
    apply_period,
    bare_hour_times,
    say_clock,
    take_clock_times,
    take_period,
)

_STEPS = {"other": 2, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6}
_COUNTS = {word: n for word, n in NUMBER_WORDS.items() if n >= 2}
_STEP = "|".join(sorted([*_STEPS, *_COUNTS], key=len, reverse=True))
_WEEKDAY = "|".join(sorted(WEEKDAYS, key=len, reverse=True))
_CYCLE = re.compile(
    rf"\b(?:every|each) (?P<n>\d+|{_STEP}) (?:(?P<unit>days?|weeks?)|(?P<weekday>{_WEEKDAY})s?)\b"
)
_FORTNIGHT = re.compile(r"\b(?:(?:every|each) fortnight|fortnightly|biweekly|bi-weekly)\b")
_DAY_WORDS = re.compile(r"\b(?:on|the|and|&|at)\b")
_DEFAULT_TIME = time(9)
_WEEK = 7


@dataclass(frozen=True, slots=True)
class Cycle:
    """A cycle read from the words.

    Attributes:
        count: How many units each cycle lasts.
        weekly: Whether the unit is a week (else a day).
        weekdays: Weekdays (0 is Monday) the words named with the step ("every other monday").
    """

    count: int
    weekly: bool
    weekdays: frozenset[int]


def take_cycle(words: str) -> tuple[Cycle | None, str]:
    """Take "every N days/weeks", "every other <weekday>" or "fortnightly" out of ``words``."""
    if (match := _FORTNIGHT.search(words)) is not None:
        return Cycle(2, weekly=True, weekdays=frozenset()), _cut(words, match)
    match = _CYCLE.search(words)
    if match is None:
        return None, words
    step = match["n"]
    count = int(step) if step.isdigit() else _STEPS.get(step) or _COUNTS[step]
    if match["weekday"]:
        weekdays = frozenset({WEEKDAYS[match["weekday"]]})
        return Cycle(count, weekly=True, weekdays=weekdays), _cut(words, match)
    return Cycle(count, weekly=match["unit"].startswith("week"), weekdays=frozenset()), _cut(
        words, match
    )


def cycle_schedule(
    cycle: Cycle, rest: str, text: str, *, now: datetime, tz: ZoneInfo
) -> CycleSchedule:
    """Build the schedule of ``cycle`` with the clock times and weekdays left in ``rest``.

    Raises:
        ScheduleError: with what was understood and one phrasing that works.
    """
    clocks, rest = take_clock_times(rest)
    period, rest = take_period(rest)
    times = [
        apply_period(clock, period) or _DEFAULT_TIME
        if period is not None
        else bare_hour_times(clock, day_named=True)[0]
        for clock in clocks
    ]
    times = times or [apply_period(None, period) or _DEFAULT_TIME]
    unit = "week" if cycle.weekly else "day"
    days = cycle.count * (_WEEK if cycle.weekly else 1)
    count = cycle.count if 1 <= days <= MAX_CYCLE_DAYS else 2
    example = f"every {count} {unit}s at {say_clock(times[0].replace(second=0))}"
    if any(at.second for at in times):
        raise _refuse(text, "repeating times are whole minutes", example)
    if not 1 <= days <= MAX_CYCLE_DAYS:
        raise _refuse(text, f"a cycle lasts at most {MAX_CYCLE_DAYS} days", example)
    weekdays = set(cycle.weekdays) | _weekdays(rest, text, example)
    if weekdays and not cycle.weekly:
        raise _refuse(
            text,
            "it names days of the week in a cycle of days",
            f"every {cycle.count} weeks on {_weekday_name(min(weekdays))}",
        )
    local_now = now.astimezone(tz)
    if not cycle.weekly:
        first = _first_day(local_now.date(), {*range(7)}, times, now=now, tz=tz)
        return CycleSchedule(days, first, (0,), tuple(times), tz)
    weekdays = weekdays or {local_now.weekday()}
    first = _first_day(local_now.date(), weekdays, times, now=now, tz=tz)
    monday = first - timedelta(days=first.weekday())
    return CycleSchedule(days, monday, tuple(sorted(weekdays)), tuple(times), tz)


def _first_day(
    today: date, weekdays: set[int], times: list[time], *, now: datetime, tz: ZoneInfo
) -> date:
    """The first day from today on one of ``weekdays`` with a time still ahead of ``now``."""
    for ahead in range(8):
        day = today + timedelta(days=ahead)
        ahead_of_now = any(resolve_local(datetime.combine(day, at), tz) > now for at in times)
        if day.weekday() in weekdays and ahead_of_now:
            return day
    raise ScheduleError(f"no day of the week {sorted(weekdays)!r} is ahead")  # unreachable


def _weekdays(rest: str, text: str, example: str) -> set[int]:
    found: set[int] = set()
    for word in _DAY_WORDS.sub(" ", rest).split():
        name = word[:-1] if word.endswith("s") and word[:-1] in WEEKDAYS else word
        if name not in WEEKDAYS:
            raise _refuse(text, f"did not understand {word!r}", example)
        found.add(WEEKDAYS[name])
    return found


def _weekday_name(weekday: int) -> str:
    return ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")[weekday]


def _cut(words: str, match: re.Match[str]) -> str:
    return " ".join(f"{words[: match.start()]} {words[match.end() :]}".split())


def _refuse(text: str, problem: str, example: str) -> ScheduleError:
    return ScheduleError(
        f"could not read {text!r} as a repeating time: {problem}; say e.g. {example!r}"
    )

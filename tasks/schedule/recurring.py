"""Repeating phrases: "every 15 minutes" becomes an interval, day-and-time phrases become cron.

"every weekday at 9am", "weekdays 6pm", "at 9am every weekday", "every tuesday and thursday at
7am", "every month on the 1st at 8am": the clock times and the day words are read separately,
in any order, and written as a five-field cron expression so one engine does the DST policy.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, time
from zoneinfo import ZoneInfo

from tasks.errors import ScheduleError
from tasks.schedule.model import CronSchedule, IntervalSchedule, Schedule
from tasks.schedule.phrases import (
    MONTHS,
    WEEKDAYS,
    apply_period,
    format_clock,
    read_duration,
    read_ordinal_day,
    take_clock_times,
    take_period,
)

RECURRING_EXAMPLES = (
    "'every weekday at 9am', 'every monday at 10am', 'every 15 minutes', "
    "'every month on the 1st at 8am' or a cron expression like '0 9 * * 1-5'"
)
_INTERVAL = re.compile(r"(?:every|each) (?P<span>.+)|(?P<hourly>hourly)")
_FILLER = frozenset({"every", "each", "on", "at", "the", "of", "and", "&"})
_ONE_TIME_DELAY = re.compile(r"(?:in|after) (?P<span>.+)")
_JOINED = (
    (re.compile(r"\blast day\b"), "lastday"),
    (re.compile(r"\b(?:work|week) ?days?\b"), "weekday"),
    (re.compile(r"\bweek ?ends?\b"), "weekend"),
)
_ALL_DAYS = frozenset({"day", "days", "daily", "everyday", "nightly"})
_WORK_DAYS = frozenset({"weekday", "weekdays", "workdays"})
_WEEKEND = frozenset({"weekend", "weekends"})
_WEEK = frozenset({"week", "weekly"})
_MONTH = frozenset({"month", "months", "monthly"})
_YEAR = frozenset({"year", "years", "yearly", "annually"})
_DEFAULT_TIME = time(9)


def parse_recurring(words: str, text: str, *, now: datetime, tz: ZoneInfo) -> Schedule:
    """Read normalised ``words`` (the user's ``text``) as a repeating schedule.

    Raises:
        ScheduleError: with what was understood and a phrasing that works.
    """
    interval = _read_interval(words, text, now=now, tz=tz)
    if interval is not None:
        return interval
    clocks, rest = take_clock_times(words)
    period, rest = take_period(rest)
    times = [apply_period(clock, period) or _DEFAULT_TIME for clock in clocks]
    times = times or [apply_period(None, period) or _DEFAULT_TIME]
    days = _DaySet(text=text, weekday_today=now.astimezone(tz).weekday())
    day_words = _day_words(rest)
    if not (day_words or clocks or period):
        raise days.refuse("it does not say when")
    for word in day_words:
        days.add(word)
    expression = f"{_time_fields(text, times)} {days.fields()}"
    return CronSchedule(expression, tz)


def _read_interval(words: str, text: str, *, now: datetime, tz: ZoneInfo) -> Schedule | None:
    match = _INTERVAL.fullmatch(words)
    if match is None:
        span = read_duration(words)  # "30m" when a repeating schedule was asked for
    elif match["hourly"]:
        span = read_duration("1 hour")
    else:
        span = read_duration(match["span"]) or read_duration(f"1 {match['span']}")
    if span is None:
        _refuse_one_time_delay(words, text)
        return None
    if span.days:
        if match is not None and match["span"] in {"day", "week"}:
            return None  # "every day", "every week": wall-clock days, read as day words
        raise ScheduleError(
            f"could not read {text!r} as a repeating time: repeating every few days or weeks "
            f"is not supported; say e.g. {RECURRING_EXAMPLES}"
        )
    if span.elapsed.total_seconds() <= 0:
        raise ScheduleError(
            f"could not read {text!r} as a repeating time: the interval is zero; "
            "say e.g. 'every 15 minutes'"
        )
    anchor = now.astimezone(UTC).replace(microsecond=0) + span.elapsed
    return IntervalSchedule(every=span.elapsed, anchor=anchor, tz=tz)


def _refuse_one_time_delay(words: str, text: str) -> None:
    delay = _ONE_TIME_DELAY.fullmatch(words)
    if delay and read_duration(delay["span"]) is not None:
        raise ScheduleError(
            f"could not read {text!r} as a repeating time: it is a one-time delay; "
            f"say e.g. 'every {delay['span']}' to repeat"
        )


def _day_words(rest: str) -> list[str]:
    for pattern, replacement in _JOINED:
        rest = pattern.sub(replacement, rest)
    return [word for word in rest.split() if word not in _FILLER]


def _time_fields(text: str, times: list[time]) -> str:
    if any(at.second for at in times):
        raise ScheduleError(
            f"could not read {text!r} as a repeating time: repeating times are whole minutes; "
            "say e.g. 'every day at 9:30am'"
        )
    minutes = sorted({at.minute for at in times})
    hours = sorted({at.hour for at in times})
    if len(minutes) > 1 and len(hours) > 1:
        said = ", ".join(format_clock(at) for at in times)
        raise ScheduleError(
            f"could not read {text!r} as a repeating time: the times {said} cannot be one "
            "schedule; make one schedule per time, e.g. 'every day at 9am'"
        )
    return f"{','.join(map(str, minutes))} {','.join(map(str, hours))}"


@dataclass(slots=True)
class _DaySet:
    """The day words of a repeating phrase, collected into cron's day fields."""

    text: str
    weekday_today: int
    weekdays: set[int] = field(default_factory=set)
    month_days: list[str] = field(default_factory=list)
    months: set[int] = field(default_factory=set)
    every_day: bool = False
    monthly: bool = False
    yearly: bool = False

    def add(self, word: str) -> None:
        """Take in one word, or refuse it."""
        if word in _ALL_DAYS:
            self.every_day = True
        elif word in _WORK_DAYS:
            self.weekdays.update(range(5))
        elif word in _WEEKEND:
            self.weekdays.update({5, 6})
        elif word in _WEEK:
            self.weekdays.add(self.weekday_today)
        elif word in _MONTH:
            self.monthly = True
        elif word in _YEAR:
            self.yearly = True
        elif word in MONTHS:
            self.months.add(MONTHS[word])
        elif word == "lastday":
            self.month_days.append("L")
        else:
            self._add_name_or_number(word)

    def _add_name_or_number(self, word: str) -> None:
        name = word[:-1] if word.endswith("s") and word[:-1] in WEEKDAYS else word
        if name in WEEKDAYS:
            self.weekdays.add(WEEKDAYS[name])
            return
        day = read_ordinal_day(word)
        if day is None:
            raise self.refuse(f"did not understand {word!r}")
        self.month_days.append(str(day))

    def fields(self) -> str:
        """The day-of-month, month and day-of-week cron fields."""
        if self.month_days:
            return self._month_day_fields()
        if self.months or self.monthly or self.yearly:
            raise self.refuse("it does not say on which day of the month")
        if self.weekdays:
            if self.every_day:
                raise self.refuse("it says both every day and particular days")
            cron_days = sorted((weekday + 1) % 7 for weekday in self.weekdays)
            return f"* * {_ranges(cron_days)}"
        return "* * *"

    def _month_day_fields(self) -> str:
        if self.weekdays or self.every_day:
            raise self.refuse("it names both days of the week and days of the month")
        if self.yearly and not self.months:
            raise self.refuse("it does not say which month")
        month_field = ",".join(map(str, sorted(self.months))) if self.months else "*"
        return f"{','.join(dict.fromkeys(self.month_days))} {month_field} *"

    def refuse(self, problem: str) -> ScheduleError:
        """An error that says what is wrong with the phrase and what would work."""
        return ScheduleError(
            f"could not read {self.text!r} as a repeating time: {problem}; "
            f"say e.g. {RECURRING_EXAMPLES}"
        )


def _ranges(numbers: list[int]) -> str:
    """Write sorted numbers the way cron people do: ``[1, 2, 3, 4, 5]`` as ``1-5``."""
    runs: list[list[int]] = []
    for number in numbers:
        if runs and number == runs[-1][-1] + 1:
            runs[-1].append(number)
        else:
            runs.append([number])
    parts = [f"{run[0]}-{run[-1]}" if len(run) > 2 else ",".join(map(str, run)) for run in runs]
    return ",".join(parts)

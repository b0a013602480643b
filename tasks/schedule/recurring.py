"""Repeating phrases: "every 15 minutes" becomes an interval, "every 3 days" a cycle of days,
and day-and-time phrases become cron.

"every weekday at 9am", "weekdays 6pm", "at 9am every weekday", "every tuesday and thursday at
7am", "on the first of every month at 9", "every year on March 3", "the second tuesday of every
month": the clock times and the day words are read separately, in any order, and written as a
five-field cron expression so one engine does the DST policy. A refusal says what was wrong
and gives one phrasing that works, built from what was understood.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, time
from zoneinfo import ZoneInfo

from tasks.errors import ScheduleError
from tasks.schedule.cycles import cycle_schedule, take_cycle
from tasks.schedule.model import CronSchedule, IntervalSchedule, Schedule
from tasks.schedule.phrases import (
    MONTHS,
    NUMBER_WORDS,
    ORDINAL_WORDS,
    WEEKDAYS,
    ClockTime,
    Period,
    apply_period,
    bare_hour_times,
    format_clock,
    read_duration,
    read_ordinal_day,
    say_clock,
    take_clock_times,
    take_period,
)

_INTERVAL = re.compile(r"(?:every|each) (?P<span>.+)|(?P<hourly>hourly)")
_FILLER = frozenset({"every", "each", "on", "at", "the", "of", "and", "&", "in"})
_ONE_TIME_DELAY = re.compile(r"(?:in|after) (?P<span>.+)")
_ORDINAL = r"\d{1,2}(?:st|nd|rd|th)|" + "|".join(sorted(ORDINAL_WORDS, key=len, reverse=True))
_WEEKDAY = "|".join(sorted(WEEKDAYS, key=len, reverse=True))
_NTH = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4}
_NTH_WEEKDAY = re.compile(
    rf"\b(?:the )?(?P<nth>{'|'.join(_NTH)}) (?P<weekday>{_WEEKDAY}) (?:of|in) "
    r"(?:the|every|each) month\b"
)
_EVERY_FEW = re.compile(
    r"\b(?:every|each) (?:other|second|third|\d+|"
    + "|".join(sorted(NUMBER_WORDS, key=len, reverse=True))
    + r") (?P<unit>months?|years?)\b"
)
_JOINED = (
    (re.compile(r"\blast day\b"), "lastday"),
    (re.compile(rf"\b({_ORDINAL}) day\b"), r"\1"),
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
_CRON_WEEKDAY = {name: (number + 1) % 7 for name, number in WEEKDAYS.items()}


def parse_recurring(words: str, text: str, *, now: datetime, tz: ZoneInfo) -> Schedule:
    """Read normalised ``words`` (the user's ``text``) as a repeating schedule.

    Raises:
        ScheduleError: with what was understood and a phrasing that works.
    """
    interval = _read_interval(words, text, now=now, tz=tz)
    if interval is not None:
        return interval
    if (few := _EVERY_FEW.search(words)) is not None:
        unit = few["unit"].rstrip("s")
        example = "every month on the 1st at 9am" if unit == "month" else "every year on March 3"
        raise ScheduleError(
            f"could not read {text!r} as a repeating time: repeating every few {unit}s is not "
            f"supported; say e.g. {example!r}"
        )
    nth, words = _take_nth_weekday(words)
    cycle, rest = take_cycle(words) if nth is None else (None, words)
    if cycle is not None:
        return cycle_schedule(cycle, rest, text, now=now, tz=tz)
    clocks, rest = take_clock_times(rest)
    period, rest = take_period(rest)
    times = [_repeating_time(clock, period) for clock in clocks]
    times = times or [apply_period(None, period) or _DEFAULT_TIME]
    days = _DaySet(text=text, weekday_today=now.astimezone(tz).weekday(), at=times[0], nth=nth)
    day_words = _day_words(rest)
    if not (day_words or clocks or period or nth):
        raise days.refuse("it does not say when", "every day at 9am")
    for word in day_words:
        days.add(word)
    expression = f"{_time_fields(text, times)} {days.fields()}"
    return CronSchedule(expression, tz)


def _repeating_time(clock: ClockTime, period: Period | None) -> time:
    """A repeating time: a part of the day places a bare hour; else a bare hour from 1 to 6
    is in the afternoon ("every day at 5" is 17:00), 7 to 11 in the morning."""
    if period is not None:
        return apply_period(clock, period) or _DEFAULT_TIME
    return bare_hour_times(clock, day_named=True)[0]


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
    if span.days and not span.elapsed:
        return None  # whole days and weeks are calendar days: a cycle, or day words
    every = span.total
    if every.total_seconds() <= 0:
        raise ScheduleError(
            f"could not read {text!r} as a repeating time: the interval is zero; "
            "say e.g. 'every 15 minutes'"
        )
    anchor = now.astimezone(UTC).replace(microsecond=0) + every
    return IntervalSchedule(every=every, anchor=anchor, tz=tz)


def _refuse_one_time_delay(words: str, text: str) -> None:
    delay = _ONE_TIME_DELAY.fullmatch(words)
    if delay and read_duration(delay["span"]) is not None:
        raise ScheduleError(
            f"could not read {text!r} as a repeating time: it is a one-time delay; "
            f"say e.g. 'every {delay['span']}' to repeat"
        )


def _take_nth_weekday(words: str) -> tuple[str | None, str]:
    """Take "the second tuesday of every month" out of ``words`` as cron's ``2#2``."""
    match = _NTH_WEEKDAY.search(words)
    if match is None:
        return None, words
    nth = f"{_CRON_WEEKDAY[match['weekday']]}#{_NTH[match['nth']]}"
    return nth, " ".join(f"{words[: match.start()]} {words[match.end() :]}".split())


def _day_words(rest: str) -> list[str]:
    for pattern, replacement in _JOINED:
        rest = pattern.sub(replacement, rest)
    return [word for word in rest.split() if word not in _FILLER]


def _time_fields(text: str, times: list[time]) -> str:
    if any(at.second for at in times):
        whole = times[0].replace(second=0)
        raise ScheduleError(
            f"could not read {text!r} as a repeating time: repeating times are whole minutes; "
            f"say e.g. 'every day at {say_clock(whole)}'"
        )
    minutes = sorted({at.minute for at in times})
    hours = sorted({at.hour for at in times})
    if len(minutes) > 1 and len(hours) > 1:
        said = ", ".join(format_clock(at) for at in times)
        raise ScheduleError(
            f"could not read {text!r} as a repeating time: the times {said} cannot be one "
            f"schedule; make one schedule per time, e.g. 'every day at {say_clock(times[0])}'"
        )
    return f"{','.join(map(str, minutes))} {','.join(map(str, hours))}"


@dataclass(slots=True)
class _DaySet:
    """The day words of a repeating phrase, collected into cron's day fields."""

    text: str
    weekday_today: int
    at: time
    nth: str | None = None
    weekdays: set[int] = field(default_factory=set)
    month_days: list[str] = field(default_factory=list)
    bare_numbers: list[str] = field(default_factory=list)
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
            raise self.refuse(f"did not understand {word!r}", f"every day at {self.clock}")
        if word.isdigit():
            self.bare_numbers.append(word)  # a day of the month only next to a month
        self.month_days.append(str(day))

    @property
    def clock(self) -> str:
        """The first clock time, as people type it."""
        return say_clock(self.at)

    def fields(self) -> str:
        """The day-of-month, month and day-of-week cron fields."""
        if self.nth is not None:
            return self._nth_fields(self.nth)
        if self.bare_numbers and not (self.months or self.monthly):
            raise self.refuse(
                f"did not understand {self.bare_numbers[0]!r}",
                f"every month on the {_ordinal(self.bare_numbers[0])} at {self.clock}",
            )
        if self.month_days:
            return self._month_day_fields()
        if self.months or self.monthly or self.yearly:
            example = f"every month on the 1st at {self.clock}"
            if self.months or self.yearly:
                example = f"every year on March 3 at {self.clock}"
            raise self.refuse("it does not say on which day of the month", example)
        if self.weekdays:
            if self.every_day:
                raise self.refuse(
                    "it says both every day and particular days", f"every monday at {self.clock}"
                )
            cron_days = sorted((weekday + 1) % 7 for weekday in self.weekdays)
            return f"* * {_ranges(cron_days)}"
        return "* * *"

    def _nth_fields(self, nth: str) -> str:
        if self.weekdays or self.month_days or self.every_day or self.months or self.yearly:
            raise self.refuse(
                "it names a weekday of the month and other days too",
                f"the second tuesday of every month at {self.clock}",
            )
        return f"* * {nth}"

    def _month_day_fields(self) -> str:
        if self.weekdays or self.every_day:
            raise self.refuse(
                "it names both days of the week and days of the month",
                f"every month on the {_ordinal(self.month_days[0])} at {self.clock}",
            )
        if self.yearly and not self.months:
            raise self.refuse(
                "it does not say which month",
                f"every year on March {_ordinal(self.month_days[0])} at {self.clock}",
            )
        month_field = ",".join(map(str, sorted(self.months))) if self.months else "*"
        return f"{','.join(dict.fromkeys(self.month_days))} {month_field} *"

    def refuse(self, problem: str, example: str) -> ScheduleError:
        """An error that says what is wrong with the phrase and one phrasing that works."""
        return ScheduleError(
            f"could not read {self.text!r} as a repeating time: {problem}; say e.g. {example!r}"
        )


def _ordinal(day: str) -> str:
    if day == "L":
        return "last day"
    number = int(day)
    suffix = "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10)
    return f"{number}{suffix or 'th'}"


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

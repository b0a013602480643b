"""Five-field cron expressions: croniter parses the fields, this module walks local wall times.

croniter's own iteration fires twice when clocks fall back and lands on 03:00 for a time inside a
spring-forward gap, and it is slow (about 0.1 ms a step). So croniter only expands the fields; the
matching here works on naive local wall times, and ``tasks.schedule`` applies the DST policy.
"""

from __future__ import annotations

import bisect
import calendar
import functools
import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from common import LazyPattern
from tasks.errors import ScheduleError
from tasks.schedule.clocks import say_times

# Long enough to find Feb 29 across a skipped leap year (2096 -> 2104).
_SEARCH_DAYS = 366 * 9
_CRON_EXAMPLE = "'0 9 * * 1-5' (09:00 every weekday)"
_NAMES = r"jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|sun|mon|tue|wed|thu|fri|sat"
_ATOM = rf"(?:\d+|{_NAMES})"
_TERM = rf"(?:\*|\?|{_ATOM}(?:-{_ATOM})?)(?:/\d+)?"
_FIELD = LazyPattern(rf"{_TERM}(?:,{_TERM})*", re.ASCII)
_DOM_FIELD = LazyPattern(rf"(?:l|{_TERM})(?:,(?:l|{_TERM}))*", re.ASCII)
_DOW_FIELD = LazyPattern(rf"(?:{_ATOM}#\d|{_TERM})(?:,(?:{_ATOM}#\d|{_TERM}))*", re.ASCII)
_FIELD_NAMES = ("minute", "hour", "day of month", "month", "day of week")
_WEEKDAY_NAMES = ("Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday")
_MONTH_NAMES = tuple(calendar.month_name)
_NTH_WORDS = ("first", "second", "third", "fourth", "fifth")


@dataclass(frozen=True, slots=True)
class CronFields:
    """The expanded fields of a five-field cron expression.

    Attributes:
        times: Minutes after local midnight at which it fires, sorted.
        days: Days of the month, or ``None`` when the field is ``*``.
        last_day: Whether the day-of-month field contains ``L`` (last day of the month).
        months: Months (1-12) in which it fires.
        weekdays: Cron weekdays (0 = Sunday), or ``None`` when the field is ``*``.
        nth: Weekday -> which occurrences in the month (``5#2``: second Friday).
    """

    times: tuple[int, ...]
    days: frozenset[int] | None
    last_day: bool
    months: frozenset[int]
    weekdays: frozenset[int] | None
    nth: tuple[tuple[int, frozenset[int]], ...]

    @classmethod
    def parse(cls, expression: str) -> CronFields:
        """Expand ``expression`` with croniter (memoised: croniter takes ~0.1 ms per expansion).

        Raises:
            ScheduleError: when it is not a valid five-field cron expression.
        """
        return _parse_cached(expression)

    @classmethod
    def _parse(cls, expression: str) -> CronFields:
        # Imported here: only cron expressions need croniter, and every command start
        # would otherwise pay for importing it.
        from croniter import CroniterError, croniter

        fields = expression.lower().split()
        _check_shape(expression, fields)
        try:
            expanded, nth_map = croniter.expand(" ".join(fields))
        except (CroniterError, ValueError, KeyError, IndexError) as exc:
            raise ScheduleError(
                f"cron expression {expression!r} is not valid ({exc}); "
                f"use five fields: minute hour day-of-month month day-of-week, e.g. {_CRON_EXAMPLE}"
            ) from exc
        minutes, hours, days, months, weekdays = (list(f) for f in expanded)
        minute_set = range(60) if minutes == ["*"] else [int(m) for m in minutes]
        hour_set = range(24) if hours == ["*"] else [int(h) for h in hours]
        return cls(
            times=tuple(sorted(h * 60 + m for h in hour_set for m in minute_set)),
            days=None if days == ["*"] else frozenset(int(d) for d in days if d != "l"),
            last_day="l" in days,
            months=frozenset(range(1, 13)) if months == ["*"] else frozenset(map(int, months)),
            weekdays=None if weekdays == ["*"] else frozenset(int(w) % 7 for w in weekdays),
            # Occurrence numbers only: _check_shape refuses 'L' in the weekday field.
            nth=tuple(sorted((int(k), frozenset(int(n) for n in v)) for k, v in nth_map.items())),
        )

    def next_wall_after(self, wall: datetime) -> datetime | None:
        """Return the first matching naive wall time strictly after ``wall``, or ``None``."""
        day = wall.date()
        index = bisect.bisect_right(self.times, wall.hour * 60 + wall.minute)
        try:
            for _ in range(_SEARCH_DAYS):
                if index < len(self.times) and self.day_matches(day):
                    hour, minute = divmod(self.times[index], 60)
                    return datetime(day.year, day.month, day.day, hour, minute)
                index = 0
                day = _next_candidate_day(day, self.months)
        except OverflowError:
            return None
        return None

    def day_matches(self, day: date) -> bool:
        """Whether the fields allow firing on ``day`` (cron's rule: day-of-month OR weekday)."""
        if day.month not in self.months:
            return False
        dom_set = self.days is not None or self.last_day
        if dom_set and self.weekdays is not None:
            return self._dom_matches(day) or self._dow_matches(day)
        if dom_set:
            return self._dom_matches(day)
        if self.weekdays is not None:
            return self._dow_matches(day)
        return True

    def _dom_matches(self, day: date) -> bool:
        if self.days is not None and day.day in self.days:
            return True
        return self.last_day and day.day == calendar.monthrange(day.year, day.month)[1]

    def _dow_matches(self, day: date) -> bool:
        weekday = (day.weekday() + 1) % 7
        if self.weekdays is None or weekday not in self.weekdays:
            return False
        for nth_weekday, occurrences in self.nth:
            if nth_weekday == weekday:
                return (day.day - 1) // 7 + 1 in occurrences
        return True

    def describe(self) -> str | None:
        """Say the schedule in plain words, or ``None`` when it has no short English form."""
        steps = {b - a for a, b in zip(self.times, self.times[1:], strict=False)}
        if len(self.times) > 4 and len(steps) != 1:
            return None
        days = self._describe_nth() if self.nth else self._describe_days()
        if days is None:
            return None
        times = say_times(list(self.times))
        if days == "every day" and times.startswith("every ") and " from " not in times:
            return times  # "every 5 minutes", not "every day every 5 minutes"
        return f"{days} {times}"

    def _describe_nth(self) -> str | None:
        """Say "every month on the second Tuesday" (cron's ``2#2``), "... on the second and
        fourth Tuesday" (``2#2,2#4``) or "... on the first Monday and the third Friday"."""
        dom_set = self.days is not None or self.last_day
        if dom_set or len(self.months) != 12 or self.weekdays is None:
            return None
        if self.weekdays != {weekday for weekday, _ in self.nth}:
            return None  # a weekday every week beside nth ones: no short form
        said = []
        for weekday, occurrences in sorted(self.nth):
            if not all(1 <= which <= len(_NTH_WORDS) for which in occurrences):
                return None
            which = _join([_NTH_WORDS[n - 1] for n in sorted(occurrences)])
            said.append(f"the {which} {_WEEKDAY_NAMES[weekday]}")
        return f"every month on {_join(said)}"

    def _describe_days(self) -> str | None:
        all_months = len(self.months) == 12
        dom_set = self.days is not None or self.last_day
        if self.weekdays is None and not dom_set:
            return "every day" if all_months else None
        if self.weekdays is not None and not dom_set and all_months:
            return _describe_weekdays(self.weekdays)
        if self.weekdays is None and dom_set:
            ordinals = [_ordinal(d) for d in sorted(self.days or ())]
            ordinals += ["last day"] if self.last_day else []
            on = "the " + _join(ordinals)
            if all_months:
                return f"every month on {on}"
            if len(self.months) == 1:
                return f"every year on {on} of {_MONTH_NAMES[min(self.months)]}"
        return None


@functools.lru_cache(maxsize=512)
def _parse_cached(expression: str) -> CronFields:
    # A pure function of the text with immutable results, so sharing the cache is safe.
    return CronFields._parse(expression)


def _check_shape(expression: str, fields: list[str]) -> None:
    if len(fields) != 5:
        raise ScheduleError(
            f"cron expression {expression!r} has {len(fields)} fields; "
            f"use five: minute hour day-of-month month day-of-week, e.g. {_CRON_EXAMPLE}"
        )
    patterns = (_FIELD, _FIELD, _DOM_FIELD, _FIELD, _DOW_FIELD)
    for name, field, pattern in zip(_FIELD_NAMES, fields, patterns, strict=True):
        if not pattern.fullmatch(field):
            raise ScheduleError(
                f"cron expression {expression!r}: the {name} field {field!r} is not supported; "
                f"use numbers, names, '*', ranges 'a-b', lists 'a,b' and steps '/n', "
                f"e.g. {_CRON_EXAMPLE}"
            )


def _next_candidate_day(day: date, months: frozenset[int]) -> date:
    following = day + timedelta(days=1)
    if following.month in months:
        return following
    year, month = following.year, following.month
    for _ in range(12):
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
        if month in months:
            break
    return date(year, month, 1)


def _describe_weekdays(weekdays: frozenset[int]) -> str:
    if weekdays == frozenset(range(1, 6)):
        return "every weekday"
    # Monday first, the way people list a week.
    ordered = sorted(weekdays, key=lambda w: (w + 6) % 7)
    return "every " + _join([_WEEKDAY_NAMES[w] for w in ordered])


def _ordinal(number: int) -> str:
    suffix = (
        "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    )
    return f"{number}{suffix}"


def _join(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]

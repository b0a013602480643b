"""Schedules by months and years that cron cannot say, and repetitions with an end.

``CalendarSchedule`` fires on the days a rule picks in every n-th month or year: the 26th (or
the month's last day when it has no 26th: "each month" said on the 31st), the last Friday, the
last weekday (Monday to Friday), a date every year (February 29 falls on the 28th in common
years), or a holiday that moves (Easter, Mother's Day). ``BoundedSchedule`` wraps any
repeating schedule with a first and a last instant ("starting next monday", "until december
20", "10 times", "for 2 weeks") and the days it leaves out ("except holidays", "except
december 25": ``tasks.schedule.skips``).

Both follow the DST policy of ``tasks.schedule.model``: wall times are resolved with
``resolve_local``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from typing import Literal
from zoneinfo import ZoneInfo

from tasks.errors import ScheduleError
from tasks.schedule.clocks import say_times
from tasks.schedule.days import add_months, month_length
from tasks.schedule.holidays import HOLIDAYS, holiday_title, nth_weekday
from tasks.schedule.lexicon import MONTH_NAMES, WEEKDAY_NAMES, ordinal
from tasks.schedule.model import (
    ONE_DAY,
    Schedule,
    ScheduleKind,
    check_zone,
    format_local,
    resolve_local,
    to_utc,
)
from tasks.schedule.skips import Skips

RuleKind = Literal["day", "nth", "last_workday", "date", "holiday"]
_NTH_WORDS = {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth", -1: "last"}
_MAX_PERIODS = 240
MAX_SKIPPED_DAYS = 3660
"""The most days in a row a bounded schedule looks past while they are all left out: beyond
it (ten years) the schedule counts as never firing again."""


@dataclass(frozen=True, slots=True)
class DayRule:
    """Which day (or days) of a month or year fire.

    Attributes:
        kind: ``day`` (a day of the month, the last day when the month is shorter), ``nth``
            (the ``nth`` ``weekday``; -1 the last), ``last_workday`` (the last Monday to
            Friday), ``date`` (``month`` and ``day`` every year), ``holiday`` (by name).
        day: The day of the month, for ``day`` and ``date``.
        nth: Which occurrence, for ``nth``.
        weekday: 0 is Monday, for ``nth``.
        month: 1-12, for ``date``.
        holiday: The holiday's canonical name, for ``holiday``.
    """

    kind: RuleKind
    day: int = 0
    nth: int = 0
    weekday: int = 0
    month: int = 0
    holiday: str = ""

    @property
    def yearly(self) -> bool:
        """Whether it picks a day of the year (else of the month)."""
        return self.kind in {"date", "holiday"}

    def check(self) -> None:
        """Raise ``ScheduleError`` when the rule cannot pick a day."""
        valid = {
            "day": 1 <= self.day <= 31,
            "nth": self.nth in _NTH_WORDS and 0 <= self.weekday <= 6,
            "last_workday": True,
            "date": 1 <= self.month <= 12 and 1 <= self.day <= month_length(2028, self.month or 1),
            "holiday": self.holiday in HOLIDAYS,
        }
        if not valid.get(self.kind, False):
            raise ScheduleError(f"not a day of a calendar rule: {self!r}")

    def days_in(self, period: date) -> list[date]:
        """The firing days of the month (or year) that starts on ``period``."""
        year, month = period.year, period.month
        if self.kind == "day":
            return [period.replace(day=min(self.day, month_length(year, month)))]
        if self.kind == "nth":
            found = nth_weekday(year, month, self.weekday, self.nth)
            return [] if found is None else [found]
        if self.kind == "last_workday":
            last = period.replace(day=month_length(year, month))
            return [last - timedelta(days=max(0, last.weekday() - 4))]
        if self.kind == "date":
            return [date(year, self.month, min(self.day, month_length(year, self.month)))]
        return [HOLIDAYS[self.holiday](year)]

    def describe(self) -> str:
        """Say the rule: "on the 26th", "on the last Friday", "on Easter"."""
        if self.kind == "day":
            note = " (the last day in shorter months)" if self.day > 28 else ""
            return f"on the {ordinal(self.day)}{note}"
        if self.kind == "nth":
            return f"on the {_NTH_WORDS[self.nth]} {WEEKDAY_NAMES[self.weekday]}"
        if self.kind == "last_workday":
            return "on the last weekday"
        if self.kind == "date":
            note = " (the 28th in other years)" if (self.month, self.day) == (2, 29) else ""
            return f"on the {ordinal(self.day)} of {MONTH_NAMES[self.month - 1]}{note}"
        return f"on {holiday_title(self.holiday)}"

    def to_fields(self) -> dict[str, object]:
        """The rule's JSON fields."""
        fields: dict[str, object] = {"kind": self.kind}
        for name in ("day", "nth", "weekday", "month", "holiday"):
            value = getattr(self, name)
            if value:
                fields[name] = value
        return fields


@dataclass(frozen=True, slots=True)
class CalendarSchedule(Schedule):
    """Fires on the days ``rule`` picks in every ``interval``-th month (or year), at local
    wall ``times``, counting from the month (or year) of ``anchor``.

    Attributes:
        rule: Which days.
        interval: Every how many months (or years, for a yearly rule).
        anchor: The first day of the first month (or year) counted.
        times: The local wall times a firing day fires at.
        tz: The zone.
    """

    rule: DayRule
    interval: int
    anchor: date
    times: tuple[time, ...]
    tz: ZoneInfo

    def __post_init__(self) -> None:
        check_zone(self.tz)
        self.rule.check()
        if isinstance(self.interval, bool) or not isinstance(self.interval, int):
            raise ScheduleError(f"the interval must be a whole number, got {self.interval!r}")
        if not 1 <= self.interval <= 120:
            raise ScheduleError(f"the interval must be 1 to 120, got {self.interval!r}")
        times = tuple(sorted(set(self.times)))
        if not times or any(not isinstance(t, time) or t.tzinfo is not None for t in times):
            raise ScheduleError(f"a calendar schedule needs local wall times, got {self.times!r}")
        object.__setattr__(self, "times", times)
        object.__setattr__(self, "anchor", self._period_start(self.anchor))

    @property
    def kind(self) -> ScheduleKind:
        """Always ``"recurring"``."""
        return "recurring"

    def _period_start(self, day: date) -> date:
        return date(day.year, 1, 1) if self.rule.yearly else day.replace(day=1)

    def _step(self) -> int:
        return self.interval * (12 if self.rule.yearly else 1)

    def next_after(self, instant: datetime) -> datetime | None:
        """Return the first fire strictly after ``instant`` under the DST policy."""
        instant = to_utc(instant, "instant")
        start = (instant.astimezone(self.tz) - timedelta(days=1)).date()
        step = self._step()
        months = (start.year - self.anchor.year) * 12 + start.month - self.anchor.month
        skip = max(0, months // step)
        try:
            for k in range(skip, skip + _MAX_PERIODS):
                period = add_months(self.anchor, k * step)
                for day in self.rule.days_in(period):
                    for at in self.times:
                        fire = resolve_local(datetime.combine(day, at), self.tz)
                        if fire > instant:
                            return fire
        except (OverflowError, ValueError):
            return None
        return None

    def describe(self) -> str:
        """Say it as ``every month on the last Friday at 09:00 (Europe/Berlin)``."""
        unit = "year" if self.rule.yearly else "month"
        every = f"every {unit}" if self.interval == 1 else f"every {self.interval} {unit}s"
        clock = say_times([at.hour * 60 + at.minute for at in self.times])
        return f"{every} {self.rule.describe()} {clock} ({self.tz.key})"

    def _payload(self) -> dict[str, object]:
        return {
            "type": "calendar",
            "rule": self.rule.to_fields(),
            "interval": self.interval,
            "anchor": self.anchor.isoformat(),
            "times": [at.isoformat() for at in self.times],
        }


@dataclass(frozen=True, slots=True)
class BoundedSchedule(Schedule):
    """A repeating schedule that starts no earlier than ``start``, ends after ``end`` and
    leaves out the days of ``skips``.

    Attributes:
        inner: The schedule bounded.
        start: No fire before this instant (inclusive), or ``None``.
        end: No fire after this instant (inclusive), or ``None``.
        count: How many fires the user asked for ("10 times"), said in descriptions; ``end``
            is then the last of them (the days left out are not counted).
        tz: The zone (the inner schedule's).
        skips: The local days it leaves out (``inner``'s fires on them do not fire).
    """

    inner: Schedule
    start: datetime | None
    end: datetime | None
    count: int | None
    tz: ZoneInfo
    skips: Skips = field(default_factory=Skips)

    def __post_init__(self) -> None:
        check_zone(self.tz)
        if isinstance(self.inner, BoundedSchedule) or self.inner.kind != "recurring":
            raise ScheduleError("only a repeating schedule can be bounded, once")
        if self.start is not None:
            object.__setattr__(self, "start", to_utc(self.start, "start"))
        if self.end is not None:
            object.__setattr__(self, "end", to_utc(self.end, "end"))
        if not isinstance(self.skips, Skips):
            raise ScheduleError(f"the days left out must be Skips, got {self.skips!r}")
        if self.start is None and self.end is None and not self.skips:
            raise ScheduleError("a bounded schedule needs a start, an end or days left out")
        if self.count is not None and not 1 <= self.count <= 100_000:
            raise ScheduleError(f"a number of times must be 1 to 100000, got {self.count!r}")

    @property
    def kind(self) -> ScheduleKind:
        """Always ``"recurring"``."""
        return "recurring"

    def next_after(self, instant: datetime) -> datetime | None:
        """The inner schedule's next fire within the bounds, on a day not left out."""
        instant = to_utc(instant, "instant")
        if self.start is not None and instant < self.start:
            instant = self.start - timedelta(microseconds=1)
        fire = self.inner.next_after(instant)
        skipped: set[date] = set()
        while fire is not None and (self.end is None or fire <= self.end):
            day = fire.astimezone(self.tz).date()
            if not self.skips.skips(day):
                return fire
            skipped.add(day)
            if len(skipped) > MAX_SKIPPED_DAYS:
                return None
            try:
                following = resolve_local(datetime.combine(day + ONE_DAY, time(0)), self.tz)
            except OverflowError:
                return None
            # The first fire of a later day (a fire may resolve past midnight: the loop sees).
            fire = self.inner.next_after(following - timedelta(microseconds=1))
        return None

    def describe(self) -> str:
        """The inner schedule's words with the bounds: ``... until Sun 2026-12-20 (UTC)``."""
        words = self.inner.describe().removesuffix(f" ({self.tz.key})")
        if self.skips:
            words += f", {self.skips.describe()}"
        if self.start is not None:
            words += f", from {format_local(self.start, self.tz)}"
        if self.count is not None:
            words += f", {self.count} times"
        if self.end is not None:
            words += f", until {_say_end(self.end, self.tz)}"
        return f"{words} ({self.tz.key})"

    def _payload(self) -> dict[str, object]:
        inner = dict(self.inner._payload())
        return {
            "type": "bounded",
            "inner": inner,
            "start": None if self.start is None else self.start.isoformat(),
            "end": None if self.end is None else self.end.isoformat(),
            "count": self.count,
            **({"skip": self.skips.to_fields()} if self.skips else {}),
        }


def _say_end(end: datetime, tz: ZoneInfo) -> str:
    """The last instant as people say it: a whole day as its date, else date and time."""
    local = end.astimezone(tz)
    if (local + timedelta(microseconds=1)).time() == time(0):
        return local.strftime("%a %Y-%m-%d")
    return format_local(end, tz)

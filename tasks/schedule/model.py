"""Schedules as pure values: when something fires, with the DST policy, and their JSON form.

A schedule never reads the clock: ``next_after(instant)`` answers "the first fire strictly after
this instant" in aware UTC, or ``None`` when it will not fire again.

DST policy for local wall-clock times (one-time and cron schedules alike):

- a wall time inside a spring-forward gap fires shifted forward by the gap (02:30 -> 03:30);
- a wall time that occurs twice when clocks fall back fires once, at its first occurrence;
- recurring wall-clock times stay at that wall-clock time across DST changes.

Interval schedules ("every 15 minutes") count real elapsed time and ignore the wall clock;
cycle schedules ("every 3 days at 8am", "every other week on Monday") count local calendar days,
so they keep their wall-clock time across DST changes.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from typing import Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from tasks.errors import ScheduleError
from tasks.schedule.clocks import say_times
from tasks.schedule.cron import CronFields
from tasks.schedule.durations import format_duration

JSON_VERSION = 1
ONE_DAY = timedelta(days=1)
MAX_CYCLE_DAYS = 3650
"""The longest cycle a cycle schedule may have: ten years of days."""
_WEEKDAY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")

ScheduleKind = Literal["once", "recurring"]


class Schedule(ABC):
    """When a task fires: one time or recurring, in an IANA time zone."""

    __slots__ = ()

    tz: ZoneInfo

    @property
    @abstractmethod
    def kind(self) -> ScheduleKind:
        """``"once"`` for a one-time schedule, ``"recurring"`` otherwise."""

    @abstractmethod
    def next_after(self, instant: datetime) -> datetime | None:
        """Return the first fire strictly after the aware ``instant``, in UTC, or ``None``."""

    @abstractmethod
    def describe(self) -> str:
        """Say the schedule in plain words, with its zone."""

    @abstractmethod
    def _payload(self) -> dict[str, object]:
        """The type-specific JSON fields."""

    def to_json(self) -> str:
        """Return the versioned JSON form that ``schedule_from_json`` reads back."""
        return json.dumps({"v": JSON_VERSION, **self._payload(), "tz": self.tz.key})


@dataclass(frozen=True, slots=True)
class OnceSchedule(Schedule):
    """Fires once, at ``at`` (stored in UTC)."""

    at: datetime
    tz: ZoneInfo

    def __post_init__(self) -> None:
        check_zone(self.tz)
        object.__setattr__(self, "at", to_utc(self.at, "at"))

    @property
    def kind(self) -> ScheduleKind:
        """Always ``"once"``."""
        return "once"

    def next_after(self, instant: datetime) -> datetime | None:
        """Return ``at`` if it is after ``instant``, else ``None``."""
        return self.at if self.at > to_utc(instant, "instant") else None

    def describe(self) -> str:
        """Say it as ``once at 2026-11-23 14:35 (Europe/Berlin)``."""
        return f"once at {format_local(self.at, self.tz)} ({self.tz.key})"

    def _payload(self) -> dict[str, object]:
        return {"type": "once", "at": self.at.isoformat()}


@dataclass(frozen=True, slots=True)
class IntervalSchedule(Schedule):
    """Fires at ``anchor + k * every`` for every whole ``k >= 0``: real elapsed time."""

    every: timedelta
    anchor: datetime
    tz: ZoneInfo

    def __post_init__(self) -> None:
        check_zone(self.tz)
        if not isinstance(self.every, timedelta) or self.every <= timedelta(0):
            raise ScheduleError(
                f"the interval must be longer than zero, got {self.every!r}; "
                "say e.g. 'every 15 minutes'"
            )
        object.__setattr__(self, "anchor", to_utc(self.anchor, "anchor"))

    @property
    def kind(self) -> ScheduleKind:
        """Always ``"recurring"``."""
        return "recurring"

    def next_after(self, instant: datetime) -> datetime | None:
        """Return the first ``anchor + k * every`` strictly after ``instant``."""
        instant = to_utc(instant, "instant")
        if instant < self.anchor:
            return self.anchor
        try:
            return self.anchor + ((instant - self.anchor) // self.every + 1) * self.every
        except OverflowError:
            return None

    def describe(self) -> str:
        """Say it as ``every 15 minutes (Europe/Berlin)`` or ``every hour (UTC)``."""
        words = format_duration(self.every)
        return f"every {words.removeprefix('1 ')} ({self.tz.key})"

    def _payload(self) -> dict[str, object]:
        seconds = self.every.total_seconds()
        every: float | int = int(seconds) if seconds.is_integer() else seconds
        return {"type": "interval", "every_seconds": every, "anchor": self.anchor.isoformat()}


@dataclass(frozen=True, slots=True)
class CronSchedule(Schedule):
    """Fires at the local wall times a five-field cron expression names, with our DST policy."""

    expression: str
    tz: ZoneInfo
    _fields: CronFields = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        check_zone(self.tz)
        if not isinstance(self.expression, str):
            raise ScheduleError(f"a cron expression must be text, got {self.expression!r}")
        expression = " ".join(self.expression.split())
        fields = CronFields.parse(expression)
        if fields.next_wall_after(datetime(2000, 1, 1)) is None:
            raise ScheduleError(
                f"cron expression {expression!r} never fires (no such day); "
                "check the day and month fields, e.g. '0 9 1 * *' (09:00 on the 1st)"
            )
        object.__setattr__(self, "expression", expression)
        object.__setattr__(self, "_fields", fields)

    @property
    def kind(self) -> ScheduleKind:
        """Always ``"recurring"``."""
        return "recurring"

    def next_after(self, instant: datetime) -> datetime | None:
        """Return the first fire strictly after ``instant`` under the DST policy."""
        instant = to_utc(instant, "instant")
        wall = _earliest_relevant_wall(instant, self.tz)
        best: datetime | None = None
        while (wall_next := self._fields.next_wall_after(wall)) is not None:
            wall = wall_next
            fire = resolve_local(wall, self.tz)
            if fire > instant and (best is None or fire < best):
                best = fire
            # Wall times at or after the best fire's own wall time resolve no earlier than it.
            if best is not None and wall >= _naive_local(best, self.tz):
                return best
        return best

    def describe(self) -> str:
        """Say it as ``every weekday at 09:00 (Europe/Berlin)``, or quote the cron expression."""
        words = self._fields.describe() or f"on cron schedule {self.expression!r}"
        return f"{words} ({self.tz.key})"

    def _payload(self) -> dict[str, object]:
        return {"type": "cron", "expression": self.expression}


@dataclass(frozen=True, slots=True)
class CycleSchedule(Schedule):
    """Fires on the local dates of a repeating cycle of whole days, at local wall times.

    "every 3 days at 8am" is a 3-day cycle firing on its first day; "every other week on Monday
    and Thursday" is a 14-day cycle starting on a Monday, firing on its days 0 and 3. Days are
    counted on the calendar, never as elapsed time, so the wall-clock time holds across DST
    changes (with the DST policy of ``resolve_local``). The cycle is anchored at its first
    occurrence; nothing fires before ``anchor``.

    Attributes:
        every_days: The length of the cycle in days (1 to ``MAX_CYCLE_DAYS``).
        anchor: The local date the first cycle starts on.
        days: The days of each cycle that fire, counted from its start (0 is the start).
        times: The local wall times a firing day fires at.
        tz: The zone.
    """

    every_days: int
    anchor: date
    days: tuple[int, ...]
    times: tuple[time, ...]
    tz: ZoneInfo

    def __post_init__(self) -> None:
        check_zone(self.tz)
        every = self.every_days
        whole = isinstance(every, int) and not isinstance(every, bool)
        if not whole or not 1 <= every <= MAX_CYCLE_DAYS:
            raise ScheduleError(
                f"a cycle must last 1 to {MAX_CYCLE_DAYS} days, got {every!r}; "
                "say e.g. 'every 3 days at 8am'"
            )
        if not isinstance(self.anchor, date) or isinstance(self.anchor, datetime):
            raise ScheduleError(f"a cycle's anchor must be a date, got {self.anchor!r}")
        days = tuple(sorted(set(self.days)))
        if not days or any(not isinstance(d, int) or not 0 <= d < every for d in days):
            raise ScheduleError(
                f"the days of a {every}-day cycle must be between 0 and {every - 1}, "
                f"got {self.days!r}"
            )
        times = tuple(sorted(set(self.times)))
        if not times or any(not isinstance(t, time) or t.tzinfo is not None for t in times):
            raise ScheduleError(f"a cycle needs local wall times of day, got {self.times!r}")
        object.__setattr__(self, "days", days)
        object.__setattr__(self, "times", times)

    @property
    def kind(self) -> ScheduleKind:
        """Always ``"recurring"``."""
        return "recurring"

    def next_after(self, instant: datetime) -> datetime | None:
        """Return the first fire strictly after ``instant`` under the DST policy."""
        instant = to_utc(instant, "instant")
        try:
            # A wall time of the day before can resolve after ``instant`` (a gap shifts it),
            # and every wall time two days on certainly does: a few firing days suffice.
            start = max(instant.astimezone(self.tz).date() - ONE_DAY, self.anchor)
            day = self._firing_day(start)
            for _ in range(4):
                for at in self.times:
                    fire = resolve_local(datetime.combine(day, at), self.tz)
                    if fire > instant:
                        return fire
                day = self._firing_day(day + ONE_DAY)
        except OverflowError:
            return None
        return None

    def _firing_day(self, day: date) -> date:
        """The first firing day on or after ``day`` (which is not before the anchor)."""
        offset = (day - self.anchor).days % self.every_days
        ahead = next((d - offset for d in self.days if d >= offset), None)
        if ahead is None:
            ahead = self.every_days - offset + self.days[0]
        return day + timedelta(days=ahead)

    def describe(self) -> str:
        """Say it as ``every other day at 09:00 (Europe/Berlin)`` or ``every 2 weeks on
        Monday and Thursday at 07:00 (Europe/Berlin)``."""
        clock = say_times([at.hour * 60 + at.minute for at in self.times])
        weekdays = sorted({(self.anchor + timedelta(days=d)).weekday() for d in self.days})
        if self.every_days == 7 and weekdays == list(range(5)):
            words = "every weekday"
        elif self.every_days == 7:
            words = "every " + _join_words([_WEEKDAY_NAMES[w] for w in weekdays])
        elif self.every_days % 7 == 0:
            named = _join_words([_WEEKDAY_NAMES[w] for w in weekdays])
            words = f"{_every(self.every_days // 7, 'week')} on {named}"
        elif len(self.days) == 1:
            words = _every(self.every_days, "day")
        else:
            numbers = _join_words([str(d + 1) for d in self.days])
            words = f"on days {numbers} of every {self.every_days}-day cycle"
        return f"{words} {clock} ({self.tz.key})"

    def _payload(self) -> dict[str, object]:
        return {
            "type": "cycle",
            "every_days": self.every_days,
            "anchor": self.anchor.isoformat(),
            "days": list(self.days),
            "times": [at.isoformat() for at in self.times],
        }


def resolve_local(wall: datetime, tz: ZoneInfo) -> datetime:
    """Turn a naive local wall time into an aware UTC instant under the DST policy.

    ``fold=0`` gives exactly the policy: a time that occurs twice means its first occurrence,
    and a time inside a gap is read with the offset before the gap, i.e. shifted forward by it.
    """
    return wall.replace(tzinfo=tz, fold=0).astimezone(UTC)


def format_local(instant: datetime, tz: ZoneInfo) -> str:
    """Format ``instant`` as local ``YYYY-MM-DD HH:MM`` (``:SS`` only when not zero)."""
    local = instant.astimezone(tz)
    return local.strftime("%Y-%m-%d %H:%M:%S" if local.second else "%Y-%m-%d %H:%M")


def _every(count: int, unit: str) -> str:
    if count == 1:
        return f"every {unit}"
    return f"every other {unit}" if count == 2 else f"every {count} {unit}s"


def _join_words(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def zone_from_name(name: str) -> ZoneInfo:
    """Return the IANA zone ``name``.

    Raises:
        ScheduleError: when there is no such zone.
    """
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError) as exc:
        raise ScheduleError(
            f"unknown time zone {name!r}; use an IANA name such as 'Europe/Berlin' or 'UTC'"
        ) from exc


def check_zone(tz: object) -> None:
    """Raise ``ScheduleError`` unless ``tz`` is an IANA ``ZoneInfo``."""
    if not isinstance(tz, ZoneInfo) or not tz.key:
        raise ScheduleError(f"a schedule needs an IANA ZoneInfo time zone, got {tz!r}")


def to_utc(moment: datetime, name: str) -> datetime:
    """``moment`` in UTC; ``ScheduleError`` when it is not an aware datetime."""
    if not isinstance(moment, datetime) or moment.utcoffset() is None:
        raise ScheduleError(f"{name} must be a time-zone-aware datetime, got {moment!r}")
    return moment.astimezone(UTC)


def _naive_local(instant: datetime, tz: ZoneInfo) -> datetime:
    return instant.astimezone(tz).replace(tzinfo=None)


def _earliest_relevant_wall(instant: datetime, tz: ZoneInfo) -> datetime:
    """The wall time to start searching from so that gap-shifted fires are not missed.

    A wall time inside a gap resolves up to one gap later than it reads, so the search starts
    at the instant read with the smaller of the offsets now and a day ago.
    """
    naive_utc = instant.replace(tzinfo=None)
    offset_now = instant.astimezone(tz).utcoffset() or timedelta(0)
    offset_before = (instant - ONE_DAY).astimezone(tz).utcoffset() or timedelta(0)
    return naive_utc + min(offset_now, offset_before)

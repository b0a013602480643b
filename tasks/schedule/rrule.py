"""Schedules as iCalendar recurrences (RFC 5545): DTSTART, RRULE, EXDATE and RDATE, both ways.

``recurrence_of(schedule, after=..., horizon=...)`` says a schedule the way a calendar app
reads it. Every schedule the language makes has an exact rule, with a few exceptions: a yearly
day counted from Easter, a cron expression naming both days of the month and days of the
week (cron fires on either, a rule on both), cycles of days no rule repeats. Those are listed
as RDATEs up to ``horizon``; days left out every year ("except holidays") are EXDATEs up to
``horizon``; ``Recurrence.exact_until`` says where such a list ends. Intervals ("every 15
minutes", elapsed time) start in UTC, so no app counts their hours on a clock that changes.

``schedule_of(recurrence, ...)`` reads a recurrence back into the one schedule that fires on
exactly its instants, or raises ``RuleError`` naming the part this language cannot say
("BYDAY=2TU,4TU", "BYWEEKNO", "FREQ=MONTHLY;BYMONTHDAY=31": months without a 31st are
skipped there, where the language fires on the last day). Nothing is approximated.

Wall times follow the DST policy of ``tasks.schedule.model``, which is RFC 5545's own: a local
time in a gap is read with the offset before it (02:30 becomes 03:30), a repeated one is its
first occurrence.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from common import LazyPattern
from tasks.errors import ScheduleError
from tasks.schedule.calendar_rules import BoundedSchedule, CalendarSchedule, DayRule
from tasks.schedule.cron import CronFields
from tasks.schedule.durations import format_duration
from tasks.schedule.holidays import CALENDAR_PARTS, FIXED
from tasks.schedule.model import (
    ONE_DAY,
    CronSchedule,
    CycleSchedule,
    IntervalSchedule,
    OnceSchedule,
    Schedule,
    resolve_local,
)
from tasks.schedule.repeat import cron_ranges, time_fields
from tasks.schedule.skips import Skips

CODES = ("MO", "TU", "WE", "TH", "FR", "SA", "SU")
"""RFC 5545's weekday codes, Monday (0) first."""
MAX_LISTED = 2000
"""The most RDATEs or EXDATEs one recurrence lists; the list then ends earlier."""
_WORKDAYS = ("MO", "TU", "WE", "TH", "FR")
_KNOWN = frozenset(
    {"FREQ", "INTERVAL", "COUNT", "UNTIL", "BYDAY", "BYMONTHDAY", "BYMONTH", "BYHOUR",
     "BYMINUTE", "BYSECOND", "BYSETPOS", "WKST", "BYYEARDAY", "BYWEEKNO", "RSCALE", "SKIP"}
)  # fmt: skip
_BYDAY = LazyPattern(r"^([+-]?\d{1,2})?(MO|TU|WE|TH|FR|SA|SU)$")
_UNIT_SECONDS = {"HOURLY": 3600, "MINUTELY": 60, "SECONDLY": 1}


_UNSAID = "is not a rule this language says"


class RuleError(ScheduleError):
    """A recurrence the schedule language cannot say exactly; the message names the part."""


@dataclass(frozen=True, slots=True)
class Recurrence:
    """A schedule as iCalendar says it.

    Attributes:
        start: DTSTART, the first instance: aware, in the schedule's zone (UTC for an
            interval, or an event given in UTC).
        rule: The RRULE's value ("FREQ=WEEKLY;INTERVAL=2;BYDAY=FR"), or ``None``.
        exdates: The instances left out (EXDATE), aware.
        rdates: Instances beside the rule (RDATE), aware.
        exact_until: ``None`` when the rule and the lists say the schedule for ever; else the
            instant up to which they do (the lists were cut there).
    """

    start: datetime
    rule: str | None = None
    exdates: tuple[datetime, ...] = ()
    rdates: tuple[datetime, ...] = ()
    exact_until: datetime | None = None


@dataclass(frozen=True, slots=True)
class _Rule:
    """An RRULE's parts, written in one order."""

    freq: str
    interval: int = 1
    bymonth: tuple[int, ...] = ()
    bymonthday: tuple[int, ...] = ()
    byday: tuple[str, ...] = ()
    byhour: tuple[int, ...] = ()
    byminute: tuple[int, ...] = ()
    bysetpos: tuple[int, ...] = ()
    wkst: str | None = None
    extra: tuple[str, ...] = field(default=())

    def text(self) -> str:
        parts = [f"FREQ={self.freq}"]
        if self.interval != 1:
            parts.append(f"INTERVAL={self.interval}")
        for name, values in (
            ("BYMONTH", self.bymonth),
            ("BYMONTHDAY", self.bymonthday),
            ("BYDAY", self.byday),
            ("BYHOUR", self.byhour),
            ("BYMINUTE", self.byminute),
            ("BYSETPOS", self.bysetpos),
        ):
            if values:
                parts.append(f"{name}={','.join(map(str, values))}")
        if self.wkst is not None:
            parts.append(f"WKST={self.wkst}")
        return ";".join([*parts, *self.extra])


# -- schedules to recurrences ----------------------------------------------------------------


def recurrence_of(schedule: Schedule, *, after: datetime, horizon: datetime) -> Recurrence | None:
    """Say ``schedule``'s fires after ``after`` as a recurrence (``None``: it fires no more).

    Args:
        schedule: The schedule.
        after: The recurrence starts with the first fire after this instant (its DTSTART).
        horizon: How far lists of dates go when a rule cannot say everything.
    """
    if isinstance(schedule, OnceSchedule):
        if schedule.next_after(after) is None:
            return None
        return Recurrence(start=schedule.at.astimezone(schedule.tz))
    bounded = schedule if isinstance(schedule, BoundedSchedule) else None
    inner = bounded.inner if bounded is not None else schedule
    end = bounded.end if bounded is not None else None
    begin = after
    if bounded is not None and bounded.start is not None and bounded.start > after:
        begin = bounded.start - timedelta(microseconds=1)
    first = inner.next_after(begin)
    if first is None or (end is not None and first > end) or schedule.next_after(after) is None:
        return None
    rule = _rule_of(inner)
    if rule is None:
        return _listed(schedule, after, horizon)
    start = _wall(inner, first)
    skips = bounded.skips if bounded is not None else Skips()
    limit = horizon if end is None else min(end, horizon)
    exdates, cut = _skipped(inner, skips, first, end, limit)
    extra: tuple[str, ...] = ()
    if bounded is not None and bounded.count is not None and end is not None:
        extra = (f"COUNT={_count(inner, first, end)}",)
    elif end is not None:
        extra = (f"UNTIL={end.astimezone(UTC).strftime('%Y%m%dT%H%M%SZ')}",)
    return Recurrence(
        start=start,
        rule=replace(rule, extra=extra).text(),
        exdates=exdates,
        exact_until=cut,
    )


def _listed(schedule: Schedule, after: datetime, horizon: datetime) -> Recurrence | None:
    """The fires up to ``horizon`` as RDATEs (at most ``MAX_LISTED``)."""
    fires: list[datetime] = []
    at = after
    while len(fires) < MAX_LISTED and (fire := schedule.next_after(at)) is not None:
        if fire > horizon:
            break
        fires.append(fire.astimezone(schedule.tz))
        at = fire
    if not fires:
        return None
    cut = horizon if len(fires) < MAX_LISTED else fires[-1]
    return Recurrence(start=fires[0], rdates=tuple(fires[1:]), exact_until=cut)


def _wall(inner: Schedule, fire: datetime) -> datetime:
    """How a recurrence writes the instant ``fire`` of ``inner``: in UTC for an interval,
    else as the local wall time the rule names, which is not the fire's own reading when the
    fire fell in a spring-forward gap (RFC 5545 reads 02:30 there as 03:30, as we do)."""
    if isinstance(inner, IntervalSchedule):
        return fire.astimezone(UTC)
    tz = inner.tz
    local = fire.astimezone(tz)
    for day in (local.date(), local.date() - ONE_DAY):
        for at in _wall_times(inner):
            wall = datetime.combine(day, at)
            if resolve_local(wall, tz) == fire:
                return wall.replace(tzinfo=tz)
    return local


def _wall_times(inner: Schedule) -> Sequence[time]:
    if isinstance(inner, CronSchedule):
        return [time(*divmod(minute, 60)) for minute in CronFields.parse(inner.expression).times]
    if isinstance(inner, CycleSchedule | CalendarSchedule):
        return inner.times
    return ()


def _skipped(
    inner: Schedule,
    skips: Skips,
    start: datetime,
    end: datetime | None,
    limit: datetime,
) -> tuple[tuple[datetime, ...], datetime | None]:
    """The inner schedule's fires on the days left out, from ``start``, and where the list
    stops being the whole truth (``None``: never)."""
    if not skips:
        return (), None
    tz = inner.tz
    last_day = limit.astimezone(tz).date()
    cut: datetime | None = limit if skips.repeats and (end is None or end > limit) else None
    if not skips.repeats:
        last_day = max(skips.dates)
    found: list[datetime] = []
    day = start.astimezone(tz).date()
    while day <= last_day:
        if skips.skips(day):
            for fire in _fires_on(inner, day, start, end):
                if len(found) == MAX_LISTED:
                    return tuple(found), fire - timedelta(microseconds=1)
                found.append(_wall(inner, fire))
        day += ONE_DAY
    return tuple(found), cut


def _fires_on(inner: Schedule, day: date, start: datetime, end: datetime | None) -> list[datetime]:
    tz = inner.tz
    begin = max(resolve_local(datetime.combine(day, time(0)), tz), start)
    stop = resolve_local(datetime.combine(day + ONE_DAY, time(0)), tz)
    fires: list[datetime] = []
    at = begin - timedelta(microseconds=1)
    while (fire := inner.next_after(at)) is not None and fire < stop:
        if end is not None and fire > end:
            break
        if fire.astimezone(tz).date() == day:
            fires.append(fire)
        at = fire
    return fires


def _count(inner: Schedule, first: datetime, end: datetime) -> int:
    """How many of ``inner``'s fires fall from ``first`` to ``end`` (RFC 5545's COUNT counts
    the instances an EXDATE then removes)."""
    count, fire = 1, first
    while (following := inner.next_after(fire)) is not None and following <= end:
        count += 1
        fire = following
    return count


def _rule_of(inner: Schedule) -> _Rule | None:
    if isinstance(inner, IntervalSchedule):
        return _interval_rule(inner)
    if isinstance(inner, CronSchedule):
        return _cron_rule(CronFields.parse(inner.expression))
    if isinstance(inner, CycleSchedule):
        return _cycle_rule(inner)
    if isinstance(inner, CalendarSchedule):
        return _calendar_rule(inner)
    return None


def _interval_rule(schedule: IntervalSchedule) -> _Rule | None:
    seconds = schedule.every.total_seconds()
    if not seconds.is_integer():
        return None
    whole = int(seconds)
    for freq, unit in _UNIT_SECONDS.items():
        if whole % unit == 0:
            return _Rule(freq, interval=whole // unit)
    return None  # pragma: no cover - every whole number of seconds is SECONDLY


def _times_parts(
    times: Sequence[time], *, days: int = 1, last: bool = False
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]] | None:
    """BYHOUR, BYMINUTE and BYSETPOS for the wall ``times`` of each firing day, when an
    interval holds ``days`` firing days (positions from the end when ``last``: the interval's
    firing day is its last candidate day). One time needs none (DTSTART says it)."""
    if len(times) == 1:
        return (), (), ()
    hours = sorted({at.hour for at in times})
    minutes = sorted({at.minute for at in times})
    product = [time(h, m) for h in hours for m in minutes]
    if len(product) == len(times):
        return tuple(hours), tuple(minutes), ()
    wanted = [product.index(at) for at in sorted(times)]
    size = len(product)
    if last:
        positions = [index - size for index in wanted]
    else:
        positions = [day * size + index + 1 for day in range(days) for index in wanted]
    return tuple(hours), tuple(minutes), tuple(positions)


def _with_times(rule: _Rule, times: Sequence[time], *, days: int = 1, last: bool = False) -> _Rule:
    parts = _times_parts(times, days=days, last=last)
    assert parts is not None
    hours, minutes, positions = parts
    return replace(rule, byhour=hours, byminute=minutes, bysetpos=positions)


def _cron_rule(fields: CronFields) -> _Rule | None:
    times = [time(*divmod(minute, 60)) for minute in fields.times]
    dom = fields.days is not None or fields.last_day
    if dom and fields.weekdays is not None:
        return None  # cron fires on either; a rule's BYMONTHDAY and BYDAY on both
    months = () if len(fields.months) == 12 else tuple(sorted(fields.months))
    hours, minutes, _ = _times_parts(times) or ((), (), ())
    if dom:
        days = tuple(sorted(fields.days or ())) + ((-1,) if fields.last_day else ())
        freq = "YEARLY" if len(months) == 1 and len(days) == 1 else "MONTHLY"
        return _Rule(freq, bymonth=months, bymonthday=days, byhour=hours, byminute=minutes)
    if fields.weekdays is None:
        return _Rule("DAILY", bymonth=months, byhour=hours, byminute=minutes)
    nth = dict(fields.nth)
    byday: list[str] = []
    for weekday in sorted(fields.weekdays, key=lambda w: (w + 6) % 7):
        code = CODES[(weekday + 6) % 7]
        byday += [f"{n}{code}" for n in sorted(nth[weekday])] if weekday in nth else [code]
    freq = "MONTHLY" if nth else "WEEKLY"
    if nth and len(months) == 1:
        freq = "YEARLY"
    return _Rule(freq, bymonth=months, byday=tuple(byday), byhour=hours, byminute=minutes)


def _cycle_rule(cycle: CycleSchedule) -> _Rule | None:
    if cycle.every_days % 7 == 0 and all(d < 7 for d in cycle.days):
        codes = sorted((cycle.anchor + timedelta(days=d)).weekday() for d in cycle.days)
        weeks = cycle.every_days // 7
        rule = _Rule(
            "WEEKLY",
            interval=weeks,
            byday=tuple(CODES[w] for w in codes),
            wkst=CODES[cycle.anchor.weekday()] if weeks > 1 and len(codes) > 1 else None,
        )
        return _with_times(rule, cycle.times, days=len(codes))
    if len(cycle.days) == 1:
        return _with_times(_Rule("DAILY", interval=cycle.every_days), cycle.times)
    return None


def _calendar_rule(schedule: CalendarSchedule) -> _Rule | None:
    rule, interval, times = schedule.rule, schedule.interval, schedule.times
    if rule.kind == "day" and rule.day <= 28:
        return _with_times(_Rule("MONTHLY", interval, bymonthday=(rule.day,)), times)
    if rule.kind == "day":
        return _last_of(
            _Rule("MONTHLY", interval, bymonthday=tuple(range(28, rule.day + 1))), times
        )
    if rule.kind == "nth":
        code = f"{rule.nth}{CODES[rule.weekday]}"
        return _with_times(_Rule("MONTHLY", interval, byday=(code,)), times)
    if rule.kind == "last_workday":
        return _last_of(_Rule("MONTHLY", interval, byday=_WORKDAYS), times)
    if rule.kind == "date" and (rule.month, rule.day) == (2, 29):
        return _last_of(_Rule("YEARLY", interval, bymonth=(2,), bymonthday=(28, 29)), times)
    if rule.kind == "date":
        yearly = _Rule("YEARLY", interval, bymonth=(rule.month,), bymonthday=(rule.day,))
        return _with_times(yearly, times)
    parts = CALENDAR_PARTS.get(rule.holiday)
    if parts is None:
        return None
    read = _parse_rule(f"FREQ=YEARLY;{parts}")
    return _with_times(
        _Rule(
            "YEARLY",
            interval,
            bymonth=tuple(int(m) for m in read.get("BYMONTH", [])),
            bymonthday=tuple(int(d) for d in read.get("BYMONTHDAY", [])),
            byday=tuple(read.get("BYDAY", [])),
        ),
        times,
    )


def _last_of(rule: _Rule, times: Sequence[time]) -> _Rule:
    """``rule`` picking the last of its candidate days (BYSETPOS=-1), at ``times``."""
    parts = _times_parts(times, last=True)
    assert parts is not None
    hours, minutes, positions = parts
    size = len(hours) * len(minutes) if hours else 1
    picks = positions or tuple(range(-size, 0))
    return replace(rule, byhour=hours, byminute=minutes, bysetpos=picks)


# -- recurrences to schedules ----------------------------------------------------------------


def _parse_rule(text: str) -> dict[str, list[str]]:
    parts: dict[str, list[str]] = {}
    for item in text.strip().upper().split(";"):
        if not item:
            continue
        name, equals, value = item.partition("=")
        if not equals or not value:
            raise RuleError(f"RRULE {text!r}: {item!r} is not NAME=VALUE")
        if name in parts:
            raise RuleError(f"RRULE {text!r} says {name} twice")
        if name not in _KNOWN and not name.startswith("X-"):
            raise RuleError(f"RRULE {text!r}: {name} is not a part of RFC 5545's rules")
        parts[name] = value.split(",")
    if "FREQ" not in parts:
        raise RuleError(f"RRULE {text!r} has no FREQ")
    return parts


def schedule_of(
    recurrence: Recurrence,
    *,
    now: datetime,
    shift: timedelta = timedelta(0),
    zone: ZoneInfo | None = None,
) -> Schedule:
    """The schedule that fires exactly at ``recurrence``'s instants plus ``shift`` (an
    alarm's offset from its event), in DTSTART's zone.

    Args:
        recurrence: DTSTART (aware, with a ``ZoneInfo`` or UTC), the RRULE, EXDATEs; RDATEs
            are refused.
        now: The current instant: a series that started before it goes on from it.
        shift: How long after each instance the schedule fires (negative: before).
        zone: The zone an interval given in UTC is said in (its fires are the same in
            any); by default UTC.

    Raises:
        RuleError: naming what the language cannot say, or an instance that never comes.
    """
    start = recurrence.start
    given = start.tzinfo
    if not isinstance(given, ZoneInfo):
        if start.utcoffset() != timedelta(0):
            raise RuleError(f"DTSTART {start.isoformat()} is in no IANA time zone")
        given = ZoneInfo("UTC")
    if recurrence.rdates:
        raise RuleError(
            f"RDATE (a list of {len(recurrence.rdates)} extra dates) is not a rule the schedule "
            "language says; add them as one-time reminders"
        )
    if recurrence.rule is None:
        return OnceSchedule(at=start + shift, tz=zone if given.key == "UTC" and zone else given)
    return _Reader(recurrence, given, now, shift, said_in=zone).schedule()


class _Reader:
    """One RRULE read into a schedule (``schedule_of``)."""

    def __init__(
        self,
        recurrence: Recurrence,
        zone: ZoneInfo,
        now: datetime,
        shift: timedelta,
        *,
        said_in: ZoneInfo | None,
    ) -> None:
        self.recurrence = recurrence
        self.said_in = said_in
        self.text = recurrence.rule or ""
        self.parts = _parse_rule(self.text)
        self.zone = zone
        self.now = now
        self.shift = shift
        self.start = recurrence.start.astimezone(zone)
        self.freq = self.parts["FREQ"][0]
        self.interval = self._number("INTERVAL", 1)

    def refuse(self, part: str, why: str) -> RuleError:
        return RuleError(f"RRULE {self.text!r}: {part} {why}")

    def _number(self, name: str, default: int) -> int:
        values = self.parts.get(name)
        if values is None:
            return default
        if len(values) != 1 or not values[0].lstrip("+-").isdigit():
            raise self.refuse(f"{name}={','.join(values)}", "is not a number")
        value = int(values[0])
        if value < 1:
            raise self.refuse(f"{name}={value}", "must be 1 or more")
        return value

    def _numbers(self, name: str, low: int, high: int) -> tuple[int, ...]:
        values = self.parts.get(name, [])
        try:
            numbers = tuple(int(v) for v in values)
        except ValueError:
            raise self.refuse(f"{name}={','.join(values)}", "holds what is not a number") from None
        if any(not low <= n <= high or (n == 0 and low < 0) for n in numbers):
            raise self.refuse(f"{name}={','.join(values)}", f"goes beyond {low} to {high}")
        return numbers

    def schedule(self) -> Schedule:
        for unsupported in ("BYYEARDAY", "BYWEEKNO", "RSCALE", "SKIP"):
            if unsupported in self.parts:
                value = ",".join(self.parts[unsupported])
                raise self.refuse(f"{unsupported}={value}", _UNSAID)
        base = self._interval() if self.freq in _UNIT_SECONDS else self._calendar()
        return self._bounded(base)

    # -- the rule without its end --

    def _interval(self) -> Schedule:
        others = sorted(set(self.parts) - {"FREQ", "INTERVAL", "COUNT", "UNTIL", "WKST"})
        if others:
            said = ";".join(f"{p}={','.join(self.parts[p])}" for p in others)
            raise self.refuse(f"FREQ={self.freq} with {said}", _UNSAID)
        if self.zone.key != "UTC" and _changes_offset(self.zone, self.start):
            raise self.refuse(
                f"FREQ={self.freq} in {self.zone.key}",
                "counts hours on a clock that changes for daylight saving time, where calendar "
                "apps disagree; give DTSTART in UTC",
            )
        every = timedelta(seconds=_UNIT_SECONDS[self.freq] * self.interval)
        said_in = self.said_in if self.zone.key == "UTC" and self.said_in else self.zone
        anchor = self.start.astimezone(UTC) + self.shift
        return IntervalSchedule(every=every, anchor=anchor, tz=said_in)

    def _times(self) -> tuple[list[time], int]:
        """The local wall times of a firing day (after ``shift``), and the days they move."""
        if "BYSECOND" in self.parts and self._numbers("BYSECOND", 0, 60) != (self.start.second,):
            raise self.refuse(
                f"BYSECOND={','.join(self.parts['BYSECOND'])}", "fires within a minute"
            )
        hours = self._numbers("BYHOUR", 0, 23) or (self.start.hour,)
        minutes = self._numbers("BYMINUTE", 0, 59) or (self.start.minute,)
        product = sorted(time(h, m, self.start.second) for h in hours for m in minutes)
        picked = self._picked(product)
        base = datetime.combine(date(2001, 1, 10), time(0))
        moved = [base + timedelta(hours=t.hour, minutes=t.minute, seconds=t.second) + self.shift
                 for t in picked]  # fmt: skip
        days = {(m.date() - base.date()).days for m in moved}
        if len(days) > 1:
            raise RuleError(
                f"an alarm {_say(self.shift)} its event puts some of the event's times "
                "(BYHOUR, BYMINUTE) on another day than others"
            )
        times = sorted(m.time() for m in moved)
        if any(at.second or at.microsecond for at in times):
            raise RuleError(
                f"RRULE {self.text!r} with DTSTART {self.start.isoformat()} and an alarm "
                f"{_say(self.shift)} it fires at {times[0].isoformat()}: repeating times are "
                "whole minutes"
            )
        return times, days.pop()

    def _picked(self, product: list[time]) -> list[time]:
        """The times BYSETPOS picks of each day's candidates (when it picks times)."""
        positions = self._numbers("BYSETPOS", -366, 366)
        if not positions or self._setpos_picks_days():
            return product
        size = len(product)
        days = len(self._plain_days()) if self.freq == "WEEKLY" else 1
        picked: set[int] = set()
        per_day: list[set[int]] = [set() for _ in range(days)]
        for position in positions:
            index = position - 1 if position > 0 else days * size + position
            if not 0 <= index < days * size:
                raise self.refuse(f"BYSETPOS={position}", "picks nothing")
            per_day[index // size].add(index % size)
        if self.freq not in ("DAILY", "WEEKLY") or any(s != per_day[0] for s in per_day):
            raise self.refuse(
                f"BYSETPOS={','.join(map(str, positions))}",
                "picks different times on different days",
            )
        picked = per_day[0]
        return [product[i] for i in sorted(picked)]

    def _setpos_picks_days(self) -> bool:
        """Whether BYSETPOS picks the last of several candidate days (the last weekday, the
        last of the 28th to 31st): the calendar rules' shapes."""
        return self.freq in ("MONTHLY", "YEARLY") and (
            set(self.parts.get("BYDAY", [])) == set(_WORKDAYS)
            or self._numbers("BYMONTHDAY", -31, 31)[:1] == (28,)
        )

    def _plain_days(self) -> list[int]:
        """BYDAY without ordinals, as weekdays (0 is Monday); DTSTART's weekday by default."""
        days: list[int] = []
        for value in self.parts.get("BYDAY", [CODES[self.start.weekday()]]):
            found = _BYDAY.match(value)
            if found is None:
                raise self.refuse(f"BYDAY={value}", "is not a weekday")
            if found[1]:
                raise self.refuse(
                    f"BYDAY={','.join(self.parts['BYDAY'])} with FREQ={self.freq}",
                    "counts weekdays in a period it does not have",
                )
            days.append(CODES.index(found[2]))
        return sorted(set(days))

    def _calendar(self) -> Schedule:
        if self.start.second or self.start.microsecond:
            raise RuleError(f"DTSTART {self.start.isoformat()}: repeating times are whole minutes")
        times, moved = self._times()
        if self.freq == "DAILY":
            return self._daily(times, moved)
        if self.freq == "WEEKLY":
            return self._weekly(times, moved)
        if self.freq == "MONTHLY":
            return self._monthly(times, moved)
        if self.freq == "YEARLY":
            return self._yearly(times, moved)
        raise self.refuse(f"FREQ={self.freq}", "is not a frequency of RFC 5545")

    def _only(self, *allowed: str) -> None:
        others = sorted(
            set(self.parts)
            - {"FREQ", "INTERVAL", "COUNT", "UNTIL", "BYHOUR", "BYMINUTE", "BYSECOND", "WKST"}
            - set(allowed)
        )
        if others:
            said = ";".join(f"{p}={','.join(self.parts[p])}" for p in others)
            raise self.refuse(f"FREQ={self.freq} with {said}", _UNSAID)

    def _first_day(self, moved: int) -> date:
        return self.start.date() + timedelta(days=moved)

    def _daily(self, times: list[time], moved: int) -> Schedule:
        self._only("BYDAY", "BYMONTH", "BYMONTHDAY", "BYSETPOS")
        months = self._numbers("BYMONTH", 1, 12)
        monthdays = self._numbers("BYMONTHDAY", -1, 31)
        if self.interval > 1:
            if set(self.parts) & {"BYDAY", "BYMONTH", "BYMONTHDAY"}:
                raise self.refuse(
                    f"FREQ=DAILY;INTERVAL={self.interval} with BYDAY, BYMONTH or BYMONTHDAY",
                    _UNSAID,
                )
            first = self._first_day(moved)
            return CycleSchedule(self.interval, first, (0,), tuple(times), self.zone)
        weekdays = self._plain_days() if "BYDAY" in self.parts else list(range(7))
        if "BYDAY" in self.parts and monthdays:
            raise self.refuse("BYDAY with BYMONTHDAY", "fires on days that are both")
        return self._cron(times, moved, weekdays=weekdays, months=months, monthdays=monthdays)

    def _cron(
        self,
        times: list[time],
        moved: int,
        *,
        weekdays: Iterable[int] = range(7),
        months: Sequence[int] = (),
        monthdays: Sequence[int] = (),
        nth: str | None = None,
    ) -> Schedule:
        """A cron schedule (as the language writes it), or a 7-day cycle when cron cannot
        say the times."""
        days = sorted(set(weekdays))
        fields = time_fields(times)
        if moved and (monthdays or nth):
            raise RuleError(
                f"an alarm {_say(self.shift)} an event on days of the month "
                f"({self.text!r}) falls on other days of the month"
            )
        days = sorted((d + moved) % 7 for d in days)
        month_field = cron_ranges(sorted(months)) if months else "*"
        if moved and months:
            raise RuleError(
                f"an alarm {_say(self.shift)} an event in some months ({self.text!r}) "
                "falls in other months on the month's first or last day"
            )
        if fields is None:
            if months or monthdays or nth:
                raise RuleError(
                    f"RRULE {self.text!r}: its times of day are not every hour at every minute "
                    "named, which days of the month cannot repeat"
                )
            first = self._first_day(moved)
            if len(days) == 7:
                return CycleSchedule(1, first, (0,), tuple(times), self.zone)
            monday = first - timedelta(days=first.weekday())
            return CycleSchedule(7, monday, tuple(days), tuple(times), self.zone)
        if nth is not None:
            return CronSchedule(f"{fields} * {month_field} {nth}", self.zone)
        if monthdays:
            said = ",".join("L" if d == -1 else str(d) for d in sorted(monthdays, key=_last))
            return CronSchedule(f"{fields} {said} {month_field} *", self.zone)
        if len(days) == 7:
            return CronSchedule(f"{fields} * {month_field} *", self.zone)
        weekdays_field = cron_ranges(sorted((d + 1) % 7 for d in days))
        return CronSchedule(f"{fields} * {month_field} {weekdays_field}", self.zone)

    def _weekly(self, times: list[time], moved: int) -> Schedule:
        self._only("BYDAY", "BYMONTH", "BYSETPOS")
        weekdays = self._plain_days()
        if self.start.weekday() not in weekdays:
            said = ",".join(self.parts["BYDAY"])
            raise self.refuse(
                f"DTSTART on a {CODES[self.start.weekday()]} with BYDAY={said}",
                "makes DTSTART an instance the rule itself does not have",
            )
        if self.interval == 1:
            return self._cron(
                times, moved, weekdays=weekdays, months=self._numbers("BYMONTH", 1, 12)
            )
        if "BYMONTH" in self.parts:
            raise self.refuse(
                f"FREQ=WEEKLY;INTERVAL={self.interval} with BYMONTH",
                _UNSAID,
            )
        wkst = self.parts.get("WKST", ["MO"])[0]
        if wkst not in CODES:
            raise self.refuse(f"WKST={wkst}", "is not a weekday")
        week_start = CODES.index(wkst)
        start_day = self.start.date()
        anchor = start_day - timedelta(days=(start_day.weekday() - week_start) % 7)
        offsets = tuple(sorted((d - week_start) % 7 for d in weekdays))
        # An alarm days before its events moves the whole cycle, its days with it.
        moved_anchor = anchor + timedelta(days=moved)
        return CycleSchedule(7 * self.interval, moved_anchor, offsets, tuple(times), self.zone)

    def _monthly(self, times: list[time], moved: int) -> Schedule:
        self._only("BYDAY", "BYMONTHDAY", "BYSETPOS", "BYMONTH")
        months = self._numbers("BYMONTH", 1, 12)
        monthdays = self._numbers("BYMONTHDAY", -31, 31)
        positions = self._numbers("BYSETPOS", -366, 366)
        byday = self.parts.get("BYDAY", [])
        rule: DayRule | None = None
        if set(byday) == set(_WORKDAYS) and self._last_picked(positions, len(times)):
            if monthdays or months:
                raise self.refuse("BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1 with BYMONTHDAY or BYMONTH",
                                  _UNSAID)  # fmt: skip
            rule = DayRule("last_workday")
        elif monthdays[:1] == (28,) and self._last_picked(positions, len(times)):
            if byday or months or list(monthdays) != list(range(28, max(monthdays) + 1)):
                raise self.refuse(f"BYMONTHDAY={','.join(map(str, monthdays))}",
                                  "with BYSETPOS=-1 is not a rule this language says")  # fmt: skip
            rule = DayRule("day", day=max(monthdays))
        elif byday:
            return self._monthly_weekdays(byday, times, moved, months)
        elif monthdays:
            return self._monthly_days(monthdays, times, moved, months)
        else:
            day = self.start.day
            if day > 28:
                raise self.refuse(
                    f"FREQ=MONTHLY from the {day}th",
                    "skips the months without that day, where this language fires on their "
                    "last day",
                )
            return self._monthly_days((day,), times, moved, months)
        return self._calendar_schedule(rule, times, moved)

    def _last_picked(self, positions: tuple[int, ...], count: int) -> bool:
        """Whether BYSETPOS picks the last candidate day's times (all of them)."""
        return bool(positions) and all(p < 0 for p in positions) and len(positions) == count

    def _monthly_days(
        self, monthdays: Sequence[int], times: list[time], moved: int, months: Sequence[int]
    ) -> Schedule:
        for day in monthdays:
            if day > 28 or day < -1:
                raise self.refuse(
                    f"BYMONTHDAY={day}",
                    "skips the months without that day, where this language fires on their "
                    "last day; say BYMONTHDAY=-1 for the last day",
                )
        single = len(monthdays) == 1 and monthdays[0] != -1
        if self.interval == 1 and not months and single and moved == -1 and monthdays[0] == 1:
            # An alarm the day before the 1st: the last day of every month.
            return self._cron(times, 0, monthdays=(-1,))
        if self.interval == 1 and not moved and time_fields(times) is not None:
            return self._cron(times, 0, months=months, monthdays=monthdays)
        if not single or months:
            raise self.refuse(
                f"BYMONTHDAY={','.join(map(str, monthdays))} every {self.interval} months",
                "is not a rule this language says (several days repeat only every month)",
            )
        day = monthdays[0] + moved
        if not 1 <= day <= 28:
            raise RuleError(
                f"an alarm {_say(self.shift)} an event on day {monthdays[0]} of the month falls "
                "on a day this language does not repeat"
            )
        return self._calendar_schedule(DayRule("day", day=day), times, 0)

    def _monthly_weekdays(
        self, byday: list[str], times: list[time], moved: int, months: Sequence[int]
    ) -> Schedule:
        if len(byday) != 1:
            raise self.refuse(f"BYDAY={','.join(byday)} with FREQ=MONTHLY", _UNSAID)
        found = _BYDAY.match(byday[0])
        if found is None:
            raise self.refuse(f"BYDAY={byday[0]}", "is not a weekday")
        if not found[1]:
            if self.interval > 1 or months:
                raise self.refuse(f"BYDAY={byday[0]} every {self.interval} months", _UNSAID)
            return self._cron(times, moved, weekdays=[CODES.index(found[2])])
        nth, weekday = int(found[1]), CODES.index(found[2])
        if nth not in (1, 2, 3, 4, 5, -1) or months:
            raise self.refuse(f"BYDAY={byday[0]}", _UNSAID)
        if moved:
            raise RuleError(
                f"an alarm {_say(self.shift)} an event on BYDAY={byday[0]} falls on a day "
                "this language does not repeat"
            )
        if self.interval == 1 and nth > 0 and time_fields(times) is not None:
            return self._cron(times, 0, nth=f"{(weekday + 1) % 7}#{nth}")
        return self._calendar_schedule(DayRule("nth", nth=nth, weekday=weekday), times, 0)

    def _yearly(self, times: list[time], moved: int) -> Schedule:
        self._only("BYDAY", "BYMONTHDAY", "BYMONTH", "BYSETPOS")
        parts = {k: v for k, v in self.parts.items() if k in ("BYMONTH", "BYMONTHDAY", "BYDAY")}
        said = ";".join(f"{k}={','.join(v)}" for k, v in sorted(parts.items()))
        holiday = next((n for n, p in CALENDAR_PARTS.items() if _same_parts(p, parts)), None)
        if holiday is not None and holiday not in FIXED:
            if moved:
                raise RuleError(
                    f"an alarm {_say(self.shift)} an event on {holiday} falls on a day this "
                    "language does not repeat"
                )
            return self._calendar_schedule(DayRule("holiday", holiday=holiday), times, 0)
        months = self._numbers("BYMONTH", 1, 12) or (self.start.month,)
        monthdays = self._numbers("BYMONTHDAY", -31, 31)
        positions = self._numbers("BYSETPOS", -366, 366)
        if len(months) != 1:
            raise self.refuse(f"FREQ=YEARLY with {said}", _UNSAID)
        month = months[0]
        if "BYDAY" in self.parts:
            byday = self.parts["BYDAY"]
            found = _BYDAY.match(byday[0]) if len(byday) == 1 else None
            if found is None or not found[1] or monthdays or moved or self.interval > 1:
                raise self.refuse(f"FREQ=YEARLY with {said}", _UNSAID)
            nth, weekday = int(found[1]), CODES.index(found[2])
            if not 1 <= nth <= 5 or time_fields(times) is None:
                raise self.refuse(f"FREQ=YEARLY with {said}", _UNSAID)
            return CronSchedule(
                f"{time_fields(times)} * {month} {(weekday + 1) % 7}#{nth}", self.zone
            )
        if (month, tuple(monthdays)) == (2, (28, 29)) and self._last_picked(positions, len(times)):
            day = 29
        elif len(monthdays) <= 1 and not positions:
            day = monthdays[0] if monthdays else self.start.day
        else:
            raise self.refuse(f"FREQ=YEARLY with {said}", _UNSAID)
        if (month, day) == (2, 29) and not positions:
            raise self.refuse(
                "FREQ=YEARLY on February 29",
                "skips the years without one, where this language fires on February 28",
            )
        if day < 1:
            raise self.refuse(f"BYMONTHDAY={day}", _UNSAID)
        when = date(2004, month, day) + timedelta(days=moved)  # 2004: a leap year
        if (month, day) != (2, 29):
            common = date(2001, month, day) + timedelta(days=moved)
            if (common.month, common.day) != (when.month, when.day):
                raise RuleError(
                    f"an alarm {_say(self.shift)} a yearly event on {month}/{day} falls on "
                    "another day in leap years than in others"
                )
        rule = DayRule("date", day=when.day, month=when.month)
        fields = time_fields(times)
        if self.interval == 1 and fields is not None and (when.month, when.day) != (2, 29):
            return CronSchedule(f"{fields} {when.day} {when.month} *", self.zone)
        return self._calendar_schedule(rule, times, 0)

    def _calendar_schedule(self, rule: DayRule, times: list[time], moved: int) -> Schedule:
        first = self._first_day(moved)
        anchor = date(first.year, 1, 1) if rule.yearly else first.replace(day=1)
        return CalendarSchedule(rule, self.interval, anchor, tuple(times), self.zone)

    # -- the end and the days left out --

    def _bounded(self, base: Schedule) -> Schedule:
        # In UTC: an aware time in a gap never equals one in another zone (PEP 495).
        first = self.start.astimezone(UTC) + self.shift
        end: datetime | None = None
        count: int | None = None
        if "COUNT" in self.parts and "UNTIL" in self.parts:
            raise self.refuse("COUNT with UNTIL", "is not allowed by RFC 5545")
        if "UNTIL" in self.parts:
            end = self._until() + self.shift
        start = self._start_bound(base, first)
        probe = base if start is None else BoundedSchedule(base, start, None, None, base.tz)
        if probe.next_after(first - timedelta(microseconds=1)) != first:
            raise RuleError(
                f"DTSTART {self.start.isoformat()} is not an instance of RRULE {self.text!r}; "
                "a calendar counts it anyway, which this language does not say"
            )
        if "COUNT" in self.parts:
            end = _nth(probe, first, self._number("COUNT", 1))
            if end is None:
                raise RuleError(f"RRULE {self.text!r} has fewer instances than its COUNT")
        exdates = sorted(d.astimezone(UTC) + self.shift for d in self.recurrence.exdates)
        skips = self._skips(probe, [d for d in exdates if end is None or d <= end])
        if "COUNT" in self.parts and end is not None:
            kept = BoundedSchedule(base, start, None, None, base.tz, skips) if skips else probe
            count = _fires_between(kept, first, end)
            if count == 0:
                raise RuleError(f"RRULE {self.text!r} leaves no instance after its EXDATEs")
        schedule = base
        if start is not None or end is not None or skips:
            schedule = BoundedSchedule(base, start, end, count, base.tz, skips)
        self._check_alarm_times(schedule, base, first)
        return schedule

    def _check_alarm_times(self, schedule: Schedule, base: Schedule, first: datetime) -> None:
        """An alarm comes a length of time before its event; the schedule keeps wall times.
        Both agree unless a change of the clocks (DST) falls between: then it is refused."""
        if not self.shift or not _changes_offset(self.zone, first):
            return
        fire: datetime | None = first
        for _ in range(800):
            if fire is None:
                return
            wall = _wall(base, fire).replace(tzinfo=None)
            event = resolve_local(wall - self.shift, self.zone)
            if event + self.shift != fire:
                raise RuleError(
                    f"an alarm {_say(self.shift)} its event at "
                    f"{event.astimezone(self.zone).isoformat()} falls across a change of the "
                    "clocks, where it does not keep its wall-clock time as this language does"
                )
            fire = schedule.next_after(fire)

    def _start_bound(self, base: Schedule, first: datetime) -> datetime | None:
        """DTSTART as a start, where the schedule would otherwise fire before it."""
        earliest = base.next_after(min(self.now, first - timedelta(microseconds=1)))
        return first if earliest is not None and earliest < first else None

    def _until(self) -> datetime:
        value = self.parts["UNTIL"][0]
        try:
            if "T" not in value:
                day = date(int(value[:4]), int(value[4:6]), int(value[6:8]))
                following = datetime.combine(day + ONE_DAY, time(0))
                return resolve_local(following, self.zone) - timedelta(microseconds=1)
            moment = datetime.strptime(value.rstrip("Z"), "%Y%m%dT%H%M%S")
        except (ValueError, IndexError):
            raise self.refuse(f"UNTIL={value}", "is not a date or a date-time") from None
        until = (
            moment.replace(tzinfo=UTC) if value.endswith("Z") else resolve_local(moment, self.zone)
        )
        if until.astimezone(self.zone).time() == time(23, 59, 59):
            # The end of a day, as written to the second: the whole day.
            until += timedelta(microseconds=999_999)
        return until

    def _skips(self, schedule: Schedule, exdates: list[datetime]) -> Skips:
        """EXDATEs as days left out: each must be the only instance of its local day (a
        day's other times would be lost); one that is no instance is left as it is."""
        days: set[date] = set()
        for moment in exdates:
            day = moment.astimezone(self.zone).date()
            begin = resolve_local(datetime.combine(day, time(0)), self.zone)
            fires: list[datetime] = []
            at = begin - timedelta(microseconds=1)
            while (fire := schedule.next_after(at)) is not None and fire.astimezone(
                self.zone
            ).date() == day:
                fires.append(fire)
                at = fire
            if moment not in fires:
                continue
            if len(fires) > 1:
                raise RuleError(
                    f"EXDATE {moment.astimezone(self.zone).isoformat()} leaves out one of the "
                    f"{len(fires)} times of {day.isoformat()}; this language leaves out whole days"
                )
            days.add(day)
        return Skips(dates=frozenset(days)) if days else Skips()


def _nth(schedule: Schedule, first: datetime, count: int) -> datetime | None:
    fire: datetime | None = first
    for _ in range(count - 1):
        if fire is None:
            return None
        fire = schedule.next_after(fire)
    return fire


def _fires_between(schedule: Schedule, first: datetime, end: datetime) -> int:
    count = 0
    fire = schedule.next_after(first - timedelta(microseconds=1))
    while fire is not None and fire <= end:
        count += 1
        fire = schedule.next_after(fire)
    return count


def _same_parts(table: str, parts: dict[str, list[str]]) -> bool:
    read = _parse_rule(f"FREQ=YEARLY;{table}")
    read.pop("FREQ")
    return {k: sorted(v) for k, v in read.items()} == {k: sorted(v) for k, v in parts.items()}


def _last(day: int) -> tuple[int, int]:
    """Sort key: days of the month in order, the last day (-1) after them."""
    return (1, 0) if day == -1 else (0, day)


def _say(shift: timedelta) -> str:
    if shift >= timedelta(0):
        return f"{format_duration(shift)} after"
    return f"{format_duration(-shift)} before"


def _changes_offset(zone: ZoneInfo, around: datetime) -> bool:
    """Whether ``zone``'s offset from UTC changes within a year of ``around``."""
    offsets = {
        (around + timedelta(days=days)).astimezone(zone).utcoffset() for days in range(0, 366, 7)
    }
    return len(offsets) > 1


__all__ = ["CODES", "Recurrence", "RuleError", "recurrence_of", "schedule_of"]

"""Repeating schedules from pieces: intervals, days of the week, of the month, of the year.

The repetition's unit comes from "every ..." (or from the days named: weekdays repeat weekly,
"the 15th" monthly, "March 3" yearly), its days from the day pieces, its times of day from the
clock times and parts of the day (09:00 when none). The result is the simplest schedule that
says it exactly: an interval, a five-field cron expression, a cycle of days, or a calendar
rule; "starting ...", "until ...", "10 times" and "for 2 weeks" bound it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime, time, timedelta

from tasks.errors import ScheduleError
from tasks.schedule.calendar_rules import BoundedSchedule, CalendarSchedule, DayRule
from tasks.schedule.clocks import (
    ClockTime,
    contradicts,
    format_clock,
    repeating_time,
    say_clock,
)
from tasks.schedule.days import (
    DayRef,
    Landmark,
    OnDate,
    OnHoliday,
    OnMonth,
    OnMonthDay,
    OnNthWeekday,
    OnNumericDate,
    OnWeekday,
    Relative,
    add_months,
    day_dates,
    describe_day,
    month_length,
    numeric_month_day,
)
from tasks.schedule.durations import format_duration
from tasks.schedule.holidays import FIXED
from tasks.schedule.lexicon import WEEKDAY_NAMES, ordinal
from tasks.schedule.model import (
    MAX_CYCLE_DAYS,
    CronSchedule,
    CycleSchedule,
    IntervalSchedule,
    Schedule,
    resolve_local,
)
from tasks.schedule.once import Context, refuse_bad
from tasks.schedule.pieces import (
    Clock,
    Count,
    Cron,
    Day,
    Delay,
    Every,
    Except,
    Lasting,
    LastWorkday,
    Leave,
    LeaveHolidays,
    NthWeekday,
    Part,
    Piece,
    Repeat,
    Starting,
    Until,
    Weekdays,
    Window,
)
from tasks.schedule.skips import Skips

DEFAULT_TIME = time(9)
_WITHIN_DAY = {"second": 1, "minute": 60, "hour": 3600}
_TICK = timedelta(microseconds=1)
_MAX_COUNT = 100_000
_ALL_DAYS = frozenset(range(7))


@dataclass(slots=True)
class _Bounds:
    """What bounds the repetition, taken out of the pieces."""

    start: list[Piece] = field(default_factory=list)
    end: list[Piece] = field(default_factory=list)
    count: int | None = None
    lasting: Lasting | None = None
    excluded: frozenset[int] = frozenset()
    leave: list[Day] = field(default_factory=list)
    holidays: bool = False
    leaving: bool = False


def repeating_schedule(pieces: list[Piece], context: Context) -> Schedule:
    """The repeating schedule that ``pieces`` name, resolved in the context.

    Raises:
        ScheduleError: with what was understood and a phrasing that works.
    """
    refuse_bad(pieces, context)
    core, bounds = _take_bounds(pieces, context)
    start = _start(bounds, context)
    if start is not None and start <= context.now and not _within_the_day(core):
        start = None  # "every 2 weeks starting today", said at noon: from now, as without it
    # The base is read as of the instant before its start, so that a fire at the start counts
    # and the days it defaults to (the weekday of "every week", the day of "every month") are
    # the start's; a repetition by the clock ("every 2 hours starting at 3pm") fires at it.
    base_context = context if start is None else replace(context, now=start - _TICK)
    base = _base(core, bounds, base_context)
    if start is not None and isinstance(base, IntervalSchedule):
        base = replace(base, anchor=start)
    return _bounded(base, bounds, start, context)


def _first_day_said(context: Context) -> date:
    """The day a repetition starts from: today, or the day "starting" names
    (``repeating_schedule`` reads a repetition with a start as of the instant before it, so
    the instant after that is the start)."""
    return (context.now + _TICK).astimezone(context.tz).date()


def _within_the_day(core: list[Piece]) -> bool:
    """Whether the repetition runs within the day ("every 2 hours", "30m"), in elapsed time
    from its start, rather than on days."""
    return any(
        isinstance(p, Delay | Window) or (isinstance(p, Every) and p.unit in _WITHIN_DAY)
        for p in core
    )


def _takes_its_time(core: list[Piece]) -> bool:
    """Whether a repetition of whole days says no clock time, so a time said with its start
    is its own ("every morning starting tomorrow at 7"); a repetition within the day ("every
    2 hours") starts at that time instead."""
    return not any(
        isinstance(p, Clock | Window | Cron | Delay)
        or (isinstance(p, Every) and p.unit in _WITHIN_DAY)
        for p in core
    )


def _take_bounds(pieces: list[Piece], context: Context) -> tuple[list[Piece], _Bounds]:
    bounds = _Bounds()
    core: list[Piece] = []
    target: list[Piece] | None = None
    leaving = False
    for piece in pieces:
        if isinstance(piece, Until | Starting):
            target = bounds.end if isinstance(piece, Until) else bounds.start
            leaving = False
            if target:
                raise _refuse(
                    context, "it says more than one end or start", "every day at 9am until friday"
                )
            continue
        if isinstance(piece, Leave):
            target, leaving, bounds.leaving = None, True, True
            continue
        if leaving and isinstance(piece, Day):
            bounds.leave.append(piece)
            continue
        if target is not None and isinstance(piece, Day | Clock | Part):
            target.append(piece)
            continue
        target, leaving = None, False
        if isinstance(piece, LeaveHolidays):
            bounds.holidays = leaving = True  # "except holidays and december 24"
        elif isinstance(piece, Count):
            bounds.count = piece.times
        elif isinstance(piece, Lasting):
            bounds.lasting = piece
        elif isinstance(piece, Except):
            bounds.excluded |= piece.days
        else:
            core.append(piece)
    said_start = any(isinstance(p, Starting) for p in pieces)
    if bounds.start and _takes_its_time(core):
        # "every day starting tomorrow at 8", "daily starting at 7": the time said with the
        # start is when it fires, from the day named (today when none is); a start that was
        # only a time is then no start at all
        has_part = any(isinstance(p, Part) for p in core)
        taken = [
            p
            for p in bounds.start
            if isinstance(p, Clock) or (isinstance(p, Part) and not has_part)
        ]
        core += taken
        bounds.start = [p for p in bounds.start if p not in taken]
        said_start = any(isinstance(p, Day) for p in bounds.start)
    if (bounds.start == [] and said_start) or (
        bounds.end == [] and any(isinstance(p, Until) for p in pieces)
    ):
        raise _refuse(
            context, "'until' or 'starting' needs a day after it", "every day at 9am until friday"
        )
    if bounds.leaving and not bounds.leave:
        raise _refuse(context, "'except' needs the days to leave out after it", _EXCEPT_EXAMPLE)
    _take_span(core, bounds, context)
    return core, bounds


_SPANS = frozenset(
    {"this_week", "next_week", "week_after_next", "this_month", "next_month", "weekend",
     "next_weekend", "weekend_after_next"}
)  # fmt: skip


def _take_span(core: list[Piece], bounds: _Bounds, context: Context) -> None:
    """Days that a repetition runs through ("every day next week", "every monday in
    december", "every hour today") become its start and end."""
    spans = [p for p in core if isinstance(p, Day) and _runs_through(p.ref, core)]
    if not spans:
        return
    if len(spans) > 1 or bounds.start or bounds.end or bounds.count or bounds.lasting:
        raise _refuse(context, "it says more than one span of days", "every day next week at 9am")
    first, last = _span_dates(spans[0].ref, context)
    core.remove(spans[0])
    if first > context.today:  # from today on, the repetition is read as of now
        bounds.start = [Day(OnDate(first.month, first.day, first.year))]
    bounds.end = [Day(OnDate(last.month, last.day, last.year))]


def _runs_through(ref: DayRef, core: list[Piece]) -> bool:
    """Whether a day said with a repetition is the span it runs through, not a day it
    repeats on: a week, a month or a weekend ("every day next week"), a month said with
    days or hours ("every monday in december"; "every december" repeats yearly), or a day
    with a repetition within it ("every hour today")."""
    within_day = any(isinstance(p, Every) and p.unit in _WITHIN_DAY for p in core)
    if isinstance(ref, Landmark):
        return ref.name in _SPANS
    if isinstance(ref, OnMonth):
        return ref.day == 1 and any(
            (isinstance(p, Every) and p.unit not in {"month", "year"})
            or isinstance(p, Weekdays | Part | Window)
            for p in core
        )
    return isinstance(ref, Relative) and within_day


def _span_dates(ref: DayRef, context: Context) -> tuple[date, date]:
    """The first and last day a span names, from today on."""
    today = context.today
    monday = today - timedelta(days=today.weekday())
    if isinstance(ref, Relative):
        day = today + timedelta(days=ref.days)
        return day, day
    if isinstance(ref, OnMonth):
        first = (
            today if today.month == ref.month else next(iter(day_dates(ref, today, context.order)))
        )
        return first, first.replace(day=month_length(first.year, first.month))
    if not isinstance(ref, Landmark):
        raise TypeError(f"not a span of days: {ref!r}")
    name = ref.name
    if name.endswith("week"):
        weeks = {"this_week": 0, "next_week": 1, "week_after_next": 2}[name]
        first = monday + timedelta(weeks=weeks)
        return max(first, today), first + timedelta(days=6)
    if name.endswith("month"):
        first = today.replace(day=1)
        if name == "next_month":
            first = add_months(first, 1)
        return max(first, today), first.replace(day=month_length(first.year, first.month))
    saturday = next(iter(day_dates(ref, today, context.order)))  # the weekend's first day left
    sunday = saturday + timedelta(days=6 - saturday.weekday())
    return saturday, sunday


_EXCEPT_EXAMPLE = "every weekday at 9am except holidays and december 24"


def _skips(bounds: _Bounds, context: Context) -> Skips:
    """The days "except ..." leaves out: a date without a year and a holiday every year, any
    other day ("tomorrow", "2026-12-24", "next friday") once."""
    dates: set[date] = set()
    yearly: set[tuple[int, int]] = set()
    holidays: set[str] = set()
    today = context.now.astimezone(context.tz).date()
    for piece in bounds.leave:
        ref = piece.ref
        if isinstance(ref, OnHoliday) and ref.year is None:
            holidays.add(ref.name)
        elif isinstance(ref, OnDate) and ref.year is None:
            yearly.add((ref.month, ref.day))
        elif isinstance(ref, OnNumericDate) and ref.year is None:
            yearly.add(numeric_month_day(ref, context.order))
        elif isinstance(ref, OnMonthDay | OnMonth) or (
            isinstance(ref, OnWeekday) and ref.which == "coming"
        ):
            # "except friday" leaves out every Friday: the rule of weekdays reads that.
            said = describe_day(ref)
            raise _refuse(
                context, f"{said!r} is not one day to leave out; name a date", _EXCEPT_EXAMPLE
            )
        else:
            found = next(iter(day_dates(ref, today, context.order)), None)
            if found is None:
                said = describe_day(ref)
                raise _refuse(context, f"{said!r} has no date ahead", _EXCEPT_EXAMPLE)
            dates.add(found)
    try:
        return Skips(
            dates=frozenset(dates),
            yearly=frozenset(yearly),
            holidays=frozenset(holidays),
            federal=bounds.holidays,
        )
    except ScheduleError as error:
        raise _refuse(context, str(error), _EXCEPT_EXAMPLE) from None


_REPEATABLE = (OnWeekday, OnDate, OnNumericDate, OnMonthDay, OnMonth, OnHoliday, OnNthWeekday)
_CORE = (Cron, Every, Repeat, Weekdays, NthWeekday, LastWorkday, Window, Day, Clock, Part, Delay)


def _base(core: list[Piece], bounds: _Bounds, context: Context) -> Schedule:
    if any(not isinstance(p, _CORE) for p in core):
        raise _refuse(context, "it mixes a repeating and a one-time time", "every day at 9am")
    crons = [p for p in core if isinstance(p, Cron)]
    if crons:
        if len(core) > 1:
            raise _refuse(context, "a cron expression stands alone", "0 9 * * 1-5")
        return CronSchedule(crons[0].expression, context.tz)
    everies = [p for p in core if isinstance(p, Every)]
    if len(everies) > 1:
        raise _refuse(context, "it says more than one repetition", "every day at 9am")
    every = everies[0] if everies else None
    if every is not None and every.unit in _WITHIN_DAY:
        return _within_day(every, core, bounds, context)
    delays = [p for p in core if isinstance(p, Delay)]
    if delays and every is None:
        return _delay_as_interval(delays[0], core, context)
    if delays:  # "every 2 months on the 1st and 3rd monday": a length beside a repetition
        raise _refuse(context, "it says more than one repetition", "every month on the 1st at 9am")
    for piece in core:
        if isinstance(piece, Day) and not isinstance(piece.ref, _REPEATABLE):
            said = describe_day(piece.ref)
            raise _refuse(context, f"{said!r} happens once", "every day at 9am")
    unit = every.unit if every is not None else _implied_unit(core)
    count = every.count if every is not None else 1
    if count < 1:
        raise _refuse(context, "the interval is zero", f"every 2 {unit}s")
    if not any(not isinstance(p, Repeat) for p in core):
        raise _refuse(context, "it does not say when", "every day at 9am")
    if any(isinstance(p, Window) for p in core):
        raise _refuse(
            context, "it says when in the day but not how often", "every hour between 9 and 5"
        )
    times = _times(core, context)
    if unit == "day":
        return _daily(count, core, bounds, times, context)
    if unit == "week":
        return _weekly(count, core, bounds, times, context)
    if bounds.excluded:
        raise _refuse(
            context, "only days of the week can be left out", "every weekday except friday at 9am"
        )
    if unit == "month":
        return _monthly(count, core, times, context)
    return _yearly(count, core, times, context)


def _implied_unit(core: list[Piece]) -> str:
    """The unit the days repeat in when no "every <unit>" was said."""
    refs = [p.ref for p in core if isinstance(p, Day)]
    if any(isinstance(p, Weekdays) for p in core) or any(isinstance(r, OnWeekday) for r in refs):
        return "week"
    if any(isinstance(p, NthWeekday | LastWorkday) for p in core) or any(
        isinstance(r, OnMonthDay) for r in refs
    ):
        return "month"
    if any(isinstance(r, OnDate | OnHoliday | OnNumericDate | OnMonth) for r in refs):
        return "year"
    return "day"


def _times(core: list[Piece], context: Context) -> list[time]:
    """The times of day, one per clock time said; refused when two come out the same.

    Several times on the 24-hour dial ("at 6:30 and 18:30") mean what they say: whoever writes
    18:30 for the evening means the morning by 6:30.
    """
    clocks = [p.time for p in core if isinstance(p, Clock)]
    parts = [p.period for p in core if isinstance(p, Part)]
    if len(parts) > 1:
        raise _refuse(context, "it names more than one part of the day", "every day at 9am and 6pm")
    period = parts[0] if parts else None
    if not clocks:
        return [period.default if period is not None else DEFAULT_TIME]
    if period is not None and any(contradicts(clock, period) for clock in clocks):
        raise _refuse(context, f"a time it names is not in the {period.name}", "every day at 9am")
    dial24 = len(clocks) > 1 and any(not c.meridiem and c.at.hour > 12 for c in clocks)
    times = [clock.at if dial24 else repeating_time(clock, period) for clock in clocks]
    if len(set(times)) < len(times):
        said = " and ".join(format_clock(clock.at) for clock in clocks)
        raise _refuse(
            context,
            f"the times {said} come out the same ({', '.join(map(format_clock, times))}); say "
            "each on the 24-hour clock",
            "every day at 6:30 and 18:30",
        )
    if any(at.second for at in times):
        raise _refuse(
            context,
            "repeating times are whole minutes",
            f"every day at {say_clock(times[0].replace(second=0))}",
        )
    return sorted(times)


def _said_time(core: list[Piece], times: list[time]) -> str:
    """ " at 6pm" when the words said a time, for examples built from them."""
    return f" at {say_clock(times[0])}" if any(isinstance(p, Clock | Part) for p in core) else ""


def _weekday_set(core: list[Piece], context: Context, times: list[time] | None = None) -> set[int]:
    days: set[int] = set()
    said = _said_time(core, times or [DEFAULT_TIME])
    for piece in core:
        if isinstance(piece, Weekdays):
            days |= piece.days
        elif isinstance(piece, Day):
            ref = piece.ref
            if isinstance(ref, OnMonthDay) and ref.day > 0:
                raise _refuse(
                    context,
                    "it names both days of the week and days of the month",
                    f"every month on the {ordinal(ref.day)}{said}",
                )
            if not isinstance(ref, OnWeekday) or ref.which != "coming":
                raise _refuse(
                    context,
                    "it names both days of the week and other days",
                    f"every monday{said}",
                )
            days.add(ref.weekday)
        elif isinstance(piece, NthWeekday | LastWorkday):
            raise _refuse(
                context,
                "it names a day of the month in a weekly repetition",
                "the second tuesday of every month",
            )
    return days


def _daily(
    count: int, core: list[Piece], bounds: _Bounds, times: list[time], context: Context
) -> Schedule:
    weekdays = _weekday_set(core, context, times)
    explicit_every = any(isinstance(p, Every) for p in core)
    said = _said_time(core, times)
    if count > 1:
        if weekdays or bounds.excluded:
            name = WEEKDAY_NAMES[min(weekdays or bounds.excluded)].lower()
            raise _refuse(
                context,
                "it names days of the week in a cycle of days",
                f"every {count} weeks on {name}{said}",
            )
        return _cycle(count, {*range(7)}, times, context, weekly=False)
    if weekdays and explicit_every:
        name = WEEKDAY_NAMES[min(weekdays)].lower()
        raise _refuse(context, "it says both every day and particular days", f"every {name}{said}")
    days = (weekdays or set(_ALL_DAYS)) - bounds.excluded
    return _week_days_schedule(days, times, context)


def _weekly(
    count: int, core: list[Piece], bounds: _Bounds, times: list[time], context: Context
) -> Schedule:
    weekdays = _weekday_set(core, context, times) or {_first_day_said(context).weekday()}
    days = weekdays - bounds.excluded
    if count > 1:
        return _cycle(count, days, times, context, weekly=True)
    return _week_days_schedule(days, times, context)


def _week_days_schedule(days: set[int], times: list[time], context: Context) -> Schedule:
    """Every week on ``days`` at ``times``: cron when it can say it, else a 7-day cycle."""
    if not days:
        raise _refuse(context, "it leaves out every day", f"every weekday at {say_clock(times[0])}")
    fields = time_fields(times)
    if fields is None:
        if len(days) == 7:
            return _cycle(1, days, times, context, weekly=False)
        return _cycle(1, days, times, context, weekly=True)
    if len(days) == 7:
        return CronSchedule(f"{fields} * * *", context.tz)
    weekdays = cron_ranges(sorted((d + 1) % 7 for d in days))
    return CronSchedule(f"{fields} * * {weekdays}", context.tz)


def time_fields(times: list[time]) -> str | None:
    """Cron's minute and hour fields for ``times``, or ``None`` when cron cannot say them."""
    minutes = sorted({at.minute for at in times})
    hours = sorted({at.hour for at in times})
    if {(h, m) for h in hours for m in minutes} != {(at.hour, at.minute) for at in times}:
        return None
    hour_field = cron_ranges(hours) if len(hours) > 2 else ",".join(map(str, hours))
    return f"{','.join(map(str, minutes))} {hour_field}"


def _cycle(
    count: int, weekdays: set[int], times: list[time], context: Context, *, weekly: bool
) -> CycleSchedule:
    days = count * (7 if weekly else 1)
    unit = "weeks" if weekly else "days"
    if not 1 <= days <= MAX_CYCLE_DAYS:
        raise _refuse(
            context,
            f"a cycle lasts at most {MAX_CYCLE_DAYS} days",
            f"every 2 {unit} at {say_clock(times[0])}",
        )
    today = _first_day_said(context)
    first = _first_day(today, weekdays, times, context)
    if not weekly:
        return CycleSchedule(days, first, (0,), tuple(times), context.tz)
    monday = first - timedelta(days=first.weekday())
    return CycleSchedule(days, monday, tuple(sorted(weekdays)), tuple(times), context.tz)


def _first_day(today: date, weekdays: set[int], times: list[time], context: Context) -> date:
    """The first day from today on one of ``weekdays`` with a time still ahead of now."""
    for ahead in range(8):
        day = today + timedelta(days=ahead)
        later = any(
            resolve_local(datetime.combine(day, at), context.tz) > context.now for at in times
        )
        if day.weekday() in weekdays and later:
            return day
    raise _refuse(context, "no day of it is ahead", "every day at 9am")


def _monthly(count: int, core: list[Piece], times: list[time], context: Context) -> Schedule:
    if any(isinstance(p, Weekdays) for p in core):  # "every month on mondays": which ones?
        raise _refuse(
            context,
            "it names days of the week in a monthly repetition",
            "the first monday of every month at 9am",
        )
    rule, cron_days = _month_rule(core, context)
    fields = time_fields(times)
    if count == 1 and cron_days is not None and fields is not None:
        return CronSchedule(f"{fields} {cron_days}", context.tz)
    if rule is None:
        raise _refuse(
            context,
            "several days of the month repeat only every month",
            "every month on the 1st and 15th at 9am",
        )
    return _calendar(rule, count, times, context)


def _month_rule(core: list[Piece], context: Context) -> tuple[DayRule | None, str | None]:
    """The day of the month as a calendar rule, and as cron's three day fields when cron can
    say it ("1,15 * *", "L * *", "* * 2#2"); either may be ``None``."""
    month_days = [p.ref.day for p in core if isinstance(p, Day) and isinstance(p.ref, OnMonthDay)]
    nths = [p for p in core if isinstance(p, NthWeekday)]
    last_workday = any(isinstance(p, LastWorkday) for p in core)
    others = [
        p for p in core if isinstance(p, Day) and not isinstance(p.ref, OnMonthDay | OnNthWeekday)
    ]
    with_last = len(nths) > 1 and any(nth.nth < 0 for nth in nths)  # cron says no "last" of them
    if others or sum(map(bool, (month_days, nths, last_workday))) > 1 or with_last:
        raise _refuse(
            context,
            "it names more than one kind of day in a monthly repetition",
            "the second tuesday of every month at 9am",
        )
    if last_workday:
        return DayRule("last_workday"), None
    if len(nths) > 1:  # "the 2nd and 4th tuesday": only cron says several
        said = dict.fromkeys(f"{(nth.weekday + 1) % 7}#{nth.nth}" for nth in nths)
        return None, f"* * {','.join(said)}"
    if nths:
        nth = nths[0]
        cron = f"* * {(nth.weekday + 1) % 7}#{nth.nth}" if nth.nth > 0 else None
        return DayRule("nth", nth=nth.nth, weekday=nth.weekday), cron
    if month_days:
        days = list(dict.fromkeys(month_days))
        cron_days = ",".join("L" if d == -1 else str(d) for d in days)
        if len(days) == 1 and days[0] != -1:
            # A day some months lack falls on their last day: no cron, which would skip them.
            cron = f"{cron_days} * *" if days[0] <= 28 else None
            return DayRule("day", day=days[0]), cron
        return None, f"{cron_days} * *"
    today = _first_day_said(context)
    rule = DayRule("day", day=today.day)
    return rule, (f"{today.day} * *" if today.day <= 28 else None)


def _yearly(count: int, core: list[Piece], times: list[time], context: Context) -> Schedule:
    refs = [p.ref for p in core if isinstance(p, Day)]
    if len(refs) > 1 or any(isinstance(p, NthWeekday | LastWorkday | Weekdays) for p in core):
        raise _refuse(
            context,
            "it names more than one day in a yearly repetition",
            "every year on March 3 at 9am",
        )
    rule = _year_rule(refs[0] if refs else None, context, _said_time(core, times))
    fields = time_fields(times)
    if (
        count == 1
        and rule.kind == "date"
        and fields is not None
        and (rule.month, rule.day) != (2, 29)
    ):
        return CronSchedule(f"{fields} {rule.day} {rule.month} *", context.tz)
    if count == 1 and rule.kind == "holiday" and rule.holiday in FIXED and fields is not None:
        month, day = FIXED[rule.holiday]
        return CronSchedule(f"{fields} {day} {month} *", context.tz)
    return _calendar(rule, count, times, context)


def _year_rule(ref: DayRef | None, context: Context, said: str) -> DayRule:
    if ref is None:
        today = _first_day_said(context)
        return DayRule("date", day=today.day, month=today.month)
    if isinstance(ref, OnHoliday):
        return DayRule("holiday", holiday=ref.name)
    if isinstance(ref, OnDate) and ref.year is None:
        return DayRule("date", day=ref.day, month=ref.month)
    if isinstance(ref, OnNumericDate) and ref.year is None:
        month, day = numeric_month_day(ref, context.order)
        return DayRule("date", day=day, month=month)
    if isinstance(ref, OnMonth):
        return DayRule("date", day=ref.day if ref.day > 0 else 31, month=ref.month)
    if isinstance(ref, OnMonthDay) and ref.day > 0:
        raise _refuse(
            context, "it does not say which month", f"every year on March {ordinal(ref.day)}{said}"
        )
    raise _refuse(
        context, "a day that repeats every year has no year", f"every year on March 3{said}"
    )


def _calendar(rule: DayRule, count: int, times: list[time], context: Context) -> CalendarSchedule:
    """A calendar rule counted from its first fire, the next one after now, as cycles of days
    and weeks are: "every 3 months" said on the 26th after its time fires on the 26th of next
    month, then every 3 months."""
    today = _first_day_said(context)
    anchor = date(today.year, 1, 1) if rule.yearly else today.replace(day=1)
    first = CalendarSchedule(rule, 1, anchor, tuple(times), context.tz).next_after(context.now)
    if first is not None:
        local = first.astimezone(context.tz).date()
        anchor = date(local.year, 1, 1) if rule.yearly else local.replace(day=1)
    return CalendarSchedule(rule, count, anchor, tuple(times), context.tz)


def _within_day(every: Every, core: list[Piece], bounds: _Bounds, context: Context) -> Schedule:
    """ "every 15 minutes", "every hour between 9 and 5", "every 30 minutes during work hours"."""
    step = timedelta(seconds=every.count * _WITHIN_DAY[every.unit])
    if step <= timedelta(0):
        raise _refuse(context, "the interval is zero", "every 15 minutes")
    windows = [p for p in core if isinstance(p, Window)]
    if not windows:
        if any(isinstance(p, Day | Clock | Part | Weekdays) for p in core):
            raise _refuse(
                context,
                "a repetition within the day needs the hours it runs between",
                f"every {_say_step(every)} between 9am and 5pm",
            )
        if bounds.excluded:  # an interval in elapsed time runs through every day
            raise _refuse(
                context,
                "days can be left out of a repetition within the day only between set hours",
                f"every {_say_step(every)} between 9am and 5pm except weekends",
            )
        anchor = context.now.astimezone(UTC).replace(microsecond=0) + step
        return IntervalSchedule(every=step, anchor=anchor, tz=context.tz)
    window = windows[0]
    start, end = _window_times(window.start, window.end)
    times: list[time] = []
    moment = datetime.combine(date(2000, 1, 1), start)
    stop = datetime.combine(date(2000, 1, 1), end)
    while moment <= stop and len(times) < 1440:
        times.append(moment.time())
        moment += step
    if any(at.second for at in times):
        raise _refuse(
            context,
            "repeating times are whole minutes",
            f"every {_say_step(every)} between 9am and 5pm",
        )
    days = _weekday_set(core, context) or (set(range(5)) if window.workdays else set(_ALL_DAYS))
    return _week_days_schedule(days - bounds.excluded, times, context)


def _window_times(first: ClockTime, last: ClockTime) -> tuple[time, time]:
    """The start and end of "between 9 and 5": a bare start from 7 to 11 is in the morning,
    a bare end before the start is in the afternoon ("9 to 5" is 09:00 to 17:00)."""
    start = first.at
    end = last.at
    if last.midnight:
        end = time(23, 59)
    if not last.meridiem and end <= start and end.hour < 12:
        end = end.replace(hour=end.hour + 12)
    if end <= start:
        raise ScheduleError(
            f"the window ends ({format_clock(end)}) before it starts ({format_clock(start)})"
        )
    return start, end


def _say_step(every: Every) -> str:
    return f"{every.count} {every.unit}s" if every.count != 1 else every.unit


def _delay_as_interval(delay: Delay, core: list[Piece], context: Context) -> Schedule:
    """ "30m" asked as a repeating schedule is every 30 minutes; "in 30 minutes" is a delay."""
    span = delay.span
    every = f"every {format_duration(span.total) if not span.months else f'{span.months} months'}"
    if not delay.bare:
        raise _refuse(context, "it is a one-time delay", every)
    if span.calendar or len(core) > 1:
        raise _refuse(context, "it is a length of time, not a repetition", "every 30 minutes")
    anchor = context.now.astimezone(UTC).replace(microsecond=0) + span.elapsed
    return IntervalSchedule(every=span.elapsed, anchor=anchor, tz=context.tz)


def _start(bounds: _Bounds, context: Context) -> datetime | None:
    """The first instant the repetition may fire: the start of the day "starting" names."""
    if not bounds.start:
        return None
    return _bound_instant(bounds.start, context, end=False)


def _bound_instant(pieces: list[Piece], context: Context, *, end: bool) -> datetime:
    days = [p.ref for p in pieces if isinstance(p, Day)]
    clocks = [p.time for p in pieces if isinstance(p, Clock)]
    if len(days) > 1 or len(clocks) > 1:
        raise _refuse(context, "a start or an end is one day", "every day at 9am until friday")
    today = context.now.astimezone(context.tz).date()
    day = next(iter(day_dates(days[0], today, context.order))) if days else today
    if clocks:
        # a bare hour as a repetition reads it: "starting at 3" is 15:00, "until 9" 09:00
        at = repeating_time(clocks[0], None)
        return resolve_local(datetime.combine(day, at), context.tz)
    if end:
        return resolve_local(
            datetime.combine(day + timedelta(days=1), time(0)), context.tz
        ) - timedelta(microseconds=1)
    return resolve_local(datetime.combine(day, time(0)), context.tz)


def _bounded(base: Schedule, bounds: _Bounds, start: datetime | None, context: Context) -> Schedule:
    ends = [bounds.end != [], bounds.count is not None, bounds.lasting is not None]
    if sum(ends) > 1:
        raise _refuse(
            context, "it says how long in more than one way", "every day at 9am for 10 times"
        )
    skips = _skips(bounds, context)
    if start is None and not any(ends) and not skips:
        return base
    fires = base if not skips else BoundedSchedule(base, None, None, None, context.tz, skips)
    first = fires.next_after(
        start - timedelta(microseconds=1) if start is not None else context.now
    )
    if first is None:
        raise _refuse(context, "it would never fire", "every day at 9am")
    end: datetime | None = None
    if bounds.end:
        end = _bound_instant(bounds.end, context, end=True)
    elif bounds.count is not None:
        end = _nth_fire(fires, first, bounds.count, context)
    elif bounds.lasting is not None:
        span = bounds.lasting.span
        if not span.calendar:
            end = first + span.total - timedelta(microseconds=1)
        else:
            local = first.astimezone(context.tz).date()
            stop = add_months(local, span.months) + timedelta(days=span.days)
            end = resolve_local(datetime.combine(stop, time(0)), context.tz) - timedelta(
                microseconds=1
            )
    if end is not None and end < first:
        raise _refuse(
            context,
            "it ends before it would first fire",
            "every day at 9am until friday",
        )
    return BoundedSchedule(base, start, end, bounds.count, context.tz, skips)


def _nth_fire(base: Schedule, first: datetime, count: int, context: Context) -> datetime:
    if not 1 <= count <= _MAX_COUNT:
        raise _refuse(
            context, f"a number of times is 1 to {_MAX_COUNT}", "every day at 9am for 10 times"
        )
    fire = first
    for _ in range(count - 1):
        following = base.next_after(fire)
        if following is None:
            break
        fire = following
    return fire


def cron_ranges(numbers: Iterable[int]) -> str:
    """Write sorted numbers the way cron people do: ``[1, 2, 3, 4, 5]`` as ``1-5``."""
    runs: list[list[int]] = []
    for number in numbers:
        if runs and number == runs[-1][-1] + 1:
            runs[-1].append(number)
        else:
            runs.append([number])
    parts = [f"{run[0]}-{run[-1]}" if len(run) > 2 else ",".join(map(str, run)) for run in runs]
    return ",".join(parts)


def _refuse(context: Context, problem: str, example: str) -> ScheduleError:
    return ScheduleError(
        f"could not read {context.text!r} as a repeating time: {problem}; say e.g. {example!r}"
    )

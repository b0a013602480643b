"""One-time schedules from pieces: a day and a time of day, a delay, an offset from a time.

Policy (docs/time-language.md): a date without a time fires at 09:00 local; a part of the day
without a time at its default; a bare clock time is its next occurrence, but "this evening" and
"tonight" are today's; "midnight" on a named day is the end of that day; a time in the past or
pieces that do not make one time raise ``ScheduleError`` saying what was understood and giving
one phrasing that works.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from tasks.errors import PastTimeError, ScheduleError
from tasks.schedule.clocks import (
    NIGHT_ENDS,
    ClockTime,
    Period,
    apply_period,
    bare_hour_times,
    contradicts,
    say_clock,
)
from tasks.schedule.days import (
    CheckedWeekday,
    DateOrder,
    DayRef,
    OnNthWeekday,
    OnWeekday,
    Relative,
    Shifted,
    add_months,
    day_dates,
)
from tasks.schedule.durations import Span
from tasks.schedule.grammar import shifted
from tasks.schedule.model import OnceSchedule, format_local, resolve_local
from tasks.schedule.pieces import (
    Bad,
    Clock,
    Day,
    Delay,
    Gone,
    Lasting,
    Later,
    NthWeekday,
    Offset,
    Part,
    Piece,
    SameTime,
)

ONCE_EXAMPLE = "tomorrow at 9am"
_ONE_TIME = (Clock, Part, Day, Delay, Lasting, Offset, SameTime, Later, NthWeekday)
DEFAULT_TIME = time(9)
LATER = timedelta(hours=3)
"""How far off "later today" is."""


@dataclass(frozen=True, slots=True)
class Context:
    """What the words are read against.

    Attributes:
        text: The words as the user wrote them (for messages).
        now: The current instant, aware, in UTC.
        tz: The user's zone.
        order: How the user reads a date like "4/5".
    """

    text: str
    now: datetime
    tz: ZoneInfo
    order: DateOrder = "mdy"

    @property
    def today(self) -> date:
        """Today's date in the zone."""
        return self.now.astimezone(self.tz).date()

    def refuse(self, problem: str, *, past: bool = False) -> ScheduleError:
        """An error quoting the words, saying what was wrong and what works."""
        kind = PastTimeError if past else ScheduleError
        return kind(f"could not read {self.text!r} as a time: {problem}")


def refuse_bad(pieces: list[Piece], context: Context) -> None:
    """Refuse pieces that are plainly a time that cannot be: the past, "13pm", "feb 30".

    Raises:
        ScheduleError: naming the words and a phrasing that works.
    """
    for piece in pieces:
        if isinstance(piece, Bad):
            raise context.refuse(piece.problem)
        if isinstance(piece, Gone):
            example = piece.example
            clocks = [p.time.at for p in pieces if isinstance(p, Clock)]
            if clocks and example == "tomorrow":
                example += f" at {say_clock(clocks[0])}"
            raise context.refuse(f"{piece.said!r} is in the past; say e.g. '{example}'")


def once_schedule(pieces: list[Piece], context: Context) -> OnceSchedule:
    """The one time that ``pieces`` name, resolved in the context.

    Raises:
        ScheduleError: when they name none, or more than one, or one that has passed.
    """
    refuse_bad(pieces, context)
    strays = [p for p in pieces if not isinstance(p, _ONE_TIME)]
    if strays:
        raise context.refuse(
            f"it mixes a one-time and a repeating time; say e.g. '{ONCE_EXAMPLE}' or "
            "'every day at 9am'"
        )
    offsets = [i for i, piece in enumerate(pieces) if isinstance(piece, Offset)]
    if offsets:
        return _offset_once(pieces, offsets[0], context)
    delays = [p for p in pieces if isinstance(p, Delay | Lasting)]
    if delays:
        return _delay_once(delays, pieces, context)
    same = [p for p in pieces if isinstance(p, SameTime)]
    if same:
        return _same_time_once(same[0], pieces, context)
    if any(isinstance(p, Later) for p in pieces):
        return _later_once(pieces, context)
    return _day_and_time(pieces, context)


def _day_and_time(pieces: list[Piece], context: Context) -> OnceSchedule:
    clocks = [p.time for p in pieces if isinstance(p, Clock)]
    parts = [p.period for p in pieces if isinstance(p, Part)]
    days = _one_day(pieces, context)
    if len(clocks) > 1:
        raise context.refuse(
            "it names more than one clock time; a one-time schedule has one, "
            f"e.g. 'tomorrow at {say_clock(clocks[0].at)}'"
        )
    if len(parts) > 1:
        raise context.refuse(
            f"it names more than one part of the day ({', '.join(p.name for p in parts)}); "
            f"say one, e.g. 'tomorrow {parts[0].name}'"
        )
    clock = clocks[0] if clocks else None
    period = parts[0] if parts else None
    if clock is not None and period is not None and contradicts(clock, period):
        raise context.refuse(
            f"{say_clock(clock.at)} is not in the {period.name}; say one of them, e.g. "
            f"'tomorrow at {say_clock(clock.at)}'"
        )
    at = apply_period(clock, period)
    if days is None:
        dates = _dates_without_day(context, clock, period, at)
        if dates is None:
            raise context.refuse(f"there is no day or clock time in it; say e.g. '{ONCE_EXAMPLE}'")
    else:
        dates = day_dates(days, context.today, context.order)
        late_night = period is not None and period.night and at is not None and at < NIGHT_ENDS
        if (clock is not None and clock.midnight and period is None) or late_night:
            # "friday at midnight", "tomorrow night at 2": the night after that day
            dates = (day + timedelta(days=1) for day in dates)
    times = _times(clock, period, day_named=days is not None) or [DEFAULT_TIME]
    return _first_future(context, dates, times, _later_example(clock, period, times[0]))


def _one_day(pieces: list[Piece], context: Context) -> DayRef | None:
    """The day the pieces name, or ``None``; a weekday said with a date must agree with it."""
    refs = [p.ref for p in pieces if isinstance(p, Day)]
    if any(isinstance(p, NthWeekday) for p in pieces) and not any(
        isinstance(ref, OnNthWeekday) for ref in refs
    ):
        raise context.refuse(
            "it names a weekday of every month; say e.g. 'the second tuesday of every month'"
        )
    if not refs:
        return None
    if len(refs) == 1:
        return refs[0]
    weekdays = [ref for ref in refs if isinstance(ref, OnWeekday) and ref.which == "coming"]
    others = [ref for ref in refs if ref not in weekdays]
    if len(weekdays) == 1 and len(others) == 1:
        return CheckedWeekday(others[0], weekdays[0].weekday)
    raise context.refuse(
        "it names more than one day; a one-time schedule has one day, e.g. 'friday at 9am' "
        "(for several days, say e.g. 'every monday and thursday at 9am')"
    )


def _dates_without_day(
    context: Context, clock: ClockTime | None, period: Period | None, at: time | None
) -> Iterator[date] | None:
    today = context.today
    if period is not None and period.today:
        # Tonight's early hours ("tonight at 1", "tonight at midnight") are tomorrow's.
        late = period.night and at is not None and at < NIGHT_ENDS
        return iter([today + timedelta(days=1 if late else 0)])
    if clock is None and period is None:
        return None
    return iter([today, today + timedelta(days=1)])


def _times(clock: ClockTime | None, period: Period | None, *, day_named: bool) -> list[time]:
    """The times of day the words may mean, earliest first (a bare hour may mean two)."""
    if clock is None:
        return [] if period is None else [period.default]
    if period is not None:
        at = apply_period(clock, period)
        return [] if at is None else [at]
    return sorted(bare_hour_times(clock, day_named=day_named))


def _first_future(
    context: Context, days: Iterator[date], times: list[time], example: str
) -> OnceSchedule:
    """The first of ``times`` on the first of ``days`` that is ahead of now."""
    first: datetime | None = None
    try:
        for day in days:
            for at in times:
                fire = resolve_local(datetime.combine(day, at), context.tz)
                if fire > context.now:
                    return OnceSchedule(at=fire, tz=context.tz)
                first = first or fire
    except ScheduleError as exc:
        raise context.refuse(str(exc)) from exc
    if first is None:
        raise context.refuse(f"there is no such day ahead; say e.g. '{ONCE_EXAMPLE}'")
    return future_once(context, first, example=example)


def future_once(context: Context, fire: datetime, *, example: str) -> OnceSchedule:
    """``fire`` as a one-time schedule, or a refusal when it has passed."""
    if fire <= context.now:
        raise context.refuse(
            f"that is {format_local(fire, context.tz)} ({context.tz.key}), which has already "
            f"passed (now it is {format_local(context.now, context.tz)}); "
            f"say a later time, e.g. '{example}'",
            past=True,
        )
    return OnceSchedule(at=fire, tz=context.tz)


def _later_example(clock: ClockTime | None, period: Period | None, at: time) -> str:
    """A phrasing that works when the time asked for has passed: the same time tomorrow."""
    if clock is not None:
        return f"tomorrow at {say_clock(at)}"
    if period is not None:
        return f"tomorrow {'night' if period.night else period.name}"
    return ONCE_EXAMPLE


def _delay_once(
    delays: Sequence[Delay | Lasting], pieces: list[Piece], context: Context
) -> OnceSchedule:
    """ "in 5 minutes", "in 2 months", "in 3 days at 9am": now plus the delay."""
    if len(delays) > 1 or any(isinstance(p, Day) for p in pieces):
        raise context.refuse(
            f"it says more than one when; say e.g. 'in 5 minutes' or '{ONCE_EXAMPLE}'"
        )
    span = delays[0].span
    has_time = any(isinstance(p, Clock | Part) for p in pieces)
    if has_time:
        if not span.calendar:
            raise context.refuse(
                "a delay in hours or minutes cannot be combined with a clock time; "
                "say e.g. 'in 2 hours' or 'tomorrow at 9am'"
            )
        moved = Day(_shift_today(span))
        rest = [p if not isinstance(p, Delay | Lasting) else moved for p in pieces]
        return _day_and_time(rest, context)
    return _delay_from_now(span, context)


def _shift_today(span: Span) -> DayRef:
    return Shifted(Relative(0), days=span.days, months=span.months)


def _delay_from_now(span: Span, context: Context) -> OnceSchedule:
    start = context.now.replace(microsecond=0)
    if span.days or span.months:
        local = start.astimezone(context.tz).replace(tzinfo=None)
        moved_date = add_months(local.date(), span.months) + timedelta(days=span.days)
        start = resolve_local(datetime.combine(moved_date, local.time()), context.tz)
    fire = start + span.elapsed
    if fire <= context.now:
        raise context.refuse("the delay is zero; say e.g. 'in 5 minutes'")
    return OnceSchedule(at=fire, tz=context.tz)


def _same_time_once(same: SameTime, pieces: list[Piece], context: Context) -> OnceSchedule:
    if len(pieces) > 1:
        raise context.refuse("'this time ...' is already a whole time; say it alone")
    return _delay_from_now(Span(days=same.days, elapsed=timedelta(0), months=same.months), context)


def _later_once(pieces: list[Piece], context: Context) -> OnceSchedule:
    if len(pieces) > 1:
        raise context.refuse("'later' is already a whole time; say e.g. 'in 3 hours'")
    fire = context.now.replace(microsecond=0) + LATER
    if fire.astimezone(context.tz).date() != context.today:
        raise context.refuse("later today would be tomorrow already; say a time, e.g. 'at 11pm'")
    return OnceSchedule(at=fire, tz=context.tz)


def _offset_once(pieces: list[Piece], index: int, context: Context) -> OnceSchedule:
    """ "10 minutes before 6pm", "a week from friday", "3 days before christmas"."""
    offset = pieces[index]
    assert isinstance(offset, Offset)
    anchor = pieces[index + 1 :]
    if index != 0 or not anchor:
        raise context.refuse(
            "a span before or after needs the time it is counted from; say e.g. "
            "'10 minutes before 6pm' or 'a week from friday'"
        )
    days = [p for p in anchor if isinstance(p, Day)]
    if offset.span.calendar and days:
        moved = [shifted(p, offset) if isinstance(p, Day) else p for p in anchor]
        return _day_and_time(moved, context)
    span = offset.span.total if not offset.span.months else None
    if span is None:
        raise context.refuse("months before or after a time need a day, e.g. 'a month from friday'")
    shift = -span if offset.before else span
    base = once_schedule(anchor, replace(context, now=context.now - shift))
    example = f"{'10 minutes before' if offset.before else '10 minutes after'} 9pm"
    return future_once(context, base.at + shift, example=example)


def aware(now: datetime, tz: ZoneInfo) -> datetime:
    """``now`` as an aware UTC instant; a naive value is local wall time in ``tz``.

    Raises:
        ScheduleError: when it is not a datetime or is out of range.
    """
    if not isinstance(now, datetime):
        raise ScheduleError(f"now must be a datetime, got {now!r}")
    # Arithmetic on an aware datetime in a ZoneInfo zone is wall-clock arithmetic: work in UTC.
    try:
        return now.astimezone(UTC) if now.utcoffset() is not None else resolve_local(now, tz)
    except OverflowError:
        raise ScheduleError(
            f"now {now.isoformat()!r} is outside the range of times that can be scheduled"
        ) from None

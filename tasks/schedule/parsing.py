"""Turn the user's words ("tomorrow at 9am", "weekdays 6pm", "0 9 * * 1-5") into a Schedule.

Policy (DESIGN.md): a date without a time fires at 09:00 local; a part of the day without a
time at its default (``PERIOD_DEFAULTS``: morning 09:00, afternoon 15:00, evening 19:00,
night 20:00); a bare clock time is its next occurrence, but "this evening" and "tonight" are
today's; local wall times follow the DST policy of ``tasks.schedule``; a time in the past or
words that cannot be understood raise ``ScheduleError`` saying what was understood and giving
one phrasing that works, built from the words when they allow it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from tasks.errors import PastTimeError, ScheduleError
from tasks.schedule.model import (
    CronSchedule,
    OnceSchedule,
    Schedule,
    format_local,
    resolve_local,
    zone_from_name,
)
from tasks.schedule.phrases import (
    NIGHT_ENDS,
    ORDINAL_WORDS,
    WEEKDAYS,
    ClockTime,
    MonthDay,
    Period,
    apply_period,
    bare_hour_times,
    normalize,
    read_duration,
    read_month_day,
    read_ordinal_day,
    say_clock,
    take_clock_times,
    take_period,
)
from tasks.schedule.recurring import parse_recurring

ONCE_EXAMPLE = "tomorrow at 9am"
DEFAULT_TIME = time(9)
MAX_LENGTH = 200
_CRON_LIKE = re.compile(
    r"[\d*/,\-?]+ [\d*/,\-?]+ [\d*/,\-?lw]+ [\d*/,\-a-z?]+ [\d*/,\-a-z#?l]+",
    re.IGNORECASE | re.ASCII,
)
# Near misses (a field too many or too few) still go to the cron reader for a precise refusal.
_CRON_NEAR = re.compile(r"[\d*/,\-]+(?: [\d*/,\-?a-z#]+){3,6}", re.IGNORECASE | re.ASCII)
_ISO_LIKE = re.compile(
    r"\d{4}-\d{2}-\d{2}(?:[t ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:z|[+-]\d{2}(?::?\d{2})?)?)?",
    re.IGNORECASE | re.ASCII,
)
_RECURRING_WORDS = re.compile(
    r"\b(?:every|each|daily|everyday|nightly|hourly|weekly|monthly|yearly|annually"
    r"|fortnightly|biweekly|bi-weekly"
    r"|weekdays|weekends|workdays|(?:mon|tues|wednes|thurs|fri|satur|sun)days)\b"
)
_DELAY = re.compile(r"(?:in |after )?(?P<span>.+?)(?: from now| later)?")
_NEGATIVE_DELAY = re.compile(r"(?:in |after )?-\s*(?P<span>\d.*?)(?: from now| later)?")
_NEXT_WEEKDAY = re.compile(rf"(?P<next>next )?(?P<name>{'|'.join(WEEKDAYS)})")
_ORDINAL = r"\d{1,2}(?:st|nd|rd|th)?|" + "|".join(sorted(ORDINAL_WORDS, key=len, reverse=True))
_NEXT_MONTH_DAY = re.compile(
    rf"(?:(?P<day>{_ORDINAL}|lastday) (?P<which>next|this) month"
    rf"|(?P<which2>next|this) month (?:on )?(?P<day2>{_ORDINAL}|lastday))"
)
_LAST_DAY = re.compile(r"\blast day\b")
_OFFSET = re.compile(r"(?P<span>.+?) (?P<way>before|after) (?P<rest>.+)")
_WEEKEND = frozenset({"weekend", "this weekend", "the weekend", "weekend coming"})
_GONE = re.compile(
    rf"\b(?:yesterday|last (?:night|week|month|year|{'|'.join(WEEKDAYS)})"
    r"|(?P<span>\S+ \S+) ago)\b"
)
_FILLER = frozenset({"on", "at", "the", "of", "this", "coming", "for"})
_ISO_LEAD = re.compile(r"^(?:on|at|for)\s+(?=\d{4}-)", re.IGNORECASE)
_NOT_FILLER_BEFORE_MONTH = frozenset({"this"})


def parse_schedule(
    text: str, *, now: datetime, tz: ZoneInfo | str, recurring: bool | None = None
) -> Schedule:
    """Read a schedule phrase, resolving it in the time zone ``tz`` as of ``now``.

    Args:
        text: The user's words, an ISO 8601 time or a five-field cron expression.
        now: The current instant; a naive value is read as local wall time in ``tz``.
        tz: The IANA zone (or its name) in which the words are meant.
        recurring: ``None`` to infer; ``True`` when it must repeat ("monday 10am" then means
            every Monday); ``False`` when it must be one time.

    Raises:
        ScheduleError: with what was understood and a phrasing that works.
    """
    if not isinstance(text, str):
        raise ScheduleError(f"a schedule must be text, got {text!r}; say e.g. '{ONCE_EXAMPLE}'")
    if len(text) > MAX_LENGTH:
        raise ScheduleError(
            f"the schedule {text[:40]!r}... is {len(text)} characters long; a schedule is a "
            f"short phrase (at most {MAX_LENGTH} characters), e.g. '{ONCE_EXAMPLE}'"
        )
    zone = tz if isinstance(tz, ZoneInfo) else zone_from_name(tz)
    context = _Context(text=text, now=_aware(now, zone), tz=zone)
    try:
        schedule = _parse(context, recurring)
    except OverflowError as exc:
        raise context.refuse("it is too far from now; say e.g. 'in 5 minutes'") from exc
    except ScheduleError as exc:
        if repr(text) in str(exc):
            raise
        raise context.refuse(str(exc)) from exc
    if recurring is False and schedule.kind == "recurring":
        raise ScheduleError(
            f"{text!r} repeats ({schedule.describe()}), but a one-time schedule is needed; "
            f"say e.g. '{ONCE_EXAMPLE}'"
        )
    if recurring is True and schedule.kind == "once":
        raise context.refuse(
            f"it happens once ({schedule.describe()}), but a repeating schedule is needed; "
            "say e.g. 'every weekday at 9am'"
        )
    return schedule


@dataclass(frozen=True, slots=True)
class _Context:
    text: str
    now: datetime
    tz: ZoneInfo

    @property
    def today(self) -> date:
        return self.now.astimezone(self.tz).date()

    def refuse(self, problem: str, *, past: bool = False) -> ScheduleError:
        kind = PastTimeError if past else ScheduleError
        return kind(f"could not read {self.text!r} as a time: {problem}")


def _aware(now: datetime, tz: ZoneInfo) -> datetime:
    if not isinstance(now, datetime):
        raise ScheduleError(f"now must be a datetime, got {now!r}")
    # Arithmetic on an aware datetime in a ZoneInfo zone is wall-clock arithmetic: work in UTC.
    try:
        return now.astimezone(UTC) if now.utcoffset() is not None else resolve_local(now, tz)
    except OverflowError:
        raise ScheduleError(
            f"now {now.isoformat()!r} is outside the range of times that can be scheduled"
        ) from None


def _parse(context: _Context, recurring: bool | None) -> Schedule:
    stripped = context.text.strip().rstrip(".!?;")
    if not stripped:
        raise ScheduleError(
            f"the schedule {context.text!r} is empty; say e.g. 'in 5 minutes' or "
            "'every weekday at 9am'"
        )
    fields = " ".join(stripped.split())
    if _CRON_LIKE.fullmatch(fields) or ("*" in fields and _CRON_NEAR.fullmatch(fields)):
        return CronSchedule(stripped, context.tz)
    iso = _ISO_LEAD.sub("", stripped)  # "on 2026-04-01T09:00" is that ISO time
    if _ISO_LIKE.fullmatch(iso):
        return _iso_once(context, iso)
    words = normalize(stripped)
    if recurring or _RECURRING_WORDS.search(words):
        return parse_recurring(words, context.text, now=context.now, tz=context.tz)
    return _parse_once(context, words)


def _iso_once(context: _Context, stripped: str) -> OnceSchedule:
    try:
        if len(stripped) == len("2026-01-01"):
            wall = datetime.combine(date.fromisoformat(stripped), DEFAULT_TIME)
        else:
            wall = datetime.fromisoformat(stripped.upper())
    except ValueError as exc:
        raise context.refuse(
            f"it looks like an ISO 8601 time but is not valid ({exc}); say e.g. '2026-11-23T14:35'"
        ) from exc
    fire = wall if wall.utcoffset() is not None else resolve_local(wall, context.tz)
    return _future_once(context, fire, example=ONCE_EXAMPLE)


def _parse_once(context: _Context, words: str) -> OnceSchedule:
    _refuse_negative_delay(context, words)
    _refuse_the_past(context, words)
    delay = _DELAY.fullmatch(words)
    span = read_duration(delay["span"]) if delay else None
    if span is not None:
        return _delay_once(context, span.days, span.elapsed)
    if (offset := _offset_once(context, words)) is not None:
        return offset
    clocks, rest = take_clock_times(words)
    if len(clocks) > 1:
        raise context.refuse(
            "it names more than one clock time; a one-time schedule has one, "
            f"e.g. 'tomorrow at {say_clock(clocks[0].at)}'"
        )
    period, rest = take_period(rest)
    days = _candidate_days(
        context, rest, period, apply_period(clocks[0] if clocks else None, period)
    )
    times = _times(clocks, period, day_named=days is not None)
    if days is None:
        if not times:
            raise context.refuse(f"there is no day or clock time in it; say e.g. '{ONCE_EXAMPLE}'")
        days = _from_today(context.today, step=timedelta(days=1))
    times = times or [DEFAULT_TIME]
    return _first_future(context, days, times, _later_example(clocks, period, times[0]))


def _times(clocks: list[ClockTime], period: Period | None, *, day_named: bool) -> list[time]:
    """The times of day the words may mean, earliest first (a bare hour may mean two)."""
    if not clocks:
        return [] if period is None else [period.default]
    if period is not None:
        at = apply_period(clocks[0], period)
        return [] if at is None else [at]
    return sorted(bare_hour_times(clocks[0], day_named=day_named))


def _offset_once(context: _Context, words: str) -> OnceSchedule | None:
    """ "10 minutes before 6pm", "an hour after midnight": a time moved by a duration."""
    match = _OFFSET.fullmatch(words)
    span = read_duration(match["span"]) if match else None
    if match is None or span is None:
        return None
    base = _parse_once(_Context(match["rest"], context.now - span.total, context.tz), match["rest"])
    moved = span.total if match["way"] == "after" else -span.total
    return _future_once(context, base.at + moved, example=f"{match['span']} {match['way']} 9pm")


def _refuse_negative_delay(context: _Context, words: str) -> None:
    negative = _NEGATIVE_DELAY.fullmatch(words)
    if negative is None:
        return
    span = read_duration(negative["span"])
    if span is not None:
        raise context.refuse(f"that is in the past; say e.g. 'in {negative['span']}'")


def _refuse_the_past(context: _Context, words: str) -> None:
    """ "yesterday", "last friday", "2 days ago": in the past whatever the clock says."""
    gone = _GONE.search(words)
    if gone is None:
        return
    span = gone["span"]
    if span is not None and read_duration(span) is None:
        return
    example = f"in {span}" if span else "tomorrow"
    clocks, _ = take_clock_times(words)
    if clocks and not span:
        example += f" at {say_clock(clocks[0].at)}"
    raise context.refuse(f"{gone[0]!r} is in the past; say e.g. '{example}'")


def _delay_once(context: _Context, days: int, elapsed: timedelta) -> OnceSchedule:
    start = context.now.replace(microsecond=0)
    if days:
        local = start.astimezone(context.tz).replace(tzinfo=None)
        start = resolve_local(local + timedelta(days=days), context.tz)
    fire = start + elapsed
    if fire <= context.now:
        raise context.refuse("the delay is zero; say e.g. 'in 5 minutes'")
    return OnceSchedule(at=fire, tz=context.tz)


def _later_example(clocks: list[ClockTime], period: Period | None, at: time) -> str:
    """A phrasing that works when the time asked for has passed: the same time tomorrow."""
    if clocks:
        return f"tomorrow at {say_clock(at)}"
    if period is not None:
        return f"tomorrow {'night' if period.night else period.name}"
    return ONCE_EXAMPLE


def _first_future(
    context: _Context, days: Iterator[date], times: list[time], example: str
) -> OnceSchedule:
    """The first of ``times`` on the first of ``days`` that is ahead of now."""
    first: datetime | None = None
    for day in days:
        for at in times:
            fire = resolve_local(datetime.combine(day, at), context.tz)
            if fire > context.now:
                return OnceSchedule(at=fire, tz=context.tz)
            first = first or fire
    if first is None:
        raise context.refuse(f"there is no such day ahead; say e.g. '{ONCE_EXAMPLE}'")
    return _future_once(context, first, example=example)


def _future_once(context: _Context, fire: datetime, *, example: str) -> OnceSchedule:
    if fire <= context.now:
        raise context.refuse(
            f"that is {format_local(fire, context.tz)} ({context.tz.key}), which has already "
            f"passed (now it is {format_local(context.now, context.tz)}); "
            f"say a later time, e.g. '{example}'",
            past=True,
        )
    return OnceSchedule(at=fire, tz=context.tz)


def _candidate_days(
    context: _Context, rest: str, period: Period | None, at: time | None
) -> Iterator[date] | None:
    """The dates ``rest`` may mean, earliest first (a weekday: this one, then next week's)."""
    rest = _LAST_DAY.sub("lastday", rest)
    words = " ".join(word for word in rest.split() if word not in _FILLER)
    today = context.today
    if not words:
        if period is not None and period.today:
            # Tonight's early hours ("tonight at 1", "tonight at midnight") are tomorrow's.
            late = period.night and at is not None and at < NIGHT_ENDS
            return iter([today + timedelta(days=1 if late else 0)])
        return None
    fixed = {"today": 0, "tomorrow": 1, "day after tomorrow": 2, "after tomorrow": 2}
    if words in fixed:
        return iter([today + timedelta(days=fixed[words])])
    if match := _NEXT_WEEKDAY.fullmatch(words):
        ahead = (WEEKDAYS[match["name"]] - today.weekday()) % 7
        if match["next"] and ahead == 0:
            ahead = 7
        return _from_today(today + timedelta(days=ahead), step=timedelta(days=7))
    if month_day := read_month_day(words):
        return _yearly(today, month_day)
    if (day := read_ordinal_day(words)) is not None:
        return _monthly(today, day)
    if words == "lastday" or words == "lastday month":
        return _last_days(today)
    if words in _WEEKEND:
        # The coming Saturday, or today when the weekend has begun.
        return iter([today + timedelta(days=max(0, 5 - today.weekday()))])
    if (month := _month_and_day(context, rest)) is not None:
        return iter([month])
    return _days_ahead(context, words, at)


def _month_and_day(context: _Context, rest: str) -> date | None:
    """ "the 3rd of next month", "next month on the 15th", "the last day of this month"."""
    words = " ".join(w for w in rest.split() if w not in _FILLER - _NOT_FILLER_BEFORE_MONTH)
    match = _NEXT_MONTH_DAY.fullmatch(words)
    if match is None:
        return None
    which, said = match["which"] or match["which2"], match["day"] or match["day2"]
    today = context.today
    year, month = today.year, today.month
    if which == "next":
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    last = _month_length(year, month)
    if said == "lastday":
        return date(year, month, last)
    day = read_ordinal_day(said)
    assert day is not None  # the pattern only matches ordinals
    if day > last:
        raise context.refuse(
            f"that month has no day {day} (it has {last} days); "
            f"say e.g. 'the {last}th of {which} month'"
        )
    return date(year, month, day)


def _days_ahead(context: _Context, words: str, at: time | None) -> Iterator[date]:
    delay = _DELAY.fullmatch(words)
    span = read_duration(delay["span"]) if delay else None
    if span is not None and span.days and not span.elapsed:
        return iter([context.today + timedelta(days=span.days)])
    if span is not None:
        raise context.refuse(
            f"a delay ({words!r}) cannot be combined with a clock time; "
            f"say e.g. 'in {delay['span'] if delay else words}'"
        )
    clock = f" at {say_clock(at)}" if at is not None else ""
    hints = {
        "next week": "next monday",
        "week": "next monday",
        "next month": "the 1st of next month",
    }
    hint = hints.get(words, "tomorrow")
    raise context.refuse(
        f"did not understand {words!r} as a day; say e.g. '{hint}{clock or ' at 9am'}'"
    )


def _from_today(first: date, *, step: timedelta) -> Iterator[date]:
    yield first
    yield first + step


def _yearly(today: date, month_day: MonthDay) -> Iterator[date]:
    if month_day.year is not None:
        yield month_day.on_year(month_day.year)
        return
    found = 0
    for year in range(today.year, today.year + 9):
        if year > 9999:
            break
        try:
            candidate = date(year, month_day.month, month_day.day)
        except ValueError:
            continue
        if candidate >= today:
            yield candidate
            found += 1
            if found == 2:
                return
    if not found:
        month_day.on_year(today.year)  # raises: that day does not exist


def _monthly(today: date, day: int) -> Iterator[date]:
    year, month = today.year, today.month
    for _ in range(14):
        try:
            candidate = date(year, month, day)
        except ValueError:
            candidate = None
        if candidate is not None and candidate >= today:
            yield candidate
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)


def _last_days(today: date) -> Iterator[date]:
    """The last day of this month, then of the next one."""
    year, month = today.year, today.month
    for _ in range(2):
        yield date(year, month, _month_length(year, month))
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)


def _month_length(year: int, month: int) -> int:
    following = date(year + 1, 1, 1) if month == 12 else date(year, month + 1, 1)
    return (following - timedelta(days=1)).day

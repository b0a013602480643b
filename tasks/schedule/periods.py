"""Periods: "this week", "next month", "the week after next", "in december", "the next 3 days"
as a span of time.

``find_period`` says whether words name a period (no date is computed: the offline planner
uses it to hand the words on); ``read_period`` turns them into a ``Period`` in a zone, from
an instant. A single day ("today", "friday", "March 3") is a period of one day, read by
``parse_schedule``. Weeks run Monday to Sunday; a weekend is Saturday and Sunday; a named
month is its next occurrence (the current one while it lasts: "in march" said on March 10 is
the rest of this March).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from common import LazyPattern
from tasks.errors import ScheduleError
from tasks.schedule.model import OnceSchedule, resolve_local
from tasks.schedule.parsing import parse_schedule

_MONTHS = (
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december",
)  # fmt: skip
_MONTH_WORDS = {name: number for number, name in enumerate(_MONTHS, start=1)} | {
    name[:3]: number for number, name in enumerate(_MONTHS, start=1)
}
_COUNTS = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7}
_MONTH = "|".join(sorted(_MONTH_WORDS, key=len, reverse=True))
_PERIOD = LazyPattern(
    r"(?:(?:in|for|during|over|on|within|of)\s+)?(?:the\s+)?(?:"
    r"(?P<which>this|next|current|coming)?\s*(?P<unit>week|weekend|month|year)"
    r"(?P<after>\s+after\s+next)?"
    r"|(?P<month>" + _MONTH + r")\.?(?:\s+(?:of\s+)?(?P<year>\d{4}))?"
    r"|(?:next|coming|following)\s+(?P<count>\d{1,3}|" + "|".join(_COUNTS) + r")\s+"
    r"(?P<span>days?|weeks?)"
    r")",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Period:
    """A span of time the user named.

    Attributes:
        start: Its first instant (UTC).
        end: The instant after its last one (UTC).
        label: The period said for people, with its dates: ``this week (Mon 2026-03-09
            to Sun 2026-03-15)``, ``December 2026``, ``tomorrow (Wed 2026-03-11)``.
    """

    start: datetime
    end: datetime
    label: str

    def __contains__(self, instant: object) -> bool:
        return isinstance(instant, datetime) and self.start <= instant < self.end


def find_period(text: str) -> str | None:
    """The words of ``text`` when all of them name a period of several days ("this week",
    "next month", "in december", "the next 3 days"); ``None`` otherwise (a single day is
    ``find_time``'s)."""
    words = " ".join(text.split()).strip(" ,.?!")
    return words if _PERIOD.fullmatch(words) is not None else None


def read_period(text: str, *, now: datetime, tz: ZoneInfo) -> Period:
    """The period ``text`` names, read at ``now`` in ``tz``: several days (``find_period``)
    or one day ("today", "tomorrow", "friday", "March 3").

    Raises:
        ScheduleError: when the words name neither, saying what would work.
    """
    words = " ".join(text.split()).strip(" ,.?!")
    today = now.astimezone(tz).date()
    match = _PERIOD.fullmatch(words)
    if match is not None:
        first, last, label = _span(match, today)
        return _period(first, last, label, tz)
    return _one_day(words, now=now, tz=tz)


def _span(match: re.Match[str], today: date) -> tuple[date, date, str]:
    """The first and last day of a period, and its label."""
    if match["month"] is not None:
        month = _MONTH_WORDS[match["month"].lower()]
        year = int(match["year"]) if match["year"] else _next_year_of(month, today)
        first = date(year, month, 1)
        return first, _month_end(first), first.strftime("%B %Y")
    if match["count"] is not None:
        count = _COUNTS.get(match["count"].lower()) or int(match["count"])
        days = count * (7 if match["span"].lower().startswith("week") else 1)
        if days < 1 or days > 366:
            raise ScheduleError(
                f"{match[0]!r} is not a span I can list; say e.g. 'the next 3 days'"
            )
        last = today + timedelta(days=days - 1)
        return today, last, f"the next {_plural(count, match['span'])} ({_dates(today, last)})"
    # how many weeks (months, years) ahead: this 0, next 1, "the week after next" 2
    ahead = 2 if match["after"] else int((match["which"] or "this").lower() in ("next", "coming"))
    which = ("this", "next", "the")[ahead]
    unit = match["unit"].lower()
    said = f"{which} {unit}" + (" after next" if match["after"] else "")
    if unit == "week":
        first = today - timedelta(days=today.weekday()) + timedelta(weeks=ahead)
        last = first + timedelta(days=6)
    elif unit == "weekend":
        saturday = today + timedelta(days=(5 - today.weekday()) % 7)
        if today.weekday() == 6:  # on a Sunday, "this weekend" is the one under way
            saturday = today - timedelta(days=1)
        first = saturday + timedelta(weeks=ahead)
        last = first + timedelta(days=1)
    elif unit == "month":
        first = today.replace(day=1)
        for _ in range(ahead):
            first = _month_end(first) + timedelta(days=1)
        last = _month_end(first)
        return first, last, f"{said} ({first.strftime('%B %Y')})"
    else:
        first = date(today.year + ahead, 1, 1)
        last = date(first.year, 12, 31)
        return first, last, f"{said} ({first.year})"
    return first, last, f"{said} ({_dates(first, last)})"


def _one_day(words: str, *, now: datetime, tz: ZoneInfo) -> Period:
    """One local day, named the way a reminder's day is ("tomorrow", "friday")."""
    midnight = resolve_local(datetime.combine(now.astimezone(tz).date(), time()), tz)
    try:
        schedule = parse_schedule(words, now=midnight, tz=tz, recurring=False)
    except ScheduleError as exc:
        raise ScheduleError(
            f"{exc}; to list tasks, name a day or a period, e.g. 'today', 'friday', "
            "'this week', 'next month' or 'in december'"
        ) from None
    assert isinstance(schedule, OnceSchedule)  # recurring=False reads one time
    day = schedule.at.astimezone(tz).date()
    today = now.astimezone(tz).date()
    label = f"{day.strftime('%a')} {day.isoformat()}"
    if day == today:
        label = f"today ({label})"
    elif day == today + timedelta(days=1):
        label = f"tomorrow ({label})"
    return _period(day, day, label, tz)


def _period(first: date, last: date, label: str, tz: ZoneInfo) -> Period:
    start = resolve_local(datetime.combine(first, time()), tz)
    end = resolve_local(datetime.combine(last + timedelta(days=1), time()), tz)
    return Period(start=start, end=end, label=label)


def _next_year_of(month: int, today: date) -> int:
    """The year of the next occurrence of ``month`` (this year's while it lasts)."""
    return today.year if month >= today.month else today.year + 1


def _month_end(first: date) -> date:
    following = date(first.year + first.month // 12, first.month % 12 + 1, 1)
    return following - timedelta(days=1)


def _dates(first: date, last: date) -> str:
    return f"{first.strftime('%a')} {first.isoformat()} to {last.strftime('%a')} {last.isoformat()}"


def _plural(count: int, span: str) -> str:
    unit = span.lower().rstrip("s")
    return f"{count} {unit}{'s' if count != 1 else ''}"

"""Lengths of time: "5 minutes", "an hour and a half", "2.5 hours", "a fortnight", "3 months".

``SPAN`` is the grammar's pattern for a length of time over canonical tokens (``tokens``);
``span_of`` turns what it matched into a ``Span``. ``read_duration`` and ``read_delay`` read
whole texts ("10m", "in 10 minutes", "by half an hour") for callers outside the grammar.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import timedelta

from common import LazyPattern
from tasks.errors import ScheduleError
from tasks.schedule.lexicon import UNITS
from tasks.schedule.tokens import canonical, tokenize


@dataclass(frozen=True, slots=True)
class Span:
    """A length of time: calendar months and days (added on the wall clock) plus elapsed time.

    Attributes:
        days: Whole days, from day, week and fortnight units.
        elapsed: Everything else, as real elapsed time.
        months: Whole calendar months, from month, quarter and year units.
    """

    days: int
    elapsed: timedelta
    months: int = 0

    @property
    def total(self) -> timedelta:
        """The whole span as elapsed time (a span in months has none: it is refused)."""
        if self.months:
            raise ScheduleError("a length in months or years has no fixed number of days")
        return timedelta(days=self.days) + self.elapsed

    @property
    def calendar(self) -> bool:
        """Whether it is whole days or months only, which move a date and keep the clock."""
        return not self.elapsed and bool(self.days or self.months)


_UNIT_WORDS = "|".join(sorted(map(re.escape, UNITS), key=len, reverse=True))
_AMOUNT = r"(?:\d+(?:\.\d+)?|an?)"
_TERM = rf"{_AMOUNT} (?:{_UNIT_WORDS})(?=$| )(?: and a half)?"
_SPELLED = (
    r"(?:an? )?half (?:an? )?(?:hour|day|minute|year)(?=$| )",
    r"(?:an? )?quarter (?:of )?an? hour(?=$| )",
    r"(?:an? )?quarter hour(?=$| )",
)
SPAN = (
    rf"(?:(?:{'|'.join(_SPELLED)})|{_TERM})"
    rf"(?:(?: and|,)? (?:(?:{'|'.join(_SPELLED)})|{_TERM}))*"
)
"""A length of time over canonical tokens: "5 minutes", "1 hour 30 minutes", "half an hour",
"an hour and a half", "2.5 hours", "a fortnight"."""
_SPAN_RE = LazyPattern(SPAN)
_PIECE = LazyPattern(
    rf"(?P<half>(?:an? )?half (?:an? )?(?P<hu>hour|day|minute|year))"
    rf"|(?P<quarter>(?:an? )?quarter (?:(?:of )?an? )?hour)"
    rf"|(?P<amount>{_AMOUNT}) (?P<unit>{_UNIT_WORDS})(?=$| )(?P<andhalf> and a half)?"
)
_SECONDS = {"second": 1, "minute": 60, "hour": 3600}
_DAYS = {"day": 1, "week": 7, "fortnight": 14}
_MONTHS = {"month": 1, "quarter": 3, "year": 12}


def span_of(words: str) -> Span:
    """The ``Span`` of canonical words that ``SPAN`` matched.

    Raises:
        ScheduleError: when it cannot be one span (a part of a month, an overflow).
    """
    days = 0.0
    seconds = 0.0
    months = 0.0
    for piece in _PIECE.finditer(words):
        if piece["half"]:
            unit, amount = piece["hu"], 0.5
        elif piece["quarter"]:
            unit, amount = "hour", 0.25
        else:
            unit = UNITS[piece["unit"]]
            amount = 1.0 if piece["amount"] in {"a", "an"} else float(piece["amount"])
            if piece["andhalf"]:
                amount += 0.5
        if unit in _MONTHS:
            months += amount * _MONTHS[unit]
        elif unit in _DAYS:
            days += amount * _DAYS[unit]
        else:
            seconds += amount * _SECONDS[unit]
    if not months.is_integer():
        raise ScheduleError(
            f"{words!r} is not a whole number of months; say e.g. 'in 2 weeks' or 'in 1 month'"
        )
    if not days.is_integer():
        seconds += days * 86400
        days = 0.0
    try:
        return Span(days=int(days), elapsed=timedelta(seconds=seconds), months=int(months))
    except OverflowError as exc:
        raise ScheduleError(f"{words!r} is too far from now; say e.g. 'in 5 minutes'") from exc


def read_duration(text: str) -> Span | None:
    """Read ``text`` as a whole duration ("5m", "1 hour and 15 minutes"), or ``None``."""
    if not isinstance(text, str) or len(text) > 100:
        return None
    words = canonical(tokenize(text))
    if not _SPAN_RE.fullmatch(words):
        return None
    return span_of(words)


_DELAY_LEAD = LazyPattern(r"^(?:(?:in|by|for|after|within) )?(?:another |an extra )?")


def read_delay(text: str) -> Span | None:
    """Read a delay the way people say one: "10m", "in 10 minutes", "by half an hour", "for
    an hour and a half", "another 5 minutes"; ``None`` when the words are not one, or when
    they are whole months, which have no fixed length."""
    if not isinstance(text, str) or len(text) > 100:
        return None
    words = _DELAY_LEAD.sub("", canonical(tokenize(text)), count=1)
    if not _SPAN_RE.fullmatch(words):
        return None
    try:
        span = span_of(words)
    except ScheduleError:
        return None
    return None if span.months else span


def format_duration(span: timedelta) -> str:
    """Say a duration in the largest whole unit: ``2 hours``, ``90 seconds``, ``1 week``."""
    seconds = span.total_seconds()
    for unit, size in (("week", 604800), ("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size and seconds % size == 0:
            count = int(seconds // size)
            return f"{count} {unit}" if count == 1 else f"{count} {unit}s"
    count_text = f"{seconds:g}"
    return f"{count_text} second" if seconds == 1 else f"{count_text} seconds"

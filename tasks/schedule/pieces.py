"""The pieces a time expression is made of: what each rule of the grammar reads.

A phrase is a sequence of pieces ("every monday" + "at 9am", "in 10 minutes", "tomorrow" +
"morning"), with filler words between them ("on", "at", "the"). ``tasks.schedule.once`` and
``tasks.schedule.repeat`` combine them into a schedule, or refuse a combination that does not
make one (two different days, a delay and a clock time, ...).
"""

from __future__ import annotations

from dataclasses import dataclass

from tasks.schedule.clocks import ClockTime, Period
from tasks.schedule.days import DayRef
from tasks.schedule.durations import Span


class Piece:
    """One piece of a time expression (the subclasses say which)."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class Clock(Piece):
    """A clock time: "9am", "17:45", "noon", "quarter past eight", "seven fifteen"."""

    time: ClockTime


@dataclass(frozen=True, slots=True)
class Part(Piece):
    """A part of the day: "morning", "this evening", "tonight", "in the afternoon"."""

    period: Period


@dataclass(frozen=True, slots=True)
class Day(Piece):
    """A day: "tomorrow", "friday", "March 3", "the 15th", "easter", "next week"."""

    ref: DayRef


@dataclass(frozen=True, slots=True)
class Delay(Piece):
    """A delay from now: "in 5 minutes", "5 minutes from now", "in 2 months", "10m"."""

    span: Span
    bare: bool = False
    """Whether it said no "in"/"from now" ("10 minutes"): mid-sentence that is how long."""


@dataclass(frozen=True, slots=True)
class Offset(Piece):
    """A span before or after what follows: "10 minutes before" 6pm, "a week from" friday."""

    span: Span
    before: bool


@dataclass(frozen=True, slots=True)
class SameTime(Piece):
    """ "this time tomorrow", "this time next week": now's clock time, days ahead."""

    days: int
    months: int = 0


@dataclass(frozen=True, slots=True)
class Later(Piece):
    """ "later", "later today": a few hours from now, still today."""


@dataclass(frozen=True, slots=True)
class Gone(Piece):
    """Words for the past ("yesterday", "last friday", "2 days ago"): always refused.

    Attributes:
        said: The words, as the refusal quotes them.
        example: A phrasing for the future that works ("tomorrow", "in 2 days").
    """

    said: str
    example: str


@dataclass(frozen=True, slots=True)
class Every(Piece):
    """A repeating unit: "every 15 minutes", "daily", "every other day", "monthly"."""

    count: int
    unit: str  # second, minute, hour, day, week, month, year


@dataclass(frozen=True, slots=True)
class Repeat(Piece):
    """ "every" / "each" before a day it repeats: "every friday", "every March 3"."""


@dataclass(frozen=True, slots=True)
class Weekdays(Piece):
    """Days of the week that repeat: "mondays", "weekdays", "every monday and thursday"."""

    days: frozenset[int]


@dataclass(frozen=True, slots=True)
class NthWeekday(Piece):
    """ "the second tuesday" (of every month); ``nth`` -1 is the last one."""

    nth: int
    weekday: int


@dataclass(frozen=True, slots=True)
class LastWorkday(Piece):
    """ "the last weekday of every month" (Monday to Friday)."""


@dataclass(frozen=True, slots=True)
class Window(Piece):
    """A stretch of the day: "between 9 and 5", "from 9am to 5pm", "during work hours"."""

    start: ClockTime
    end: ClockTime
    workdays: bool = False


@dataclass(frozen=True, slots=True)
class Until(Piece):
    """ "until", "till", "through": the day (and time) that follow end the repetition."""


@dataclass(frozen=True, slots=True)
class Starting(Piece):
    """ "starting", "from", "beginning": the day that follows is the first."""


@dataclass(frozen=True, slots=True)
class Count(Piece):
    """ "10 times", "for 10 times": how many fires in all."""

    times: int


@dataclass(frozen=True, slots=True)
class Lasting(Piece):
    """ "for 2 weeks": how long the repetition goes on (or, alone, a delay)."""

    span: Span


@dataclass(frozen=True, slots=True)
class Except(Piece):
    """ "except friday", "but not weekends": weekdays left out."""

    days: frozenset[int]


@dataclass(frozen=True, slots=True)
class Leave(Piece):
    """ "except", "but not" before days to leave out: "except december 25 and easter"."""


@dataclass(frozen=True, slots=True)
class LeaveHolidays(Piece):
    """ "except holidays": the US federal holidays left out (``tasks.schedule.skips``)."""


@dataclass(frozen=True, slots=True)
class Iso(Piece):
    """An ISO 8601 date or time ("2026-11-23T14:35", "2027-03-04")."""

    text: str


@dataclass(frozen=True, slots=True)
class Cron(Piece):
    """A five-field cron expression ("0 9 * * 1-5")."""

    expression: str


@dataclass(frozen=True, slots=True)
class Bad(Piece):
    """Words that are plainly a time but not a possible one ("13pm", "25:00", "feb 30").

    Attributes:
        problem: What is wrong with them, with a phrasing that works.
    """

    problem: str

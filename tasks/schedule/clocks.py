"""Times of day: clock times as read, parts of the day, and how a bare hour is placed.

A clock time keeps whether it said am/pm (a part of the day cannot move it then) and whether
it is a bare hour of the 12-hour dial ("at 5", "7:30"), which the policy of
``bare_hour_times`` places in the morning or the afternoon.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from datetime import time
from typing import Literal

PartName = Literal["morning", "afternoon", "evening", "night", "tonight"]
PERIOD_DEFAULTS: dict[PartName, time] = {
    "morning": time(9),
    "afternoon": time(15),
    "evening": time(19),
    "night": time(20),
    "tonight": time(20),
}
"""The clock time a part of the day means when no time is said ("tomorrow morning": 09:00)."""
_LATER_PERIODS = frozenset({"afternoon", "evening", "night", "tonight"})
_NIGHT = frozenset({"night", "tonight"})
NIGHT_ENDS = time(5)
"""Clock times before this one "tonight" belong to the early hours of the next day."""
AFTERNOON_HOURS = range(1, 7)
"""Bare hours read in the afternoon: "at 3" is 15:00, "at 6:30" is 18:30."""


@dataclass(frozen=True, slots=True)
class ClockTime:
    """A clock time read from the text.

    Attributes:
        at: The time of day, as written (a bare "5" is 05:00 here).
        meridiem: Whether it said am/pm (or noon, midnight, lunchtime), so a part of the day
            cannot move it.
        ambiguous: Whether it is a bare hour of the 12-hour dial ("at 5", "3:15", not "05:00"
            or "17:45"), which may mean the morning or the afternoon (``bare_hour_times``).
        midnight: Whether it said "midnight", which on a named day means the end of that day.
        said_hour: The hour as said, when it differs from ``at``'s ("quarter to seven" is
            6:45 said with 7): the bare-hour policy places it by the hour said.
    """

    at: time
    meridiem: bool
    ambiguous: bool = False
    midnight: bool = False
    said_hour: int | None = None


@dataclass(frozen=True, slots=True)
class Period:
    """A part of the day read from the text.

    Attributes:
        name: ``morning``, ``afternoon``, ``evening``, ``night`` or ``tonight``.
        today: Whether it means today's ("this evening", "tonight"), not the next one.
        at: Its own time when no time is said, for a part said early or late ("late
            afternoon" is 16:00); ``None`` for the part's usual one.
    """

    name: PartName
    today: bool
    at: time | None = None

    @property
    def default(self) -> time:
        """The clock time it means when no time is said."""
        return self.at if self.at is not None else PERIOD_DEFAULTS[self.name]

    @property
    def night(self) -> bool:
        """Whether it is the night, whose early hours belong to the next day."""
        return self.name in _NIGHT


def clock(hour: int, minute: int = 0, second: int = 0, *, meridiem: str | None = None) -> ClockTime:
    """A clock time from its numbers, with ``am``/``pm`` when said.

    Raises:
        ValueError: when it is no clock time ("13pm", "25:00", "9:75"); the grammar turns it
            into a refusal that names the nearest time that works.
    """
    if meridiem is not None:
        if not 1 <= hour <= 12 or minute > 59 or second > 59:
            raise ValueError(f"{hour}:{minute:02d}{meridiem}")
        return ClockTime(time(hour % 12 + (12 if meridiem == "pm" else 0), minute, second), True)
    if hour > 23 or minute > 59 or second > 59:
        raise ValueError(f"{hour}:{minute:02d}")
    return ClockTime(time(hour, minute, second), meridiem=False, ambiguous=1 <= hour <= 12)


def bare_hour_times(clock: ClockTime, *, day_named: bool) -> list[time]:
    """The times a clock time may mean, the way a person reads a bare hour.

    A bare hour from 1 to 6 is in the afternoon ("pick up the kids at 3:15"); 12 is noon;
    7 to 11 is its next occurrence ("at 9" is 21:00 at 14:30), and the morning when a day is
    named ("tomorrow at 9"). Anything else ("05:00", "17:45", "9am") means what it says.
    """
    at = clock.at
    said = at.hour if clock.said_hour in (None, 12) else clock.said_hour
    if not clock.ambiguous or at.hour == 12 or said == 12:
        return [at]
    later = at.replace(hour=(at.hour + 12) % 24)
    if said in AFTERNOON_HOURS:
        return [later]
    return [at] if day_named else [at, later]


def repeating_time(clock: ClockTime, period: Period | None) -> time:
    """A repeating time: a part of the day places a bare hour; else a bare hour from 1 to 6
    is in the afternoon ("every day at 5" is 17:00), 7 to 11 in the morning."""
    if period is not None:
        return apply_period(clock, period) or period.default
    return bare_hour_times(clock, day_named=True)[0]


def apply_period(clock: ClockTime | None, period: Period | None) -> time | None:
    """Combine a clock time with a part of the day: "tonight at 8" is 20:00.

    Morning keeps a bare hour in the morning; afternoon, evening and night move it after
    noon, except that "tonight at 12" is midnight and "tonight at 1" stays at 01:00.
    """
    if period is None:
        return None if clock is None else clock.at
    if clock is None:
        return period.default
    at = clock.at
    if clock.meridiem or period.name not in _LATER_PERIODS:
        return at
    if period.night and at.hour == 12:
        return at.replace(hour=0)
    if period.night and at < NIGHT_ENDS:
        return at
    return at.replace(hour=at.hour + 12) if at.hour < 12 else at


def format_clock(at: time) -> str:
    """Format a time of day as ``HH:MM`` (``:SS`` only when not zero)."""
    return at.strftime("%H:%M:%S" if at.second else "%H:%M")


def say_clock(at: time) -> str:
    """Say a time of day the way people type it: ``9am``, ``5:30pm``, ``noon``, ``midnight``."""
    if at.second:
        return format_clock(at)
    if at.minute == 0 and at.hour in (0, 12):
        return "midnight" if at.hour == 0 else "noon"
    hour = at.hour % 12 or 12
    minutes = f":{at.minute:02d}" if at.minute else ""
    return f"{hour}{minutes}{'am' if at.hour < 12 else 'pm'}"


def say_times(minutes: list[int]) -> str:
    """Say times of day (minutes after midnight, sorted): ``at 09:00 and 17:00``, or ``every
    30 minutes from 09:00 to 17:00`` when more than four are evenly spaced."""
    clock = [f"{m // 60:02d}:{m % 60:02d}" for m in minutes]
    steps = {b - a for a, b in itertools.pairwise(minutes)}
    if len(minutes) > 4 and len(steps) == 1:
        (step,) = steps
        every = (
            "every minute"
            if step == 1
            else "every hour"
            if step == 60
            else (f"every {step // 60} hours" if step % 60 == 0 else f"every {step} minutes")
        )
        if minutes[0] == 0 and minutes[-1] == 24 * 60 - step:
            return every  # the whole day round: "every minute", not "from 00:00 to 23:59"
        return f"{every} from {clock[0]} to {clock[-1]}"
    if len(minutes) > 1:
        return "at " + ", ".join(clock[:-1]) + " and " + clock[-1]
    return f"at {clock[0]}"


def contradicts(clock: ClockTime, period: Period) -> bool:
    """Whether an am/pm time and a part of the day disagree ("5pm in the morning", "tonight
    at 9am"); noon and midnight, and the small hours of the night, agree with any."""
    if not clock.meridiem or clock.midnight or clock.at in (time(12), time(0)):
        return False
    hour = clock.at.hour
    if period.name == "morning":
        return hour >= 12
    if period.night:
        return 5 <= hour < 12
    return hour < 12

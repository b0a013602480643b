"""Quiet hours ("quiet from 22:00 to 07:00"), "tomorrow morning" and a briefing's "7:30":
times of day read and resolved in an owner's zone.

A ``QuietWindow`` is two wall-clock times; it may cross midnight (22:00-07:00). ``until``
says when the window that holds an instant ends, resolved in the owner's zone with the DST
policy of the schedule language (a time in a spring-forward gap is shifted forward by the
gap). The canonical form ``22:00-07:00`` is what an owner's settings keep.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo

from common import LazyPattern
from tasks.errors import ScheduleError
from tasks.schedule import Schedule, in_the_morning, read_schedule, read_time_of_day, resolve_local

MORNING = time(8)
"""What "tomorrow morning" means (a snooze until then): 08:00 in the owner's zone."""
EARLY_HOURS = time(4)
"""Before this, "tomorrow morning" is the coming one (at 01:00 it is today at 08:00)."""
_OFF = frozenset({"off", "none", "no", "nothing", "never", "stop", "clear", "remove", "-"})
_SPLIT = LazyPattern(
    r"^(?:quiet(?:\s+hours)?\s*:?\s*)?(?:from|between)?\s*(?P<start>.+?)\s*"
    r"(?:-|–|—|to|till|until|and)\s*(?P<end>.+?)$",
    re.IGNORECASE,
)
_DIGITS = LazyPattern(r"(?P<hour>\d{1,2})(?:[:.h](?P<minute>\d{2}))?")
_EXAMPLE = "'22:00-07:00', 'from 10pm to 7am' or 'off'"


@dataclass(frozen=True, slots=True)
class QuietWindow:
    """When an owner wants no messages: from ``start`` to ``end``, every day, in their zone."""

    start: time
    end: time

    def canonical(self) -> str:
        """The form an owner's settings keep: ``22:00-07:00``."""
        return f"{self.start:%H:%M}-{self.end:%H:%M}"

    def words(self) -> str:
        """``from 22:00 to 07:00``."""
        return f"from {self.start:%H:%M} to {self.end:%H:%M}"

    def holds(self, at: datetime, zone: ZoneInfo) -> bool:
        """Whether ``at`` falls in the window."""
        return self.until(at, zone) is not None

    def until(self, at: datetime, zone: ZoneInfo) -> datetime | None:
        """When the window holding ``at`` ends (in ``zone``), or ``None`` when ``at`` is
        outside it."""
        local = at.astimezone(zone)
        clock = local.time().replace(tzinfo=None)
        if self.start < self.end:
            if not self.start <= clock < self.end:
                return None
            day = local.date()
        else:
            if self.end <= clock < self.start:
                return None
            day = local.date() + timedelta(days=1) if clock >= self.start else local.date()
        return resolve_local(datetime.combine(day, self.end), zone).astimezone(zone)


def parse_quiet_hours(text: str) -> QuietWindow | None:
    """Read quiet hours from words; ``None`` for "off".

    Raises:
        ScheduleError: quoting ``text``, with examples that work.
    """
    said = " ".join(str(text).split()).strip(" .!")
    if said.lower() in _OFF:
        return None
    match = _SPLIT.fullmatch(said)
    if match is None:
        raise ScheduleError(f"I could not read {text!r} as quiet hours; say e.g. {_EXAMPLE}")
    start, end = _clock(match["start"], text), _clock(match["end"], text)
    if start == end:
        raise ScheduleError(
            f"quiet hours {text!r} start and end at {start:%H:%M}; give two different times, "
            f"e.g. {_EXAMPLE}"
        )
    return QuietWindow(start, end)


def stored_quiet_hours(value: str | None) -> QuietWindow | None:
    """The quiet hours an owner's setting keeps (``22:00-07:00``), or ``None``; a setting
    that cannot be read (changed by hand) counts as none."""
    if not value:
        return None
    try:
        return parse_quiet_hours(value)
    except ScheduleError:
        return None


def daily_at(words: str, now: datetime, zone: ZoneInfo) -> Schedule:
    """The schedule of a morning briefing at ``words``: "7:30" is every day at 07:30 (a bare
    hour is in the morning), "every weekday at 7" is as said.

    Raises:
        ScheduleError: when the words are no repeating time, or one more often than once a
            day, quoting them, with an example.
    """
    said = " ".join(words.split()).removeprefix("at ").strip()
    if said.lower().startswith(("every", "daily", "each", "weekdays", "weekends")):
        schedule = read_schedule(said, now=now, tz=zone, recurring=True).schedule
    else:
        try:
            phrase = in_the_morning(f"every day at {said}")
            schedule = read_schedule(phrase, now=now, tz=zone, recurring=True).schedule
        except ScheduleError:
            # Quote what was said, not the phrase made of it.
            raise ScheduleError(
                f"could not read {said!r} as the briefing's time of day; {_BRIEFING_EXAMPLE}"
            ) from None
    if _more_than_daily(schedule, now):
        raise ScheduleError(
            f"a briefing comes once a day (or on the weekdays you choose), so {said!r} does "
            f"not fit; {_BRIEFING_EXAMPLE}"
        )
    return schedule


_BRIEFING_EXAMPLE = "say e.g. '7:30', '7am' or 'every weekday at 7'"
_DAILY_GAP = timedelta(hours=20)
"""Runs closer than this are more than one a day (a DST change makes a day 23 hours)."""


def _more_than_daily(schedule: Schedule, now: datetime) -> bool:
    """Whether two of the schedule's next eight runs are less than ``_DAILY_GAP`` apart."""
    previous = schedule.next_after(now)
    for _ in range(7):
        if previous is None:
            return False
        following = schedule.next_after(previous)
        if following is not None and following - previous < _DAILY_GAP:
            return True
        previous = following
    return False


def morning_after(now: datetime, zone: ZoneInfo) -> datetime:
    """The coming morning (``MORNING`` in ``zone``): tomorrow's, or today's before
    ``EARLY_HOURS``."""
    local = now.astimezone(zone)
    day = local.date() if local.time() < EARLY_HOURS else local.date() + timedelta(days=1)
    return resolve_local(datetime.combine(day, MORNING), zone).astimezone(zone)


def _clock(words: str, said: str) -> time:
    words = words.strip()
    if (plain := _DIGITS.fullmatch(words)) is not None:
        # Numbers alone are a 24-hour clock here: "23 to 6:45" is 23:00 to 06:45.
        hour, minute = int(plain["hour"]), int(plain["minute"] or 0)
        if hour <= 24 and minute < 60 and not (hour == 24 and minute):
            return time(hour % 24, minute)
    try:
        found = read_time_of_day(words)
    except ScheduleError:
        found = None
    if found is None:
        raise ScheduleError(
            f"I could not read {words!r} in {said!r} as a time of day; say e.g. {_EXAMPLE}"
        )
    return found

"""What tests and benchmarks ask of schedules: their fires in a span, as the scheduler makes
them, and phrases of every kind written as iCalendar rules."""

from __future__ import annotations

from datetime import datetime

from tasks import Schedule

ICALENDAR_PHRASES = [
    "every other friday",
    "every last weekday of the month",
    "every day at 9am until december 20",
    "every friday except holidays",
    "every weekday at 9 except holidays",
    "every day at 9 for 10 times",
    "every 15 minutes",
    "every 2 hours",
    "every weekday at 9",
    "every monday and thursday at 6",
    "every other week on monday and thursday at 7:30",
    "every day at 9 and 18:30",
    "every other week on monday and friday at 9 and 18:30",
    "every 3 days at 8am",
    "every month on the 31st",
    "every month on the 15th at 10",
    "the last day of every month",
    "the second tuesday of every month",
    "every last friday of the month",
    "every 3 months on the 2nd tuesday",
    "every year on march 3",
    "every year on feb 29",
    "every thanksgiving",
    "every black friday",
    "every easter at 10",
    "every christmas",
    "every day at 2:30am",
    "every sunday at 2:30am",
    "every hour between 9 and 5",
    "every 30 minutes during work hours",
    "0 9 1 * 1",
    "0 9 * * 1#2",
    "15 8 * 1,7 1-5",
    "every day at 8 for 3 times except christmas",
    "every day at 9 except december 25",
    "every monday except tomorrow",
    "every other friday at 5pm except holidays",
    "every day at 9 starting next week",
    "every sunday at 9 for 2 weeks",
    "every 10 minutes for 3 times",
    "every 2 years on june 5",
    "every quarter",
    "every weekday at 9 except holidays until march 20",
]
"""Schedules of every kind the language says, each written as an iCalendar rule (or dates) and
read back: with and without an end, days left out, several times a day, cron, a clock change's
gap, holidays (``tests/tasks/test_rrule.py``, the export -> import round trip)."""


def fires_between(schedule: Schedule, after: datetime, until: datetime) -> list[datetime]:
    """The schedule's fires after ``after`` and before ``until`` (UTC), earliest first."""
    found: list[datetime] = []
    at = after
    while (fire := schedule.next_after(at)) is not None and fire < until:
        found.append(fire)
        at = fire
    return found

"""The schedule language: every phrase of issues 3 and 11 at a fixed instant, DST, refusals."""

from __future__ import annotations

import re
import time as clock
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tasks import (
    CronSchedule,
    CycleSchedule,
    IntervalSchedule,
    OnceSchedule,
    Schedule,
    ScheduleError,
    parse_schedule,
)

BERLIN = ZoneInfo("Europe/Berlin")
NEW_YORK = ZoneInfo("America/New_York")
# Tuesday 2026-03-10 14:30:00 in Berlin (13:30 UTC): a fixed "now" for every phrase.
NOW = datetime(2026, 3, 10, 14, 30, tzinfo=BERLIN)


def first_fire(schedule: Schedule, now: datetime = NOW) -> str:
    """The first fire after ``now`` as local ``YYYY-MM-DD HH:MM[:SS]+offset``."""
    fire = schedule.next_after(now)
    assert fire is not None
    return fire.astimezone(schedule.tz).isoformat(sep=" ")


ONE_TIME = [
    ("30s", "2026-03-10 14:30:30+01:00"),
    ("5m", "2026-03-10 14:35:00+01:00"),
    ("2h", "2026-03-10 16:30:00+01:00"),
    ("1d", "2026-03-11 14:30:00+01:00"),
    ("1w", "2026-03-17 14:30:00+01:00"),
    ("in 5 minutes", "2026-03-10 14:35:00+01:00"),
    ("in half an hour", "2026-03-10 15:00:00+01:00"),
    ("in an hour", "2026-03-10 15:30:00+01:00"),
    ("in 90 minutes", "2026-03-10 16:00:00+01:00"),
    ("in 1 hour and 15 minutes", "2026-03-10 15:45:00+01:00"),
    ("in 3 days", "2026-03-13 14:30:00+01:00"),
    ("in 2 weeks", "2026-03-24 14:30:00+01:00"),
    ("at 6pm", "2026-03-10 18:00:00+01:00"),
    ("at 17:45", "2026-03-10 17:45:00+01:00"),
    ("at 8:05 am", "2026-03-11 08:05:00+01:00"),
    ("at noon", "2026-03-11 12:00:00+01:00"),
    ("at midnight", "2026-03-11 00:00:00+01:00"),
    ("tonight at 8", "2026-03-10 20:00:00+01:00"),
    ("tomorrow", "2026-03-11 09:00:00+01:00"),
    ("tomorrow at 9am", "2026-03-11 09:00:00+01:00"),
    ("2:30pm tomorrow", "2026-03-11 14:30:00+01:00"),
    ("day after tomorrow at 10am", "2026-03-12 10:00:00+01:00"),
    ("next friday at 5pm", "2026-03-13 17:00:00+01:00"),
    ("on friday at 5pm", "2026-03-13 17:00:00+01:00"),
    ("on saturday", "2026-03-14 09:00:00+01:00"),
    ("on March 3 at 8:15", "2027-03-03 08:15:00+01:00"),
    ("on 14 Feb at 7:30pm", "2027-02-14 19:30:00+01:00"),
    ("Dec 25 9am", "2026-12-25 09:00:00+01:00"),
    ("2026-11-23T14:35", "2026-11-23 14:35:00+01:00"),
    ("2026-11-23T14:35:00+01:00", "2026-11-23 14:35:00+01:00"),
    ("2026-11-23T13:35:00Z", "2026-11-23 14:35:00+01:00"),
    ("2026-11-23T08:35:00-05:00", "2026-11-23 14:35:00+01:00"),
    ("2026-11-23", "2026-11-23 09:00:00+01:00"),
    # leniency: case, spaces, a.m., "9 am", "9:00", punctuation, leading words
    ("  In   5   MINUTES. ", "2026-03-10 14:35:00+01:00"),
    ("At 9 A.M. tomorrow!", "2026-03-11 09:00:00+01:00"),
    ("9 am", "2026-03-11 09:00:00+01:00"),
    ("at 9:00", "2026-03-10 21:00:00+01:00"),
    ("on Friday at 5 p.m.", "2026-03-13 17:00:00+01:00"),
    ("in five minutes", "2026-03-10 14:35:00+01:00"),
    ("30 minutes from now", "2026-03-10 15:00:00+01:00"),
    ("1h30m", "2026-03-10 16:00:00+01:00"),
    ("in an hour and a half", "2026-03-10 16:00:00+01:00"),
    ("tuesday 3pm", "2026-03-10 15:00:00+01:00"),
    ("tuesday 2pm", "2026-03-17 14:00:00+01:00"),
    ("next tuesday", "2026-03-17 09:00:00+01:00"),
    ("tomorrow morning", "2026-03-11 09:00:00+01:00"),
    ("tomorrow evening at 7", "2026-03-11 19:00:00+01:00"),
    ("the 5th at 9", "2026-04-05 09:00:00+02:00"),
    ("on the 15th", "2026-03-15 09:00:00+01:00"),
    ("in 3 days at 9am", "2026-03-13 09:00:00+01:00"),
    ("March 3rd 2027 at 8am", "2027-03-03 08:00:00+01:00"),
    ("on 2026-04-01 at 10am", "2026-04-01 10:00:00+02:00"),
    ("at 8 o'clock", "2026-03-10 20:00:00+01:00"),
    # parts of the day: this morning/afternoon/evening and tonight are today's
    ("this afternoon", "2026-03-10 15:00:00+01:00"),
    ("this evening", "2026-03-10 19:00:00+01:00"),
    ("this evening at 8", "2026-03-10 20:00:00+01:00"),
    ("tonight", "2026-03-10 20:00:00+01:00"),
    ("tonight at 11", "2026-03-10 23:00:00+01:00"),
    ("tonight at 12", "2026-03-11 00:00:00+01:00"),
    ("tonight at midnight", "2026-03-11 00:00:00+01:00"),
    ("tonight at 1", "2026-03-11 01:00:00+01:00"),
    ("at 7 in the evening", "2026-03-10 19:00:00+01:00"),
    ("in the morning", "2026-03-11 09:00:00+01:00"),
    ("tomorrow morning at 7", "2026-03-11 07:00:00+01:00"),
    ("tomorrow night", "2026-03-11 20:00:00+01:00"),
    ("friday evening", "2026-03-13 19:00:00+01:00"),
    ("at midday", "2026-03-11 12:00:00+01:00"),
    ("in a quarter of an hour", "2026-03-10 14:45:00+01:00"),
    # days of the month: word ordinals, this month and the next
    ("on the first", "2026-04-01 09:00:00+02:00"),
    ("on the twenty-third at 8pm", "2026-03-23 20:00:00+01:00"),
    ("the 3rd of next month", "2026-04-03 09:00:00+02:00"),
    ("the first of next month at 10am", "2026-04-01 10:00:00+02:00"),
    ("next month on the 15th", "2026-04-15 09:00:00+02:00"),
    ("the last day of the month", "2026-03-31 09:00:00+02:00"),
    ("on the last day of next month at 6pm", "2026-04-30 18:00:00+02:00"),
    # a bare hour on the 12-hour dial: 1-6 in the afternoon, 7-11 next (the morning with a
    # day), 12 noon; written with a leading zero or past 12 it is what it says
    ("at 3:15", "2026-03-10 15:15:00+01:00"),
    ("at 2", "2026-03-11 14:00:00+01:00"),
    ("at 7:30", "2026-03-10 19:30:00+01:00"),
    ("at 12", "2026-03-11 12:00:00+01:00"),
    ("at 07:30", "2026-03-11 07:30:00+01:00"),
    ("tomorrow at 5", "2026-03-11 17:00:00+01:00"),
    ("tomorrow at 9", "2026-03-11 09:00:00+01:00"),
    ("at 6:45 tomorrow in the morning", "2026-03-11 06:45:00+01:00"),
    # clock words and spelled amounts
    ("at quarter past 3", "2026-03-10 15:15:00+01:00"),
    ("at half past six", "2026-03-10 18:30:00+01:00"),
    ("at quarter to 5", "2026-03-10 16:45:00+01:00"),
    ("at ten to nine tomorrow", "2026-03-11 08:50:00+01:00"),
    ("in a couple of minutes", "2026-03-10 14:32:00+01:00"),
    ("in a few hours", "2026-03-10 17:30:00+01:00"),
    # the weekend, and a time moved by a duration
    ("this weekend", "2026-03-14 09:00:00+01:00"),
    ("on the weekend at 10", "2026-03-14 10:00:00+01:00"),
    ("10 minutes before 6pm", "2026-03-10 17:50:00+01:00"),
    ("an hour after midnight", "2026-03-11 01:00:00+01:00"),
    ("half an hour before friday at 5pm", "2026-03-13 16:30:00+01:00"),
]


@pytest.mark.parametrize(("text", "expected"), ONE_TIME)
def test_one_time_phrases(text: str, expected: str) -> None:
    schedule = parse_schedule(text, now=NOW, tz=BERLIN)
    assert isinstance(schedule, OnceSchedule)
    assert first_fire(schedule) == expected
    assert schedule.next_after(schedule.at) is None


RECURRING = [
    ("daily 9am", "0 9 * * *", "every day at 09:00", "2026-03-11 09:00:00+01:00"),
    ("weekdays 6pm", "0 18 * * 1-5", "every weekday at 18:00", "2026-03-10 18:00:00+01:00"),
    (
        "every weekday at 9am",
        "0 9 * * 1-5",
        "every weekday at 09:00",
        "2026-03-11 09:00:00+01:00",
    ),
    ("every day at 1am", "0 1 * * *", "every day at 01:00", "2026-03-11 01:00:00+01:00"),
    ("every monday at 10am", "0 10 * * 1", "every Monday at 10:00", "2026-03-16 10:00:00+01:00"),
    (
        "every tuesday and thursday at 7am",
        "0 7 * * 2,4",
        "every Tuesday and Thursday at 07:00",
        "2026-03-12 07:00:00+01:00",
    ),
    (
        "every weekend at 10:30",
        "30 10 * * 0,6",
        "every Saturday and Sunday at 10:30",
        "2026-03-14 10:30:00+01:00",
    ),
    (
        "every month on the 1st at 8am",
        "0 8 1 * *",
        "every month on the 1st at 08:00",
        "2026-04-01 08:00:00+02:00",
    ),
    ("0 9 * * 1-5", "0 9 * * 1-5", "every weekday at 09:00", "2026-03-11 09:00:00+01:00"),
    (
        "at 9am every weekday",
        "0 9 * * 1-5",
        "every weekday at 09:00",
        "2026-03-11 09:00:00+01:00",
    ),
    ("Every Day at 1 a.m.", "0 1 * * *", "every day at 01:00", "2026-03-11 01:00:00+01:00"),
    ("mondays at 10", "0 10 * * 1", "every Monday at 10:00", "2026-03-16 10:00:00+01:00"),
    ("every morning", "0 9 * * *", "every day at 09:00", "2026-03-11 09:00:00+01:00"),
    ("every evening at 7", "0 19 * * *", "every day at 19:00", "2026-03-10 19:00:00+01:00"),
    (
        "every weekday at 9am and 5pm",
        "0 9,17 * * 1-5",
        "every weekday at 09:00 and 17:00",
        "2026-03-10 17:00:00+01:00",
    ),
    (
        "on the last day of every month at 6pm",
        "0 18 L * *",
        "every month on the last day at 18:00",
        "2026-03-31 18:00:00+02:00",
    ),
    (
        "every year on Dec 25 at 8am",
        "0 8 25 12 *",
        "every year on the 25th of December at 08:00",
        "2026-12-25 08:00:00+01:00",
    ),
    ("every week", "0 9 * * 2", "every Tuesday at 09:00", "2026-03-17 09:00:00+01:00"),
    (
        "every mon, tue, wed and fri at 8",
        "0 8 * * 1-3,5",
        "every Monday, Tuesday, Wednesday and Friday at 08:00",
        "2026-03-11 08:00:00+01:00",
    ),
    ("sundays at 7pm", "0 19 * * 0", "every Sunday at 19:00", "2026-03-15 19:00:00+01:00"),
    ("every day at 5", "0 17 * * *", "every day at 17:00", "2026-03-10 17:00:00+01:00"),
    # parts of the day: morning -> am, evening and night -> pm
    (
        "every sunday evening at 7",
        "0 19 * * 0",
        "every Sunday at 19:00",
        "2026-03-15 19:00:00+01:00",
    ),
    ("every morning at 7", "0 7 * * *", "every day at 07:00", "2026-03-11 07:00:00+01:00"),
    ("every night at 10", "0 22 * * *", "every day at 22:00", "2026-03-10 22:00:00+01:00"),
    (
        "every weekday morning",
        "0 9 * * 1-5",
        "every weekday at 09:00",
        "2026-03-11 09:00:00+01:00",
    ),
    ("every thur", "0 9 * * 4", "every Thursday at 09:00", "2026-03-12 09:00:00+01:00"),
    # days of the month and of the year
    (
        "on the first of every month at 9",
        "0 9 1 * *",
        "every month on the 1st at 09:00",
        "2026-04-01 09:00:00+02:00",
    ),
    (
        "on the 15th day of every month",
        "0 9 15 * *",
        "every month on the 15th at 09:00",
        "2026-03-15 09:00:00+01:00",
    ),
    (
        "on the last day of every month",
        "0 9 L * *",
        "every month on the last day at 09:00",
        "2026-03-31 09:00:00+02:00",
    ),
    (
        "every year on March 3",
        "0 9 3 3 *",
        "every year on the 3rd of March at 09:00",
        "2027-03-03 09:00:00+01:00",
    ),
    (
        "the second tuesday of every month at 6pm",
        "0 18 * * 2#2",
        "every month on the second Tuesday at 18:00",
        "2026-03-10 18:00:00+01:00",
    ),
    (
        "every 2nd and 4th tuesday at 6pm",
        "0 18 * * 2#2,2#4",
        "every month on the second and fourth Tuesday at 18:00",
        "2026-03-10 18:00:00+01:00",
    ),
    (
        "the 1st, 3rd and 5th friday of the month",
        "0 9 * * 5#1,5#3,5#5",
        "every month on the first, third and fifth Friday at 09:00",
        "2026-03-20 09:00:00+01:00",
    ),
    (
        "weeknights at 10pm",
        "0 22 * * 1-5",
        "every weekday at 22:00",
        "2026-03-10 22:00:00+01:00",
    ),
]


@pytest.mark.parametrize(("text", "expression", "words", "expected"), RECURRING)
def test_recurring_wall_clock_phrases(
    text: str, expression: str, words: str, expected: str
) -> None:
    schedule = parse_schedule(text, now=NOW, tz=BERLIN)
    assert isinstance(schedule, CronSchedule)
    assert schedule.expression == expression
    assert schedule.describe() == f"{words} (Europe/Berlin)"
    assert first_fire(schedule) == expected


CYCLES = [
    (
        "every other day",
        "every other day at 09:00",
        ["2026-03-11 09:00", "2026-03-13 09:00", "2026-03-15 09:00"],
    ),
    ("every 2 days", "every other day at 09:00", ["2026-03-11 09:00", "2026-03-13 09:00"]),
    (
        "every 3 days at 8am",
        "every 3 days at 08:00",
        ["2026-03-11 08:00", "2026-03-14 08:00", "2026-03-17 08:00"],
    ),
    (
        "every second day at 6pm",
        "every other day at 18:00",
        ["2026-03-10 18:00", "2026-03-12 18:00"],
    ),
    (
        "every other week",
        "every other week on Tuesday at 09:00",
        ["2026-03-17 09:00", "2026-03-31 09:00"],
    ),
    (
        "every 2 weeks on monday",
        "every other week on Monday at 09:00",
        ["2026-03-16 09:00", "2026-03-30 09:00"],
    ),
    (
        "every other monday at 7pm",
        "every other week on Monday at 19:00",
        ["2026-03-16 19:00", "2026-03-30 19:00"],
    ),
    (
        "every 2 weeks on monday and thursday at 7",
        "every other week on Monday and Thursday at 07:00",
        ["2026-03-12 07:00", "2026-03-23 07:00", "2026-03-26 07:00", "2026-04-06 07:00"],
    ),
    (
        "fortnightly on friday evening",
        "every other week on Friday at 19:00",
        ["2026-03-13 19:00", "2026-03-27 19:00"],
    ),
    (
        "every 3 weeks",
        "every 3 weeks on Tuesday at 09:00",
        ["2026-03-17 09:00", "2026-04-07 09:00"],
    ),
]


@pytest.mark.parametrize(("text", "words", "expected"), CYCLES)
def test_every_few_days_or_weeks_is_calendar_arithmetic_from_the_first_occurrence(
    text: str, words: str, expected: list[str]
) -> None:
    schedule = parse_schedule(text, now=NOW, tz=BERLIN)
    assert isinstance(schedule, CycleSchedule)
    assert schedule.describe() == f"{words} (Europe/Berlin)"
    fires: list[str] = []
    moment: datetime | None = NOW
    for _ in expected:
        assert moment is not None
        moment = schedule.next_after(moment)
        assert moment is not None
        fires.append(moment.astimezone(BERLIN).strftime("%Y-%m-%d %H:%M"))
    assert fires == expected
    # The description reads back as the same schedule.
    assert parse_schedule(words, now=NOW, tz=BERLIN) == schedule


def test_a_cycle_of_days_keeps_its_wall_clock_time_across_dst() -> None:
    # Berlin springs forward on 2026-03-29: 72 hours of real time would land at 09:00, then 10:00.
    schedule = parse_schedule(
        "every 3 days at 8am", now=datetime(2026, 3, 25, 12, tzinfo=BERLIN), tz=BERLIN
    )
    moment: datetime | None = datetime(2026, 3, 25, 12, tzinfo=BERLIN)
    seen = []
    for _ in range(3):
        assert moment is not None
        moment = schedule.next_after(moment)
        assert moment is not None
        seen.append(moment.astimezone(BERLIN).isoformat(sep=" "))
    assert seen == [
        "2026-03-26 08:00:00+01:00",
        "2026-03-29 08:00:00+02:00",
        "2026-04-01 08:00:00+02:00",
    ]


def test_a_cycle_time_in_the_spring_gap_is_shifted_by_the_gap() -> None:
    schedule = parse_schedule(
        "every other day at 2:30am", now=datetime(2026, 3, 26, 12, tzinfo=BERLIN), tz=BERLIN
    )
    first = schedule.next_after(datetime(2026, 3, 26, 12, tzinfo=BERLIN))
    assert first is not None
    second = schedule.next_after(first)
    assert second is not None
    assert first.astimezone(BERLIN).isoformat(sep=" ") == "2026-03-27 02:30:00+01:00"
    assert second.astimezone(BERLIN).isoformat(sep=" ") == "2026-03-29 03:30:00+02:00"


@pytest.mark.parametrize(
    ("text", "every"),
    [
        ("every 15 minutes", timedelta(minutes=15)),
        ("every 2 hours", timedelta(hours=2)),
        ("every minute", timedelta(minutes=1)),
        ("every half hour", timedelta(minutes=30)),
        ("hourly", timedelta(hours=1)),
        ("every 30 seconds", timedelta(seconds=30)),
        ("every 1.5 days", timedelta(hours=36)),
        ("every 2 days and 3 hours", timedelta(hours=51)),
    ],
)
def test_intervals_count_real_time_from_now(text: str, every: timedelta) -> None:
    schedule = parse_schedule(text, now=NOW, tz=BERLIN)
    assert isinstance(schedule, IntervalSchedule)
    assert schedule.every == every
    assert schedule.next_after(NOW) == NOW + every
    assert schedule.next_after(NOW + every) == NOW + 2 * every


def test_recurring_true_reads_a_day_as_every_such_day() -> None:
    weekly = parse_schedule("monday 10am", now=NOW, tz=BERLIN, recurring=True)
    assert weekly.describe() == "every Monday at 10:00 (Europe/Berlin)"
    daily = parse_schedule("at 9am", now=NOW, tz=BERLIN, recurring=True)
    assert daily.describe() == "every day at 09:00 (Europe/Berlin)"
    interval = parse_schedule("30m", now=NOW, tz=BERLIN, recurring=True)
    assert interval.describe() == "every 30 minutes (Europe/Berlin)"
    assert parse_schedule("monday 10am", now=NOW, tz=BERLIN).kind == "once"


def test_recurring_false_refuses_a_repeating_phrase() -> None:
    with pytest.raises(ScheduleError, match=r"'every day at 9am' repeats .* one-time"):
        parse_schedule("every day at 9am", now=NOW, tz=BERLIN, recurring=False)
    once = parse_schedule("tomorrow at 9am", now=NOW, tz=BERLIN, recurring=False)
    assert once.kind == "once"


def test_recurring_true_refuses_one_time_words() -> None:
    with pytest.raises(ScheduleError, match=r"one-time delay; say e\.g\. 'every 5 minutes'"):
        parse_schedule("in 5 minutes", now=NOW, tz=BERLIN, recurring=True)
    with pytest.raises(ScheduleError, match="'tomorrow' happens once"):
        parse_schedule("tomorrow at 9am", now=NOW, tz=BERLIN, recurring=True)
    with pytest.raises(ScheduleError, match=r"happens once .* repeating schedule is needed"):
        parse_schedule("2026-11-23T14:35", now=NOW, tz=BERLIN, recurring=True)


def test_zone_by_name_and_naive_now_as_local_time() -> None:
    schedule = parse_schedule("at 6pm", now=datetime(2026, 3, 10, 14, 30), tz="America/New_York")
    assert first_fire(schedule, datetime(2026, 3, 10, 14, 30, tzinfo=NEW_YORK)) == (
        "2026-03-10 18:00:00-04:00"
    )


# DST: Berlin springs forward 2026-03-29 02:00->03:00 and falls back 2026-10-25 03:00->02:00;
# New York springs forward 2026-03-08 02:00->03:00 and falls back 2026-11-01 02:00->01:00.


@pytest.mark.parametrize(
    ("tz", "now", "text", "expected"),
    [
        (BERLIN, datetime(2026, 3, 28, 12, 0), "tomorrow at 2:30am", "2026-03-29 03:30:00+02:00"),
        (BERLIN, datetime(2026, 3, 28, 12, 0), "2026-03-29 02:30", "2026-03-29 03:30:00+02:00"),
        (BERLIN, datetime(2026, 10, 24, 12, 0), "tomorrow at 02:30", "2026-10-25 02:30:00+02:00"),
        (NEW_YORK, datetime(2026, 3, 7, 12, 0), "tomorrow at 2:30am", "2026-03-08 03:30:00-04:00"),
        (
            NEW_YORK,
            datetime(2026, 10, 31, 12, 0),
            "tomorrow at 1:30am",
            "2026-11-01 01:30:00-04:00",
        ),
        (BERLIN, datetime(2026, 3, 28, 10, 0), "in 1 day", "2026-03-29 10:00:00+02:00"),
        (BERLIN, datetime(2026, 3, 28, 10, 0), "in 24 hours", "2026-03-29 11:00:00+02:00"),
        (NEW_YORK, datetime(2026, 10, 31, 10, 0), "in 1 day", "2026-11-01 10:00:00-05:00"),
    ],
)
def test_one_time_dst_policy(tz: ZoneInfo, now: datetime, text: str, expected: str) -> None:
    aware_now = now.replace(tzinfo=tz)
    assert first_fire(parse_schedule(text, now=aware_now, tz=tz), aware_now) == expected


def test_daily_0900_phrase_holds_across_both_new_york_changes() -> None:
    daily = parse_schedule(
        "every day at 9am", now=datetime(2026, 3, 7, 12, 0, tzinfo=NEW_YORK), tz=NEW_YORK
    )
    fires = []
    moment: datetime | None = datetime(2026, 3, 7, 12, 0, tzinfo=NEW_YORK)
    for _ in range(2):
        assert moment is not None
        moment = daily.next_after(moment)
        fires.append(moment)
    moment = datetime(2026, 10, 31, 12, 0, tzinfo=NEW_YORK)
    for _ in range(2):
        assert moment is not None
        moment = daily.next_after(moment)
        fires.append(moment)
    assert [f.astimezone(NEW_YORK).isoformat(sep=" ") for f in fires if f] == [
        "2026-03-08 09:00:00-04:00",
        "2026-03-09 09:00:00-04:00",
        "2026-11-01 09:00:00-05:00",
        "2026-11-02 09:00:00-05:00",
    ]


REFUSALS = [
    ("", "is empty"),
    ("   ", "is empty"),
    ("blah", "did not understand 'blah'"),
    ("today at 2pm", "2026-03-10 14:00 (Europe/Berlin), which has already passed"),
    ("2026-02-01", "which has already passed"),
    ("2026-02-01T10:00:00+01:00", "which has already passed"),
    ("in 0 minutes", "the delay is zero"),
    ("0 61 * * *", "is not valid"),
    ("0 9 * * 8", "is not valid"),
    ("0 9 * * 1-5 *", "has 6 fields"),
    ("every 0 minutes", "the interval is zero"),
    ("every 2 days on monday", "days of the week in a cycle of days"),
    ("every 10000 days", "a cycle lasts at most 3650 days"),
    ("every 3", "did not understand '3'"),
    ("in -5 minutes", "that is in the past"),
    ("this morning", "2026-03-10 09:00 (Europe/Berlin), which has already passed"),
    ("the 31st of next month", "that month has no day 31"),
    ("every", "it does not say when"),
    ("at 25:00", "is not a clock time"),
    ("13pm", "is not a clock time"),
    ("Feb 30", "February has no day 30"),
    ("2026-02-30", "day is out of range for month"),
    ("2026-13-01T10:00", "ISO 8601"),
    ("in 2 hours at 5pm", "cannot be combined"),
    ("tomorrow at 9am and 5pm", "more than one clock time"),
    ("every monday on the 1st", "both days of the week and days of the month"),
    ("99999999999 days", "too far from now"),
]


@pytest.mark.parametrize(("text", "fragment"), REFUSALS)
def test_refusals_say_what_was_wrong_and_what_works(text: str, fragment: str) -> None:
    with pytest.raises(ScheduleError) as caught:
        parse_schedule(text, now=NOW, tz=BERLIN)
    message = str(caught.value)
    assert fragment in message
    assert repr(text) in message or repr(text.strip()) in message
    assert "e.g." in message


EXAMPLE = re.compile(r"e\.g\. '([^']+)'")


@pytest.mark.parametrize(
    ("text", "example"),
    [
        ("today at 2pm", "tomorrow at 2pm"),
        ("this morning", "tomorrow morning"),
        ("tonight at 8", "tomorrow at 8pm"),
        ("in -5 minutes", "in 5 minutes"),
        ("every year on the 3rd at 7pm", "every year on March 3rd at 7pm"),
        ("every monday on the 1st at 6pm", "every month on the 1st at 6pm"),
        ("every 2 days on friday", "every 2 weeks on friday"),
        ("tomorrow at 9am and 5pm", "tomorrow at 9am"),
        ("13pm", "at 13:00"),
    ],
)
def test_a_refusal_gives_one_example_built_from_the_words(text: str, example: str) -> None:
    with pytest.raises(ScheduleError) as caught:
        parse_schedule(text, now=NOW.replace(hour=21), tz=BERLIN)
    assert EXAMPLE.findall(str(caught.value)) == [example]
    assert caught.value.example == example


@pytest.mark.parametrize(("text", "fragment"), REFUSALS)
def test_the_example_in_every_refusal_works(text: str, fragment: str) -> None:
    with pytest.raises(ScheduleError) as caught:
        parse_schedule(text, now=NOW, tz=BERLIN)
    examples = EXAMPLE.findall(str(caught.value))
    assert len(examples) <= 1, examples
    for example in examples:
        parse_schedule(example, now=NOW, tz=BERLIN)


def test_overlong_text_is_refused_with_a_short_quote() -> None:
    with pytest.raises(
        ScheduleError, match=r"'every monday every monday .*\.\.\. is 2604 char"
    ) as caught:
        parse_schedule("every monday " * 200 + "at 9", now=NOW, tz=BERLIN)
    assert len(str(caught.value)) < 300


def test_unknown_zone_is_refused() -> None:
    with pytest.raises(ScheduleError, match="unknown time zone 'Mars/Base'"):
        parse_schedule("in 5 minutes", now=NOW, tz="Mars/Base")


def test_parsing_is_fast() -> None:
    phrases = [text for text, _ in ONE_TIME] + [row[0] for row in RECURRING]
    start = clock.perf_counter()
    for text in phrases:
        parse_schedule(text, now=NOW, tz=BERLIN)
    per_phrase = (clock.perf_counter() - start) / len(phrases)
    assert per_phrase < 0.005  # typically ~0.1 ms; generous for a loaded CI machine


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.text(max_size=40),
        st.lists(
            st.sampled_from(
                [
                    "every",
                    "at",
                    "in",
                    "on",
                    "9",
                    "9am",
                    "12:30",
                    "tomorrow",
                    "monday",
                    "and",
                    "1st",
                    "month",
                    "minutes",
                    "days",
                    "*",
                    "0",
                    "-",
                    "feb",
                    "30",
                    "next",
                    "pm",
                    "2026-03-29",
                    "T",
                    ":",
                    "noon",
                    "half",
                    "an",
                    "hour",
                    "weekdays",
                    "last",
                    "day",
                ]
            ),
            max_size=7,
        ).map(" ".join),
    ),
    st.booleans() | st.none(),
)
def test_any_text_gives_a_schedule_or_a_schedule_error(text: str, recurring: bool | None) -> None:
    try:
        schedule = parse_schedule(text, now=NOW, tz=BERLIN, recurring=recurring)
    except ScheduleError as exc:
        assert str(exc)
        return
    fire = schedule.next_after(NOW)
    assert fire is None or fire > NOW.astimezone(UTC)
    if recurring is not None:
        assert (schedule.kind == "recurring") == recurring


HOLIDAYS = [
    ("on christmas", "2026-12-25 09:00:00+01:00"),
    ("Christmas morning", "2026-12-25 09:00:00+01:00"),
    ("christmas eve at 6pm", "2026-12-24 18:00:00+01:00"),
    ("xmas day at 10", "2026-12-25 10:00:00+01:00"),
    ("on new year's eve at 11pm", "2026-12-31 23:00:00+01:00"),
    ("new years day", "2027-01-01 09:00:00+01:00"),
    ("on valentine’s day at 8pm", "2027-02-14 20:00:00+01:00"),
    ("halloween evening", "2026-10-31 19:00:00+01:00"),
    ("on Thanksgiving at 10", "2026-11-26 10:00:00+01:00"),  # the 4th Thursday of November
    ("next christmas at 7", "2026-12-25 07:00:00+01:00"),
]


@pytest.mark.parametrize(("text", "expected"), HOLIDAYS)
def test_a_holiday_is_its_next_date(text: str, expected: str) -> None:
    assert first_fire(parse_schedule(text, now=NOW, tz=BERLIN)) == expected


def test_a_holiday_already_passed_this_year_is_next_years() -> None:
    after = datetime(2026, 12, 26, 10, 0, tzinfo=BERLIN)
    schedule = parse_schedule("christmas at 8", now=after, tz=BERLIN)
    assert first_fire(schedule, after) == "2027-12-25 08:00:00+01:00"
    thanksgiving = parse_schedule("thanksgiving", now=after, tz=BERLIN)
    assert first_fire(thanksgiving, after) == "2027-11-25 09:00:00+01:00"


SEVERAL_TIMES = [
    ("every day at 6:30 and 18:30", "30 6,18 * * *"),
    ("every monday at 9 and 17", "0 9,17 * * 1"),
    ("every day at 9am and 9pm", "0 9,21 * * *"),
    ("every day at 9 and 5", "0 9,17 * * *"),
    ("every weekday except friday at 7", "0 7 * * 1-4"),
    ("every day except saturdays and sundays at 8", "0 8 * * 1-5"),
    ("every day except weekends", "0 9 * * 1-5"),
    ("every christmas at 8", "0 8 25 12 *"),
]


@pytest.mark.parametrize(("text", "expression"), SEVERAL_TIMES)
def test_several_times_and_left_out_days_are_all_kept(text: str, expression: str) -> None:
    schedule = parse_schedule(text, now=NOW, tz=BERLIN)
    assert isinstance(schedule, CronSchedule)
    assert schedule.expression == expression


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("every day at 6:30 and 6:30pm and 18:30", "come out the same"),
        ("every monday except monday", "leaves out every day"),
        ("every month on the 1st except friday", "only days of the week can be left out"),
        ("tomorrow at 9 and 5", "more than one clock time"),
    ],
)
def test_times_that_would_be_lost_are_refused(text: str, fragment: str) -> None:
    with pytest.raises(ScheduleError, match=re.escape(fragment)):
        parse_schedule(text, now=NOW, tz=BERLIN)

"""``read_period`` / ``find_period``: the days and periods a listing can be limited to."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from tasks import Period, ScheduleError, find_period, read_period

BERLIN = ZoneInfo("Europe/Berlin")
# Tuesday 2026-03-10, 14:30 in Berlin.
NOW = datetime(2026, 3, 10, 13, 30, tzinfo=UTC)


def local(period: Period) -> tuple[str, str]:
    """The period's first instant and the instant after its last one, in Berlin."""
    first = period.start.astimezone(BERLIN).isoformat(timespec="minutes")
    after = period.end.astimezone(BERLIN).isoformat(timespec="minutes")
    return first, after


@pytest.mark.parametrize(
    ("words", "label", "start", "end"),
    [
        ("this week", "this week (Mon 2026-03-09 to Sun 2026-03-15)", "2026-03-09", "2026-03-16"),
        ("next week", "next week (Mon 2026-03-16 to Sun 2026-03-22)", "2026-03-16", "2026-03-23"),
        ("the week", "this week (Mon 2026-03-09 to Sun 2026-03-15)", "2026-03-09", "2026-03-16"),
        (
            "this weekend",
            "this weekend (Sat 2026-03-14 to Sun 2026-03-15)",
            "2026-03-14",
            "2026-03-16",
        ),
        (
            "next weekend",
            "next weekend (Sat 2026-03-21 to Sun 2026-03-22)",
            "2026-03-21",
            "2026-03-23",
        ),
        (
            "the week after next",
            "the week after next (Mon 2026-03-23 to Sun 2026-03-29)",
            "2026-03-23",
            "2026-03-30",
        ),
        (
            "the weekend after next",
            "the weekend after next (Sat 2026-03-28 to Sun 2026-03-29)",
            "2026-03-28",
            "2026-03-30",
        ),
        ("the month after next", "the month after next (May 2026)", "2026-05-01", "2026-06-01"),
        ("this month", "this month (March 2026)", "2026-03-01", "2026-04-01"),
        ("next month", "next month (April 2026)", "2026-04-01", "2026-05-01"),
        ("in december", "December 2026", "2026-12-01", "2027-01-01"),
        ("march", "March 2026", "2026-03-01", "2026-04-01"),
        ("in feb", "February 2027", "2027-02-01", "2027-03-01"),
        ("december 2027", "December 2027", "2027-12-01", "2028-01-01"),
        ("this year", "this year (2026)", "2026-01-01", "2027-01-01"),
        (
            "the next 3 days",
            "the next 3 days (Tue 2026-03-10 to Thu 2026-03-12)",
            "2026-03-10",
            "2026-03-13",
        ),
        (
            "over the next two weeks",
            "the next 2 weeks (Tue 2026-03-10 to Mon 2026-03-23)",
            "2026-03-10",
            "2026-03-24",
        ),
        ("today", "today (Tue 2026-03-10)", "2026-03-10", "2026-03-11"),
        ("tomorrow", "tomorrow (Wed 2026-03-11)", "2026-03-11", "2026-03-12"),
        ("on friday", "Fri 2026-03-13", "2026-03-13", "2026-03-14"),
    ],
)
def test_a_period_is_its_days_in_the_users_zone(
    words: str, label: str, start: str, end: str
) -> None:
    period = read_period(words, now=NOW, tz=BERLIN)

    first, after = local(period)
    assert period.label == label
    assert first.startswith(f"{start}T00:00+") and after.startswith(f"{end}T00:00+")


def test_a_week_over_the_clock_change_is_seven_local_days() -> None:
    sunday = datetime(2026, 3, 29, 8, 0, tzinfo=UTC)  # the clocks go forward at 02:00

    week = read_period("this week", now=sunday, tz=BERLIN)

    assert local(week) == ("2026-03-23T00:00+01:00", "2026-03-30T00:00+02:00")
    assert week.end - week.start == timedelta(days=7, hours=-1)


def test_on_a_sunday_this_weekend_is_the_one_under_way() -> None:
    sunday = datetime(2026, 3, 15, 10, 0, tzinfo=UTC)

    weekend = read_period("this weekend", now=sunday, tz=BERLIN)

    assert weekend.label == "this weekend (Sat 2026-03-14 to Sun 2026-03-15)"


def test_an_instant_is_in_a_period_from_its_start_up_to_its_end() -> None:
    week = read_period("this week", now=NOW, tz=BERLIN)

    assert week.start in week and NOW in week
    assert week.end not in week and "Monday" not in week


@pytest.mark.parametrize("words", ["blorp", "every monday", "the next 0 days", "next 400 days"])
def test_words_that_name_no_day_or_period_are_refused_with_what_works(words: str) -> None:
    with pytest.raises(ScheduleError, match=r"this week|next 3 days"):
        read_period(words, now=NOW, tz=BERLIN)


def test_find_period_says_which_words_are_a_period_of_several_days() -> None:
    assert find_period("this week?") == "this week"
    assert find_period("in  December") == "in December"
    assert find_period("over the next 3 days") == "over the next 3 days"
    assert find_period("tomorrow") is None
    assert find_period("the gym") is None

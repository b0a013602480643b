"""Schedule values: next fire times, the DST policy, descriptions and the JSON form."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest

from tasks import (
    CronSchedule,
    CycleSchedule,
    IntervalSchedule,
    OnceSchedule,
    Schedule,
    ScheduleError,
    keep_time_of_day,
    parse_schedule,
    schedule_from_json,
    time_of_day,
)

BERLIN = ZoneInfo("Europe/Berlin")
NEW_YORK = ZoneInfo("America/New_York")


def local(
    tz: ZoneInfo,
    year: int,
    month: int,
    day: int,
    hour: int = 0,
    minute: int = 0,
    second: int = 0,
    *,
    fold: int = 0,
) -> datetime:
    """An aware local time."""
    return datetime(year, month, day, hour, minute, second, tzinfo=tz, fold=fold)


def fires(schedule: Schedule, start: datetime, count: int) -> list[datetime]:
    """The next ``count`` fires after ``start``, as local times in the schedule's zone."""
    result: list[datetime] = []
    moment: datetime | None = start
    for _ in range(count):
        assert moment is not None
        moment = schedule.next_after(moment)
        assert moment is not None
        assert moment.tzinfo is UTC
        result.append(moment.astimezone(schedule.tz))
    return result


def test_once_fires_only_before_its_instant() -> None:
    at = local(BERLIN, 2026, 11, 23, 14, 35)
    once = OnceSchedule(at=at, tz=BERLIN)
    assert once.kind == "once"
    assert once.next_after(at - timedelta(seconds=1)) == at
    assert once.next_after(at) is None
    assert once.describe() == "once at 2026-11-23 14:35 (Europe/Berlin)"


def test_once_describe_shows_seconds_when_not_zero() -> None:
    once = OnceSchedule(at=local(BERLIN, 2026, 11, 23, 14, 35, 30), tz=BERLIN)
    assert once.describe() == "once at 2026-11-23 14:35:30 (Europe/Berlin)"


def test_interval_counts_elapsed_time_across_dst() -> None:
    anchor = local(BERLIN, 2026, 3, 29, 1, 0)
    hourly = IntervalSchedule(every=timedelta(hours=1), anchor=anchor, tz=BERLIN)
    assert hourly.kind == "recurring"
    assert hourly.next_after(anchor - timedelta(days=1)) == anchor
    got = fires(hourly, anchor, 3)
    assert [t.strftime("%H:%M%z") for t in got] == ["03:00+0200", "04:00+0200", "05:00+0200"]
    assert hourly.describe() == "every hour (Europe/Berlin)"


@pytest.mark.parametrize(
    ("every", "words"),
    [
        (timedelta(minutes=15), "every 15 minutes"),
        (timedelta(hours=2), "every 2 hours"),
        (timedelta(days=1), "every day"),
        (timedelta(weeks=2), "every 2 weeks"),
        (timedelta(seconds=90), "every 90 seconds"),
    ],
)
def test_interval_describe(every: timedelta, words: str) -> None:
    anchor = local(BERLIN, 2026, 1, 1, 0, 0)
    schedule = IntervalSchedule(every=every, anchor=anchor, tz=BERLIN)
    assert schedule.describe() == f"{words} (Europe/Berlin)"


def test_interval_between_fires_and_on_a_fire() -> None:
    anchor = local(NEW_YORK, 2026, 1, 1, 12, 0)
    every = IntervalSchedule(every=timedelta(minutes=15), anchor=anchor, tz=NEW_YORK)
    assert every.next_after(anchor) == anchor + timedelta(minutes=15)
    assert every.next_after(anchor + timedelta(minutes=16)) == anchor + timedelta(minutes=30)


@pytest.mark.parametrize(
    ("zone", "spring", "autumn", "fires_at"),
    [
        pytest.param(
            BERLIN, (2026, 3, 28), (2026, 10, 24),
            ["03-29 09:00+0200", "03-30 09:00+0200", "10-25 09:00+0100", "10-26 09:00+0100"],
            id="Berlin",
        ),
        pytest.param(
            NEW_YORK, (2026, 3, 7), (2026, 10, 31),
            ["03-08 09:00-0400", "03-09 09:00-0400", "11-01 09:00-0500", "11-02 09:00-0500"],
            id="New York",
        ),
    ],
)  # fmt: skip
def test_daily_0900_holds_wall_clock_across_both_changes(
    zone: ZoneInfo, spring: tuple[int, int, int], autumn: tuple[int, int, int], fires_at: list[str]
) -> None:
    daily = CronSchedule("0 9 * * *", zone)
    got = fires(daily, local(zone, *spring, 10, 0), 2) + fires(
        daily, local(zone, *autumn, 10, 0), 2
    )
    assert [t.strftime("%m-%d %H:%M%z") for t in got] == fires_at


SPRING_FORWARD = [(BERLIN, date(2026, 3, 29)), (NEW_YORK, date(2026, 3, 8))]
# Berlin repeats 02:00-03:00 on 2026-10-25; New York repeats 01:00-02:00 on 2026-11-01.
FALL_BACK = [(BERLIN, date(2026, 10, 25), 2), (NEW_YORK, date(2026, 11, 1), 1)]
DAY = timedelta(days=1)


@pytest.mark.parametrize(("tz", "night"), SPRING_FORWARD)
def test_cron_0230_in_the_spring_gap_fires_once_shifted_by_the_gap(
    tz: ZoneInfo, night: date
) -> None:
    nightly = CronSchedule("30 2 * * *", tz)
    start = datetime.combine(night - DAY, time(0, 0), tzinfo=tz)
    assert [(t.date(), t.strftime("%H:%M")) for t in fires(nightly, start, 3)] == [
        (night - DAY, "02:30"),
        (night, "03:30"),
        (night + DAY, "02:30"),
    ]


@pytest.mark.parametrize(("tz", "night", "hour"), FALL_BACK)
def test_cron_in_the_repeated_hour_fires_once_at_the_first(
    tz: ZoneInfo, night: date, hour: int
) -> None:
    nightly = CronSchedule(f"30 {hour} * * *", tz)
    start = datetime.combine(night - DAY, time(0, 0), tzinfo=tz)
    got = fires(nightly, start, 3)
    assert [(t.date(), t.hour, t.minute) for t in got] == [
        (night - DAY, hour, 30),
        (night, hour, 30),
        (night + DAY, hour, 30),
    ]
    assert got[1].utcoffset() == got[0].utcoffset()  # summer time: the first of the two


@pytest.mark.parametrize(("tz", "night", "hour"), FALL_BACK)
def test_cron_0230_on_the_fall_back_night_fires_once(tz: ZoneInfo, night: date, hour: int) -> None:
    nightly = CronSchedule("30 2 * * *", tz)
    start = datetime.combine(night, time(0, 0), tzinfo=tz)
    end = start + DAY
    got = [t for t in fires(nightly, start, 2) if t < end]
    assert [(t.date(), t.strftime("%H:%M")) for t in got] == [(night, "02:30")]


def test_cron_gap_fire_found_from_inside_the_shifted_hour() -> None:
    nightly = CronSchedule("30 2 * * *", BERLIN)
    after_gap = local(BERLIN, 2026, 3, 29, 3, 10)
    assert nightly.next_after(after_gap) == local(BERLIN, 2026, 3, 29, 3, 30)


@pytest.mark.parametrize(
    ("expression", "zone", "start", "fires_at"),
    [
        pytest.param(
            "*/30 * * * *", BERLIN, (2026, 10, 25, 1, 15),
            ["01:30+0200", "02:00+0200", "02:30+0200", "03:00+0100", "03:30+0100"],
            id="every 30 minutes through the fall-back hour fires each time once",
        ),
        pytest.param(
            "*/15 * * * *", NEW_YORK, (2026, 3, 8, 1, 40),
            ["01:45-0500", "03:00-0400", "03:15-0400", "03:30-0400", "03:45-0400", "04:00-0400"],
            id="every 15 minutes through the gap has no duplicates",
        ),
    ],
)  # fmt: skip
def test_cron_through_a_dst_change(
    expression: str, zone: ZoneInfo, start: tuple[int, ...], fires_at: list[str]
) -> None:
    got = fires(CronSchedule(expression, zone), local(zone, *start), len(fires_at))
    assert [t.strftime("%H:%M%z") for t in got] == fires_at


def test_cron_from_inside_the_second_pass_of_a_repeated_hour() -> None:
    nightly = CronSchedule("45 2 * * *", BERLIN)
    second_pass = local(BERLIN, 2026, 10, 25, 2, 10, fold=1)
    assert nightly.next_after(second_pass) == local(BERLIN, 2026, 10, 26, 2, 45)


@pytest.mark.parametrize(
    ("expression", "words"),
    [
        ("0 9 * * 1-5", "every weekday at 09:00"),
        ("0 1 * * *", "every day at 01:00"),
        ("0 10 * * mon", "every Monday at 10:00"),
        ("0 7 * * 2,4", "every Tuesday and Thursday at 07:00"),
        ("30 10 * * 0,6", "every Saturday and Sunday at 10:30"),
        ("0 8 1 * *", "every month on the 1st at 08:00"),
        ("0 8 L * *", "every month on the last day at 08:00"),
        ("0 9,17 * * *", "every day at 09:00 and 17:00"),
        ("0 9 25 12 *", "every year on the 25th of December at 09:00"),
        ("*/15 * * * *", "every 15 minutes"),
        ("* * * * *", "every minute"),
        ("*/15 * * * 1-5", "every weekday every 15 minutes"),
    ],
)
def test_cron_describe(expression: str, words: str) -> None:
    assert CronSchedule(expression, BERLIN).describe() == f"{words} (Europe/Berlin)"


def test_cron_last_day_of_month_and_nth_weekday() -> None:
    last = fires(CronSchedule("0 8 L * *", BERLIN), local(BERLIN, 2028, 1, 31, 9, 0), 2)
    assert [t.date().isoformat() for t in last] == ["2028-02-29", "2028-03-31"]
    second_friday = fires(CronSchedule("0 8 * * 5#2", BERLIN), local(BERLIN, 2026, 1, 1), 2)
    assert [t.date().isoformat() for t in second_friday] == ["2026-01-09", "2026-02-13"]


def test_cron_day_of_month_or_weekday_like_cron() -> None:
    either = CronSchedule("0 9 13 * 5", BERLIN)
    got = fires(either, local(BERLIN, 2026, 2, 1), 3)
    assert [t.date().isoformat() for t in got] == ["2026-02-06", "2026-02-13", "2026-02-20"]


def test_cron_feb_29_is_found_years_ahead() -> None:
    leap = CronSchedule("0 0 29 2 *", BERLIN)
    assert fires(leap, local(BERLIN, 2028, 3, 1), 1)[0].date().isoformat() == "2032-02-29"


@pytest.mark.parametrize(
    ("expression", "fragment"),
    [
        ("0 25 * * *", "is not valid"),
        ("61 * * * *", "is not valid"),
        ("0 9 * *", "has 4 fields"),
        ("0 9 * * * 2026", "has 6 fields"),
        ("0 9 15W * *", "is not supported"),
        ("H 9 * * *", "is not supported"),
        ("0 0 31 2 *", "never fires"),
        ("", "has 0 fields"),
    ],
)
def test_cron_refuses_bad_expressions(expression: str, fragment: str) -> None:
    with pytest.raises(ScheduleError, match=fragment) as caught:
        CronSchedule(expression, BERLIN)
    assert "e.g." in str(caught.value)


def test_constructors_refuse_naive_times_and_empty_intervals() -> None:
    naive = datetime(2026, 1, 1, 9, 0)
    with pytest.raises(ScheduleError, match="time-zone-aware"):
        OnceSchedule(at=naive, tz=BERLIN)
    aware = naive.replace(tzinfo=BERLIN)
    with pytest.raises(ScheduleError, match="longer than zero"):
        IntervalSchedule(every=timedelta(0), anchor=aware, tz=BERLIN)
    with pytest.raises(ScheduleError, match="longer than zero"):
        IntervalSchedule(every=timedelta(minutes=-5), anchor=aware, tz=BERLIN)
    with pytest.raises(ScheduleError, match="time-zone-aware"):
        OnceSchedule(at=aware, tz=BERLIN).next_after(naive)


def test_a_cycle_fires_on_its_days_from_the_anchor_at_each_time() -> None:
    # A two-week cycle from Monday 2026-03-16, firing on its Monday and Thursday.
    schedule = CycleSchedule(14, date(2026, 3, 16), (0, 3), (time(7), time(19, 30)), BERLIN)
    assert [f.isoformat(sep=" ") for f in fires(schedule, local(BERLIN, 2026, 3, 1), 5)] == [
        "2026-03-16 07:00:00+01:00",
        "2026-03-16 19:30:00+01:00",
        "2026-03-19 07:00:00+01:00",
        "2026-03-19 19:30:00+01:00",
        "2026-03-30 07:00:00+02:00",
    ]
    assert schedule.describe() == (
        "every other week on Monday and Thursday at 07:00 and 19:30 (Europe/Berlin)"
    )


def test_a_cycle_fires_once_in_the_repeated_hour_of_the_fall_back_night() -> None:
    schedule = CycleSchedule(1, date(2026, 10, 20), (0,), (time(2, 30),), BERLIN)
    assert [f.isoformat(sep=" ") for f in fires(schedule, local(BERLIN, 2026, 10, 24, 12), 2)] == [
        "2026-10-25 02:30:00+02:00",
        "2026-10-26 02:30:00+01:00",
    ]


def test_a_cycle_ends_quietly_at_the_end_of_the_calendar() -> None:
    schedule = CycleSchedule(3, date(9999, 12, 1), (0,), (time(9),), BERLIN)
    assert schedule.next_after(datetime(9999, 12, 31, 12, tzinfo=UTC)) is None


@pytest.mark.parametrize(
    ("every", "days", "times", "fragment"),
    [
        (0, (0,), (time(9),), "must last 1 to 3650 days"),
        (3651, (0,), (time(9),), "must last 1 to 3650 days"),
        (3, (), (time(9),), "must be between 0 and 2"),
        (3, (3,), (time(9),), "must be between 0 and 2"),
        (3, (0,), (), "local wall times"),
        (3, (0,), (time(9, tzinfo=UTC),), "local wall times"),
    ],
)
def test_a_cycle_refuses_impossible_values(
    every: int, days: tuple[int, ...], times: tuple[time, ...], fragment: str
) -> None:
    with pytest.raises(ScheduleError, match=fragment):
        CycleSchedule(every, date(2026, 3, 16), days, times, BERLIN)


ROUND_TRIP: list[Schedule] = [
    OnceSchedule(at=local(BERLIN, 2026, 11, 23, 14, 35), tz=BERLIN),
    OnceSchedule(at=local(BERLIN, 2026, 10, 25, 2, 30, fold=1), tz=BERLIN),
    IntervalSchedule(every=timedelta(minutes=15), anchor=local(NEW_YORK, 2026, 1, 1), tz=NEW_YORK),
    IntervalSchedule(every=timedelta(seconds=1.5), anchor=local(BERLIN, 2026, 1, 1), tz=BERLIN),
    CronSchedule("0 9 * * 1-5", NEW_YORK),
    CronSchedule("0 18 * * 2#2", BERLIN),
    CycleSchedule(3, date(2026, 3, 11), (0,), (time(8),), BERLIN),
    CycleSchedule(14, date(2026, 3, 16), (0, 3), (time(7), time(19, 30)), NEW_YORK),
]


@pytest.mark.parametrize("schedule", ROUND_TRIP, ids=lambda s: s.to_json())
def test_json_round_trip(schedule: Schedule) -> None:
    text = schedule.to_json()
    back = schedule_from_json(text)
    assert back == schedule
    assert back.describe() == schedule.describe()
    probe = datetime(2026, 6, 1, tzinfo=UTC)
    assert back.next_after(probe) == schedule.next_after(probe)


@pytest.mark.parametrize(
    "text",
    [
        "not json",
        "[]",
        '{"type": "once", "at": "2026-01-01T00:00:00+00:00", "tz": "UTC"}',
        '{"v": 2, "type": "once", "at": "2026-01-01T00:00:00+00:00", "tz": "UTC"}',
        '{"v": 1, "type": "weekly", "tz": "UTC"}',
        '{"v": 1, "type": "once", "at": "2026-01-01T00:00:00", "tz": "UTC"}',
        '{"v": 1, "type": "once", "at": "2026-01-01T00:00:00+00:00", "tz": "Mars/Olympus"}',
        '{"v": 1, "type": "interval", "every_seconds": "60", "anchor": "x", "tz": "UTC"}',
        '{"v": 1, "type": "interval", "every_seconds": 0,'
        ' "anchor": "2026-01-01T00:00:00+00:00", "tz": "UTC"}',
        '{"v": 1, "type": "cron", "expression": "99 * * * *", "tz": "UTC"}',
        '{"v": 1, "type": "cron", "tz": "UTC"}',
        '{"v": 1, "type": "cycle", "every_days": 0, "anchor": "2026-03-16", "days": [0],'
        ' "times": ["09:00:00"], "tz": "UTC"}',
        '{"v": 1, "type": "cycle", "every_days": "3", "anchor": "2026-03-16", "days": [0],'
        ' "times": ["09:00:00"], "tz": "UTC"}',
        '{"v": 1, "type": "cycle", "every_days": 3, "anchor": "x", "days": [0],'
        ' "times": ["09:00:00"], "tz": "UTC"}',
        '{"v": 1, "type": "cycle", "every_days": 3, "anchor": "2026-03-16", "days": 0,'
        ' "times": ["09:00:00"], "tz": "UTC"}',
    ],
)
def test_json_refuses_bad_or_unknown_versions(text: str) -> None:
    with pytest.raises(ScheduleError):
        schedule_from_json(text)


@pytest.mark.parametrize(
    ("words", "kept"),
    [
        ("friday", "every Friday at 08:30"),
        ("every weekend", "every Saturday and Sunday at 08:30"),
        ("friday at noon", "every Friday at 12:00"),
        ("friday morning", "every Friday at 09:00"),
        ("0 9 * * 5", "every Friday at 09:00"),
    ],
)
def test_words_that_name_only_days_keep_the_time_of_day(words: str, kept: str) -> None:
    now = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
    old = parse_schedule("every weekday at 8:30", now=now, tz=BERLIN)
    moved = parse_schedule(words, now=now, tz=BERLIN, recurring=True)

    assert keep_time_of_day(moved, old, words).describe().startswith(kept)
    assert time_of_day(old) == time(8, 30)
    assert time_of_day(parse_schedule("every 2 hours", now=now, tz=BERLIN)) is None

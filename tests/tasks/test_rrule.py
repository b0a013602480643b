"""Schedules as iCalendar rules, both ways (``tasks.recurrence_of``, ``tasks.schedule_of``).

Every recurrence written is expanded by dateutil's rrule, an expander of its own, and must give
exactly the schedule's fires over a year that holds both changes of the clocks, in three zones.
Rules written by hand in the shapes calendar apps write are read back into schedules whose
fires are dateutil's; a rule the language cannot say is refused naming its part.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from dateutil.rrule import rruleset, rrulestr

from tasks import (
    BoundedSchedule,
    OnceSchedule,
    Recurrence,
    RuleError,
    parse_schedule,
    recurrence_of,
    schedule_of,
)
from testing.schedules import ICALENDAR_PHRASES, fires_between

ZONES = [ZoneInfo("America/New_York"), ZoneInfo("Europe/Berlin"), ZoneInfo("Australia/Sydney")]
NOW = datetime(2026, 3, 1, 10, 0)
"""Local; a year from it holds both changes of the clocks in each zone."""
YEAR = timedelta(days=366)


def expanded(recurrence: Recurrence, after: datetime, until: datetime) -> list[datetime]:
    """dateutil's instances of the recurrence after ``after`` up to ``until``, in UTC."""
    instances = rruleset()
    if recurrence.rule:
        instances.rrule(rrulestr(recurrence.rule, dtstart=recurrence.start))
    instances.rdate(recurrence.start)
    for moment in recurrence.rdates:
        instances.rdate(moment)
    for moment in recurrence.exdates:
        instances.exdate(moment)
    # As fires_between: after ``after``, before ``until``.
    return [i.astimezone(UTC) for i in instances.between(after, until) if i > after]


@pytest.mark.parametrize("zone", ZONES, ids=lambda z: z.key)
@pytest.mark.parametrize("phrase", ICALENDAR_PHRASES)
def test_every_recurrence_expands_to_exactly_the_schedules_fires_between(
    zone: ZoneInfo, phrase: str
) -> None:
    now = NOW.replace(tzinfo=zone).astimezone(UTC)
    schedule = parse_schedule(phrase, now=now, tz=zone)
    recurrence = recurrence_of(schedule, after=now, horizon=now + 2 * YEAR)
    assert recurrence is not None
    assert expanded(recurrence, now, now + YEAR) == fires_between(schedule, now, now + YEAR)


@pytest.mark.parametrize("zone", ZONES, ids=lambda z: z.key)
@pytest.mark.parametrize("phrase", ICALENDAR_PHRASES)
def test_a_recurrence_reads_back_into_a_schedule_with_the_same_fires_between(
    zone: ZoneInfo, phrase: str
) -> None:
    now = NOW.replace(tzinfo=zone).astimezone(UTC)
    schedule = parse_schedule(phrase, now=now, tz=zone)
    recurrence = recurrence_of(schedule, after=now, horizon=now + 3 * YEAR)
    assert recurrence is not None
    if recurrence.rule is None:  # a day counted from Easter: listed, and refused back
        with pytest.raises(RuleError, match="RDATE"):
            schedule_of(recurrence, now=now, zone=zone)
        return
    back = schedule_of(recurrence, now=now, zone=zone)
    assert fires_between(back, now, now + 2 * YEAR) == fires_between(schedule, now, now + 2 * YEAR)
    said = isinstance(schedule, BoundedSchedule) and (schedule.skips.repeats or schedule.start)
    if not said:  # what RFC 5545 has no words for: days left out every year, a start
        assert back.describe() == schedule.describe()


def test_rules_say_what_calendar_apps_show() -> None:
    zone = ZONES[1]
    now = NOW.replace(tzinfo=zone)
    said = {
        phrase: recurrence_of(parse_schedule(phrase, now=now, tz=zone), after=now, horizon=now)
        for phrase in (
            "every other friday",
            "every last weekday of the month at 4pm",
            "every weekday at 9 until march 20",
            "every day at 9 for 10 times",
            "every 15 minutes",
            "every day at 9 and 18:30",
            "every month on the 31st",
            "every thanksgiving",
        )
    }
    rules = {phrase: r.rule if r else None for phrase, r in said.items()}
    assert rules == {
        "every other friday": "FREQ=WEEKLY;INTERVAL=2;BYDAY=FR",
        "every last weekday of the month at 4pm": "FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1",
        "every weekday at 9 until march 20": "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;UNTIL=20260320T225959Z",
        "every day at 9 for 10 times": "FREQ=DAILY;COUNT=10",
        "every 15 minutes": "FREQ=MINUTELY;INTERVAL=15",
        "every day at 9 and 18:30": "FREQ=DAILY;BYHOUR=9,18;BYMINUTE=0,30;BYSETPOS=1,4",
        "every month on the 31st": "FREQ=MONTHLY;BYMONTHDAY=28,29,30,31;BYSETPOS=-1",
        "every thanksgiving": "FREQ=YEARLY;BYMONTH=11;BYDAY=4TH",
    }
    fifteen = said["every 15 minutes"]
    assert fifteen is not None and fifteen.start.tzinfo is UTC  # elapsed time: counted in UTC
    assert said["every other friday"] == Recurrence(
        start=datetime(2026, 3, 6, 9, tzinfo=zone), rule="FREQ=WEEKLY;INTERVAL=2;BYDAY=FR"
    )


def test_a_time_in_the_spring_forward_gap_is_written_as_the_rule_says_it() -> None:
    zone = ZoneInfo("America/New_York")
    now = datetime(2026, 3, 1, 10, tzinfo=zone)
    schedule = parse_schedule("every sunday at 2:30am", now=now, tz=zone)
    recurrence = recurrence_of(schedule, after=now, horizon=now)
    assert recurrence is not None
    # 02:30 on March 8 does not exist; RFC 5545 reads it as 03:30, as the schedule fires.
    assert recurrence.start.replace(tzinfo=None) == datetime(2026, 3, 8, 2, 30)
    assert schedule.next_after(now) == recurrence.start.astimezone(UTC)


def test_days_left_out_every_year_are_listed_up_to_the_horizon() -> None:
    zone = ZoneInfo("America/New_York")
    now = datetime(2026, 12, 1, 10, tzinfo=zone)
    schedule = parse_schedule("every weekday at 9 except holidays", now=now, tz=zone)
    horizon = datetime(2027, 2, 1, tzinfo=zone)
    recurrence = recurrence_of(schedule, after=now, horizon=horizon)
    assert recurrence is not None and recurrence.exact_until == horizon
    assert [d.date().isoformat() for d in recurrence.exdates] == [
        "2026-12-25", "2027-01-01", "2027-01-18",
    ]  # fmt: skip
    once = parse_schedule("every day at 9 except tomorrow", now=now, tz=zone)
    listed = recurrence_of(once, after=now, horizon=horizon)
    assert listed is not None and listed.exact_until is None  # one day: listed in full


def test_a_schedule_that_fires_no_more_has_no_recurrence() -> None:
    zone = ZONES[0]
    now = datetime(2026, 3, 1, 10, tzinfo=zone)
    done = parse_schedule("every day at 9 until march 2", now=now, tz=zone)
    assert recurrence_of(done, after=datetime(2026, 3, 3, tzinfo=zone), horizon=now) is None
    once = OnceSchedule(at=datetime(2026, 3, 2, 9, tzinfo=zone), tz=zone)
    assert recurrence_of(once, after=now, horizon=now) == Recurrence(
        start=datetime(2026, 3, 2, 9, tzinfo=zone)
    )


# -- rules as calendar apps write them -------------------------------------------------------

APP_RULES = [
    # (DTSTART local, zone, RRULE, what the language says)
    ("2026-03-02T09:00", "America/Los_Angeles", "FREQ=WEEKLY;BYDAY=MO,WE,FR;WKST=SU",
     "every Monday, Wednesday and Friday at 09:00 (America/Los_Angeles)"),
    ("2026-03-10T18:30", "Europe/Berlin", "FREQ=MONTHLY;BYDAY=2TU",
     "every month on the second Tuesday at 18:30 (Europe/Berlin)"),
    ("2026-03-31T16:00", "Europe/London", "FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1",
     "every month on the last weekday at 16:00 (Europe/London)"),
    ("2026-11-26T12:00", "America/New_York", "FREQ=YEARLY;BYMONTH=11;BYDAY=4TH",
     "every year on Thanksgiving at 12:00 (America/New_York)"),
    ("2026-03-03T07:15", "Australia/Sydney", "FREQ=DAILY;INTERVAL=2;COUNT=5",
     "every other day at 07:15, 5 times, until 2026-03-11 07:15 (Australia/Sydney)"),
    ("2026-03-03T08:00", "America/Chicago", "FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,TH;WKST=SU",
     "every other week on Tuesday and Thursday at 08:00 (America/Chicago)"),
    ("2026-03-01T10:00", "America/Chicago", "FREQ=WEEKLY;INTERVAL=2;BYDAY=SU,MO;WKST=SU",
     "every other week on Monday and Sunday at 10:00 (America/Chicago)"),
    ("2026-03-05T09:00", "Europe/Paris", "FREQ=WEEKLY;UNTIL=20260430T220000Z;BYDAY=TH",
     "every Thursday at 09:00, until 2026-05-01 00:00 (Europe/Paris)"),
    ("2026-03-15T20:00", "Asia/Tokyo", "FREQ=MONTHLY;BYMONTHDAY=15",
     "every month on the 15th at 20:00 (Asia/Tokyo)"),
    ("2026-03-31T09:00", "Europe/Berlin", "FREQ=MONTHLY;BYMONTHDAY=-1",
     "every month on the last day at 09:00 (Europe/Berlin)"),
    ("2026-06-05T09:00", "UTC", "FREQ=YEARLY", "every year on the 5th of June at 09:00 (UTC)"),
    ("2026-03-02T09:00", "America/New_York", "FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR",
     "every weekday at 09:00 (America/New_York)"),
    ("2026-03-06T17:00", "America/New_York",
     "FREQ=WEEKLY;INTERVAL=2;BYDAY=FR;UNTIL=20261219T045959Z",
     "every other week on Friday at 17:00, until Fri 2026-12-18 (America/New_York)"),
]  # fmt: skip


@pytest.mark.parametrize(("start", "zone_name", "rule", "words"), APP_RULES)
def test_rules_calendar_apps_write_read_as_schedules_with_their_instances(
    start: str, zone_name: str, rule: str, words: str
) -> None:
    zone = ZoneInfo(zone_name)
    dtstart = datetime.fromisoformat(start).replace(tzinfo=zone)
    now = dtstart.astimezone(UTC) - timedelta(minutes=1)
    schedule = schedule_of(Recurrence(start=dtstart, rule=rule), now=now)
    assert schedule.describe() == words
    recurrence = Recurrence(start=dtstart, rule=rule)
    until = now + 2 * YEAR
    assert fires_between(schedule, now, until) == expanded(recurrence, now, until)


@pytest.mark.parametrize(
    ("start", "rule", "named"),
    [
        ("2026-03-10T09:00", "FREQ=MONTHLY;BYDAY=2TU,4TU", "BYDAY=2TU,4TU"),
        ("2026-03-31T09:00", "FREQ=MONTHLY;BYMONTHDAY=31", "BYMONTHDAY=31"),
        ("2026-03-31T09:00", "FREQ=MONTHLY", "FREQ=MONTHLY from the 31th"),
        ("2028-02-29T09:00", "FREQ=YEARLY", "FREQ=YEARLY on February 29"),
        ("2026-05-11T09:00", "FREQ=YEARLY;BYWEEKNO=20;BYDAY=MO", "BYWEEKNO=20"),
        ("2026-03-10T09:00", "FREQ=YEARLY;BYYEARDAY=69", "BYYEARDAY=69"),
        ("2026-03-10T09:00", "FREQ=HOURLY;BYHOUR=9,10", "FREQ=HOURLY with BYHOUR=9,10"),
        ("2026-03-10T09:00", "FREQ=MINUTELY;INTERVAL=30", "FREQ=MINUTELY in Europe/Berlin"),
        ("2026-03-10T09:00", "FREQ=WEEKLY;BYDAY=MO", "DTSTART on a TU with BYDAY=MO"),
        ("2026-03-10T09:00", "FREQ=DAILY;BYMONTHDAY=1;BYDAY=MO", "BYDAY with BYMONTHDAY"),
        ("2026-03-02T09:00", "FREQ=MONTHLY;BYDAY=1MO;BYSETPOS=1", "BYSETPOS=1"),
        ("2026-03-10T09:00", "FREQ=FORTNIGHTLY", "FREQ=FORTNIGHTLY"),
        ("2026-03-10T09:00", "FREQ=DAILY;COUNT=3;UNTIL=20260320T000000Z", "COUNT with UNTIL"),
        ("2026-03-10T09:00:30", "FREQ=DAILY", "whole minutes"),
    ],
)
def test_rules_the_language_cannot_say_are_refused_by_name(
    start: str, rule: str, named: str
) -> None:
    zone = ZoneInfo("Europe/Berlin")
    dtstart = datetime.fromisoformat(start).replace(tzinfo=zone)
    with pytest.raises(RuleError) as refused:
        schedule_of(Recurrence(start=dtstart, rule=rule), now=dtstart - timedelta(days=1))
    assert named in str(refused.value)


def test_an_until_that_is_a_date_ends_with_that_local_day() -> None:
    zone = ZoneInfo("America/New_York")
    dtstart = datetime(2026, 3, 6, 17, tzinfo=zone)
    recurrence = Recurrence(start=dtstart, rule="FREQ=WEEKLY;BYDAY=FR;UNTIL=20260320")
    schedule = schedule_of(recurrence, now=dtstart - timedelta(minutes=1))
    assert schedule.describe() == "every Friday at 17:00, until Fri 2026-03-20 (America/New_York)"
    assert fires_between(schedule, dtstart - timedelta(minutes=1), dtstart + YEAR) == [
        datetime(2026, 3, day, 17, tzinfo=zone) for day in (6, 13, 20)
    ]


def test_a_series_that_starts_later_starts_no_earlier_than_its_dtstart() -> None:
    zone = ZoneInfo("America/Los_Angeles")
    dtstart = datetime(2026, 3, 2, 9, tzinfo=zone)
    recurrence = Recurrence(start=dtstart, rule="FREQ=WEEKLY;BYDAY=MO,WE,FR")
    now = datetime(2026, 2, 20, tzinfo=zone).astimezone(UTC)
    schedule = schedule_of(recurrence, now=now)
    assert schedule.describe() == (
        "every Monday, Wednesday and Friday at 09:00, from 2026-03-02 09:00 (America/Los_Angeles)"
    )
    assert schedule.next_after(now) == dtstart


def test_extra_dates_and_an_exdate_among_a_days_times_are_refused() -> None:
    zone = ZoneInfo("Europe/Berlin")
    start = datetime(2026, 3, 10, 9, tzinfo=zone)
    with pytest.raises(RuleError, match="RDATE"):
        schedule_of(
            Recurrence(start=start, rule="FREQ=DAILY", rdates=(start + timedelta(hours=5),)),
            now=start,
        )
    twice = Recurrence(
        start=start,
        rule="FREQ=DAILY;BYHOUR=9,18;BYMINUTE=0",
        exdates=(datetime(2026, 3, 12, 18, tzinfo=zone),),
    )
    with pytest.raises(RuleError, match="leaves out one of the 2 times of 2026-03-12"):
        schedule_of(twice, now=start)


def test_exdates_leave_out_their_days_and_count_among_count_as_rfc_5545_says() -> None:
    zone = ZoneInfo("Europe/Berlin")
    start = datetime(2026, 3, 10, 9, tzinfo=zone)
    recurrence = Recurrence(
        start=start,
        rule="FREQ=DAILY;COUNT=5",
        exdates=(datetime(2026, 3, 11, 9, tzinfo=zone), datetime(2026, 4, 1, 9, tzinfo=zone)),
    )
    schedule = schedule_of(recurrence, now=start - timedelta(days=1))
    assert schedule.describe() == (
        "every day at 09:00, except Wed 2026-03-11, 4 times, until 2026-03-14 09:00 (Europe/Berlin)"
    )
    now = start - timedelta(days=1)
    assert fires_between(schedule, now, now + YEAR) == expanded(recurrence, now, now + YEAR)


@pytest.mark.parametrize(
    ("start", "rule", "shift", "words"),
    [
        (
            "2026-03-02T00:10",
            "FREQ=WEEKLY;BYDAY=MO",
            timedelta(minutes=-15),
            "every Sunday at 23:55 (America/New_York)",
        ),
        (
            "2026-03-03T09:00",
            "FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,TH",
            timedelta(days=-1),
            "every other week on Monday and Wednesday at 09:00 (America/New_York)",
        ),
        (
            "2026-04-01T00:00",
            "FREQ=MONTHLY;BYMONTHDAY=1",
            timedelta(hours=-15),
            "every month on the last day at 09:00 (America/New_York)",
        ),
        (
            "2026-06-05T00:00",
            "FREQ=YEARLY",
            timedelta(hours=-15),
            "every year on the 4th of June at 09:00 (America/New_York)",
        ),
        (
            "2026-03-10T10:00",
            "FREQ=DAILY;COUNT=3",
            timedelta(minutes=-10),
            "every day at 09:50, from 2026-03-10 09:50, 3 times, until 2026-03-12 09:50 "
            "(America/New_York)",
        ),
    ],
)
def test_an_alarm_before_its_event_moves_the_schedule_by_its_offset(
    start: str, rule: str, shift: timedelta, words: str
) -> None:
    zone = ZoneInfo("America/New_York")
    dtstart = datetime.fromisoformat(start).replace(tzinfo=zone)
    now = datetime(2026, 3, 1, tzinfo=zone).astimezone(UTC)
    recurrence = Recurrence(start=dtstart, rule=rule)
    schedule = schedule_of(recurrence, now=now, shift=shift)
    assert schedule.describe() == words
    alarms = [
        instance + shift for instance in expanded(recurrence, now - 2 * abs(shift), now + YEAR)
    ]
    assert fires_between(schedule, now, now + YEAR - timedelta(days=2)) == [
        a for a in alarms if now < a <= now + YEAR - timedelta(days=2)
    ]


def test_an_alarm_that_would_not_keep_its_wall_time_across_a_clock_change_is_refused() -> None:
    zone = ZoneInfo("America/New_York")
    # 03:30 an hour before is 01:30 wall time on most Sundays, 02:30 (no such time) on March 8.
    dtstart = datetime(2026, 3, 1, 3, 30, tzinfo=zone)
    recurrence = Recurrence(start=dtstart, rule="FREQ=WEEKLY;BYDAY=SU")
    with pytest.raises(RuleError, match="falls across a change of the clocks"):
        schedule_of(recurrence, now=dtstart - timedelta(days=1), shift=timedelta(hours=-1))


def test_an_alarm_on_another_day_than_a_monthly_weekday_is_refused() -> None:
    zone = ZoneInfo("America/New_York")
    dtstart = datetime(2026, 3, 10, 9, tzinfo=zone)
    with pytest.raises(RuleError, match="BYDAY=2TU falls on a day"):
        schedule_of(
            Recurrence(start=dtstart, rule="FREQ=MONTHLY;BYDAY=2TU"),
            now=dtstart,
            shift=timedelta(days=-1),
        )

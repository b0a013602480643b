"""The days a repeating schedule leaves out (``tasks.Skips``) and a bounded schedule with them."""

from __future__ import annotations

from datetime import date, datetime, time
from zoneinfo import ZoneInfo

import pytest

from common import ManualClock
from tasks import (
    BoundedSchedule,
    CronSchedule,
    CycleSchedule,
    MemoryTaskStore,
    ScheduleError,
    Skips,
    TaskManager,
    TaskType,
    federal_days,
    parse_schedule,
    schedule_from_json,
)
from tests.tasks.conftest import RecordingNotifier

NEW_YORK = ZoneInfo("America/New_York")


def test_the_federal_holidays_of_2026_with_the_weekday_they_are_observed_on() -> None:
    assert sorted(federal_days(2026)) == [
        date(2026, 1, 1),
        date(2026, 1, 19),  # Martin Luther King Day, the third Monday of January
        date(2026, 2, 16),
        date(2026, 5, 25),
        date(2026, 6, 19),
        date(2026, 7, 3),  # Independence Day is a Saturday: observed on the Friday before
        date(2026, 7, 4),
        date(2026, 9, 7),
        date(2026, 10, 12),
        date(2026, 11, 11),
        date(2026, 11, 26),
        date(2026, 12, 25),
    ]


def test_new_years_day_on_a_saturday_is_observed_on_december_31_of_the_year_before() -> None:
    assert date(2021, 12, 31) in federal_days(2021)  # 2022-01-01 was a Saturday
    assert date(2022, 1, 1) in federal_days(2022)
    assert date(2023, 1, 2) in federal_days(2023)  # 2023-01-01 was a Sunday


def test_skips_say_which_days_and_read_back_from_their_json() -> None:
    skips = Skips(
        dates=frozenset({date(2026, 12, 26)}),
        yearly=frozenset({(12, 24)}),
        holidays=frozenset({"easter monday"}),
        federal=True,
    )
    assert skips.describe() == (
        "except US federal holidays, Easter Monday, December 24 and Sat 2026-12-26"
    )
    assert Skips.from_fields(skips.to_fields()) == skips
    assert skips.skips(date(2027, 3, 29))  # Easter Monday 2027
    assert skips.skips(date(2030, 12, 24)) and not skips.skips(date(2027, 12, 26))
    assert not Skips() and Skips().describe() == ""


@pytest.mark.parametrize(
    ("fields", "fragment"),
    [
        ({"yearly": [[2, 30]]}, "not a day of the year"),
        ({"holidays": ["festivus"]}, "unknown holidays"),
    ],
)
def test_skips_that_are_not_days_are_refused(fields: dict[str, object], fragment: str) -> None:
    with pytest.raises(ScheduleError, match=fragment):
        Skips.from_fields(fields)


def test_a_bounded_schedule_skips_whole_local_days_of_its_inner_schedule() -> None:
    inner = CycleSchedule(1, date(2026, 12, 20), (0,), (time(9), time(18)), NEW_YORK)
    skips = Skips(yearly=frozenset({(12, 25)}))
    schedule = BoundedSchedule(inner, None, None, None, NEW_YORK, skips)
    fires = []
    at = datetime(2026, 12, 24, 12, tzinfo=NEW_YORK)
    for _ in range(3):
        found = schedule.next_after(at)
        assert found is not None
        fires.append(found.astimezone(NEW_YORK).strftime("%m-%d %H:%M"))
        at = found
    assert fires == ["12-24 18:00", "12-26 09:00", "12-26 18:00"]
    assert schedule_from_json(schedule.to_json()) == schedule


def test_a_schedule_whose_every_day_is_left_out_never_fires() -> None:
    christmas = CronSchedule("0 9 25 12 *", NEW_YORK)
    schedule = BoundedSchedule(
        christmas, None, None, None, NEW_YORK, Skips(holidays=frozenset({"christmas"}))
    )
    assert schedule.next_after(datetime(2026, 1, 1, tzinfo=NEW_YORK)) is None


def test_days_left_out_do_not_count_towards_a_number_of_times() -> None:
    now = datetime(2026, 12, 23, 10, tzinfo=NEW_YORK)
    schedule = parse_schedule("every day at 8 for 3 times except christmas", now=now, tz=NEW_YORK)
    assert isinstance(schedule, BoundedSchedule) and schedule.count == 3
    assert schedule.end == datetime(2026, 12, 27, 8, tzinfo=NEW_YORK)
    assert schedule.describe() == (
        "every day at 08:00, except Christmas, 3 times, until 2026-12-27 08:00 (America/New_York)"
    )


def test_a_bounded_schedule_needs_something_to_bound() -> None:
    with pytest.raises(ScheduleError, match="needs a start, an end or days left out"):
        BoundedSchedule(CronSchedule("0 9 * * *", NEW_YORK), None, None, None, NEW_YORK)


def test_old_bounded_schedules_without_days_left_out_still_read() -> None:
    stored = (
        '{"v": 1, "type": "bounded", "inner": {"type": "cron", "expression": "0 9 * * *"}, '
        '"start": null, "end": "2026-12-20T23:00:00+00:00", "count": null, '
        '"tz": "America/New_York"}'
    )
    schedule = schedule_from_json(stored)
    assert isinstance(schedule, BoundedSchedule) and not schedule.skips
    assert schedule.to_json() == stored  # the form written before days could be left out
    assert schedule.next_after(datetime(2026, 12, 21, tzinfo=NEW_YORK)) is None


async def test_the_scheduler_fires_around_the_days_left_out_and_the_ledger_says_so() -> None:
    clock = ManualClock(datetime(2026, 12, 23, 10, tzinfo=NEW_YORK))
    notices = RecordingNotifier()
    manager = TaskManager(store=MemoryTaskStore(), notifier=notices, clock=clock)
    await manager.start(timer=False)
    try:
        schedule = parse_schedule("every day at 9 except christmas", now=clock.now(), tz=NEW_YORK)
        task = await manager.add_task(
            owner_id="alice",
            chat_id="alice",
            task_type=TaskType.REMINDER,
            schedule=schedule,
            description="stretch",
        )
        for day in (24, 25, 26):
            clock.set(datetime(2026, 12, day, 9, tzinfo=NEW_YORK))
            await manager.run_due()
        runs = await manager.history(task.id, "alice")
        assert sorted(r.scheduled_for.astimezone(NEW_YORK).day for r in runs) == [24, 26]
        assert [d.text for d in notices.deliveries] == ["stretch", "stretch"]
        moved = await manager.get_task(task.id, "alice")
        assert moved.next_run == datetime(2026, 12, 27, 9, tzinfo=NEW_YORK)
    finally:
        await manager.stop()

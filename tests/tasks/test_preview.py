"""Previewing a schedule phrase, as ``assistant schedule`` prints it."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from tasks import ScheduleError, preview_schedule

BERLIN = ZoneInfo("Europe/Berlin")
NEW_YORK = ZoneInfo("America/New_York")


def test_recurring_preview_lists_count_fires_through_spring_forward() -> None:
    preview = preview_schedule(
        "30 2 * * *", now_local=datetime(2026, 3, 27, 12, 0), tz=BERLIN, count=4, recurring=None
    )
    assert json.loads(preview.to_json()) == {
        "kind": "recurring",
        "description": "every day at 02:30 (Europe/Berlin)",
        "next": [
            "2026-03-28T02:30:00+01:00",
            "2026-03-29T03:30:00+02:00",
            "2026-03-30T02:30:00+02:00",
            "2026-03-31T02:30:00+02:00",
        ],
    }


def test_recurring_preview_fires_once_on_the_fall_back_night() -> None:
    preview = preview_schedule(
        "every day at 1:30am",
        now_local=datetime(2026, 10, 31, 12, 0),
        tz=NEW_YORK,
        count=3,
        recurring=None,
    )
    assert [t.isoformat() for t in preview.next] == [
        "2026-11-01T01:30:00-04:00",
        "2026-11-02T01:30:00-05:00",
        "2026-11-03T01:30:00-05:00",
    ]


def test_a_cycle_of_days_is_previewed_at_its_wall_clock_time_through_spring_forward() -> None:
    preview = preview_schedule(
        "every other day at 8am",
        now_local=datetime(2026, 3, 26, 12, 0),
        tz=BERLIN,
        count=3,
        recurring=None,
    )
    assert preview.description == "every other day at 08:00 (Europe/Berlin)"
    assert [t.isoformat() for t in preview.next] == [
        "2026-03-27T08:00:00+01:00",
        "2026-03-29T08:00:00+02:00",
        "2026-03-31T08:00:00+02:00",
    ]


def test_one_time_preview_has_one_fire_whatever_the_count() -> None:
    preview = preview_schedule(
        "in 5 minutes", now_local=datetime(2026, 3, 10, 14, 30), tz=BERLIN, count=5, recurring=None
    )
    assert preview.kind == "once"
    assert preview.description == "once at 2026-03-10 14:35 (Europe/Berlin)"
    assert json.loads(preview.to_json())["next"] == ["2026-03-10T14:35:00+01:00"]


def test_recurring_flag_reads_a_day_as_every_such_day() -> None:
    preview = preview_schedule(
        "monday 10am", now_local=datetime(2026, 3, 10, 14, 30), tz=BERLIN, count=2, recurring=True
    )
    assert preview.description == "every Monday at 10:00 (Europe/Berlin)"
    assert [t.isoformat() for t in preview.next] == [
        "2026-03-16T10:00:00+01:00",
        "2026-03-23T10:00:00+01:00",
    ]


def test_without_now_the_real_clock_is_used() -> None:
    before = datetime.now(UTC)
    preview = preview_schedule("in 1 hour", now_local=None, tz=BERLIN, count=1, recurring=None)
    assert preview.next[0] > before
    assert preview.next[0].tzinfo is BERLIN


@pytest.mark.parametrize("count", [0, -1, 1001])
def test_count_out_of_range_is_refused(count: int) -> None:
    with pytest.raises(ScheduleError, match=f"count must be between 1 and 1000, got {count}"):
        preview_schedule("daily 9am", now_local=None, tz=BERLIN, count=count, recurring=None)


def test_refusals_pass_through() -> None:
    with pytest.raises(ScheduleError, match="already passed"):
        preview_schedule(
            "today at 9am",
            now_local=datetime(2026, 3, 10, 14, 30),
            tz=BERLIN,
            count=1,
            recurring=None,
        )
    with pytest.raises(ScheduleError, match="without an offset"):
        preview_schedule(
            "daily 9am",
            now_local=datetime(2026, 3, 10, 14, 30, tzinfo=UTC),
            tz=BERLIN,
            count=1,
            recurring=None,
        )

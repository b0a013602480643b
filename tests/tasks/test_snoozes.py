"""Reading how long a snooze lasts: a delay, or until when (``tasks.snoozes``)."""

from __future__ import annotations

from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest

from tasks import (
    OnceSchedule,
    Schedule,
    ScheduleError,
    Task,
    TaskStatus,
    parse_schedule,
    read_snooze,
    run_time_of_day,
)
from tests.tasks.conftest import reminder_draft

BERLIN = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 11, 26, 17, 15, tzinfo=BERLIN)  # a Thursday


def local(day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(2026, 11, day, hour, minute, tzinfo=BERLIN)


@pytest.mark.parametrize(
    ("words", "delay"),
    [
        ("10m", timedelta(minutes=10)),
        ("for an hour", timedelta(hours=1)),
        ("1h30m", timedelta(minutes=90)),
        ("in 2 hours", timedelta(hours=2)),
        ("  half   an hour ", timedelta(minutes=30)),
    ],
)
def test_a_delay_stays_a_delay(words: str, delay: timedelta) -> None:
    assert read_snooze(words, NOW, BERLIN) == delay


@pytest.mark.parametrize(
    ("words", "until"),
    [
        ("until 11pm", local(26, 23)),
        ("till 21:30", local(26, 21, 30)),
        ("to 8pm", local(26, 20)),
        ("until 9", local(26, 21)),  # a bare hour: the next 9 o'clock
        ("5pm", local(27, 17)),  # passed today: tomorrow's
        ("until tonight", local(26, 20)),
        ("tomorrow at 10am", local(27, 10)),
        ("morning", local(27, 8)),  # the Later button's morning
        ("until tomorrow morning", local(27, 8)),
        ("until friday", local(27, 9)),  # a day alone: its default time
    ],
)
def test_a_time_is_an_instant_in_the_zone(words: str, until: datetime) -> None:
    assert read_snooze(words, NOW, BERLIN) == until


def test_a_day_alone_keeps_the_time_of_day_given() -> None:
    assert read_snooze("until friday", NOW, BERLIN, time_of_day=time(20)) == local(27, 20)
    assert read_snooze("tomorrow", NOW, BERLIN, time_of_day=time(7, 45)) == local(27, 7, 45)
    said = read_snooze("friday at 6pm", NOW, BERLIN, time_of_day=time(20))
    assert said == local(27, 18)  # a time said wins


def test_dates_are_read_in_the_owners_order() -> None:
    assert read_snooze("until 1/12", NOW, BERLIN, date_order="dmy") == datetime(
        2026, 12, 1, 9, tzinfo=BERLIN
    )


@pytest.mark.parametrize(
    ("words", "said"),
    [
        ("soonish", "could not read 'soonish' as a delay or a time; say e.g. '10m'"),
        ("", "a snooze needs a delay or a time; say e.g. '10m'"),
        ("every day at 9", "repeats (every day at 09:00 (Europe/Berlin)), but a snooze puts off"),
        ("until 3pm today", "which has already passed"),
    ],
)
def test_words_that_are_no_snooze_say_what_works(words: str, said: str) -> None:
    with pytest.raises(ScheduleError, match=r"'10m'") as refused:
        read_snooze(words, NOW, BERLIN)
    assert said in str(refused.value)


def _task(schedule: Schedule, next_run: datetime | None) -> Task:
    draft = reminder_draft(schedule, created_at=local(26, 12))
    return Task(
        id="k3m9xa",
        owner_id=draft.owner_id,
        chat_id=draft.chat_id,
        task_type=draft.task_type,
        description=draft.description,
        schedule=draft.schedule,
        execution=draft.execution,
        misfire=draft.misfire,
        status=TaskStatus.ACTIVE,
        created_at=draft.created_at,
        next_run=next_run,
    )


def test_a_repeating_task_keeps_its_usual_time_even_when_its_next_run_was_put_off() -> None:
    daily = parse_schedule("every day at 21:00", now=NOW, tz=BERLIN)
    assert run_time_of_day(_task(daily, local(26, 23, 30)), BERLIN) == time(21)


def test_a_one_time_task_keeps_the_time_of_the_run_put_off() -> None:
    once = OnceSchedule(local(27, 10, 0), BERLIN)
    assert run_time_of_day(_task(once, local(27, 15, 42)), BERLIN) == time(15, 42)
    assert run_time_of_day(_task(once, None), BERLIN) == time(10)  # done: its own time
    tokyo = ZoneInfo("Asia/Tokyo")
    daily = parse_schedule("every day at 21:00", now=NOW, tz=BERLIN)
    in_tokyo = run_time_of_day(_task(daily, local(26, 21)), tokyo)
    assert in_tokyo == time(5)  # a task kept in another zone: its run's time there

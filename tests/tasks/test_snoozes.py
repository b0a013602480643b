"""Reading how long a snooze lasts: a delay, or until when (``tasks.snoozes``)."""

from __future__ import annotations

from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest

from tasks import (
    KeptTime,
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


def local(day: int, hour: int, minute: int = 0, second: int = 0) -> datetime:
    return datetime(2026, 11, day, hour, minute, second, tzinfo=BERLIN)


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
        ("till 10 tomorrow", local(27, 10)),  # the hour said before the day
        ("until 9.30 on friday", local(27, 9, 30)),
        ("until 10 tmrw", local(27, 10)),
        ("until after lunch", local(27, 13)),
        ("until late afternoon", local(27, 16)),
        ("until midweek", datetime(2026, 12, 2, 9, tzinfo=BERLIN)),
    ],
)
def test_a_time_is_an_instant_in_the_zone(words: str, until: datetime) -> None:
    assert read_snooze(words, NOW, BERLIN) == until


def test_a_day_alone_keeps_the_time_of_day_given() -> None:
    nine_pm = KeptTime(time(21), BERLIN)
    assert read_snooze("until friday", NOW, BERLIN, keep=nine_pm) == local(27, 21)
    assert read_snooze("tomorrow", NOW, BERLIN, keep=KeptTime(time(7, 45), BERLIN)) == local(
        27, 7, 45
    )
    assert read_snooze("friday at 6pm", NOW, BERLIN, keep=nine_pm) == local(27, 18)  # said wins
    assert read_snooze("later", NOW, BERLIN, keep=nine_pm) == local(26, 20, 15)  # a time, too
    # Kept on the task's own clocks: its run that falls on the day named, in the owner's
    # zone: 21:00 in New York on Thursday is 03:00 on Friday in Berlin.
    new_york = KeptTime(time(21), ZoneInfo("America/New_York"))
    assert read_snooze("until friday", NOW, BERLIN, keep=new_york) == local(27, 3)
    assert read_snooze("until saturday", NOW, BERLIN, keep=new_york) == local(28, 3)


def test_the_weekend_said_once_its_days_are_over_is_the_next_one() -> None:
    sunday_evening = datetime(2026, 11, 29, 19, 30, tzinfo=BERLIN)
    nine_pm = KeptTime(time(21), BERLIN)
    saturday = datetime(2026, 12, 5, 21, tzinfo=BERLIN)
    assert read_snooze("until the weekend", sunday_evening, BERLIN, keep=nine_pm) == saturday
    assert read_snooze("till next weekend", sunday_evening, BERLIN, keep=nine_pm) == saturday
    assert read_snooze("until sunday next weekend", sunday_evening, BERLIN) == datetime(
        2026, 12, 6, 9, tzinfo=BERLIN
    )
    # On a Thursday the weekend is the coming one, and "next weekend" the one after it.
    assert read_snooze("until the weekend", NOW, BERLIN) == local(28, 9)
    assert read_snooze("until next weekend", NOW, BERLIN) == datetime(2026, 12, 5, 9, tzinfo=BERLIN)


@pytest.mark.parametrize("words", ["10", "for 10", "by 10", "  5 "])
def test_a_number_alone_is_asked_about_never_guessed(words: str) -> None:
    number = words.split()[-1]
    with pytest.raises(ScheduleError, match=rf"is a number alone; say '{number} minutes'"):
        read_snooze(words, NOW, BERLIN)
    until = read_snooze(f"until {number}", NOW, BERLIN)  # a clock time, said so
    assert isinstance(until, datetime) and until > NOW


@pytest.mark.parametrize(
    ("words", "forms"),
    [
        ("30", "'30 minutes' or '30h'"),  # no hour
        ("24", "'24 minutes' or '24h'"),
        ("by 30", "'30 minutes' or '30h'"),
        ("10:30", "'until 10:30' (a clock time)"),  # minutes: a clock time only
        ("0", "'until 0' (a clock time)"),  # no delay of nothing
        ("99:99", "a delay such as '10m' or a time such as 'until 5pm'"),
    ],
)
def test_a_number_alone_is_offered_only_the_readings_it_can_have(words: str, forms: str) -> None:
    with pytest.raises(ScheduleError) as refused:
        read_snooze(words, NOW, BERLIN)
    assert str(refused.value) == f"{words!r} is a number alone; say {forms}"


def test_dates_are_read_in_the_owners_order() -> None:
    assert read_snooze("until 1/12", NOW, BERLIN, date_order="dmy") == datetime(
        2026, 12, 1, 9, tzinfo=BERLIN
    )


@pytest.mark.parametrize(
    ("words", "said"),
    [
        ("soonish", "as a delay or a time: did not understand 'soonish'; say e.g. '10m'"),
        ("", "a snooze needs a delay or a time; say e.g. '10m'"),
        ("every day at 9", "repeats (every day at 09:00 (Europe/Berlin)), but a snooze puts off"),
        ("until 3pm today", "which has already passed"),
        ("until feb 30", "as a delay or a time: February has no day 30; say e.g. '10m'"),
        ("soon", "could not read 'soon' as a delay or a time: did not understand 'soon'"),
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
    assert run_time_of_day(_task(daily, local(26, 23, 30))) == KeptTime(time(21), BERLIN)


def test_a_one_time_task_keeps_the_time_of_the_run_put_off() -> None:
    once = OnceSchedule(local(27, 10, 0), BERLIN)
    assert run_time_of_day(_task(once, local(27, 15, 42, 30))) == KeptTime(time(15, 42), BERLIN)
    assert run_time_of_day(_task(once, None)) == KeptTime(time(10), BERLIN)  # done: its time
    hourly = parse_schedule("every 2 hours", now=NOW, tz=BERLIN)
    assert run_time_of_day(_task(hourly, local(26, 19))) == KeptTime(time(19), BERLIN)


def test_a_kept_time_in_the_spring_forward_gap_moves_on_by_the_gap() -> None:
    march = datetime(2026, 3, 26, 12, tzinfo=BERLIN)  # clocks go forward on Sunday the 29th
    early = KeptTime(time(2, 30), BERLIN)
    until = read_snooze("until sunday", march, BERLIN, keep=early)
    assert isinstance(until, datetime)
    assert until == datetime(2026, 3, 29, 3, 30, tzinfo=BERLIN)
    assert until.utcoffset() == timedelta(hours=2)

"""The time language of issue 22: every kind of expression in its examples, the readings of
docs/time-language.md that are genuinely ambiguous, typos named in the reply, the new
repeating schedules (by months and years, with an end) and the sentence search that never
reads a fragment with the rest defaulted."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from tasks import (
    BoundedSchedule,
    CalendarSchedule,
    DateOrder,
    PastTimeError,
    Schedule,
    ScheduleError,
    find_schedule,
    find_time,
    parse_schedule,
    read_schedule,
    schedule_from_json,
)

BERLIN = ZoneInfo("Europe/Berlin")
NEW_YORK = ZoneInfo("America/New_York")
# Thursday 2026-11-26 10:00 in Berlin.
NOW = datetime(2026, 11, 26, 10, 0, tzinfo=BERLIN)


def fires(schedule: Schedule, count: int = 3, now: datetime = NOW) -> list[str]:
    """The next ``count`` fires as local ``YYYY-MM-DD HH:MM``."""
    found: list[str] = []
    moment: datetime | None = now
    for _ in range(count):
        moment = schedule.next_after(moment) if moment is not None else None
        if moment is None:
            break
        found.append(moment.astimezone(schedule.tz).strftime("%Y-%m-%d %H:%M"))
    return found


ONE_TIME = [
    # clock phrases
    ("a quarter past eight", "2026-11-26 20:15"),
    ("quarter to seven tomorrow", "2026-11-27 06:45"),
    ("half past four", "2026-11-26 16:30"),
    ("20 past 9", "2026-11-26 21:20"),
    ("seven fifteen", "2026-11-26 19:15"),
    ("8:45a", "2026-11-27 08:45"),
    ("5 in the afternoon", "2026-11-26 17:00"),
    ("noon tomorrow", "2026-11-27 12:00"),
    ("12 noon", "2026-11-26 12:00"),
    ("12 midnight", "2026-11-27 00:00"),
    ("friday at midnight", "2026-11-28 00:00"),
    ("ten to one", "2026-11-26 12:50"),
    ("at 1730", "2026-11-26 17:30"),
    ("21h30", "2026-11-26 21:30"),
    ("six oh five pm", "2026-11-26 18:05"),
    # numeric and written dates
    ("4/22", "2027-04-22 09:00"),
    ("22/04", "2027-04-22 09:00"),
    ("2027-03-04", "2027-03-04 09:00"),
    ("Oct/2", "2027-10-02 09:00"),
    ("the second of Aug", "2027-08-02 09:00"),
    ("Mon 13th", "2027-09-13 09:00"),
    ("Friday the 13th", "2027-08-13 09:00"),
    ("May twenty ninth", "2027-05-29 09:00"),
    ("on the 15th at seven", "2026-12-15 07:00"),
    ("22.04.2027", "2027-04-22 09:00"),
    ("12/25 at 8am", "2026-12-25 08:00"),
    ("in december", "2026-12-01 09:00"),
    ("mid january", "2027-01-15 09:00"),
    # spelled numbers
    ("in twenty minutes", "2026-11-26 10:20"),
    ("in two and a half hours", "2026-11-26 12:30"),
    ("at eleven thirty", "2026-11-26 11:30"),
    ("on the twenty first", "2026-12-21 09:00"),
    ("in forty five minutes", "2026-11-26 10:45"),
    # relative
    ("in two months", "2027-01-26 10:00"),
    ("in a year", "2027-11-26 10:00"),
    ("two days after today", "2026-11-28 09:00"),
    ("the day after tomorrow", "2026-11-28 09:00"),
    ("a week from friday", "2026-12-04 09:00"),
    ("3 days from now", "2026-11-29 10:00"),
    ("this time next week", "2026-12-03 10:00"),
    ("end of the month", "2026-11-30 09:00"),
    ("later today", "2026-11-26 13:00"),
    ("at lunchtime", "2026-11-26 12:00"),
    ("first thing tomorrow", "2026-11-27 08:00"),
    ("next week", "2026-11-30 09:00"),
    ("next month", "2026-12-01 09:00"),
    ("end of the week", "2026-11-27 09:00"),
    ("3 days before christmas", "2026-12-22 09:00"),
    ("friday next week", "2026-12-04 09:00"),
    ("next friday", "2026-11-27 09:00"),
    ("eod", "2026-11-26 17:00"),
    # holidays
    ("easter", "2027-03-28 09:00"),
    ("good friday", "2027-03-26 09:00"),
    ("easter monday at 10", "2027-03-29 10:00"),
    ("mother's day", "2027-05-09 09:00"),
    ("father's day", "2027-06-20 09:00"),
    ("memorial day", "2027-05-31 09:00"),
    ("labor day", "2027-09-06 09:00"),
    ("presidents day", "2027-02-15 09:00"),
    ("christmas eve at 6pm", "2026-12-24 18:00"),
    ("black friday", "2026-11-27 09:00"),
    ("the fourth of july", "2027-07-04 09:00"),
    # British and approximate ways (a second corpus, written apart, found these)
    ("half 5", "2026-11-26 17:30"),
    ("tomorrow at half seven", "2026-11-27 07:30"),
    ("around 7", "2026-11-26 19:00"),
    ("7ish", "2026-11-26 19:00"),
    ("noonish", "2026-11-26 12:00"),
    ("tuesday week", "2026-12-08 09:00"),
    ("a week on tuesday", "2026-12-08 09:00"),
    ("tomorrow night at 2", "2026-11-28 02:00"),
]


@pytest.mark.parametrize(("text", "expected"), ONE_TIME)
def test_every_kind_of_one_time_expression(text: str, expected: str) -> None:
    schedule = parse_schedule(text, now=NOW, tz=BERLIN)
    assert schedule.kind == "once"
    assert fires(schedule, 1) == [expected]


REPEATING = [
    ("each month", ["2026-12-26 09:00", "2027-01-26 09:00", "2027-02-26 09:00"]),
    ("annually", ["2027-11-26 09:00", "2028-11-26 09:00", "2029-11-26 09:00"]),
    ("every quarter", ["2026-12-26 09:00", "2027-03-26 09:00", "2027-06-26 09:00"]),
    ("every other friday", ["2026-11-27 09:00", "2026-12-11 09:00", "2026-12-25 09:00"]),
    (
        "every last friday of the month",
        ["2026-11-27 09:00", "2026-12-25 09:00", "2027-01-29 09:00"],
    ),
    (
        "every 30 minutes during work hours",
        ["2026-11-26 10:30", "2026-11-26 11:00", "2026-11-26 11:30"],
    ),
    (
        "on weekdays until december 1",
        ["2026-11-27 09:00", "2026-11-30 09:00", "2026-12-01 09:00"],
    ),
    (
        "every monday and thursday at 6",
        ["2026-11-26 18:00", "2026-11-30 18:00", "2026-12-03 18:00"],
    ),
    ("every hour between 9 and 5", ["2026-11-26 11:00", "2026-11-26 12:00", "2026-11-26 13:00"]),
    (
        "the last weekday of every month",
        ["2026-11-30 09:00", "2026-12-31 09:00", "2027-01-29 09:00"],
    ),
    ("every easter", ["2027-03-28 09:00", "2028-04-16 09:00", "2029-04-01 09:00"]),
    ("every 2 months on the 31st", ["2026-11-30 09:00", "2027-01-31 09:00", "2027-03-31 09:00"]),
    ("every day at 9 for 3 times", ["2026-11-27 09:00", "2026-11-28 09:00", "2026-11-29 09:00"]),
    ("every day at 9am for 2 days", ["2026-11-27 09:00", "2026-11-28 09:00"]),
    (
        "every monday starting december 14",
        ["2026-12-14 09:00", "2026-12-21 09:00", "2026-12-28 09:00"],
    ),
    ("every 2 hours from 8am to 2pm", ["2026-11-26 12:00", "2026-11-26 14:00", "2026-11-27 08:00"]),
    ("every day at 9:15 and 10:30", ["2026-11-26 10:30", "2026-11-27 09:15", "2026-11-27 10:30"]),
    ("mondays and fridays at 7", ["2026-11-27 07:00", "2026-11-30 07:00", "2026-12-04 07:00"]),
    ("every weekday mornings", ["2026-11-27 09:00", "2026-11-30 09:00", "2026-12-01 09:00"]),
    ("mon-fri at 5:30pm", ["2026-11-26 17:30", "2026-11-27 17:30", "2026-11-30 17:30"]),
    ("every weekday but wed", ["2026-11-27 09:00", "2026-11-30 09:00", "2026-12-01 09:00"]),
    ("every hour on the hour", ["2026-11-26 11:00", "2026-11-26 12:00", "2026-11-26 13:00"]),
    ("dailly at 8", ["2026-11-27 08:00", "2026-11-28 08:00", "2026-11-29 08:00"]),
]


@pytest.mark.parametrize(("text", "expected"), REPEATING)
def test_every_kind_of_repeating_expression(text: str, expected: list[str]) -> None:
    schedule = parse_schedule(text, now=NOW, tz=BERLIN)
    assert schedule.kind == "recurring"
    assert fires(schedule, 4)[: len(expected)] == expected


def test_an_end_stops_the_repetition_and_is_said() -> None:
    schedule = parse_schedule("on weekdays until december 1", now=NOW, tz=BERLIN)
    assert fires(schedule, 5) == ["2026-11-27 09:00", "2026-11-30 09:00", "2026-12-01 09:00"]
    assert schedule.describe() == "every weekday at 09:00, until Tue 2026-12-01 (Europe/Berlin)"
    counted = parse_schedule("every day at 9 for 3 times", now=NOW, tz=BERLIN)
    assert len(fires(counted, 10)) == 3
    assert "3 times" in counted.describe()


@pytest.mark.parametrize(
    "text",
    [
        "each month",
        "every last friday of the month",
        "every easter at 10",
        "on weekdays until december 20",
        "every day at 9 for 3 times",
        "every 2 months on the 31st at 8am",
        "every 30 minutes during work hours",
    ],
)
def test_new_schedules_survive_their_json(text: str) -> None:
    schedule = parse_schedule(text, now=NOW, tz=BERLIN)
    again = schedule_from_json(schedule.to_json())
    assert again == schedule
    assert fires(again, 5) == fires(schedule, 5)


def test_monthly_rules_keep_the_wall_clock_across_dst() -> None:
    schedule = parse_schedule("every last sunday of the month at 2:30am", now=NOW, tz=BERLIN)
    assert isinstance(schedule, CalendarSchedule)
    march = schedule.next_after(datetime(2027, 3, 1, tzinfo=BERLIN))
    assert march is not None
    # 2027-03-28 02:30 is inside the spring-forward gap: shifted forward by it.
    assert march.astimezone(BERLIN).isoformat() == "2027-03-28T03:30:00+02:00"
    october = schedule.next_after(datetime(2027, 10, 1, tzinfo=BERLIN))
    assert october is not None
    assert october.astimezone(BERLIN).isoformat() == "2027-10-31T02:30:00+02:00"  # first one


def test_each_month_on_the_31st_falls_on_the_last_day_of_shorter_months() -> None:
    end_of_january = datetime(2027, 1, 31, 12, tzinfo=BERLIN)
    schedule = parse_schedule("each month", now=end_of_january, tz=BERLIN)
    assert fires(schedule, 3, end_of_january) == [
        "2027-02-28 09:00",
        "2027-03-31 09:00",
        "2027-04-30 09:00",
    ]
    assert "the last day in shorter months" in schedule.describe()


@pytest.mark.parametrize(
    ("text", "order", "expected"),
    [
        ("4/5", "mdy", "2027-04-05 09:00"),
        ("4/5", "dmy", "2027-05-04 09:00"),
        ("13/4", "mdy", "2027-04-13 09:00"),
        ("4/13", "dmy", "2027-04-13 09:00"),
        ("5.4.", "mdy", "2027-04-05 09:00"),
    ],
)
def test_a_day_above_12_decides_the_order_then_the_date_order(
    text: str, order: DateOrder, expected: str
) -> None:
    schedule = parse_schedule(text, now=NOW, tz=BERLIN, date_order=order)
    assert fires(schedule, 1) == [expected]


@pytest.mark.parametrize(
    ("text", "read_as", "expected"),
    [
        ("tmrw at 6pm", [("tmrw", "tomorrow")], "2026-11-27 18:00"),
        ("tomorow at 7pm", [("tomorow", "tomorrow")], "2026-11-27 19:00"),
        ("next wensday at noon", [("wensday", "wednesday")], "2026-12-02 12:00"),
        ("firday", [("firday", "friday")], "2026-11-27 09:00"),
        ("in 5 mintues", [("mintues", "minutes")], "2026-11-26 10:05"),
        ("tmr morning", [("tmr", "tomorrow")], "2026-11-27 09:00"),
        ("thurs at 5pm", [], "2026-11-26 17:00"),
    ],
)
def test_typos_are_read_and_named(text: str, read_as: list[tuple[str, str]], expected: str) -> None:
    reading = read_schedule(text, now=NOW, tz=BERLIN)
    assert list(reading.read_as) == read_as
    assert fires(reading.schedule, 1) == [expected]
    if read_as:
        assert f"read {read_as[0][0]!r} as {read_as[0][1]!r}" in reading.note()


@pytest.mark.parametrize("word", ["soon", "weak", "yours", "moon", "ever", "very", "mouth"])
def test_ordinary_words_are_never_taken_for_typos(word: str) -> None:
    with pytest.raises(ScheduleError, match=f"did not understand '{word}'"):
        parse_schedule(f"tomorrow {word}", now=NOW, tz=BERLIN)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("next wensday at noun", "did not understand 'noun'"),
        ("feb 30", "February has no day 30"),
        ("Mon March 2", "is a Tuesday, not a Monday"),
        ("yesterday at 5", "'yesterday' is in the past"),
        ("last friday", "'last friday' is in the past"),
        ("every day except bank holidays", "the only holidays known as a set"),
        ("every day except the 15th", "is not one day to leave out"),
        ("tomorrow at 9 and 5", "more than one clock time"),
        ("every hour", "every hour"),
    ],
)
def test_refusals_name_what_was_wrong(text: str, fragment: str) -> None:
    if text == "every hour":  # an interval: it reads
        assert parse_schedule(text, now=NOW, tz=BERLIN).kind == "recurring"
        return
    with pytest.raises(ScheduleError) as caught:
        parse_schedule(text, now=NOW, tz=BERLIN)
    assert fragment in str(caught.value)
    assert "e.g." in str(caught.value)


def test_a_past_time_stays_a_past_time_error() -> None:
    with pytest.raises(PastTimeError):
        parse_schedule("today at 9am", now=NOW, tz=BERLIN)


@pytest.mark.parametrize(
    ("sentence", "text", "expected"),
    [
        ("remind me tmrw at 6pm to buy milk", "tmrw at 6pm", "2026-11-27 18:00"),
        ("remind me next wensday at noon to call", "next wensday at noon", "2026-12-02 12:00"),
        ("tomorow at 7pm call mom", "tomorow at 7pm", "2026-11-27 19:00"),
        ("remind me tomorrow at 8:45a to leave", "tomorrow at 8:45a", "2026-11-27 08:45"),
        ("water the plants a week from friday", "a week from friday", "2026-12-04 09:00"),
        ("call mom on the 15th at seven", "on the 15th at seven", "2026-12-15 07:00"),
    ],
)
def test_the_sentence_search_reads_the_whole_expression(
    sentence: str, text: str, expected: str
) -> None:
    match = find_schedule(sentence, now=NOW, tz=BERLIN)
    assert match is not None
    assert match.phrase.text == text
    assert fires(match.schedule, 1) == [expected]


@pytest.mark.parametrize(
    "sentence",
    ["remind me tomorrow at noun to call", "remind me tomorrow at 8:45x to leave"],
)
def test_words_next_to_a_time_that_look_like_time_are_refused_not_defaulted(
    sentence: str,
) -> None:
    phrase = find_time(sentence)
    assert phrase is not None and phrase.problem is not None
    with pytest.raises(ScheduleError, match="did not understand"):
        find_schedule(sentence, now=NOW, tz=BERLIN)


@pytest.mark.parametrize(
    "sentence",
    [
        "enjoy the sun",
        "I sat down",
        "call me soon",
        "I feel weak",
        "remind me to call Wed",
        "the march was long",
        "what did you say later",
    ],
)
def test_words_that_only_look_like_time_stay_what_is_said(sentence: str) -> None:
    phrase = find_time(sentence)
    if sentence.endswith("later"):
        # "later" alone is a time (in three hours): the search reads it, as it should.
        assert phrase is not None and phrase.text == "later"
        return
    assert phrase is None or phrase.text != "sun", phrase


def test_bounded_schedules_start_and_end_where_they_say() -> None:
    schedule = parse_schedule("every monday starting december 14", now=NOW, tz=BERLIN)
    assert isinstance(schedule, BoundedSchedule)
    assert schedule.next_after(NOW) == datetime(2026, 12, 14, 8, tzinfo=ZoneInfo("UTC"))
    assert schedule.next_after(NOW + timedelta(days=400)) is not None

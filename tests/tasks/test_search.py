"""Finding the time expression inside a sentence: where it stands, what it says, what it means."""

from __future__ import annotations

import re
import time as clock
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tasks import (
    PastTimeError,
    ScheduleError,
    TimePhrase,
    find_schedule,
    find_time,
    parse_schedule,
    read_duration,
)
from tests.tasks.test_parsing import CYCLES, ONE_TIME, RECURRING

BERLIN = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 3, 10, 14, 30, tzinfo=BERLIN)  # a Tuesday
ACCEPTED = [text for text, _ in ONE_TIME] + [row[0] for row in RECURRING] + [c[0] for c in CYCLES]
ACCEPTED += ["every 15 minutes", "hourly", "every half hour", "0 9 * * 1-5", "2026-11-23T13:35:00Z"]
TEMPLATES = [
    "{}",
    "{} water the plants",
    "remind me {} to water the plants",
    "water the plants {}",
    "please, water the plants {}!",
]


def tidy(text: str) -> str:
    """The words only: case, commas and stray punctuation left out."""
    words = text.replace(",", " ").split()
    return " ".join(w.strip(".!?") for w in words if w.strip(".!?")).lower()


# A bare duration ("5 minutes") mid-sentence says how long, not when (tested below), so
# durations only stand at the start.
PLACED = [
    (phrase, template)
    for phrase in ACCEPTED
    for template in TEMPLATES
    if read_duration(phrase.strip()) is None or template.startswith("{}")
]


@pytest.mark.parametrize(("phrase", "template"), PLACED)
def test_every_accepted_phrase_is_found_wherever_it_stands(phrase: str, template: str) -> None:
    sentence = template.format(phrase.strip())
    found = find_time(sentence)
    assert found is not None, sentence
    assert tidy(found.text) == tidy(phrase)
    assert found.problem is None
    assert parse_schedule(found.text, now=NOW, tz=BERLIN) == parse_schedule(
        phrase, now=NOW, tz=BERLIN
    )
    assert tidy(found.without(sentence)) == tidy(template.format(""))


@pytest.mark.parametrize(
    ("sentence", "text", "rest"),
    [
        # the sentences: the split happens around the time, not inside it
        (
            "remind me every sunday evening at 7 to plan the week",
            "every sunday evening at 7",
            "remind me to plan the week",
        ),
        ("remind me tomorrow morning to email Sam", "tomorrow morning", "remind me to email Sam"),
        ("remind me this evening to call dad", "this evening", "remind me to call dad"),
        ("wake me up at 6:45 tomorrow", "at 6:45 tomorrow", "wake me up"),
        (
            "on the first of every month at 9 remind me to pay the credit card",
            "on the first of every month at 9",
            "remind me to pay the credit card",
        ),
        # parts that belong together are joined
        ("remind me tomorrow to call mom at 6pm", "tomorrow at 6pm", "remind me to call mom"),
        ("every monday water the plants at 7am", "every monday at 7am", "water the plants"),
        # a clock time after "the" or "my" names a thing
        ("take the 8:15 train at 7:30", "at 7:30", "take the 8:15 train"),
        ("prepare for my 5pm call at 4:30", "at 4:30", "prepare for my 5pm call"),
        # a time after "for" is what is said, unless it is the only time
        ("at 9am book the flight for March 3", "at 9am", "book the flight for March 3"),
        ("stir the soup for 5 minutes at 6pm", "at 6pm", "stir the soup for 5 minutes"),
        ("set a timer for 10 minutes", "10 minutes", "set a timer for"),
        ("leave 10 minutes before 6pm", "10 minutes before 6pm", "leave"),
        # two times that cannot be one: the one that opens the sentence, then the closing one
        ("at 7 leave for the station at 7:30", "at 7", "leave for the station at 7:30"),
        ("call the 3 kids at 5pm", "at 5pm", "call the 3 kids"),
        ("buy milk on the way home tonight", "tonight", "buy milk on the way home"),
        ("pay rent on the 3rd of next month", "on the 3rd of next month", "pay rent"),
        ("Dentist (tomorrow, at 9am)", "tomorrow at 9am", "Dentist ( )"),
        # a code of letters then digits is a word, though its end spells a time
        ("tomorrow call about ticket ab2nd", "tomorrow", "call about ticket ab2nd"),
        ("in 10 minutes check order kx5d", "in 10 minutes", "check order kx5d"),
        ("renew ab3pm tomorrow at 9am", "tomorrow at 9am", "renew ab3pm"),
        # ... unless it starts with a word a time is written against
        ("call mom at8pm", "at8pm", "call mom"),
        ("dentist jan5 at 3pm", "jan5 at 3pm", "dentist"),
        ("standup fri3pm", "fri3pm", "standup"),
    ],
)
def test_the_time_of_a_sentence_and_what_is_left(sentence: str, text: str, rest: str) -> None:
    found = find_time(sentence)
    assert found is not None
    assert found.text == text
    assert found.without(sentence) == rest


@pytest.mark.parametrize(
    ("sentence", "marker"),
    [
        ("boil the eggs for 10 minutes", "for"),
        ("leave before 6pm", "before"),
        ("finish the report by friday", "by"),
        ("stay until 9pm", "until"),
        ("call mom at 6pm", None),
    ],
)
def test_the_word_that_makes_a_time_part_of_what_is_said_is_reported(
    sentence: str, marker: str | None
) -> None:
    found = find_time(sentence)
    assert found is not None and found.marker == marker


@pytest.mark.parametrize(
    "sentence",
    [
        "take pills twice a day",
        "remind me 10 minutes to stretch",
        "buy 2 apples",
        "call the 3 kids",
        "take the 8:15 train",
        "every time I open the fridge",
        "meet me at the station",
        "I may be late",
        "this is it",
        "check flight ua3pm",
        "the covid19 booster",
        "",
        "   ",
    ],
)
def test_a_sentence_without_a_time_has_none(sentence: str) -> None:
    assert find_time(sentence) is None


@pytest.mark.parametrize(
    ("sentence", "text", "example"),
    [
        ("time travel in -5 minutes", "in -5 minutes", "in 5 minutes"),
        ("call bob yesterday", "yesterday", "tomorrow"),
        ("what I did 2 days ago", "2 days ago", "in 2 days"),
        ("call the bank last week", "last week", "tomorrow"),
        ("call mom the day before yesterday", "the day before yesterday", "tomorrow"),
        # a shorter piece would drop what was said: the whole stretch is refused
        ("tomorrow at 9am and at 5pm call mom", "tomorrow at 9am and at 5pm", "tomorrow at 9am"),
    ],
)
def test_words_that_are_plainly_an_unusable_time_come_back_with_the_problem(
    sentence: str, text: str, example: str
) -> None:
    found = find_time(sentence)
    assert found is not None
    assert (found.text, found.kind, found.example) == (text, None, example)
    assert found.problem is not None and repr(text) in found.problem
    with pytest.raises(ScheduleError, match=r"e\.g\."):
        find_schedule(sentence, now=NOW, tz=BERLIN)


def test_the_kind_says_whether_it_repeats() -> None:
    assert find_time("every other day water the plants") == TimePhrase(
        "every other day", ((0, 15),), "recurring"
    )
    once = find_time("water the plants on friday")
    assert once is not None and once.kind == "once"


def test_a_time_that_has_passed_is_still_found_and_refused_when_resolved() -> None:
    found = find_time("call mom today at 2pm")
    assert found is not None and found.text == "today at 2pm" and found.problem is None
    with pytest.raises(PastTimeError, match=r"already passed .* e\.g\. 'tomorrow at 2pm'"):
        find_schedule("call mom today at 2pm", now=NOW, tz=BERLIN)


def test_find_schedule_resolves_in_the_zone_with_the_dst_policy() -> None:
    before_spring = datetime(2026, 3, 28, 12, tzinfo=BERLIN)
    match = find_schedule("remind me tomorrow at 2:30am to call mom", now=before_spring, tz=BERLIN)
    assert match is not None
    assert match.phrase.text == "tomorrow at 2:30am"
    fire = match.schedule.next_after(before_spring)
    assert fire is not None
    assert fire.astimezone(BERLIN).isoformat() == "2026-03-29T03:30:00+02:00"
    assert find_schedule("remind me to call mom", now=NOW, tz=BERLIN) is None


def test_find_schedule_can_require_a_repeating_time() -> None:
    with pytest.raises(ScheduleError, match="as a repeating time"):
        find_schedule("water the plants tomorrow", now=NOW, tz=BERLIN, recurring=True)


def test_a_long_message_full_of_time_words_is_searched_in_linear_time() -> None:
    started = clock.perf_counter()
    for size in (1_000, 10_000):
        sentence = "every monday at 9am and " * (size // 24)
        find_time(sentence)
        find_time("at " * size + "5pm")
        find_time("1 " * size)
    assert clock.perf_counter() - started < 2.0  # bounded by MAX_ATTEMPTS parses, not the size


FUZZ = settings(
    max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
WORDS = st.sampled_from(
    ["remind", "me", "to", "at", "on", "in", "the", "every", "9am", "17:45", "tomorrow", "monday",
     "3", "days", "of", "next", "month", "for", "-5", "minutes", "ago", ",", "and", "my", "8:15",
     "tonight", "other", "week", "*", "1st", "march", "yesterday", "half", "an", "hour", "."]
)  # fmt: skip


@FUZZ
@given(st.one_of(st.text(max_size=80), st.lists(WORDS, max_size=14).map(" ".join)))
def test_any_sentence_gives_a_phrase_that_reads_or_a_reasoned_refusal(sentence: str) -> None:
    found = find_time(sentence)
    if found is None:
        return
    ends = [edge for span in found.spans for edge in span]
    assert ends == sorted(ends) and ends[0] >= 0 and ends[-1] <= len(sentence)
    if found.problem is not None:
        assert found.kind is None and found.example
        return
    assert found.kind in ("once", "recurring")
    try:
        schedule = parse_schedule(found.text, now=NOW, tz=BERLIN)
    except PastTimeError:
        return
    except ScheduleError as exc:
        # whether a weekday agrees with a date depends on the year: read at the real now
        assert re.search(r"\d{4} is an? \w+day, not an? \w+day", str(exc)), exc
        return
    assert schedule.kind == found.kind or schedule.next_after(NOW - timedelta(days=1)) is None


@pytest.mark.parametrize(
    ("sentence", "text"),
    [
        ("remind me on Thanksgiving at 10 to call grandma", "on Thanksgiving at 10"),
        ("on new year's eve at 11pm to toast", "on new year's eve at 11pm"),
        ("Christmas morning to open gifts", "Christmas morning"),
        ("remind me this halloween to buy candy", "this halloween"),
        ("every weekday except friday at 7 to exercise", "every weekday except friday at 7"),
        ("every day at 6:30 and 18:30 to feed the cat", "every day at 6:30 and 18:30"),
    ],
)
def test_holidays_several_times_and_exceptions_are_one_phrase(sentence: str, text: str) -> None:
    phrase = find_time(sentence)
    assert phrase is not None and phrase.problem is None
    assert phrase.text == text


def test_a_holiday_inside_what_is_said_is_not_a_time() -> None:
    assert find_time("to buy christmas presents") is None
    phrase = find_time("to buy christmas presents tomorrow")
    assert phrase is not None and phrase.text == "tomorrow"

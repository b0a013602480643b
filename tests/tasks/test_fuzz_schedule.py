"""Fuzzing ``tasks.parse_schedule``: the language parses, only ``ScheduleError`` escapes, and
what it returns is sane.

A phrase of the language always parses, whatever the instant ``now`` (aware, in zones with odd
offsets and DST rules), into a schedule of the kind it names that fires after ``now``. Whatever
other words arrive, the parser either refuses with its own error or returns a schedule whose
next fire after ``now`` lies in the future (or does not exist), which respects the ``recurring``
wish, and whose JSON form reads back as the same schedule.
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tasks import ScheduleError, parse_schedule, schedule_from_json
from tests.strategies import (
    ZONES,
    aware_instants,
    schedule_phrases,
    schedule_texts,
    valid_schedule_phrases,
)

FUZZ = settings(
    max_examples=300,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)


@FUZZ
@given(phrase=valid_schedule_phrases(), now=aware_instants(), tz=st.sampled_from(ZONES))
def test_every_phrase_of_the_language_parses(
    phrase: tuple[str, bool], now: datetime, tz: ZoneInfo
) -> None:
    text, recurs = phrase
    schedule = parse_schedule(text, now=now, tz=tz)
    assert schedule.kind == ("recurring" if recurs else "once"), text
    following = schedule.next_after(now)
    assert following is not None and following > now, f"{text!r} never fires after {now}"
    assert schedule_from_json(schedule.to_json()) == schedule


@FUZZ
@given(
    text=st.one_of(schedule_texts(), schedule_phrases()),
    now=aware_instants(),
    tz=st.sampled_from(ZONES),
    recurring=st.sampled_from([None, True, False]),
)
def test_only_schedule_errors_escape_and_results_are_sane(
    text: str, now: datetime, tz: ZoneInfo, recurring: bool | None
) -> None:
    try:
        schedule = parse_schedule(text, now=now, tz=tz, recurring=recurring)
    except ScheduleError as error:
        assert str(error).strip()
        return
    following = schedule.next_after(now)
    assert following is None or following > now
    if schedule.kind == "once":
        assert following is not None, f"{text!r} was accepted but never fires after {now}"
    if recurring is not None:
        assert schedule.kind == ("recurring" if recurring else "once")
    assert schedule.tz == tz
    back = schedule_from_json(schedule.to_json())
    assert back == schedule
    assert back.to_json() == schedule.to_json()
    assert back.next_after(now) == following


@FUZZ
@given(
    text=schedule_phrases(),
    now=st.datetimes(min_value=datetime(1900, 1, 1), max_value=datetime(2200, 1, 1)),
    zone=st.sampled_from([z.key for z in ZONES]),
)
def test_naive_now_and_zone_names_are_read_as_local(text: str, now: datetime, zone: str) -> None:
    try:
        schedule = parse_schedule(text, now=now, tz=zone)
    except ScheduleError:
        return
    assert schedule.tz == ZoneInfo(zone)
    assert schedule_from_json(schedule.to_json()) == schedule


@settings(FUZZ, max_examples=40)
@given(text=st.text(min_size=201, max_size=400), now=aware_instants())
def test_overlong_text_is_refused_quickly_with_a_short_quote(text: str, now: datetime) -> None:
    with pytest.raises(ScheduleError) as refused:
        parse_schedule(text, now=now, tz="UTC")
    assert len(str(refused.value)) < 400


@pytest.mark.parametrize("value", [None, 5, b"in 5 minutes", ["tomorrow"]])
def test_a_schedule_that_is_not_text_is_refused(value: object) -> None:
    with pytest.raises(ScheduleError, match="must be text"):
        parse_schedule(value, now=datetime(2026, 3, 1, tzinfo=ZONES[0]), tz="UTC")  # type: ignore[arg-type]  # the point is a non-str value


@pytest.mark.parametrize(
    "now",
    [
        datetime(1, 1, 1, tzinfo=ZoneInfo("Europe/Berlin")),
        datetime(9999, 12, 31, 23, tzinfo=ZoneInfo("America/New_York")),
    ],
    ids=["year 1 east of UTC", "year 9999 west of UTC"],
)
def test_now_at_the_edges_of_time_is_refused_with_a_schedule_error(now: datetime) -> None:
    with pytest.raises(ScheduleError):
        parse_schedule("in 5 minutes", now=now, tz="UTC")

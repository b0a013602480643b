"""Calendar files with a value that cannot be read: refused naming the event and the property
(``read_file``, the import), or that event left out and named (``read_events``, the days).

``icalendar`` reads such a value leniently in an event and fails on it only when it is used,
and fails a whole file on one in an alarm or a to-do without naming either: each case here
crashed the import, the page and the chat with the library's own error before.
"""

from __future__ import annotations

from datetime import datetime

import pytest

from calendars import BrokenEventError, IcsError, day_span, events_between, read_events, read_file
from memory import CalendarSource
from tests.calendars.conftest import NOW, ZONE

GOOD = (
    "BEGIN:VEVENT\r\nUID:good-1\r\nDTSTAMP:20261101T000000Z\r\nSUMMARY:Team lunch\r\n"
    "DTSTART;TZID=Europe/Berlin:20261103T123000\r\nDTEND;TZID=Europe/Berlin:20261103T133000\r\n"
    "BEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:x\r\nTRIGGER:-PT15M\r\nEND:VALARM\r\n"
    "END:VEVENT\r\n"
)


def calendar_with(*lines: str, kind: str = "VEVENT", alarm: str = "-PT10M") -> bytes:
    """A calendar of a good event and one named 'Dentist' (UID d-1) with ``lines``."""
    broken = [
        f"BEGIN:{kind}", "UID:d-1", "DTSTAMP:20261101T000000Z", "SUMMARY:Dentist", *lines,
        "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:x", f"TRIGGER:{alarm}", "END:VALARM",
        f"END:{kind}",
    ]  # fmt: skip
    text = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:x\r\n" + GOOD
    return (text + "\r\n".join(broken) + "\r\nEND:VCALENDAR\r\n").encode()


START = "DTSTART;TZID=Europe/Berlin:20261103T090000"


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (
            calendar_with("DTSTART:notadate"),
            "its DTSTART 'notadate' is not a date or date-time",
        ),
        (
            calendar_with(START, "RRULE:FREQ=DAILY", "EXDATE:garbage"),
            "its EXDATE 'garbage' is not a date or date-time (or a list of them)",
        ),
        (
            calendar_with(START, "RRULE:FREQ=WEEKLY;UNTIL=notadate"),
            "its RRULE's UNTIL 'notadate' is not a date or date-time",
        ),
        (
            calendar_with(START, "RRULE:FREQ=WEEKLY;COUNT=many"),
            "its RRULE's COUNT 'many' is not a whole number",
        ),
        (
            calendar_with(START, alarm="banana"),
            "its alarm's TRIGGER 'banana' is not a length of time (e.g. -PT15M) or a date-time",
        ),
        (
            calendar_with(START, "DTEND:tomorrowish"),
            "its DTEND 'tomorrowish' is not a date or date-time",
        ),
        (
            calendar_with(START, "RECURRENCE-ID:soon"),
            "its RECURRENCE-ID 'soon' is not a date or date-time",
        ),
        (
            calendar_with("DUE:whenever", kind="VTODO"),
            "its DUE 'whenever' is not a date or date-time",
        ),
    ],
)
def test_a_value_that_cannot_be_read_is_named_with_its_event_and_property(
    data: bytes, said: str
) -> None:
    with pytest.raises(BrokenEventError) as refused:
        read_file(data, zone=ZONE, now=NOW)
    message = str(refused.value)
    assert message.startswith("the calendar file is malformed: the ")
    assert "'Dentist' (UID d-1): " + said in message
    assert "export the calendar again" in message
    read = read_events(data, zone=ZONE, now=NOW)
    assert [e.summary for e in read.events] == ["Team lunch"]  # the rest is read
    (left_out,) = read.broken
    assert left_out.endswith("'Dentist' (UID d-1): " + said)


def test_several_broken_events_are_counted_and_an_unnamed_one_said_so() -> None:
    data = (
        calendar_with("DTSTART:x")
        .replace(b"UID:good-1\r\n", b"")
        .replace(b"DTSTART;TZID=Europe/Berlin:20261103T123000", b"DTSTART:y")
        .replace(b"SUMMARY:Team lunch\r\n", b"")
    )
    with pytest.raises(BrokenEventError) as seen:
        read_file(data, zone=ZONE, now=NOW)
    assert str(seen.value).startswith(
        "the calendar file is malformed: an event without SUMMARY or UID: its DTSTART 'y' "
    )
    assert "(and 1 more event)" in str(seen.value)


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (b"", "the calendar file is empty; export the calendar as .ics again"),
        (b"\xef\xbb\xbf \r\n", "the calendar file is empty"),
        (b"hello", "(it starts with 'hello', not 'BEGIN:VCALENDAR')"),
    ],
)
def test_an_empty_file_is_said_to_be_empty(data: bytes, said: str) -> None:
    with pytest.raises(IcsError) as refused:
        read_file(data, zone=ZONE)
    assert said in str(refused.value)


def test_a_zone_with_a_value_that_cannot_be_read_is_named() -> None:
    zone = (
        "BEGIN:VTIMEZONE\r\nTZID:Custom/Zone\r\nBEGIN:STANDARD\r\nDTSTART:sometime\r\n"
        "TZOFFSETFROM:+0100\r\nTZOFFSETTO:+0100\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\n"
    )
    data = calendar_with(START).replace(b"PRODID:x\r\n", b"PRODID:x\r\n" + zone.encode())
    with pytest.raises(IcsError, match=r"the time zone 'Custom/Zone' of the file cannot be read: "
                       r"its DTSTART 'sometime' is not a date or date-time"):  # fmt: skip
        read_file(data, zone=ZONE, now=NOW)


@pytest.mark.parametrize(
    "lines",
    [("DTSTART:notadate",), (START, "RRULE:FREQ=DAILY", "EXDATE:garbage"), ("LOCATION:x",)],
)
def test_the_days_leave_out_an_event_that_cannot_be_read_and_say_so(lines: tuple[str, ...]) -> None:
    source = CalendarSource(
        user_id="alice", name="team", url="https://example.org/t.ics",
        ics=calendar_with(*lines).decode(), fetched_at=NOW,
    )  # fmt: skip
    start, end = day_span(datetime(2026, 11, 3).date(), ZONE)
    found, problems = events_between([source], start, end, ZONE)
    assert [event.line(ZONE) for event in found] == ["Tue 12:30-13:30 Team lunch (team)"]
    (problem,) = problems
    assert problem.startswith("the event 'Dentist' (UID d-1) of the calendar 'team' is left out")


def test_the_days_show_an_event_whose_alarm_alone_cannot_be_read() -> None:
    source = CalendarSource(
        user_id="alice", name="team", url="https://example.org/t.ics",
        ics=calendar_with(START, alarm="banana").decode(), fetched_at=NOW,
    )  # fmt: skip
    start, end = day_span(datetime(2026, 11, 3).date(), ZONE)
    found, problems = events_between([source], start, end, ZONE)
    assert [event.summary for event in found] == ["Dentist", "Team lunch"] and problems == []

"""The morning briefing's Calendar section (``CalendarDays`` over ``calendars.Calendars``), over
real SQLite memory and a task manager: a calendar with an event that cannot be read."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from assistant.briefing import CalendarDays, DayNotes
from calendars import Calendars
from common import ManualClock
from memory import CalendarSource, MemoryStore
from tasks import MemoryTaskStore, TaskManager
from tests.interfaces.world import RecordingNotifier

ZONE = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 11, 3, 6, 0, tzinfo=ZONE)
TEAM = (
    "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:x\r\n"
    "BEGIN:VEVENT\r\nUID:d-1\r\nSUMMARY:Dentist\r\nDTSTART:notadate\r\nEND:VEVENT\r\n"
    "BEGIN:VEVENT\r\nUID:l-1\r\nSUMMARY:Lunch\r\nDTSTART;TZID=Europe/Berlin:20261103T123000\r\n"
    "RRULE:FREQ=DAILY\r\nEXDATE:garbage\r\nEND:VEVENT\r\n"
    "BEGIN:VEVENT\r\nUID:s-1\r\nSUMMARY:Standup\r\nDTSTART;TZID=Europe/Berlin:20261103T091500\r\n"
    "END:VEVENT\r\nEND:VCALENDAR\r\n"
)


async def _zone(user: str) -> ZoneInfo:
    return ZONE


@pytest.fixture
async def briefing(tmp_path: Path) -> AsyncIterator[DayNotes]:
    clock = ManualClock(NOW)
    async with MemoryStore(tmp_path / "assistant.db", clock=clock) as memory:
        tasks = TaskManager(store=MemoryTaskStore(), notifier=RecordingNotifier(), clock=clock)
        await memory.save_calendar_source(
            CalendarSource(
                user_id="alice", name="team", url="https://example.org/t.ics", ics=TEAM,
                fetched_at=NOW,
            )
        )  # fmt: skip
        calendars = Calendars(memory=memory, tasks=tasks, clock=clock, zone_of=_zone)
        yield DayNotes(memory=memory, calendar=CalendarDays(calendars))


async def test_the_calendar_section_skips_an_event_that_cannot_be_read_and_logs_it(
    briefing: DayNotes, caplog: pytest.LogCaptureFixture
) -> None:
    day = datetime(2026, 11, 3, tzinfo=ZONE)
    sections = await briefing.sections("alice", day=day, since=NOW, now=NOW)
    calendar = next(section for section in sections if section.title == "Calendar")
    assert [line.text for line in calendar.lines] == ["09:15 Standup"]
    assert [line.ref for line in calendar.lines] == ["calendar team/s-1"]
    said = [r.getMessage() for r in caplog.records if r.name == "assistant.briefing"]
    assert sorted(said) == [
        "morning briefing of user alice: the event 'Dentist' (UID d-1) of the calendar 'team' "
        "is left out, as it cannot be read: its DTSTART 'notadate' is not a date or date-time",
        "morning briefing of user alice: the event 'Lunch' (UID l-1) of the calendar 'team' is "
        "left out, as it cannot be read: its EXDATE 'garbage' is not a date or date-time (or a "
        "list of them)",
    ]

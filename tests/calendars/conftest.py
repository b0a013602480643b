"""Fixtures for the calendar tests: memory and a task manager on real SQLite files, a manual
clock, a recording notifier, and a real CalDAV server (Radicale on 127.0.0.1)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from common import ManualClock
from memory import MemoryStore
from tasks import SqliteTaskStore, TaskManager
from testing.radicale_server import RadicaleServer, radicale_server
from tests.interfaces.world import RecordingNotifier

NOW = datetime(2026, 11, 2, 10, 0, tzinfo=UTC)
"""A Monday morning."""
ZONE = ZoneInfo("Europe/Berlin")
USER = "alice"
PASSWORD = "correct-horse-battery"


Notices = RecordingNotifier
"""A notifier that keeps what it was given."""


@pytest.fixture(autouse=True)
def _time_zones_of_no_earlier_file() -> None:
    """``icalendar`` keeps, for the process, the first VTIMEZONE it reads of each TZID no
    zone database knows (Outlook's Windows names): a test's file must not give later tests'
    files its zones (``calendars.reading`` reads each file's own; the tests' expansions with
    ``recurring-ical-events`` go through that cache)."""
    import icalendar

    icalendar.use_zoneinfo()  # type: ignore[no-untyped-call]  # the default, its cache emptied


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(NOW)


@pytest.fixture
def notices() -> Notices:
    return Notices()


@pytest.fixture
async def memory(tmp_path: Path, clock: ManualClock) -> AsyncIterator[MemoryStore]:
    async with MemoryStore(tmp_path / "assistant.db", clock=clock) as store:
        yield store


@pytest.fixture
async def tasks(tmp_path: Path, clock: ManualClock, notices: Notices) -> AsyncIterator[TaskManager]:
    manager = TaskManager(
        store=SqliteTaskStore(tmp_path / "assistant.db"), notifier=notices, clock=clock
    )
    await manager.start(timer=False)
    try:
        yield manager
    finally:
        await manager.stop()


@pytest.fixture(scope="module")
def radicale(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RadicaleServer]:
    with radicale_server(tmp_path_factory.mktemp("radicale"), {USER: PASSWORD}) as server:
        yield server

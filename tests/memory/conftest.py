"""Fixtures for the memory tests: stores on a real SQLite file and on a real PostgreSQL
database (the same tests run on both), and a controllable clock."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from common import ManualClock
from memory import MemoryStore

START = datetime(2024, 3, 1, 12, 0, tzinfo=UTC)


class StepClock(ManualClock):
    """A manual clock that moves on by ``step`` every time it is read."""

    def __init__(self, start: datetime = START, step: timedelta = timedelta(seconds=1)) -> None:
        super().__init__(start)
        self.step = step

    def now(self) -> datetime:
        current = super().now()
        self.advance(self.step)
        return current


@pytest.fixture
def clock() -> StepClock:
    return StepClock()


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "data" / "assistant.db"


MakeStore = Callable[..., MemoryStore]


@pytest.fixture(params=["sqlite", "postgres"])
def make_store(request: pytest.FixtureRequest, db_path: Path) -> MakeStore:
    """Make (unopened) stores of one kind on one database: a SQLite file, or a fresh
    PostgreSQL database on the session's server."""
    if request.param == "postgres":
        url: str = request.getfixturevalue("postgres_url")
        return lambda **options: MemoryStore(database_url=url, **options)
    return lambda **options: MemoryStore(db_path, **options)


@pytest.fixture
async def store(make_store: MakeStore, clock: StepClock) -> AsyncIterator[MemoryStore]:
    """An open store of each kind."""
    async with make_store(clock=clock) as opened:
        yield opened

"""Fixtures for the memory tests: a store on a real SQLite file and a controllable clock."""

from __future__ import annotations

from collections.abc import AsyncIterator
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


@pytest.fixture
async def store(db_path: Path, clock: StepClock) -> AsyncIterator[MemoryStore]:
    async with MemoryStore(db_path, clock=clock) as opened:
        yield opened

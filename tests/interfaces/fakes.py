"""Fakes for the interface tests, passed in through constructors."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

USER = 4242
"""The Telegram user (and private chat) of the delivery and queue tests."""


class FakeTime:
    """A clock whose ``sleep`` advances time at once and records the wait."""

    def __init__(self, start: datetime | None = None) -> None:
        self._now = start or datetime(2025, 3, 10, 12, 0, tzinfo=UTC)
        self.slept: list[float] = []

    def now(self) -> datetime:
        """Return the fake current instant."""
        return self._now

    def stamp(self) -> float:
        """Return the fake current instant as seconds (for the stand-in's call log)."""
        return self._now.timestamp()

    async def sleep(self, seconds: float) -> None:
        """Record the wait, move time forward and yield to the loop once."""
        self.slept.append(seconds)
        self._now += timedelta(seconds=max(0.0, seconds))
        await asyncio.sleep(0)

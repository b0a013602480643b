"""Fakes for the interface tests, passed in through constructors."""

from __future__ import annotations

from datetime import UTC, datetime

from common import ManualClock

USER = 4242
"""The Telegram user (and private chat) of the delivery and queue tests."""


class FakeTime(ManualClock):
    """A manual clock (``sleep`` advances time at once and records the wait) that also gives
    its instant as seconds, for the stand-in's call log."""

    def __init__(self, start: datetime | None = None) -> None:
        super().__init__(start or datetime(2025, 3, 10, 12, 0, tzinfo=UTC))

    def stamp(self) -> float:
        """Return the fake current instant as seconds."""
        return self.now().timestamp()

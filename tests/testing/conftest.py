"""Fixtures for the tests of what tests and benchmarks share: a running Bot API stand-in."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from testing.botapi_standin import BotApiStandin


@pytest.fixture
async def botapi() -> AsyncIterator[BotApiStandin]:
    """A running Bot API stand-in on 127.0.0.1."""
    async with BotApiStandin() as server:
        yield server


@pytest.fixture(autouse=True)
def _ptb_timedelta(monkeypatch: pytest.MonkeyPatch) -> None:
    """Opt into python-telegram-bot's timedelta periods (else reading them warns)."""
    monkeypatch.setenv("PTB_TIMEDELTA", "true")

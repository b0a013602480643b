"""Fixtures for the interface tests: a Bot API stand-in with a chat open, and a bot on it."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from telegram import Bot

from testing.botapi_standin import BotApiStandin
from tests.interfaces.fakes import USER, FakeTime


@pytest.fixture(autouse=True)
def _ptb_timedelta(monkeypatch: pytest.MonkeyPatch) -> None:
    """Opt into python-telegram-bot's timedelta periods (else reading them warns)."""
    monkeypatch.setenv("PTB_TIMEDELTA", "true")


@pytest.fixture
def queue_time() -> FakeTime:
    """A fake clock for the outgoing queue: its waits pass at once."""
    return FakeTime()


@pytest.fixture
async def api(queue_time: FakeTime) -> AsyncIterator[BotApiStandin]:
    """A stand-in that stamps calls with the fake clock, with a chat with USER open."""
    async with BotApiStandin(stamp=queue_time.stamp) as server:
        server.add_chat(USER)
        yield server


@pytest.fixture
async def ptb_bot(api: BotApiStandin) -> AsyncIterator[Bot]:
    """A python-telegram-bot Bot talking to ``api``, initialized."""
    async with Bot(api.token, base_url=api.base_url) as started:
        yield started

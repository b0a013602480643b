"""The clocks: sleeping until a deadline always lets the ready tasks run first."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest

from common import Clock, ManualClock, SystemClock

T0 = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)


@pytest.mark.parametrize("clock", [SystemClock(), ManualClock(T0)], ids=["system", "manual"])
async def test_sleep_until_yields_even_when_it_need_not_wait(clock: Clock) -> None:
    # A timer that is behind must still let deliveries run (issue 17).
    loop = asyncio.get_running_loop()
    ran: list[str] = []
    loop.call_soon(ran.append, "before a passed deadline")
    await clock.sleep_until(clock.now() - timedelta(seconds=1), asyncio.Event())
    assert ran == ["before a passed deadline"]

    woken = asyncio.Event()
    woken.set()
    loop.call_soon(ran.append, "before a wake already set")
    await clock.sleep_until(None, woken)
    assert ran == ["before a passed deadline", "before a wake already set"]


async def test_an_exact_wait_never_ends_before_the_deadline() -> None:
    # It ends the loop's wait a millisecond early and sleeps the rest: never before the
    # deadline, however the loop's timeout was rounded.
    clock = SystemClock()
    for delay_ms in (0.2, 1.0, 1.7, 5.0):
        deadline = clock.now() + timedelta(milliseconds=delay_ms)
        await clock.sleep_until(deadline, asyncio.Event(), exact=True)
        assert clock.now() >= deadline


async def test_an_exact_wait_returns_at_once_when_woken() -> None:
    clock = SystemClock()
    wake = asyncio.Event()
    asyncio.get_running_loop().call_soon(wake.set)
    deadline = clock.now() + timedelta(hours=1)
    async with asyncio.timeout(5):
        await clock.sleep_until(deadline, wake, exact=True)
    assert clock.now() < deadline

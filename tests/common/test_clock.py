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

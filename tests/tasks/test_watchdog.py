"""The shared run time limit: one timer for many guards, cancellations from elsewhere kept."""

from __future__ import annotations

import asyncio

import pytest

from tasks.engine import Watchdog

LIMIT = 0.05  # real time: the watchdog exists to bound real waits


async def test_a_guard_that_overruns_raises_timeout_and_others_finish() -> None:
    watchdog = Watchdog(LIMIT)
    never = asyncio.Event()

    async def hang() -> str:
        with watchdog.guard():
            await never.wait()
        return "finished"

    async def quick() -> str:
        with watchdog.guard():
            await asyncio.sleep(0)
        return "finished"

    results = await asyncio.gather(hang(), quick(), hang(), return_exceptions=True)

    assert [type(r) if isinstance(r, BaseException) else r for r in results] == [
        TimeoutError,
        "finished",
        TimeoutError,
    ]


async def test_a_cancellation_from_elsewhere_is_not_a_timeout() -> None:
    watchdog = Watchdog(60.0)
    started = asyncio.Event()

    async def guarded() -> None:
        with watchdog.guard():
            started.set()
            await asyncio.Event().wait()

    task = asyncio.create_task(guarded())
    await started.wait()
    task.cancel()

    with pytest.raises(asyncio.CancelledError):
        await task


async def test_a_closed_guard_lets_go_of_its_task() -> None:
    watchdog = Watchdog(60.0)

    async def guarded() -> asyncio.Task[object] | None:
        with watchdog.guard() as guard:
            await asyncio.sleep(0)
        return guard.task

    assert await asyncio.create_task(guarded()) is None

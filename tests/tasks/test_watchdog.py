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


async def test_a_tasks_guard_serves_each_of_its_blocks_in_turn() -> None:
    # An executor's worker runs its runs one after the other under one guard: the timer armed
    # for the first block's deadline finds the second one open, and waits for its own.
    watchdog = Watchdog(LIMIT)
    never = asyncio.Event()

    async def worker() -> list[str]:
        said = []
        for _ in range(3):
            with watchdog.guard():
                await asyncio.sleep(LIMIT / 4)
            said.append("finished")
        try:
            with watchdog.guard():
                await never.wait()
        except TimeoutError:
            said.append("timed out")
        with watchdog.guard():
            await asyncio.sleep(0)
        said.append("finished")
        return said

    assert await worker() == ["finished"] * 3 + ["timed out", "finished"]


async def test_guards_do_not_nest() -> None:
    watchdog = Watchdog(60.0)
    with watchdog.guard(), pytest.raises(RuntimeError, match="do not nest"), watchdog.guard():
        pytest.fail("a second guard opened inside the first")
    with watchdog.guard() as guard:  # the outer one closed as usual
        assert guard.task is asyncio.current_task()


async def test_a_guard_outside_a_task_is_refused() -> None:
    watchdog = Watchdog(60.0)

    def outside() -> None:
        watchdog.guard()

    loop = asyncio.get_running_loop()
    failed = loop.create_future()

    def call() -> None:
        try:
            outside()
        except RuntimeError as exc:
            failed.set_result(str(exc))

    loop.call_soon(call)
    assert await failed == "a watchdog guard must be used inside a task"

"""One lock per key, in arrival order, gone once nobody needs it."""

import asyncio

import pytest

from common import KeyedLocks


async def test_one_key_runs_one_at_a_time_in_arrival_order() -> None:
    locks: KeyedLocks[str] = KeyedLocks()
    events: list[str] = []
    gate = asyncio.Event()

    async def work(name: str) -> None:
        async with locks.hold("chat"):
            events.append(f"{name} in")
            await gate.wait()
            events.append(f"{name} out")

    tasks = [asyncio.create_task(work(name)) for name in ("a", "b", "c")]
    await asyncio.sleep(0)
    assert events == ["a in"]
    assert len(locks) == 1
    gate.set()
    await asyncio.gather(*tasks)
    assert events == ["a in", "a out", "b in", "b out", "c in", "c out"]
    assert len(locks) == 0


async def test_different_keys_do_not_wait_for_each_other() -> None:
    locks: KeyedLocks[int] = KeyedLocks()
    async with locks.hold(1), locks.hold(2):
        assert len(locks) == 2
    assert len(locks) == 0


async def test_a_failing_holder_and_a_cancelled_waiter_leave_nothing_behind() -> None:
    locks: KeyedLocks[str] = KeyedLocks()
    gate = asyncio.Event()

    async def holder() -> None:
        async with locks.hold("chat"):
            await gate.wait()
            raise RuntimeError("the handler failed")

    async def waiter() -> None:
        async with locks.hold("chat"):
            pytest.fail("a cancelled waiter must not get the lock")

    held = asyncio.create_task(holder())
    waiting = asyncio.create_task(waiter())
    await asyncio.sleep(0)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    gate.set()
    with pytest.raises(RuntimeError, match="the handler failed"):
        await held
    assert len(locks) == 0


async def test_the_map_holds_only_the_keys_in_use() -> None:
    locks: KeyedLocks[int] = KeyedLocks()
    for chat in range(10_000):
        async with locks.hold(chat):
            pass
    assert len(locks) == 0

"""The task store's connection on its own thread: whole transactions, never left open."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from pathlib import Path

import pytest

from tasks.errors import TaskError
from tasks.store.sqlite.db import TaskDatabase, TaskStoreError


def create(conn: sqlite3.Connection) -> None:
    conn.execute("CREATE TABLE notes (text TEXT NOT NULL)")


def count(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT count(*) FROM notes").fetchone()[0])


async def test_a_cancelled_write_finishes_its_transaction_on_the_thread(tmp_path: Path) -> None:
    db = TaskDatabase(tmp_path / "t.db", busy_ms=1000)
    await db.open()
    await db.write(create)
    entered, release = threading.Event(), threading.Event()

    def slow_insert(conn: sqlite3.Connection) -> None:
        conn.execute("INSERT INTO notes VALUES ('kept')")
        entered.set()
        release.wait(5)

    writing = asyncio.create_task(db.write(slow_insert))
    await asyncio.get_running_loop().run_in_executor(None, entered.wait, 5)
    writing.cancel()
    release.set()
    with pytest.raises(asyncio.CancelledError):
        await writing

    assert await db.read(count) == 1  # committed whole, and the connection is free again
    assert await db.read(lambda conn: conn.in_transaction) is False
    await db.close()


async def test_a_failing_write_rolls_back_and_sqlite_errors_are_translated(
    tmp_path: Path,
) -> None:
    path = tmp_path / "t.db"
    async with asyncio.timeout(10):
        db = TaskDatabase(path, busy_ms=1000)
        await db.open()
        await db.write(create)

        def half_then_fail(conn: sqlite3.Connection) -> None:
            conn.execute("INSERT INTO notes VALUES ('half')")
            conn.execute("INSERT INTO notes VALUES (NULL)")

        with pytest.raises(TaskStoreError, match=r"t\.db.: NOT NULL constraint failed"):
            await db.write(half_then_fail)
        assert await db.read(count) == 0
        await db.close()
        await db.close()  # closing twice is harmless
        with pytest.raises(TaskError, match="is not open"):
            await db.read(count)


async def test_a_locked_database_waits_off_the_loop_then_says_so(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    db = TaskDatabase(path, busy_ms=50)
    await db.open()
    await db.write(create)
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        ticks = 0

        async def tick() -> None:
            nonlocal ticks
            while True:
                ticks += 1
                await asyncio.sleep(0)

        ticker = asyncio.create_task(tick())
        with pytest.raises(TaskStoreError, match="database is locked"):
            await db.write(lambda conn: conn.execute("INSERT INTO notes VALUES ('x')"))
        ticker.cancel()
        assert ticks > 1  # the loop kept running while the write waited for the lock
    finally:
        other.execute("ROLLBACK")
        other.close()
    await db.close()

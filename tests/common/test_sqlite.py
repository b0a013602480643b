"""The shared SQLite helper: whole transactions on the connection's thread, never left open,
errors in the owning package's types, and the schema migration runner."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from common import WAL_KEEP_BYTES, Failures, SqliteDatabase
from memory import MemoryStore, MemoryStoreError, StoreClosedError
from tasks import TaskError
from tasks.store.sqlite import TaskDatabase, TaskStoreError


class BrokenError(Exception):
    """What the test package raises for SQLite failures."""


class NotOpenError(Exception):
    """What the test package raises when the database is not open."""


FAILURES = Failures("the test database", BrokenError, lambda path: NotOpenError(str(path)))
V1 = ("CREATE TABLE notes (text TEXT NOT NULL)",)
V2 = ("ALTER TABLE notes ADD COLUMN tag TEXT",)


def itself(conn: sqlite3.Connection) -> sqlite3.Connection:
    return conn


def count(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT count(*) FROM notes").fetchone()[0])


def database(path: Path, *, busy_ms: int = 1000) -> SqliteDatabase[sqlite3.Connection]:
    return SqliteDatabase(
        path, handle=itself, failures=FAILURES, busy_ms=busy_ms, thread_name="test-sqlite"
    )


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[SqliteDatabase[sqlite3.Connection]]:
    opened = database(tmp_path / "t.db")
    await opened.open()
    await opened.migrate(component="test", migrations=(V1,), error=BrokenError)
    yield opened
    await opened.close()


async def test_a_cancelled_write_finishes_its_transaction_on_the_thread(
    db: SqliteDatabase[sqlite3.Connection],
) -> None:
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


async def test_a_failing_write_rolls_back_and_sqlite_errors_are_translated(
    db: SqliteDatabase[sqlite3.Connection],
) -> None:
    def half_then_fail(conn: sqlite3.Connection) -> None:
        conn.execute("INSERT INTO notes VALUES ('half')")
        conn.execute("INSERT INTO notes VALUES (NULL)")

    with pytest.raises(BrokenError, match=r"the test database .*t\.db.: NOT NULL constraint"):
        await db.write(half_then_fail)
    assert await db.read(count) == 0
    await db.close()
    await db.close()  # closing twice is harmless
    with pytest.raises(NotOpenError, match=r"t\.db"):
        await db.read(count)


async def test_a_locked_database_waits_off_the_loop_then_says_so(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    db = database(path, busy_ms=50)
    await db.open()
    await db.write(lambda conn: conn.execute(V1[0]))
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
        with pytest.raises(BrokenError, match="database is locked"):
            await db.write(lambda conn: conn.execute("INSERT INTO notes VALUES ('x')"))
        ticker.cancel()
        assert ticks > 1  # the loop kept running while the write waited for the lock
    finally:
        other.execute("ROLLBACK")
        other.close()
    await db.close()


async def test_a_file_that_is_no_database_is_refused_in_the_package_type(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    path.write_bytes(b"not a database, just some bytes " * 64)
    db = database(path)

    with pytest.raises(BrokenError, match=r"cannot use .*t\.db. as the test database"):
        await db.open()
    assert not db.is_open


async def test_migrations_run_once_and_newer_schemas_are_refused(
    db: SqliteDatabase[sqlite3.Connection],
) -> None:
    def versions(conn: sqlite3.Connection) -> list[tuple[str, int]]:
        return list(conn.execute("SELECT component, version FROM schema_versions ORDER BY 1"))

    await db.write(lambda conn: conn.execute("INSERT INTO notes VALUES ('kept')"))
    assert await db.migrate(component="test", migrations=(V1, V2), error=BrokenError) == 1
    assert await db.migrate(component="test", migrations=(V1, V2), error=BrokenError) == 2
    assert await db.migrate(component="other", migrations=(), error=BrokenError) == 0
    assert await db.read(versions) == [("test", 2)]
    assert await db.read(lambda conn: list(conn.execute("SELECT * FROM notes"))) == [("kept", None)]
    with pytest.raises(BrokenError, match="has test schema version 2, newer than this program's 1"):
        await db.migrate(component="test", migrations=(V1,), error=BrokenError)


async def test_the_task_store_connection_raises_task_errors(tmp_path: Path) -> None:
    db = TaskDatabase(tmp_path / "t.db", busy_ms=1000)
    with pytest.raises(TaskError, match=r"t\.db"):
        await db.read(lambda _: None)
    await db.open()
    try:
        with pytest.raises(TaskStoreError, match="no such table: nowhere"):
            await db.migrate(
                component="x", migrations=(("SELECT * FROM nowhere",),), error=TaskStoreError
            )
    finally:
        await db.close()


async def test_the_memory_store_raises_memory_errors(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    with pytest.raises(StoreClosedError, match=r"t\.db"):
        await MemoryStore(path).get_user("alice")
    path.write_bytes(b"this is no SQLite database, just text long enough to be read" * 20)
    with pytest.raises(MemoryStoreError, match=r"t\.db"):
        await MemoryStore.open(path)


async def test_a_wal_grown_by_one_large_write_shrinks_once_it_starts_over(
    db: SqliteDatabase[sqlite3.Connection], tmp_path: Path
) -> None:
    wal = tmp_path / "t.db-wal"
    large = "x" * 1000

    def fill(conn: sqlite3.Connection) -> None:
        conn.executemany("INSERT INTO notes (text) VALUES (?)", [(large,)] * 12_000)

    await db.write(fill)  # about 12 MB in one transaction, checkpointed as it commits
    assert wal.stat().st_size > 2 * WAL_KEEP_BYTES
    await db.write(lambda conn: conn.execute("INSERT INTO notes (text) VALUES ('small')"))
    assert wal.stat().st_size <= WAL_KEEP_BYTES
    assert await db.read(count) == 12_001

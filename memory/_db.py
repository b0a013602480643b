"""One aiosqlite connection shared by the memory repositories, with short write transactions.

The task store opens its own connection to the same file, so the connection runs in WAL
mode with a busy timeout, and every write takes the write lock up front (``BEGIN IMMEDIATE``)
so two connections never deadlock upgrading a read to a write.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import aiosqlite

from memory.errors import MemoryInputError, MemoryStoreError, StoreClosedError

Clock = Callable[[], datetime]
Params = Sequence[Any]


def utc_now() -> datetime:
    """Return the current instant in UTC (the default clock)."""
    return datetime.now(UTC)


def to_db_time(moment: datetime, *, what: str = "time") -> str:
    """Return ``moment`` as fixed-width UTC ISO text, which sorts like the instants it names.

    Raises:
        MemoryInputError: when ``moment`` has no time zone.
    """
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise MemoryInputError(
            f"the {what} {moment.isoformat()!r} has no time zone; pass an aware datetime "
            "such as datetime.now(UTC)"
        )
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def from_db_time(text: str) -> datetime:
    """Return the aware UTC datetime stored as ``text`` by ``to_db_time``."""
    return datetime.fromisoformat(text)


class Transaction:
    """The statements of one open transaction (valid only inside ``Database.transaction``)."""

    def __init__(self, conn: aiosqlite.Connection) -> None:
        self._conn = conn

    async def execute(self, sql: str, params: Params = ()) -> int:
        """Run one statement and return how many rows it changed."""
        async with self._conn.execute(sql, params) as cursor:
            return cursor.rowcount

    async def insert(self, sql: str, params: Params = ()) -> int:
        """Run one INSERT and return the new row's id."""
        async with self._conn.execute(sql, params) as cursor:
            rowid = cursor.lastrowid
        if rowid is None:
            raise MemoryStoreError(f"SQLite returned no row id for {sql.split('(')[0]!r}")
        return rowid

    async def execute_many(self, sql: str, rows: Iterable[Params]) -> None:
        """Run one statement once per parameter row."""
        async with self._conn.executemany(sql, rows):
            return

    async def fetch_all(self, sql: str, params: Params = ()) -> list[sqlite3.Row]:
        """Run a query and return every row."""
        return list(await self._conn.execute_fetchall(sql, params))

    async def fetch_one(self, sql: str, params: Params = ()) -> sqlite3.Row | None:
        """Run a query and return its first row, or ``None``."""
        rows = await self.fetch_all(sql, params)
        return rows[0] if rows else None


class Database:
    """An open aiosqlite connection plus the lock that keeps its transactions apart."""

    def __init__(self, conn: aiosqlite.Connection, path: Path) -> None:
        self._conn = conn
        self._path = path
        self._lock = asyncio.Lock()
        self._closed = False

    @property
    def path(self) -> Path:
        """The database file."""
        return self._path

    @classmethod
    async def connect(cls, path: Path, *, busy_timeout: float) -> Database:
        """Open ``path`` (creating its directory) in WAL mode with ``busy_timeout`` seconds.

        Raises:
            MemoryStoreError: when the file cannot be opened as a SQLite database.
        """
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            conn = await aiosqlite.connect(path, isolation_level=None)
        except (OSError, sqlite3.Error) as exc:
            raise MemoryStoreError(f"cannot open the memory database {str(path)!r}: {exc}") from exc
        db = cls(conn, path)
        try:
            conn.row_factory = sqlite3.Row
            # PRAGMA values cannot be bound as parameters; this one is an int we computed.
            await conn.execute(f"PRAGMA busy_timeout = {max(0, round(busy_timeout * 1000))}")
            await conn.execute("PRAGMA journal_mode = WAL")
            await conn.execute("PRAGMA synchronous = NORMAL")
            await conn.execute("PRAGMA foreign_keys = ON")
        except sqlite3.Error as exc:
            await conn.close()
            raise MemoryStoreError(
                f"cannot use {str(path)!r} as the memory database: {exc}"
            ) from exc
        return db

    async def close(self) -> None:
        """Close the connection once pending statements finish; closing twice is harmless."""
        if self._closed:
            return
        self._closed = True
        async with self._lock:
            await self._conn.close()

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Transaction]:
        """Hold the write lock for a block: commit when it ends, roll back when it raises.

        Raises:
            MemoryStoreError: for SQLite errors (busy past the timeout, disk full, ...).
        """
        self._check_open()
        async with self._lock:
            try:
                await self._conn.execute("BEGIN IMMEDIATE")
                yield Transaction(self._conn)
                await self._conn.execute("COMMIT")
            except sqlite3.Error as exc:
                await self._abandon()
                raise self._translate(exc) from exc
            except BaseException:
                # Also on cancellation: statements already queued still run, so the
                # ROLLBACK queued behind them always finds the transaction they opened.
                await self._abandon()
                raise

    async def fetch_all(self, sql: str, params: Params = ()) -> list[sqlite3.Row]:
        """Run one read-only query outside any explicit transaction."""
        self._check_open()
        async with self._lock:
            try:
                return list(await self._conn.execute_fetchall(sql, params))
            except sqlite3.Error as exc:
                raise self._translate(exc) from exc

    async def fetch_one(self, sql: str, params: Params = ()) -> sqlite3.Row | None:
        """Run one read-only query and return its first row, or ``None``."""
        rows = await self.fetch_all(sql, params)
        return rows[0] if rows else None

    async def _abandon(self) -> None:
        """Roll back whatever transaction is open; there may be none (BEGIN never ran)."""
        with contextlib.suppress(sqlite3.OperationalError):
            await self._conn.execute("ROLLBACK")

    def _check_open(self) -> None:
        if self._closed:
            raise StoreClosedError(f"the memory store on {str(self._path)!r} is closed")

    def _translate(self, exc: sqlite3.Error) -> MemoryStoreError:
        return MemoryStoreError(f"SQLite error on {str(self._path)!r}: {exc}")

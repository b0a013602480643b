"""One SQLite connection on its own thread, shared by the memory repositories.

Every store operation is one synchronous function that runs on the connection's thread (a
single-worker executor), so an operation costs one hop off the event loop, however many
statements it runs. A write is a whole transaction inside that function: ``BEGIN
IMMEDIATE`` takes the write lock up front (two connections never deadlock upgrading a read
to a write), then ``COMMIT``, or ``ROLLBACK`` when anything raises. Cancelling the awaiting
task cannot leave a transaction open: a function not yet started never runs, one already
running runs to its end.

The task store opens its own connection to the same file, so the connection runs in WAL
mode with a busy timeout; waiting for the lock blocks the connection's thread, never the loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from memory.errors import MemoryInputError, MemoryStoreError, StoreClosedError

Params = Sequence[Any]
T = TypeVar("T")


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


class Session:
    """The statements of one operation; used only on the connection's thread, inside it."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def execute(self, sql: str, params: Params = ()) -> int:
        """Run one statement and return how many rows it changed."""
        return self._conn.execute(sql, params).rowcount

    def insert(self, sql: str, params: Params = ()) -> int:
        """Run one INSERT and return the new row's id."""
        rowid = self._conn.execute(sql, params).lastrowid
        if rowid is None:
            raise MemoryStoreError(f"SQLite returned no row id for {sql.split('(')[0]!r}")
        return rowid

    def execute_many(self, sql: str, rows: Iterable[Params]) -> None:
        """Run one statement once per parameter row."""
        self._conn.executemany(sql, rows)

    def fetch_all(self, sql: str, params: Params = ()) -> list[sqlite3.Row]:
        """Run a query and return every row."""
        rows: list[sqlite3.Row] = self._conn.execute(sql, params).fetchall()
        return rows

    def iterate(self, sql: str, params: Params = ()) -> Iterator[sqlite3.Row]:
        """Run a query and yield its rows as they are read; stopping early reads no more."""
        cursor = self._conn.execute(sql, params)
        try:
            yield from cursor
        finally:
            cursor.close()

    def fetch_one(self, sql: str, params: Params = ()) -> sqlite3.Row | None:
        """Run a query and return its first row, or ``None``."""
        row: sqlite3.Row | None = self._conn.execute(sql, params).fetchone()
        return row


class Database:
    """An open SQLite connection and the one thread that runs everything on it."""

    def __init__(self, conn: sqlite3.Connection, path: Path, executor: ThreadPoolExecutor) -> None:
        self._conn = conn
        self._session = Session(conn)
        self._path = path
        self._executor = executor
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
        executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="memory-sqlite")
        opening = functools.partial(_open, path, busy_timeout)
        try:
            conn = await asyncio.get_running_loop().run_in_executor(executor, opening)
        except Exception:
            executor.shutdown(wait=True)  # the open has ended: the join is immediate
            raise
        except BaseException:
            # A cancelled open still finishes on the thread, which then ends on its own.
            executor.shutdown(wait=False)
            raise
        return cls(conn, path, executor)

    async def close(self) -> None:
        """Close the connection after the operations already queued; closing twice is harmless.

        The connection's thread has ended when this returns (unless it was cancelled: then
        the thread still closes the connection and ends on its own, right after).
        """
        if self._closed:
            return
        self._closed = True
        try:
            await self._run(self._close_now)
        except BaseException:
            # Cancelled: the queued close still runs, then the thread ends on its own.
            self._executor.shutdown(wait=False)
            raise
        # Idle now (the close was its last work item): the join is immediate.
        self._executor.shutdown(wait=True)

    async def write(self, work: Callable[[Session], T]) -> T:
        """Run ``work`` in one write transaction: commit when it returns, roll back if it raises.

        Raises:
            MemoryStoreError: for SQLite errors (busy past the timeout, disk full, ...).
        """
        self._check_open()
        return await self._run(functools.partial(self._transact, "BEGIN IMMEDIATE", work))

    async def read(self, work: Callable[[Session], T], *, snapshot: bool = False) -> T:
        """Run ``work``'s read-only queries; with ``snapshot`` all of them see one state.

        Raises:
            MemoryStoreError: for SQLite errors.
        """
        self._check_open()
        if snapshot:
            return await self._run(functools.partial(self._transact, "BEGIN", work))
        return await self._run(functools.partial(self._read_now, work))

    async def fetch_all(self, sql: str, params: Params = ()) -> list[sqlite3.Row]:
        """Run one read-only query and return every row."""
        return await self.read(lambda session: session.fetch_all(sql, params))

    async def fetch_one(self, sql: str, params: Params = ()) -> sqlite3.Row | None:
        """Run one read-only query and return its first row, or ``None``."""
        return await self.read(lambda session: session.fetch_one(sql, params))

    async def _run(self, fn: Callable[[], T]) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._executor, fn)

    def _transact(self, begin: str, work: Callable[[Session], T]) -> T:
        """On the connection's thread: the whole transaction."""
        try:
            self._conn.execute(begin)
            result = work(self._session)
            self._conn.execute("COMMIT")
        except sqlite3.Error as exc:
            self._abandon()
            raise self._translate(exc) from exc
        except BaseException:
            self._abandon()
            raise
        return result

    def _read_now(self, work: Callable[[Session], T]) -> T:
        """On the connection's thread: the queries of one read."""
        try:
            return work(self._session)
        except sqlite3.Error as exc:
            raise self._translate(exc) from exc

    def _close_now(self) -> None:
        try:
            self._conn.close()
        except sqlite3.Error as exc:
            raise self._translate(exc) from exc

    def _abandon(self) -> None:
        """Roll back whatever transaction is open; there is none when BEGIN failed."""
        if self._conn.in_transaction:
            # The error that got us here is raised by the caller; a failing ROLLBACK (SQLite
            # already rolled back after an I/O error) must not replace it.
            with contextlib.suppress(sqlite3.Error):
                self._conn.execute("ROLLBACK")

    def _check_open(self) -> None:
        if self._closed:
            raise StoreClosedError(f"the memory store on {str(self._path)!r} is closed")

    def _translate(self, exc: sqlite3.Error) -> MemoryStoreError:
        return MemoryStoreError(f"SQLite error on {str(self._path)!r}: {exc}")


def _open(path: Path, busy_timeout: float) -> sqlite3.Connection:
    """On the connection's thread: open and configure the connection.

    Raises:
        MemoryStoreError: when the file cannot be opened or used as a SQLite database.
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # Autocommit: transactions are the explicit BEGIN IMMEDIATE ... COMMIT of ``write``.
        conn = sqlite3.connect(path, isolation_level=None)
    except (OSError, sqlite3.Error) as exc:
        raise MemoryStoreError(f"cannot open the memory database {str(path)!r}: {exc}") from exc
    try:
        conn.row_factory = sqlite3.Row
        # PRAGMA values cannot be bound as parameters; this one is an int we computed.
        conn.execute(f"PRAGMA busy_timeout = {max(0, round(busy_timeout * 1000))}")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")
    except sqlite3.Error as exc:
        conn.close()
        raise MemoryStoreError(f"cannot use {str(path)!r} as the memory database: {exc}") from exc
    return conn

"""The task store's SQLite connection, owned by one thread: one hop per store operation.

Every store operation is one synchronous function that runs on the connection's own thread
(a single-worker executor), so it costs one hop off the event loop however many statements
it runs. Under a burst that matters: each hop's answer waits behind every run the loop has
ready, so a claim of five statement-sized hops took twice as long as the same work in one.

A write is a whole transaction inside its function: ``BEGIN IMMEDIATE`` takes the write lock
up front (two connections never deadlock upgrading a read to a write), then ``COMMIT``, or
``ROLLBACK`` when anything raises. Cancelling the awaiting task cannot leave a transaction
open: a function not yet started never runs, one already running runs to its end.

Other packages open their own connections to the same file, so the connection runs in WAL
mode with a busy timeout; waiting for the lock blocks this thread, never the loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import sqlite3
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

from tasks.errors import TaskError

T = TypeVar("T")
Work = Callable[[sqlite3.Connection], T]


class TaskStoreError(TaskError):
    """The task database failed (locked past the busy timeout, disk full, not a database)."""


class TaskDatabase:
    """One SQLite connection and the one thread that runs everything on it.

    Args:
        path: The database file; its directory is created when missing.
        busy_ms: How long a statement waits for another connection's write lock.
        thread_name: The name of the connection's thread.
        autocheckpoint: Whether commits on this connection may checkpoint the WAL (the task
            store leaves that to a connection of its own, see ``WalCheckpointer``).
    """

    def __init__(
        self,
        path: Path,
        *,
        busy_ms: int,
        thread_name: str = "task-sqlite",
        autocheckpoint: bool = True,
    ) -> None:
        self.path = path
        self._busy_ms = busy_ms
        self._thread_name = thread_name
        self._autocheckpoint = autocheckpoint
        self._conn: sqlite3.Connection | None = None
        self._executor: ThreadPoolExecutor | None = None

    @property
    def is_open(self) -> bool:
        """Whether the connection is open."""
        return self._conn is not None

    async def open(self) -> None:
        """Open the connection on its thread; opening twice is a no-op.

        Raises:
            TaskStoreError: when the file cannot be opened as a SQLite database.
        """
        if self._executor is not None:
            return
        executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=self._thread_name)
        try:
            self._conn = await asyncio.get_running_loop().run_in_executor(executor, self._open)
        except BaseException:
            # The open has ended (or, cancelled, still ends on the thread, which then exits).
            executor.shutdown(wait=False)
            raise
        self._executor = executor

    async def close(self) -> None:
        """Close after the operations already queued; the thread has ended when this returns."""
        executor, self._executor = self._executor, None
        if executor is None:
            return
        try:
            await asyncio.get_running_loop().run_in_executor(executor, self._close_now)
        finally:
            # Idle now (the close was its last work item), unless cancelled: then it ends
            # right after closing the connection.
            executor.shutdown(wait=False)

    async def write(self, work: Work[T]) -> T:
        """Run ``work`` in one write transaction: commit when it returns, roll back if it raises.

        Raises:
            TaskStoreError: for SQLite errors (busy past the timeout, disk full, ...).
        """
        return await self._run(functools.partial(self._transact, work))

    async def read(self, work: Work[T]) -> T:
        """Run ``work``'s queries (each statement sees the latest committed state).

        Raises:
            TaskStoreError: for SQLite errors.
        """
        return await self._run(functools.partial(self._read_now, work))

    async def _run(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        executor, conn = self._executor, self._conn
        if executor is None or conn is None:
            raise TaskError(
                f"the task store {str(self.path)!r} is not open; call 'await store.open()' "
                "(or start the TaskManager) first"
            )
        return await asyncio.get_running_loop().run_in_executor(executor, fn, conn)

    def _transact(self, work: Work[T], conn: sqlite3.Connection) -> T:
        """On the connection's thread: the whole write transaction."""
        try:
            conn.execute("BEGIN IMMEDIATE")
            result = work(conn)
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            _abandon(conn)
            raise self._translate(exc) from exc
        except BaseException:
            _abandon(conn)
            raise
        return result

    def _read_now(self, work: Work[T], conn: sqlite3.Connection) -> T:
        try:
            return work(conn)
        except sqlite3.Error as exc:
            raise self._translate(exc) from exc

    def _open(self) -> sqlite3.Connection:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # Autocommit: transactions are the explicit BEGIN IMMEDIATE ... COMMIT of ``write``.
            conn = sqlite3.connect(self.path, isolation_level=None)
        except (OSError, sqlite3.Error) as exc:
            raise TaskStoreError(
                f"cannot open the task database {str(self.path)!r}: {exc}"
            ) from exc
        try:
            # PRAGMA values cannot be bound as parameters; these are ints this code computed.
            conn.execute(f"PRAGMA busy_timeout = {max(0, self._busy_ms)}")
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            if not self._autocheckpoint:
                conn.execute("PRAGMA wal_autocheckpoint = 0")
        except sqlite3.Error as exc:
            conn.close()
            raise TaskStoreError(
                f"cannot use {str(self.path)!r} as the task database: {exc}"
            ) from exc
        return conn

    def _close_now(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()

    def _translate(self, exc: sqlite3.Error) -> TaskStoreError:
        return TaskStoreError(f"SQLite error on the task database {str(self.path)!r}: {exc}")


def _abandon(conn: sqlite3.Connection) -> None:
    """Roll back whatever transaction is open; there is none when BEGIN failed."""
    if conn.in_transaction:
        # The error that got us here is re-raised; a failing ROLLBACK (SQLite already rolled
        # back after an I/O error) must not replace it.
        with contextlib.suppress(sqlite3.Error):
            conn.execute("ROLLBACK")

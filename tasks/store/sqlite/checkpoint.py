"""WAL checkpoints on a connection of their own, so claims never wait for one.

SQLite's automatic checkpoint runs inside the commit that crosses the threshold, on the
committing connection: that commit then copies the WAL into the database file and syncs it,
which stalls the timer for tens of milliseconds. The task store turns the automatic checkpoint
off for its connection and lets this class run passive checkpoints (which never block readers
or writers) from a second connection, on a thread of its own, after every so many commits.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from pathlib import Path

from tasks.errors import TaskError
from tasks.store.sqlite.db import TaskDatabase

log = logging.getLogger(__name__)


class WalCheckpointer:
    """Runs ``PRAGMA wal_checkpoint(PASSIVE)`` from its own connection after commits.

    Args:
        path: The database file.
        every: Commits between checkpoints.
        busy_ms: The connection's busy timeout in milliseconds.
    """

    def __init__(self, path: Path, *, every: int = 64, busy_ms: int = 10_000) -> None:
        self._path = path
        self._every = every
        self._db = TaskDatabase(path, busy_ms=busy_ms, thread_name="task-wal-checkpoint")
        self._commits = 0
        self._running: asyncio.Task[None] | None = None

    async def open(self) -> None:
        """Connect."""
        await self._db.open()

    def committed(self) -> None:
        """Count a commit; start a checkpoint in the background every ``every`` commits."""
        self._commits += 1
        if self._commits < self._every or not self._db.is_open:
            return
        if self._running is None or self._running.done():
            self._commits = 0
            self._running = asyncio.create_task(self._checkpoint(), name="task-wal-checkpoint")

    async def close(self) -> None:
        """Let a running checkpoint finish, then close the connection."""
        running, self._running = self._running, None
        if running is not None:
            await running
        await self._db.close()

    async def _checkpoint(self) -> None:
        try:
            await self._db.read(_checkpoint_now)
        except TaskError as exc:
            log.warning("WAL checkpoint of %s failed (it is retried later): %s", self._path, exc)


def _checkpoint_now(conn: sqlite3.Connection) -> None:
    conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()

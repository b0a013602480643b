"""WAL checkpoints on a connection of their own, so claims never wait for one, whatever writes.

SQLite's automatic checkpoint runs inside the commit that crosses the threshold, on the
committing connection: that commit then copies the WAL into the database file and syncs it,
which stalls the timer for tens of milliseconds. The task store turns the automatic checkpoint
off for its connection and lets this class run checkpoints from a second connection, on a
thread of its own.

A checkpoint is started after every ``every`` commits, and after any commit that leaves the
WAL file at ``wal_bytes`` or more: counting commits alone let a bulk creation (a few commits of
20,000 tasks each) grow the WAL to 2.2 GB beside a 360 MB database, and a start after a crash
then replayed all of it. The checkpoint is PASSIVE (it never blocks readers or writers); when
it copied everything back and the file is still large, a TRUNCATE checkpoint that waits for
nobody (busy timeout 0) empties the file, so the WAL is small again at rest. It is refused
when any connection reads or writes at that moment, and tried again after the next commit.
Each connection also keeps a WAL it restarts under ``common.sqlite.WAL_KEEP_BYTES``
(``journal_size_limit``), so the file shrinks whenever the WAL starts over.

A WAL starts over only at a write that begins after everything was copied back. Writes that
follow each other without a pause (a bulk creation, an import) would always begin while the
background checkpoint still copies, and the WAL would grow by every one of them: so a write
that finds the file at ``hold_bytes`` or more first waits for the checkpoint (``before_write``).
Only bulk writes make a WAL that large; claims and finished runs never wait.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from pathlib import Path

from tasks.errors import TaskError
from tasks.store.sqlite.db import TaskDatabase

log = logging.getLogger(__name__)

CHECKPOINT_WAL_BYTES = 16 * 1024 * 1024
"""A WAL file this large is checkpointed after the commit that made it so."""
HOLD_WAL_BYTES = 2 * CHECKPOINT_WAL_BYTES
"""A write that finds the WAL file this large waits until it was checkpointed."""


class WalCheckpointer:
    """Runs checkpoints from its own connection after commits (every so many, or by WAL size).

    Args:
        path: The database file.
        every: Commits between checkpoints.
        wal_bytes: The WAL file size that starts a checkpoint after any commit.
        hold_bytes: The WAL file size at which a write first waits for a checkpoint.
        busy_ms: The connection's busy timeout in milliseconds.
    """

    def __init__(
        self,
        path: Path,
        *,
        every: int = 64,
        wal_bytes: int = CHECKPOINT_WAL_BYTES,
        hold_bytes: int = HOLD_WAL_BYTES,
        busy_ms: int = 10_000,
    ) -> None:
        self._path = path
        self._wal = Path(f"{path}-wal")
        self._every = every
        self._wal_bytes = wal_bytes
        self._hold_bytes = hold_bytes
        self._caught_up_at = -1  # the WAL file's size after the last wait (-1: none yet)
        self._busy_ms = busy_ms
        self._db = TaskDatabase(path, busy_ms=busy_ms, thread_name="task-wal-checkpoint")
        self._commits = 0
        self._running: asyncio.Task[None] | None = None
        self.checkpoints = 0
        """How many checkpoints were started (for tests and benchmarks)."""

    async def open(self) -> None:
        """Connect."""
        await self._db.open()

    def committed(self) -> None:
        """Count a commit; start a checkpoint in the background when one is due."""
        self._commits += 1
        if not self._db.is_open or (self._running is not None and not self._running.done()):
            return
        if self._commits < self._every and wal_size(self._wal) < self._wal_bytes:
            return
        self._commits = 0
        self.checkpoints += 1
        self._running = asyncio.create_task(self._checkpoint(), name="task-wal-checkpoint")

    async def before_write(self) -> None:
        """Before a write: when the WAL file is ``hold_bytes`` or more and has grown since the
        last wait, wait for the running checkpoint and run one more, so that the write starts
        a fresh WAL (a cost only bulk writes pay)."""
        size = wal_size(self._wal)
        if size < self._hold_bytes or size == self._caught_up_at or not self._db.is_open:
            return
        running = self._running
        if running is not None and not running.done():
            await asyncio.shield(running)
        self._commits = 0
        self.checkpoints += 1
        await self._checkpoint()
        self._caught_up_at = wal_size(self._wal)

    async def close(self) -> None:
        """Let a running checkpoint finish, then close the connection."""
        running, self._running = self._running, None
        if running is not None:
            await running
        await self._db.close()

    async def _checkpoint(self) -> None:
        try:
            await self._db.read(self._checkpoint_now)
        except TaskError as exc:
            log.warning("WAL checkpoint of %s failed (it is retried later): %s", self._path, exc)

    def _checkpoint_now(self, conn: sqlite3.Connection) -> None:
        """On the checkpointer's thread: copy the WAL back; empty a large one if nobody uses it."""
        busy, frames, copied = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        if busy or frames != copied or wal_size(self._wal) < self._wal_bytes:
            return
        # PRAGMA values cannot be bound as parameters; these are ints this code computed.
        conn.execute("PRAGMA busy_timeout = 0")
        try:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        finally:
            conn.execute(f"PRAGMA busy_timeout = {max(0, self._busy_ms)}")


def wal_size(wal: Path) -> int:
    """The size of the WAL file ``wal`` in bytes (0 when there is none)."""
    try:
        return wal.stat().st_size
    except FileNotFoundError:
        return 0

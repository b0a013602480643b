"""The SQLite task store: its own connection to the shared database file, on its own thread.

Each operation is one synchronous function run on the connection's thread (see
``common.sqlite``): a write is one ``BEGIN IMMEDIATE`` transaction, so claims read the due
tasks and update them atomically, and the update is conditional on the ``next_run`` that was
read, so two stores on one file never claim the same scheduled run. The run ledger's
transactions live in ``claims`` and ``runs``, new tasks are inserted here, and the rest
(task reads and changes, ledger reads, compaction) are the steps both SQL stores share
(``tasks.store.steps``), run on the connection's thread by ``db.run_steps``.
"""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Callable, Collection, Sequence
from datetime import datetime, timedelta
from pathlib import Path

from common import free_pages, require_aware, to_db_time
from tasks.errors import TaskError
from tasks.limits import TaskLimits
from tasks.models import (
    Claim,
    FinishedRun,
    Repack,
    RunOutcome,
    StoreSizes,
    Task,
    TaskDraft,
    new_task_id,
)
from tasks.store.base import GivenUp, HeldDelivery
from tasks.store.proactive import SqlProactive, claim_held, next_release
from tasks.store.rows import draft_values
from tasks.store.sqlite import claims, proactive, runs
from tasks.store.sqlite.checkpoint import CHECKPOINT_WAL_BYTES, WalCheckpointer
from tasks.store.sqlite.db import T, TaskDatabase, TaskStoreError, Work, run_steps
from tasks.store.sqlite.dialect import SQLITE
from tasks.store.sqlite.runs import Row, chunked
from tasks.store.sqlite.schema import migrate
from tasks.store.steps import Steps, sizes

__all__ = ["SqliteTaskStore", "TaskStoreError", "read_sizes"]

_ID_ATTEMPTS = 8
_OWNER_HOLDS = (
    "SELECT count(*), coalesce(sum(length(CAST(description AS BLOB))"
    " + length(CAST(execution_data AS BLOB))), 0)"
    " FROM scheduled_tasks WHERE owner_id = ? AND status NOT IN ('done', 'cancelled')"
)
_INSERT_TASK = (
    "INSERT INTO scheduled_tasks (id, owner_id, chat_id, task_type, description, schedule, "
    "execution_data, status, enabled, misfire_policy, misfire_grace, created_at, next_run) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, 'active', 1, ?, ?, ?, ?)"
)


class SqliteTaskStore(SqlProactive):
    """Tasks and their run ledger in a SQLite database file.

    Args:
        path: The database file; created with its directory when missing.
        busy_timeout: How long a statement waits for another connection's write lock.
        new_id: Draws a fresh task id (tests pass one that repeats itself).
        wal_bytes: The WAL file size after which a commit starts a checkpoint; a write that
            finds the WAL twice as large waits for one first (see ``WalCheckpointer``).
    """

    dialect = SQLITE

    def __init__(
        self,
        path: str | Path,
        *,
        busy_timeout: timedelta = timedelta(seconds=10),
        new_id: Callable[[], str] = new_task_id,
        wal_bytes: int = CHECKPOINT_WAL_BYTES,
    ):
        self.path = Path(path)
        self._new_id = new_id
        busy_ms = int(busy_timeout.total_seconds() * 1000)
        # Checkpoints run on the checkpointer's connection, never inside a claim's commit.
        self._db = TaskDatabase(self.path, busy_ms=busy_ms, autocheckpoint=False)
        self._checkpointer = WalCheckpointer(
            self.path, busy_ms=busy_ms, wal_bytes=wal_bytes, hold_bytes=2 * wal_bytes
        )

    async def open(self) -> None:
        """Connect, switch to WAL, and create or migrate the task tables."""
        if self._db.is_open:
            return
        await self._db.open()
        try:
            await migrate(self._db)
            await proactive.migrate(self._db)
            await self._checkpointer.open()
        except BaseException:
            await self._db.close()
            await self._checkpointer.close()
            raise

    async def close(self) -> None:
        """Close the connections; their threads have ended when this returns."""
        if self._db.is_open:
            await self._db.close()
            await self._checkpointer.close()

    async def add_task(self, draft: TaskDraft, *, limits: TaskLimits | None = None) -> Task:
        """Insert ``draft`` under a fresh id (a new id is drawn if one is taken); with
        ``limits``, after counting its owner's live tasks in the same write transaction."""
        work = functools.partial(
            _insert_task,
            row=draft_values(draft, SQLITE),
            new_id=self._new_id,
            draft=draft,
            limits=limits,
        )
        task_id = await self._commit(work)
        return draft.to_task(task_id)

    async def add_tasks(self, drafts: Sequence[TaskDraft]) -> list[str]:
        """Insert many drafts with one ``executemany`` in one transaction."""
        rows = [draft_values(d, SQLITE) for d in drafts]
        return await self._commit(functools.partial(_insert_tasks, rows=rows, new_id=self._new_id))

    async def claim_due(
        self, now: datetime, *, limit: int, lease: timedelta, ahead: timedelta = timedelta(0)
    ) -> list[Claim]:
        """Claim due tasks in one immediate transaction, earliest first."""
        now = require_aware(now, "now")
        work = functools.partial(claims.claim_due, now=now, limit=limit, lease=lease, ahead=ahead)
        return await self._commit(work)

    async def reclaim_expired(
        self, now: datetime, *, limit: int, lease: timedelta, orphaned: bool = False
    ) -> tuple[list[Claim], list[GivenUp]]:
        """Retry once, or give up, runs whose lease ran out (every claimed run, when
        ``orphaned``)."""
        now = require_aware(now, "now")
        # A cheap indexed read first: most of the time no lease ran out and no write
        # transaction is needed.
        check = functools.partial(claims.any_expired, now=now, orphaned=orphaned)
        if not await self._db.read(check):
            return [], []
        work = functools.partial(
            claims.reclaim_expired, now=now, limit=limit, lease=lease, orphaned=orphaned
        )
        return await self._commit(work)

    async def renew_leases(
        self, run_ids: Collection[int], now: datetime, *, lease: timedelta
    ) -> set[int]:
        """Extend the leases of those runs that are still claimed, in one transaction."""
        until = to_db_time(require_aware(now, "now") + lease)
        ids = sorted(set(run_ids))
        if not ids:
            return set()
        return await self._commit(functools.partial(claims.renew_leases, run_ids=ids, until=until))

    async def claim_now(
        self, task_id: str, owner_id: str, now: datetime, *, lease: timedelta
    ) -> Claim:
        """Claim an extra run of the task now, in one transaction."""
        now = require_aware(now, "now")
        work = functools.partial(
            claims.claim_now, task_id=task_id, owner_id=owner_id, now=now, lease=lease
        )
        return await self._commit(work)

    async def next_wakeup(self) -> datetime | None:
        """Return the earliest enabled next run or lease expiry (two index lookups)."""
        return await self._db.read(claims.next_wakeup)

    async def count_due(self, until: datetime, *, limit: int) -> int:
        """Count the enabled tasks due by ``until`` (a range of the due index)."""
        until_text = to_db_time(require_aware(until, "until"))
        return await self._db.read(
            functools.partial(claims.count_due, until=until_text, limit=max(limit, 0))
        )

    async def count_overdue(self, before: datetime) -> int:
        """Count the enabled tasks due before ``before`` (one index range)."""
        before = require_aware(before, "before")
        return await self._db.read(functools.partial(claims.count_overdue, before=before))

    async def finish_runs(
        self, outcomes: Sequence[RunOutcome], *, max_failures: int
    ) -> list[FinishedRun]:
        """Record outcomes and update their tasks, all in one transaction."""
        if not outcomes:
            return []
        work = functools.partial(
            runs.finish_runs, outcomes=list(outcomes), max_failures=max_failures
        )
        return await self._commit(work)

    async def repack(self, *, window: int, after: int = 0) -> Repack:
        """Rewrite a sparse stretch of the task table at its end (see the store).

        A rowid table keeps each row where it was inserted: one-time tasks come and go, the
        recurring ones made beside them stay, and each page they share stays allocated
        however few rows are left on it (a year of reminders left the table at a third
        full). Rows written anew get the next rowids, so they fill pages at the end densely
        and the old pages empty out, to be reused for new tasks. Free pages go back to the
        file system as well, ``window`` a round (``common.free_pages``; files made since
        this version, which free pages incrementally), so the file follows what it holds.
        """
        return await self._commit(functools.partial(_repack, after=after, window=window))

    async def claim_held(
        self, now: datetime, *, limit: int, lease: timedelta
    ) -> list[HeldDelivery]:
        """Take due held deliveries under a lease, in one immediate transaction."""
        now = require_aware(now, "now")
        return await self._write(claim_held(SQLITE, now, limit, lease))

    async def next_release(self) -> datetime | None:
        """Return when the earliest held delivery is due."""
        return await self._read(next_release(SQLITE))

    async def _read(self, steps: Steps[T]) -> T:
        return await self._db.read(functools.partial(run_steps, steps=steps))

    async def _write(self, steps: Steps[T]) -> T:
        return await self._commit(functools.partial(run_steps, steps=steps))

    async def _commit(self, work: Work[T]) -> T:
        await self._checkpointer.before_write()
        result = await self._db.write(work)
        self._checkpointer.committed()
        return result


def read_sizes(conn: sqlite3.Connection) -> StoreSizes:
    """Count what the task tables of an open SQLite connection hold (``assistant doctor``
    reads them on its own connection, changing nothing).

    Raises:
        sqlite3.Error: when the tables are not there (yet), or are of an older schema.
    """
    return run_steps(conn, sizes(SQLITE))


_SPARSE = 0.75  # below this share of the rowids in a stretch, its rows are moved


def _repack(conn: sqlite3.Connection, after: int, window: int) -> Repack:
    """Move the next ``window`` tasks after rowid ``after`` to the table's end if sparse, and
    give the file system back up to ``window`` free pages."""
    freed = free_pages(conn, window)
    rowids = [
        r[0]
        for r in conn.execute(
            "SELECT rowid FROM scheduled_tasks WHERE rowid > ? ORDER BY rowid LIMIT ?",
            (after, window),
        )
    ]
    if len(rowids) < window:
        return Repack(0, 0, complete=True, freed=freed)
    last = rowids[-1]
    if len(rowids) >= _SPARSE * (last - rowids[0] + 1):
        return Repack(0, last, complete=False, freed=freed)
    moved = []
    for chunk, marks in chunked(rowids):
        moved += conn.execute(
            f"SELECT * FROM scheduled_tasks WHERE rowid IN ({marks})", chunk
        ).fetchall()
        conn.execute(f"DELETE FROM scheduled_tasks WHERE rowid IN ({marks})", chunk)
    marks = ", ".join("?" * len(moved[0]))
    conn.executemany(f"INSERT INTO scheduled_tasks VALUES ({marks})", moved)
    return Repack(len(moved), last, complete=False, freed=freed)


def _insert_task(
    conn: sqlite3.Connection,
    row: Row,
    new_id: Callable[[], str],
    draft: TaskDraft,
    limits: TaskLimits | None,
) -> str:
    """Insert one task under a fresh id, if it fits its owner's ``limits``."""
    if limits is not None:
        live, used = conn.execute(_OWNER_HOLDS, (draft.owner_id,)).fetchone()
        limits.check_room(live=live, used=used, draft=draft)
    (task_id,) = _free_ids(conn, 1, new_id)
    conn.execute(_INSERT_TASK, (task_id, *row))
    return task_id


def _insert_tasks(
    conn: sqlite3.Connection, rows: Sequence[Row], new_id: Callable[[], str]
) -> list[str]:
    """Insert many tasks under fresh ids with one ``executemany``."""
    ids = _free_ids(conn, len(rows), new_id)
    conn.executemany(_INSERT_TASK, [(i, *r) for i, r in zip(ids, rows, strict=True)])
    return ids


def _free_ids(conn: sqlite3.Connection, count: int, new_id: Callable[[], str]) -> list[str]:
    """Draw ``count`` distinct ids no task has, redrawing only the ones that are taken.

    Runs inside the write transaction, so no other connection can take them meanwhile.
    (Redrawing a whole batch on any collision fails at scale: 20,000 new ids among 80,000
    stored collide about twice on average.)
    """
    chosen: list[str] = []
    seen: set[str] = set()
    for _ in range(_ID_ATTEMPTS):
        need = count - len(chosen)
        drawn: list[str] = []
        for _ in range(4 * need):
            candidate = new_id()
            if candidate not in seen:
                seen.add(candidate)
                drawn.append(candidate)
                if len(drawn) == need:
                    break
        taken = _existing_ids(conn, drawn)
        chosen += [i for i in drawn if i not in taken]
        if len(chosen) == count:
            return chosen
    raise TaskError(f"could not find {count} free task ids after {_ID_ATTEMPTS} rounds")


def _existing_ids(conn: sqlite3.Connection, ids: Sequence[str]) -> set[str]:
    taken: set[str] = set()
    for chunk, marks in chunked(ids):
        rows = conn.execute(f"SELECT id FROM scheduled_tasks WHERE id IN ({marks})", chunk)
        taken.update(r[0] for r in rows)
    return taken

"""Ledger compaction in PostgreSQL: old rows of a task folded into its summary, a bounded
amount per call (see ``TaskStore.compact_ledger`` and ``tasks.store.retention``).

One transaction per call, under a transaction-level advisory lock that only one scheduler
holds at a time: another one that tries meanwhile folds nothing this round (no row is ever
folded twice, and nobody waits). Tasks are visited in id order from a cursor, and each
task's rows through the index on ``(task_id, id)``, so a call costs its ``max_tasks``
look-ups and ``max_rows`` rows however long the ledger has grown.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from common import PgConnection
from tasks.models import Compaction, LedgerSummary
from tasks.store.base import not_found
from tasks.store.postgres.runs import owned_row
from tasks.store.retention import (
    FOLDABLE,
    FoldedRow,
    LedgerRow,
    counts_from_json,
    counts_json,
    fold,
    take_old,
)

_LOCK = 0x1ED6E2  # pg_try_advisory_xact_lock key: "ledger compaction"
_SUMMARY_COLUMNS = (
    "task_id, runs, counts, first_scheduled, last_scheduled, late_runs, max_late_by, last_run_id"
)


async def compact(
    conn: PgConnection,
    *,
    before: datetime,
    keep: int,
    max_rows: int,
    max_tasks: int,
    after_task: str,
) -> Compaction:
    """Fold what may be folded of up to ``max_tasks`` tasks after ``after_task``."""
    if not await conn.fetchval("SELECT pg_try_advisory_xact_lock($1)", _LOCK):
        return Compaction(0, 0, after_task, complete=True)  # another scheduler is at it
    looked = [
        row["id"]
        for row in await conn.fetch(
            "SELECT id FROM scheduled_tasks WHERE id > $1 ORDER BY id LIMIT $2",
            after_task,
            max_tasks,
        )
    ]
    folded, cursor = 0, after_task
    for position, task_id in enumerate(looked, start=1):
        room = max_rows - folded
        oldest = await _oldest(conn, task_id, keep=keep, limit=room + 1, before=before)
        taken, more = take_old(oldest, before, room, page=room + 1)
        if taken:
            await _fold(conn, task_id, taken)
            folded += len(taken)
        if more:
            return Compaction(folded, position, cursor, complete=False)  # this task again
        cursor = task_id
    complete = len(looked) < max_tasks
    return Compaction(folded, len(looked), "" if complete else cursor, complete)


async def _oldest(
    conn: PgConnection, task_id: str, *, keep: int, limit: int, before: datetime
) -> list[LedgerRow]:
    """The task's oldest rows but its newest ``keep``, at most ``limit`` of them."""
    newest_kept = await conn.fetchval(
        "SELECT id FROM task_runs WHERE task_id = $1 ORDER BY id DESC LIMIT 1 OFFSET $2",
        task_id,
        max(keep - 1, 0),
    )
    if newest_kept is None:
        return []
    below = newest_kept if keep > 0 else newest_kept + 1
    # Rows that are never folded (claimed, outcome unknown) are not read: a page of them
    # would hold the compaction on this task for ever. The oldest row first: when it is
    # young, all are (ids grow with claims), and the task costs two index look-ups.
    first = await conn.fetchval(
        "SELECT claimed_at FROM task_runs WHERE task_id = $1 AND id < $2"
        " AND status = ANY($3::text[]) ORDER BY id LIMIT 1",
        task_id,
        below,
        list(FOLDABLE),
    )
    if first is None or first >= before:
        return []
    found = await conn.fetch(
        "SELECT id, status, scheduled_for, late_by, claimed_at FROM task_runs"
        " WHERE task_id = $1 AND id < $2 AND status = ANY($4::text[]) ORDER BY id LIMIT $3",
        task_id,
        below,
        limit,
        list(FOLDABLE),
    )
    return [
        LedgerRow(
            int(row["id"]),
            row["status"],
            row["scheduled_for"],
            None if row["late_by"] is None else timedelta(seconds=row["late_by"]),
            row["claimed_at"],
        )
        for row in found
    ]


async def _fold(conn: PgConnection, task_id: str, rows: Sequence[FoldedRow]) -> None:
    merged = fold(task_id, await _summary_row(conn, task_id), rows)
    await conn.execute(
        f"INSERT INTO task_run_summaries ({_SUMMARY_COLUMNS})"
        " VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
        " ON CONFLICT (task_id) DO UPDATE SET runs = excluded.runs, counts = excluded.counts,"
        " first_scheduled = excluded.first_scheduled, last_scheduled = excluded.last_scheduled,"
        " late_runs = excluded.late_runs, max_late_by = excluded.max_late_by,"
        " last_run_id = excluded.last_run_id",
        task_id,
        merged.runs,
        counts_json(merged),
        merged.first_scheduled,
        merged.last_scheduled,
        merged.late_runs,
        None if merged.max_late_by is None else merged.max_late_by.total_seconds(),
        merged.last_run_id,
    )
    await conn.execute("DELETE FROM task_runs WHERE id = ANY($1::bigint[])", [r.id for r in rows])


async def _summary_row(conn: PgConnection, task_id: str) -> LedgerSummary | None:
    row = await conn.fetchrow(
        f"SELECT {_SUMMARY_COLUMNS} FROM task_run_summaries WHERE task_id = $1", task_id
    )
    if row is None:
        return None
    return LedgerSummary(
        task_id=row["task_id"],
        runs=int(row["runs"]),
        counts=counts_from_json(row["counts"]),
        first_scheduled=row["first_scheduled"],
        last_scheduled=row["last_scheduled"],
        late_runs=int(row["late_runs"]),
        max_late_by=None if row["max_late_by"] is None else timedelta(seconds=row["max_late_by"]),
        last_run_id=int(row["last_run_id"]),
    )


async def summary(conn: PgConnection, task_id: str, owner_id: str) -> LedgerSummary | None:
    """The summary of the owner's task, or ``None`` when nothing was folded.

    Raises:
        TaskNotFoundError: when the owner has no such task.
    """
    if await owned_row(conn, task_id, owner_id) is None:
        raise not_found(task_id)
    return await _summary_row(conn, task_id)

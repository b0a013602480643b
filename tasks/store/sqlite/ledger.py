"""Ledger compaction in SQLite: old rows of a task folded into its summary, a bounded amount
per call (see ``TaskStore.compact_ledger`` and ``tasks.store.retention``).

One write transaction per call (SQLite's write lock makes two callers take turns, so no row
is folded twice). Tasks are visited in id order from a cursor, and each task's rows through
the index on ``(task_id, id)``: a call costs its ``max_tasks`` look-ups and ``max_rows``
rows, however long the ledger has grown.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from datetime import datetime, timedelta

from common import to_db_time
from tasks.models import Compaction, LedgerSummary
from tasks.store.base import not_found
from tasks.store.retention import (
    FOLDABLE,
    FoldedRow,
    LedgerRow,
    counts_from_json,
    counts_json,
    fold,
    take_old,
)
from tasks.store.sqlite.runs import owned_row

_SUMMARY_COLUMNS = (
    "task_id, runs, counts, first_scheduled, last_scheduled, late_runs, max_late_by, last_run_id"
)


def compact(
    conn: sqlite3.Connection,
    *,
    before: datetime,
    keep: int,
    max_rows: int,
    max_tasks: int,
    after_task: str,
) -> Compaction:
    """Fold what may be folded of up to ``max_tasks`` tasks after ``after_task``."""
    looked = [
        row[0]
        for row in conn.execute(
            "SELECT id FROM scheduled_tasks WHERE id > ? ORDER BY id LIMIT ?",
            (after_task, max_tasks),
        )
    ]
    folded, cursor = 0, after_task
    for position, task_id in enumerate(looked, start=1):
        room = max_rows - folded
        oldest = _oldest(conn, task_id, keep=keep, limit=room + 1)
        taken, more = take_old(oldest, before, room, page=room + 1)
        if taken:
            _fold(conn, task_id, taken)
            folded += len(taken)
        if more:
            return Compaction(folded, position, cursor, complete=False)  # this task again
        cursor = task_id
    complete = len(looked) < max_tasks
    return Compaction(folded, len(looked), "" if complete else cursor, complete)


def _oldest(
    conn: sqlite3.Connection, task_id: str, *, keep: int, limit: int
) -> Iterator[LedgerRow]:
    """The task's oldest rows but its newest ``keep``, at most ``limit`` of them, read as
    they are wanted (``take_old`` stops at the first young one)."""
    newest_kept = conn.execute(
        "SELECT id FROM task_runs WHERE task_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?",
        (task_id, max(keep - 1, 0)),
    ).fetchone()
    if newest_kept is None:
        return
    below = newest_kept[0] if keep > 0 else newest_kept[0] + 1
    # Rows that are never folded (claimed, outcome unknown) are not read: a page of them
    # would hold the compaction on this task for ever.
    found = conn.execute(
        "SELECT id, status, scheduled_for, late_by, claimed_at FROM task_runs"
        f" WHERE task_id = ? AND id < ? AND status IN ({', '.join('?' * len(FOLDABLE))})"
        " ORDER BY id LIMIT ?",
        (task_id, below, *FOLDABLE, limit),
    )
    for row in found:
        yield LedgerRow(
            int(row[0]),
            row[1],
            datetime.fromisoformat(row[2]),
            None if row[3] is None else timedelta(seconds=row[3]),
            datetime.fromisoformat(row[4]),
        )


def _fold(conn: sqlite3.Connection, task_id: str, rows: Sequence[FoldedRow]) -> None:
    merged = fold(task_id, _summary_row(conn, task_id), rows)
    conn.execute(
        f"INSERT INTO task_run_summaries ({_SUMMARY_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (task_id) DO UPDATE SET runs = excluded.runs, counts = excluded.counts,"
        " first_scheduled = excluded.first_scheduled, last_scheduled = excluded.last_scheduled,"
        " late_runs = excluded.late_runs, max_late_by = excluded.max_late_by,"
        " last_run_id = excluded.last_run_id",
        (
            task_id,
            merged.runs,
            counts_json(merged),
            None if merged.first_scheduled is None else to_db_time(merged.first_scheduled),
            None if merged.last_scheduled is None else to_db_time(merged.last_scheduled),
            merged.late_runs,
            None if merged.max_late_by is None else merged.max_late_by.total_seconds(),
            merged.last_run_id,
        ),
    )
    conn.executemany("DELETE FROM task_runs WHERE id = ?", [(row.id,) for row in rows])


def _summary_row(conn: sqlite3.Connection, task_id: str) -> LedgerSummary | None:
    row = conn.execute(
        f"SELECT {_SUMMARY_COLUMNS} FROM task_run_summaries WHERE task_id = ?", (task_id,)
    ).fetchone()
    if row is None:
        return None
    return LedgerSummary(
        task_id=row[0],
        runs=int(row[1]),
        counts=counts_from_json(row[2]),
        first_scheduled=None if row[3] is None else datetime.fromisoformat(row[3]),
        last_scheduled=None if row[4] is None else datetime.fromisoformat(row[4]),
        late_runs=int(row[5]),
        max_late_by=None if row[6] is None else timedelta(seconds=row[6]),
        last_run_id=int(row[7]),
    )


def summary(conn: sqlite3.Connection, task_id: str, owner_id: str) -> LedgerSummary | None:
    """The summary of the owner's task, or ``None`` when nothing was folded.

    Raises:
        TaskNotFoundError: when the owner has no such task.
    """
    if owned_row(conn, task_id, owner_id) is None:
        raise not_found(task_id)
    return _summary_row(conn, task_id)

"""Finished runs in SQLite: outcomes recorded and their tasks updated, a batch at a time.

Each public function here is the whole body of one store operation (or a step of one) and runs
on the connection's thread inside the transaction ``TaskDatabase.write`` opened. What a
finished run does to its task is decided by ``transitions.after_run``, which the in-memory
store calls too: the task rows of a batch are read in its transaction, the outcomes applied in
order in Python, and each task written once. Every query is parameterised.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from typing import Any, TypeVar

from common import to_db_time
from tasks.models import FinishedRun, RunOutcome, TaskStatus
from tasks.store.base import UNSET
from tasks.store.sqlite.dialect import SQLITE
from tasks.store.transitions import AfterRun, after_run, finish_time

Row = tuple[Any, ...]
T = TypeVar("T")
IN_CHUNK = 500

_FINISH_RUN = (
    "UPDATE task_runs SET status = ?, started_at = ?, finished_at = ?, result = ?, error = ?, "
    "lease_until = NULL WHERE id = ?"
)
_TASK_AFTER_RUNS = (
    "UPDATE scheduled_tasks SET status = ?, enabled = ?, next_run = ?, status_reason = ?, "
    "consecutive_failures = ?, run_count = ?, last_run = ?, finished_at = ? WHERE id = ?"
)


def finish_runs(
    conn: sqlite3.Connection, outcomes: Sequence[RunOutcome], max_failures: int | None
) -> list[FinishedRun]:
    """Record outcomes and update their tasks, one outcome after the other (see the store).

    ``max_failures`` is ``None`` for runs given up, whose failure never disables a task.
    """
    ended = [to_db_time(o.finished_at) for o in outcomes]
    conn.executemany(
        _FINISH_RUN,
        [
            (o.status.value, to_db_time(o.started_at), end, o.result, o.error, o.run_id)
            for o, end in zip(outcomes, ended, strict=True)
        ],
    )
    tasks = _finishing(conn, sorted({o.task_id for o in outcomes}))
    finished: list[FinishedRun] = []
    for outcome, end in zip(outcomes, ended, strict=True):
        task = tasks.get(outcome.task_id)
        if task is None:
            finished.append(FinishedRun(outcome.run_id, outcome.task_id, None, 0))
            continue
        after = after_run(task.status, task.failures, outcome, max_failures=max_failures)
        task.apply(after, end)
        finished.append(after.finished(outcome))
    conn.executemany(_TASK_AFTER_RUNS, [task.row(task_id) for task_id, task in tasks.items()])
    return finished


def chunked(values: Sequence[T]) -> Iterator[tuple[Sequence[T], str]]:
    """Split ``values`` for ``IN (...)`` lists: each chunk with its ``?, ?, ...`` marks."""
    for start in range(0, len(values), IN_CHUNK):
        chunk = values[start : start + IN_CHUNK]
        yield chunk, ", ".join("?" * len(chunk))


class _Finishing:
    """A task's row while a batch of its runs is finished (one write per task at the end)."""

    __slots__ = (
        "failures", "finished_at", "last_run", "next_run", "run_count", "status",
        "status_reason",
    )  # fmt: skip

    def __init__(self, row: Row) -> None:
        self.status = TaskStatus(row[1])
        self.next_run: str | None = row[2]
        self.status_reason: str | None = row[3]
        self.failures: int = row[4]
        self.run_count: int = row[5]
        self.last_run: str | None = row[6]
        self.finished_at: str | None = row[7]

    def apply(self, after: AfterRun, finished_at: str) -> None:
        """Take in what one finished run did."""
        self.finished_at = finish_time(self.status, self.finished_at, after.status, finished_at)
        self.status = after.status
        self.failures = after.consecutive_failures
        if after.next_run is not UNSET:
            self.next_run = SQLITE.time_opt(after.next_run)
        if after.sooner is not None:
            sooner = SQLITE.time(after.sooner)  # fixed-width UTC text: it sorts as instants
            if self.next_run is None or sooner < self.next_run:
                self.next_run = sooner
        if after.status_reason is not UNSET:
            self.status_reason = after.status_reason
        self.run_count += 1
        self.last_run = finished_at

    def row(self, task_id: str) -> Row:
        """The parameters of ``_TASK_AFTER_RUNS``."""
        return (
            self.status.value, int(self.status is TaskStatus.ACTIVE), self.next_run,
            self.status_reason, self.failures, self.run_count, self.last_run, self.finished_at,
            task_id,
        )  # fmt: skip


def _finishing(conn: sqlite3.Connection, task_ids: Sequence[str]) -> dict[str, _Finishing]:
    tasks: dict[str, _Finishing] = {}
    for chunk, marks in chunked(task_ids):
        rows = conn.execute(
            "SELECT id, status, next_run, status_reason, consecutive_failures, run_count, "
            f"last_run, finished_at FROM scheduled_tasks WHERE id IN ({marks})",
            chunk,
        ).fetchall()
        tasks.update((r[0], _Finishing(r)) for r in rows)
    return tasks

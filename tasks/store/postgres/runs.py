"""Finished runs in PostgreSQL: outcomes recorded and their tasks updated, a batch at a time.

Each public function is the whole body of one store operation (or a step of one) and runs
inside the transaction ``PostgresDatabase.write`` opened. What a finished run does to its task
is decided by ``transitions.after_run``, as in the other stores: the task rows of a batch are
locked (in id order, so two schedulers finishing runs of the same tasks never deadlock),
the outcomes applied in order in Python, and each task written once. Locks are always taken
ledger rows first, then task rows. Every query is parameterised.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from common import PgConnection, notify
from tasks.models import FinishedRun, RunOutcome, TaskStatus
from tasks.store.base import UNSET
from tasks.store.postgres.dialect import CHANGES_CHANNEL
from tasks.store.rows import Row
from tasks.store.transitions import AfterRun, after_run, finish_time

_FINISH_RUNS = (
    "UPDATE task_runs AS r SET status = u.status, started_at = u.started_at, "
    "finished_at = u.finished_at, result = u.result, error = u.error, lease_until = NULL "
    "FROM unnest($1::bigint[], $2::text[], $3::timestamptz[], $4::timestamptz[], $5::text[], "
    "$6::text[]) AS u(id, status, started_at, finished_at, result, error) "
    "WHERE r.id = ANY($1::bigint[]) AND r.id = u.id"
)
_TASKS_AFTER_RUNS = (
    "UPDATE scheduled_tasks AS t SET status = u.status, enabled = u.status = 'active', "
    "next_run = u.next_run, status_reason = u.status_reason, "
    "consecutive_failures = u.failures, run_count = u.run_count, last_run = u.last_run, "
    "finished_at = u.finished_at "
    "FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::text[], $5::int[], $6::int[], "
    "$7::timestamptz[], $8::timestamptz[]) AS u(id, status, next_run, status_reason, failures, "
    "run_count, last_run, finished_at) "
    "WHERE t.id = ANY($1::text[]) AND t.id = u.id"
)


async def finish_runs(
    conn: PgConnection, outcomes: Sequence[RunOutcome], max_failures: int | None
) -> list[FinishedRun]:
    """Record outcomes and update their tasks, one outcome after the other (see the store).

    ``max_failures`` is ``None`` for runs given up, whose failure never disables a task.
    """
    await conn.execute(
        _FINISH_RUNS,
        [o.run_id for o in outcomes],
        [o.status.value for o in outcomes],
        [o.started_at for o in outcomes],
        [o.finished_at for o in outcomes],
        [o.result for o in outcomes],
        [o.error for o in outcomes],
    )
    tasks = await _finishing(conn, sorted({o.task_id for o in outcomes}))
    finished: list[FinishedRun] = []
    put_back = False
    for outcome in outcomes:
        task = tasks.get(outcome.task_id)
        if task is None:
            finished.append(FinishedRun(outcome.run_id, outcome.task_id, None, 0))
            continue
        after = after_run(task.status, task.failures, outcome, max_failures=max_failures)
        task.apply(after, outcome.finished_at)
        moved = after.next_run is not UNSET or after.sooner is not None
        put_back |= after.status is TaskStatus.ACTIVE and moved
        finished.append(after.finished(outcome))
    if tasks:
        ids = list(tasks)
        states = [tasks[i] for i in ids]
        await conn.execute(
            _TASKS_AFTER_RUNS,
            ids,
            [t.status.value for t in states],
            [t.next_run for t in states],
            [t.status_reason for t in states],
            [t.failures for t in states],
            [t.run_count for t in states],
            [t.last_run for t in states],
            [t.finished_at for t in states],
        )
    if put_back:  # a task due again sooner (a retry, a repeat): every scheduler should know
        await notify(conn, CHANGES_CHANNEL)
    return finished


class _Finishing:
    """A task's row while a batch of its runs is finished (one write per task at the end)."""

    __slots__ = (
        "failures", "finished_at", "last_run", "next_run", "run_count", "status",
        "status_reason",
    )  # fmt: skip

    def __init__(self, row: Row) -> None:
        self.status = TaskStatus(row["status"])
        self.next_run: datetime | None = row["next_run"]
        self.status_reason: str | None = row["status_reason"]
        self.failures: int = row["consecutive_failures"]
        self.run_count: int = row["run_count"]
        self.last_run: datetime | None = row["last_run"]
        self.finished_at: datetime | None = row["finished_at"]

    def apply(self, after: AfterRun, finished_at: datetime) -> None:
        """Take in what one finished run did."""
        self.finished_at = finish_time(self.status, self.finished_at, after.status, finished_at)
        self.status = after.status
        self.failures = after.consecutive_failures
        self.next_run = after.next_after(self.next_run)
        if after.status_reason is not UNSET:
            self.status_reason = after.status_reason
        self.run_count += 1
        self.last_run = finished_at


async def _finishing(conn: PgConnection, task_ids: Sequence[str]) -> dict[str, _Finishing]:
    rows = await conn.fetch(
        "SELECT id, status, next_run, status_reason, consecutive_failures, run_count, last_run, "
        "finished_at FROM scheduled_tasks WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE",
        list(task_ids),
    )
    return {r["id"]: _Finishing(r) for r in rows}

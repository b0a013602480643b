"""The run ledger's transactions in SQLite: claims, leases, retries and finished runs.

Each function here is the whole body of one store operation and runs on the connection's
thread inside the transaction ``TaskDatabase.write`` opened (``BEGIN IMMEDIATE``), so two
connections never claim the same scheduled run: the claim's update is also conditional on the
``next_run`` that was read. Every query is parameterised. What a claim or a finished run does
to a task is decided by the pure functions of ``planning`` and ``transitions``, which the
in-memory store calls too; here their decisions are read from rows and written back.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any, TypeVar

from tasks.models import (
    Claim,
    FinishedRun,
    MisfireAction,
    RunOutcome,
    RunStatus,
    Task,
    TaskRun,
    TaskStatus,
)
from tasks.store.base import LEASE_LOST_ERROR, UNSET, GivenUp, not_found
from tasks.store.planning import ClaimPlan, Reclaim, plan_claim, plan_reclaim
from tasks.store.sqlite.schema import (
    RUN_COLUMNS,
    TASK_COLUMNS,
    cached_rule,
    cached_schedule,
    run_from_row,
    seconds_opt,
    task_from_row,
    to_db,
    to_db_opt,
)
from tasks.store.transitions import (
    AfterRun,
    after_run,
    after_skipped_retry,
    claimed_now,
    claimed_status,
)

Row = tuple[Any, ...]
T = TypeVar("T")
IN_CHUNK = 500

_INSERT_RUN = (
    "INSERT INTO task_runs (id, task_id, scheduled_for, claimed_at, lease_until, status, "
    "misfire, missed, late_by, attempt, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_CLAIM_TASK = (
    "UPDATE scheduled_tasks SET status = ?, enabled = ?, next_run = ? "
    "WHERE id = ? AND next_run = ? AND enabled = 1"
)
_FINISH_RUN = (
    "UPDATE task_runs SET status = ?, started_at = ?, finished_at = ?, result = ?, error = ?, "
    "lease_until = NULL WHERE id = ?"
)
_TASK_STATE = (
    "UPDATE scheduled_tasks SET status = ?, enabled = ?, next_run = ?, status_reason = ?, "
    "consecutive_failures = ? WHERE id = ?"
)
_TASK_AFTER_RUNS = (
    "UPDATE scheduled_tasks SET status = ?, enabled = ?, next_run = ?, status_reason = ?, "
    "consecutive_failures = ?, run_count = ?, last_run = ? WHERE id = ?"
)


def owned_row(conn: sqlite3.Connection, task_id: str, owner_id: str | None) -> Row | None:
    """The task's row (``TASK_COLUMNS``), or ``None`` when the owner (if given) has no such."""
    sql = f"SELECT {TASK_COLUMNS} FROM scheduled_tasks WHERE id = ?"
    params: tuple[str, ...] = (task_id,)
    if owner_id is not None:
        sql, params = sql + " AND owner_id = ?", (task_id, owner_id)
    row: Row | None = conn.execute(sql, params).fetchone()
    return row


def claim_due(
    conn: sqlite3.Connection, now: datetime, limit: int, lease: timedelta, ahead: timedelta
) -> list[Claim]:
    """Claim up to ``limit`` tasks due by ``now + ahead``, earliest first (see the store)."""
    # The last ledger id rides along (one statement fewer on the hot path).
    rows = conn.execute(
        f"SELECT {TASK_COLUMNS}, (SELECT coalesce(max(id), 0) FROM task_runs) "
        "FROM scheduled_tasks WHERE enabled = 1 AND next_run <= ? ORDER BY next_run LIMIT ?",
        (to_db(now + ahead), limit),
    ).fetchall()
    if not rows:
        return []
    batch = _ClaimBatch(now, lease, int(rows[0][-1]))
    claims: list[Claim] = []
    task_updates: list[Row] = []
    for row in rows:
        schedule = cached_schedule(row[5])
        due_text = row[11]
        due = datetime.fromisoformat(due_text)
        plan = plan_claim(schedule, due, cached_rule(row[8], row[9]), now)
        status = claimed_status(schedule, plan)
        task_updates.append(
            (status.value, int(status is TaskStatus.ACTIVE), to_db_opt(plan.next_run),
             row[0], due_text)
        )  # fmt: skip
        run = batch.add(row[0], plan, due, due_text)
        if run is not None:
            claims.append(Claim(task_from_row(row, status=status, next_run=plan.next_run), run))
    conn.executemany(_CLAIM_TASK, task_updates)
    conn.executemany(_INSERT_RUN, batch.rows)
    return claims


def any_expired(conn: sqlite3.Connection, now: datetime) -> bool:
    """Whether a claimed run's lease ran out by ``now`` (an indexed read)."""
    row = conn.execute(
        "SELECT 1 FROM task_runs WHERE status = 'claimed' AND lease_until <= ? LIMIT 1",
        (to_db(now),),
    ).fetchone()
    return row is not None


def reclaim_expired(
    conn: sqlite3.Connection, now: datetime, limit: int, lease: timedelta
) -> tuple[list[Claim], list[GivenUp]]:
    """Retry once, or give up, runs whose lease ran out (see the store)."""
    rows = conn.execute(
        f"SELECT {RUN_COLUMNS} FROM task_runs WHERE status = 'claimed' "
        "AND lease_until <= ? ORDER BY lease_until LIMIT ?",
        (to_db(now), limit),
    ).fetchall()
    claims: list[Claim] = []
    given_up: list[GivenUp] = []
    for expired in (run_from_row(r) for r in rows):
        task_row = owned_row(conn, expired.task_id, None)
        assert task_row is not None, "task_runs.task_id references scheduled_tasks"
        task = task_from_row(task_row)
        plan = plan_reclaim(task, expired, now)
        if plan.action is Reclaim.GIVE_UP:
            given_up.append(_give_up(conn, task, expired, now))
            continue
        _abandon(conn, expired)
        if plan.action is Reclaim.SKIP:
            _skip_retry(conn, task, expired, now, plan.late_by)
        else:
            claims.append(_retry(conn, task, expired, now, lease, plan.late_by))
    return claims, given_up


def renew_leases(conn: sqlite3.Connection, run_ids: Sequence[int], until: str) -> set[int]:
    """Extend the leases of the runs still claimed to ``until``; return their ids."""
    renewed: set[int] = set()
    for chunk, marks in chunked(run_ids):
        rows = conn.execute(
            "UPDATE task_runs SET lease_until = max(lease_until, ?) "
            f"WHERE status = 'claimed' AND id IN ({marks}) RETURNING id",
            (until, *chunk),
        ).fetchall()
        renewed.update(int(r[0]) for r in rows)
    return renewed


def claim_now(
    conn: sqlite3.Connection, task_id: str, owner_id: str, now: datetime, lease: timedelta
) -> Claim:
    """Claim an extra run of the task now (see the store)."""
    row = owned_row(conn, task_id, owner_id)
    if row is None:
        raise not_found(task_id)
    stored = task_from_row(row)
    task = claimed_now(stored)
    if task is not stored:
        store_state(conn, task)
    run = _new_run(task.id, now, now, lease, MisfireAction.MANUAL, _max_run_id(conn))
    conn.execute(_INSERT_RUN, _run_row(run))
    return Claim(task, run)


def next_wakeup(conn: sqlite3.Connection) -> datetime | None:
    """The earliest enabled next run or lease expiry (two index lookups)."""
    row = conn.execute(
        "SELECT (SELECT min(next_run) FROM scheduled_tasks WHERE enabled = 1), "
        "(SELECT min(lease_until) FROM task_runs WHERE status = 'claimed')"
    ).fetchone()
    found = [datetime.fromisoformat(v) for v in row if v is not None]
    return min(found, default=None)


def finish_runs(
    conn: sqlite3.Connection, outcomes: Sequence[RunOutcome], max_failures: int | None
) -> list[FinishedRun]:
    """Record outcomes and update their tasks, one outcome after the other (see the store).

    ``max_failures`` is ``None`` for runs given up, whose failure never disables a task.
    """
    ended = [to_db(o.finished_at) for o in outcomes]
    conn.executemany(
        _FINISH_RUN,
        [
            (o.status.value, to_db(o.started_at), end, o.result, o.error, o.run_id)
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


def store_state(conn: sqlite3.Connection, task: Task) -> None:
    """Write the task's status (and ``enabled``), next run, reason and failure count."""
    conn.execute(
        _TASK_STATE,
        (
            task.status.value,
            int(task.enabled),
            to_db_opt(task.next_run),
            task.status_reason,
            task.consecutive_failures,
            task.id,
        ),
    )


def chunked(values: Sequence[T]) -> Iterator[tuple[Sequence[T], str]]:
    """Split ``values`` for ``IN (...)`` lists: each chunk with its ``?, ?, ...`` marks."""
    for start in range(0, len(values), IN_CHUNK):
        chunk = values[start : start + IN_CHUNK]
        yield chunk, ", ".join("?" * len(chunk))


def history(conn: sqlite3.Connection, task_id: str, owner_id: str, limit: int) -> list[TaskRun]:
    """The task's ledger rows, newest first."""
    if owned_row(conn, task_id, owner_id) is None:
        raise not_found(task_id)
    rows = conn.execute(
        f"SELECT {RUN_COLUMNS} FROM task_runs WHERE task_id = ? ORDER BY id DESC LIMIT ?",
        (task_id, max(limit, 0)),
    ).fetchall()
    return [run_from_row(r) for r in rows]


def _abandon(conn: sqlite3.Connection, expired: TaskRun) -> None:
    conn.execute(
        "UPDATE task_runs SET status = 'abandoned', lease_until = NULL, error = ? WHERE id = ?",
        (LEASE_LOST_ERROR, expired.id),
    )


def _skip_retry(
    conn: sqlite3.Connection,
    task: Task,
    expired: TaskRun,
    now: datetime,
    late_by: timedelta | None,
) -> None:
    """Record the retry as skipped (misfire policy); a one-time task ends DONE."""
    run = _new_run(
        task.id, expired.scheduled_for, now, timedelta(0), MisfireAction.SKIPPED,
        _max_run_id(conn), attempt=2,
    )  # fmt: skip
    run = replace(run, status=RunStatus.SKIPPED, late_by=late_by, lease_until=None, finished_at=now)
    conn.execute(_INSERT_RUN, _run_row(run))
    done = after_skipped_retry(task)
    if done is not task:
        store_state(conn, done)


def _retry(
    conn: sqlite3.Connection,
    task: Task,
    expired: TaskRun,
    now: datetime,
    lease: timedelta,
    late_by: timedelta | None,
) -> Claim:
    run = _new_run(
        task.id, expired.scheduled_for, now, lease, MisfireAction.RETRY, _max_run_id(conn),
        attempt=2,
    )  # fmt: skip
    run = replace(run, late_by=late_by)
    conn.execute(_INSERT_RUN, _run_row(run))
    return Claim(task, run)


def _give_up(conn: sqlite3.Connection, task: Task, expired: TaskRun, now: datetime) -> GivenUp:
    outcome = RunOutcome(expired.id, task.id, RunStatus.FAILED, now, now, error=LEASE_LOST_ERROR)
    finish_runs(conn, [outcome], max_failures=None)
    row = owned_row(conn, task.id, None)
    assert row is not None, "the task was read in this transaction"
    run = replace(
        expired,
        status=RunStatus.FAILED,
        started_at=now,
        finished_at=now,
        error=LEASE_LOST_ERROR,
        lease_until=None,
    )
    return GivenUp(task_from_row(row), run)


def _max_run_id(conn: sqlite3.Connection) -> int:
    row = conn.execute("SELECT coalesce(max(id), 0) FROM task_runs").fetchone()
    return int(row[0])


class _Finishing:
    """A task's row while a batch of its runs is finished (one write per task at the end)."""

    __slots__ = ("failures", "last_run", "next_run", "run_count", "status", "status_reason")

    def __init__(self, row: Row) -> None:
        self.status = TaskStatus(row[1])
        self.next_run: str | None = row[2]
        self.status_reason: str | None = row[3]
        self.failures: int = row[4]
        self.run_count: int = row[5]
        self.last_run: str | None = row[6]

    def apply(self, after: AfterRun, finished_at: str) -> None:
        """Take in what one finished run did."""
        self.status = after.status
        self.failures = after.consecutive_failures
        if after.next_run is not UNSET:
            self.next_run = to_db_opt(after.next_run)
        if after.status_reason is not UNSET:
            self.status_reason = after.status_reason
        self.run_count += 1
        self.last_run = finished_at

    def row(self, task_id: str) -> Row:
        """The parameters of ``_TASK_AFTER_RUNS``."""
        return (
            self.status.value, int(self.status is TaskStatus.ACTIVE), self.next_run,
            self.status_reason, self.failures, self.run_count, self.last_run, task_id,
        )  # fmt: skip


def _finishing(conn: sqlite3.Connection, task_ids: Sequence[str]) -> dict[str, _Finishing]:
    tasks: dict[str, _Finishing] = {}
    for chunk, marks in chunked(task_ids):
        rows = conn.execute(
            "SELECT id, status, next_run, status_reason, consecutive_failures, run_count, "
            f"last_run FROM scheduled_tasks WHERE id IN ({marks})",
            chunk,
        ).fetchall()
        tasks.update((r[0], _Finishing(r)) for r in rows)
    return tasks


class _ClaimBatch:
    """The ledger rows of one claim transaction, built without per-row copies (hot path)."""

    def __init__(self, now: datetime, lease: timedelta, last_id: int) -> None:
        self.now = now
        self.now_text = to_db(now)
        self.lease_until = now + lease
        self.lease_text = to_db(self.lease_until)
        self.last_id = last_id
        self.rows: list[Row] = []

    def add(self, task_id: str, plan: ClaimPlan, due: datetime, due_text: str) -> TaskRun | None:
        """Add the rows for ``plan``; return the claimed run, if the plan runs anything."""
        if plan.skipped_from is not None:
            self.last_id += 1
            skipped_text = due_text if plan.skipped_from == due else to_db(plan.skipped_from)
            late = (self.now - plan.skipped_from).total_seconds()
            self.rows.append(
                (self.last_id, task_id, skipped_text, self.now_text, None, "skipped", "skipped",
                 plan.skipped - 1, late, 1, self.now_text)
            )  # fmt: skip
        if plan.run_for is None:
            return None
        self.last_id += 1
        run_text = due_text if plan.run_for == due else to_db(plan.run_for)
        self.rows.append(
            (self.last_id, task_id, run_text, self.now_text, self.lease_text, "claimed",
             plan.action.value, plan.missed, seconds_opt(plan.late_by), 1, None)
        )  # fmt: skip
        return TaskRun(
            id=self.last_id,
            task_id=task_id,
            scheduled_for=plan.run_for,
            claimed_at=self.now,
            status=RunStatus.CLAIMED,
            misfire=plan.action,
            missed=plan.missed,
            late_by=plan.late_by,
            lease_until=self.lease_until,
        )


def _new_run(
    task_id: str,
    scheduled_for: datetime,
    now: datetime,
    lease: timedelta,
    action: MisfireAction,
    last_id: int,
    *,
    attempt: int = 1,
) -> TaskRun:
    return TaskRun(
        id=last_id + 1,
        task_id=task_id,
        scheduled_for=scheduled_for,
        claimed_at=now,
        status=RunStatus.CLAIMED,
        misfire=action,
        attempt=attempt,
        lease_until=now + lease,
    )


def _run_row(run: TaskRun) -> Row:
    return (
        run.id,
        run.task_id,
        to_db(run.scheduled_for),
        to_db(run.claimed_at),
        to_db_opt(run.lease_until),
        run.status.value,
        run.misfire.value,
        run.missed,
        seconds_opt(run.late_by),
        run.attempt,
        to_db_opt(run.finished_at),
    )

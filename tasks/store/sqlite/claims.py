"""Claims in SQLite: due runs claimed, leases renewed, expired runs retried or given up.

Each function here is the whole body of one store operation and runs on the connection's
thread inside the transaction ``TaskDatabase.write`` opened (``BEGIN IMMEDIATE``), so two
connections never claim the same scheduled run: the claim's update is also conditional on the
``next_run`` that was read. Every query is parameterised. What a claim does to a task is
decided by the pure functions of ``planning`` and ``transitions``, which the in-memory store
calls too; here their decisions are read from rows and written back.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import datetime, timedelta

from common import to_db_time
from tasks.models import Claim, MisfireAction, RunOutcome, RunStatus, Task, TaskRun, TaskStatus
from tasks.store.base import LEASE_LOST_ERROR, GivenUp, not_found
from tasks.store.planning import ClaimPlan, Reclaim, plan_claim, plan_reclaim
from tasks.store.rows import (
    RUN_COLUMNS,
    TASK_COLUMNS,
    cached_rule,
    cached_schedule,
    run_from_row,
    seconds_opt,
    task_from_row,
)
from tasks.store.sqlite.db import execute
from tasks.store.sqlite.dialect import SQLITE, cached_instant
from tasks.store.sqlite.runs import Row, chunked, finish_runs
from tasks.store.steps import owned_row, store_state
from tasks.store.transitions import (
    after_skipped_retry,
    claimed_now,
    claimed_status,
    lost_outcome,
)

_END_OF_TIME = "9999"  # sorts after every stored instant
_INSERT_RUN = (
    "INSERT INTO task_runs (id, task_id, scheduled_for, claimed_at, lease_until, status, "
    "misfire, missed, late_by, attempt, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
# The highest run id ever used (``task_runs`` is AUTOINCREMENT, which keeps it even when the
# newest rows are deleted): new ids are never those of removed runs.
_LAST_RUN_ID = "SELECT coalesce(max(seq), 0) FROM sqlite_sequence WHERE name = 'task_runs'"
_CLAIM_TASK = (
    "UPDATE scheduled_tasks SET status = ?, enabled = ?, next_run = ?, finished_at = ? "
    "WHERE id = ? AND next_run = ? AND enabled = 1"
)


def claim_due(
    conn: sqlite3.Connection, now: datetime, limit: int, lease: timedelta, ahead: timedelta
) -> list[Claim]:
    """Claim up to ``limit`` tasks due by ``now + ahead``, earliest first (see the store)."""
    # The last ledger id rides along (one statement fewer on the hot path).
    rows = conn.execute(
        f"SELECT {TASK_COLUMNS}, ({_LAST_RUN_ID}) "
        "FROM scheduled_tasks WHERE enabled = 1 AND next_run <= ? ORDER BY next_run LIMIT ?",
        (to_db_time(now + ahead), limit),
    ).fetchall()
    if not rows:
        return []
    batch = _ClaimBatch(now, lease, int(rows[0][-1]))
    claims: list[Claim] = []
    task_updates: list[Row] = []
    for row in rows:
        schedule = cached_schedule(row[5])
        due_text = row[11]
        due = cached_instant(due_text)
        plan = plan_claim(schedule, due, cached_rule(row[8], row[9]), now)
        status = claimed_status(schedule, plan)
        # A claimed task was ACTIVE; it finishes here when nothing of it is left to run.
        done = status is TaskStatus.DONE
        task_updates.append(
            (status.value, int(status is TaskStatus.ACTIVE), SQLITE.time_opt(plan.next_run),
             batch.now_text if done else None, row[0], due_text)
        )  # fmt: skip
        run = batch.add(row[0], plan, due, due_text)
        if run is not None:
            task = task_from_row(
                row,
                SQLITE,
                status=status,
                next_run=plan.next_run,
                finished_at=now if done else None,
            )
            claims.append(Claim(task, run))
    conn.executemany(_CLAIM_TASK, task_updates)
    conn.executemany(_INSERT_RUN, batch.rows)
    return claims


def any_expired(conn: sqlite3.Connection, now: datetime, orphaned: bool = False) -> bool:
    """Whether a claimed run's lease ran out by ``now`` (any claimed run, when ``orphaned``;
    an indexed read)."""
    row = conn.execute(
        "SELECT 1 FROM task_runs WHERE status = 'claimed' AND lease_until <= ? LIMIT 1",
        (_lease_cutoff(now, orphaned),),
    ).fetchone()
    return row is not None


def reclaim_expired(
    conn: sqlite3.Connection, now: datetime, limit: int, lease: timedelta, orphaned: bool = False
) -> tuple[list[Claim], list[GivenUp]]:
    """Retry once, or give up, runs whose lease ran out (see the store)."""
    rows = conn.execute(
        f"SELECT {RUN_COLUMNS} FROM task_runs WHERE status = 'claimed' "
        "AND lease_until <= ? ORDER BY lease_until LIMIT ?",
        (_lease_cutoff(now, orphaned), limit),
    ).fetchall()
    claims: list[Claim] = []
    given_up: list[GivenUp] = []
    for expired in (run_from_row(r, SQLITE) for r in rows):
        task_row = execute(conn, owned_row(SQLITE, expired.task_id, None))
        assert task_row is not None, "task_runs.task_id references scheduled_tasks"
        task = task_from_row(task_row, SQLITE)
        plan = plan_reclaim(task, expired, now)
        if plan.action in (Reclaim.GIVE_UP, Reclaim.UNKNOWN):
            given_up.append(_give_up(conn, task, expired, lost_outcome(plan.action, expired, now)))
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
    row = execute(conn, owned_row(SQLITE, task_id, owner_id))
    if row is None:
        raise not_found(task_id)
    stored = task_from_row(row, SQLITE)
    task = claimed_now(stored)
    if task is not stored:
        execute(conn, store_state(SQLITE, task))
    run = TaskRun.new(
        _max_run_id(conn) + 1, task.id, now, now,
        misfire=MisfireAction.MANUAL, lease_until=now + lease,
    )  # fmt: skip
    conn.execute(_INSERT_RUN, _run_row(run))
    return Claim(task, run)


def next_wakeup(conn: sqlite3.Connection) -> datetime | None:
    """The earliest enabled next run or lease expiry (two index lookups)."""
    row = conn.execute(
        "SELECT (SELECT min(next_run) FROM scheduled_tasks WHERE enabled = 1), "
        "(SELECT min(lease_until) FROM task_runs WHERE status = 'claimed')"
    ).fetchone()
    found = [SQLITE.read_time(v) for v in row if v is not None]
    return min(found, default=None)


def count_due(conn: sqlite3.Connection, until: str, limit: int) -> int:
    """How many enabled tasks are due by ``until``, counting at most ``limit`` (the due index)."""
    row = conn.execute(
        "SELECT count(*) FROM (SELECT 1 FROM scheduled_tasks WHERE enabled = 1 "
        "AND next_run <= ? LIMIT ?)",
        (until, limit),
    ).fetchone()
    return int(row[0])


def count_overdue(conn: sqlite3.Connection, before: datetime) -> int:
    """The enabled tasks due before ``before`` (a range of the due index)."""
    row = conn.execute(
        "SELECT count(*) FROM scheduled_tasks WHERE enabled = 1 AND next_run < ?",
        (to_db_time(before),),
    ).fetchone()
    return int(row[0])


def _lease_cutoff(now: datetime, orphaned: bool) -> str:
    """The lease expiry up to which claimed runs are reclaimed: ``now``, or every one."""
    return _END_OF_TIME if orphaned else to_db_time(now)


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
    run = TaskRun.new(
        _max_run_id(conn) + 1, task.id, expired.scheduled_for, now,
        misfire=MisfireAction.SKIPPED, late_by=late_by, attempt=2,
    )  # fmt: skip
    conn.execute(_INSERT_RUN, _run_row(run))
    done = after_skipped_retry(task, now)
    if done is not task:
        execute(conn, store_state(SQLITE, done))


def _retry(
    conn: sqlite3.Connection,
    task: Task,
    expired: TaskRun,
    now: datetime,
    lease: timedelta,
    late_by: timedelta | None,
) -> Claim:
    run = TaskRun.new(
        _max_run_id(conn) + 1, task.id, expired.scheduled_for, now,
        misfire=MisfireAction.RETRY, lease_until=now + lease, attempt=2, late_by=late_by,
    )  # fmt: skip
    conn.execute(_INSERT_RUN, _run_row(run))
    return Claim(task, run)


def _give_up(
    conn: sqlite3.Connection, task: Task, expired: TaskRun, outcome: RunOutcome
) -> GivenUp:
    finish_runs(conn, [outcome], max_failures=None)
    row = execute(conn, owned_row(SQLITE, task.id, None))
    assert row is not None, "the task was read in this transaction"
    return GivenUp(task_from_row(row, SQLITE), expired.ended(outcome))


def _max_run_id(conn: sqlite3.Connection) -> int:
    row = conn.execute(_LAST_RUN_ID).fetchone()
    return int(row[0])


class _ClaimBatch:
    """The ledger rows of one claim transaction, built without per-row copies (hot path)."""

    def __init__(self, now: datetime, lease: timedelta, last_id: int) -> None:
        self.now = now
        self.now_text = to_db_time(now)
        self.lease_until = now + lease
        self.lease_text = to_db_time(self.lease_until)
        self.last_id = last_id
        self.rows: list[Row] = []

    def add(self, task_id: str, plan: ClaimPlan, due: datetime, due_text: str) -> TaskRun | None:
        """Add the rows for ``plan``; return the claimed run, if the plan runs anything."""
        if plan.skipped_from is not None:
            self.last_id += 1
            skipped_text = due_text if plan.skipped_from == due else to_db_time(plan.skipped_from)
            late = (self.now - plan.skipped_from).total_seconds()
            self.rows.append(
                (self.last_id, task_id, skipped_text, self.now_text, None, "skipped", "skipped",
                 plan.skipped - 1, late, 1, self.now_text)
            )  # fmt: skip
        if plan.run_for is None:
            return None
        self.last_id += 1
        run_text = due_text if plan.run_for == due else to_db_time(plan.run_for)
        self.rows.append(
            (self.last_id, task_id, run_text, self.now_text, self.lease_text, "claimed",
             plan.action.value, plan.missed, seconds_opt(plan.late_by), 1, None)
        )  # fmt: skip
        # What TaskRun.new makes, built directly: this runs once per claim of a burst.
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


def _run_row(run: TaskRun) -> Row:
    return (
        run.id,
        run.task_id,
        to_db_time(run.scheduled_for),
        to_db_time(run.claimed_at),
        SQLITE.time_opt(run.lease_until),
        run.status.value,
        run.misfire.value,
        run.missed,
        seconds_opt(run.late_by),
        run.attempt,
        SQLITE.time_opt(run.finished_at),
    )

"""The run ledger's transactions in SQLite: claims, leases, retries and finished runs.

Each function here is the whole body of one store operation and runs on the connection's
thread inside the transaction ``TaskDatabase.write`` opened (``BEGIN IMMEDIATE``), so two
connections never claim the same scheduled run: the claim's update is also conditional on the
``next_run`` that was read. Every query is parameterised.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

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
from tasks.schedule.model import Schedule
from tasks.store.base import LEASE_LOST_ERROR, GivenUp, failure_reason, not_found, wrong_state
from tasks.store.planning import ClaimPlan, plan_claim, retry_lateness, retry_skipped
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

Row = tuple[Any, ...]
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
# ?2: 0 resets the failure count, 1 adds one, 2 keeps it. ?3: the retry time (NULL: a
# RUNNING one-time task becomes DONE; else it is ACTIVE again, due then). SET expressions
# read the row as it was before the update.
_FINISH_TASK = (
    "UPDATE scheduled_tasks SET last_run = ?1, run_count = run_count + 1, "
    "consecutive_failures = CASE ?2 WHEN 0 THEN 0 WHEN 1 THEN consecutive_failures + 1 "
    "ELSE consecutive_failures END, "
    "status = CASE WHEN status <> 'running' THEN status WHEN ?3 IS NULL THEN 'done' "
    "ELSE 'active' END, "
    "enabled = CASE WHEN status = 'running' AND ?3 IS NOT NULL THEN 1 ELSE enabled END, "
    "next_run = CASE WHEN status = 'running' AND ?3 IS NOT NULL THEN ?3 ELSE next_run END "
    "WHERE id = ?4"
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
        status = _claimed_status(schedule, plan)
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
        if expired.attempt == 1 and task.status is not TaskStatus.CANCELLED:
            skipped_late = retry_skipped(task.misfire, expired.scheduled_for, now)
            if skipped_late is None:
                claims.append(_retry(conn, task, expired, now, lease))
            else:
                _skip_retry(conn, task, expired, now, skipped_late)
        else:
            given_up.append(_give_up(conn, task, expired, now))
    return claims, given_up


def renew_leases(conn: sqlite3.Connection, run_ids: Sequence[int], until: str) -> set[int]:
    """Extend the leases of the runs still claimed to ``until``; return their ids."""
    renewed: set[int] = set()
    for start in range(0, len(run_ids), IN_CHUNK):
        chunk = run_ids[start : start + IN_CHUNK]
        marks = ", ".join("?" * len(chunk))
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
    task = task_from_row(row)
    if task.status in (TaskStatus.CANCELLED, TaskStatus.RUNNING):
        raise wrong_state(task, "run")
    if task.schedule.kind == "once":
        task = replace(task, status=TaskStatus.RUNNING, next_run=None)
        conn.execute(
            "UPDATE scheduled_tasks SET status = 'running', enabled = 0, next_run = NULL "
            "WHERE id = ?",
            (task.id,),
        )
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
    conn: sqlite3.Connection, outcomes: Sequence[RunOutcome], max_failures: int
) -> list[FinishedRun]:
    """Record outcomes and update their tasks (see the store)."""
    _record_outcomes(conn, outcomes)
    disabled = _disable_failing(conn, outcomes, max_failures)
    states = _task_states(conn, {o.task_id for o in outcomes})
    finished = []
    for outcome in outcomes:
        status, failures = states.get(outcome.task_id, (None, 0))
        was_disabled = disabled.get(outcome.task_id) == outcome.run_id
        finished.append(
            FinishedRun(outcome.run_id, outcome.task_id, status, failures, was_disabled)
        )
    return finished


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
    conn: sqlite3.Connection, task: Task, expired: TaskRun, now: datetime, late_by: timedelta
) -> None:
    """Record the retry as skipped (misfire policy); a one-time task ends DONE."""
    _abandon(conn, expired)
    run = _new_run(
        task.id, expired.scheduled_for, now, timedelta(0), MisfireAction.SKIPPED,
        _max_run_id(conn), attempt=2,
    )  # fmt: skip
    run = replace(run, status=RunStatus.SKIPPED, late_by=late_by, lease_until=None, finished_at=now)
    conn.execute(_INSERT_RUN, _run_row(run))
    conn.execute(
        "UPDATE scheduled_tasks SET status = 'done', enabled = 0, next_run = NULL "
        "WHERE id = ? AND status = 'running'",
        (task.id,),
    )


def _retry(
    conn: sqlite3.Connection, task: Task, expired: TaskRun, now: datetime, lease: timedelta
) -> Claim:
    _abandon(conn, expired)
    run = _new_run(
        task.id,
        expired.scheduled_for,
        now,
        lease,
        MisfireAction.RETRY,
        _max_run_id(conn),
        attempt=2,
    )
    run = replace(run, late_by=retry_lateness(task.misfire, expired.scheduled_for, now))
    conn.execute(_INSERT_RUN, _run_row(run))
    return Claim(task, run)


def _give_up(conn: sqlite3.Connection, task: Task, expired: TaskRun, now: datetime) -> GivenUp:
    outcome = RunOutcome(expired.id, task.id, RunStatus.FAILED, now, now, error=LEASE_LOST_ERROR)
    _record_outcomes(conn, [outcome])
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


def _record_outcomes(conn: sqlite3.Connection, outcomes: Sequence[RunOutcome]) -> None:
    conn.executemany(
        _FINISH_RUN,
        [
            (o.status.value, to_db(o.started_at), to_db(o.finished_at), o.result, o.error, o.run_id)
            for o in outcomes
        ],
    )
    conn.executemany(
        _FINISH_TASK,
        [
            (to_db(o.finished_at), _failure_step(o.status), to_db_opt(o.retry_at), o.task_id)
            for o in outcomes
        ],
    )


def _disable_failing(
    conn: sqlite3.Connection, outcomes: Sequence[RunOutcome], max_failures: int
) -> dict[str, int]:
    """Disable live tasks that reached ``max_failures``; return task id -> the run that did it."""
    disabled: dict[str, int] = {}
    for outcome in outcomes:
        if not outcome.status.is_failure or outcome.task_id in disabled:
            continue
        row = conn.execute(
            "SELECT consecutive_failures FROM scheduled_tasks "
            "WHERE id = ? AND status = 'active' AND consecutive_failures >= ?",
            (outcome.task_id, max_failures),
        ).fetchone()
        if row is not None:
            conn.execute(
                "UPDATE scheduled_tasks SET status = 'disabled', enabled = 0, status_reason = ? "
                "WHERE id = ?",
                (failure_reason(int(row[0]), outcome.error), outcome.task_id),
            )
            disabled[outcome.task_id] = outcome.run_id
    return disabled


def _task_states(
    conn: sqlite3.Connection, task_ids: Collection[str]
) -> dict[str, tuple[TaskStatus, int]]:
    ids = sorted(task_ids)
    states: dict[str, tuple[TaskStatus, int]] = {}
    for start in range(0, len(ids), IN_CHUNK):
        chunk = ids[start : start + IN_CHUNK]
        marks = ", ".join("?" * len(chunk))
        rows = conn.execute(
            f"SELECT id, status, consecutive_failures FROM scheduled_tasks WHERE id IN ({marks})",
            chunk,
        ).fetchall()
        states.update({r[0]: (TaskStatus(r[1]), int(r[2])) for r in rows})
    return states


def _failure_step(status: RunStatus) -> int:
    if status is RunStatus.SUCCEEDED:
        return 0
    return 1 if status.is_failure else 2


def _claimed_status(schedule: Schedule, plan: ClaimPlan) -> TaskStatus:
    if schedule.kind == "once":
        return TaskStatus.RUNNING if plan.run_for is not None else TaskStatus.DONE
    return TaskStatus.ACTIVE if plan.next_run is not None else TaskStatus.DONE


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

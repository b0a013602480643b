"""The SQLite task store: its own aiosqlite connection to the shared database file.

Other packages open their own connections to the same file, so the connection runs in WAL
mode with a busy timeout, every write takes the write lock up front (``BEGIN IMMEDIATE``) and
transactions stay short. Claims read the due tasks and update them inside one immediate
transaction, and the update is conditional on the ``next_run`` that was read, so two stores on
one file never claim the same scheduled run.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Collection, Sequence
from contextlib import asynccontextmanager
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import aiosqlite

from tasks.clock import require_aware
from tasks.errors import TaskError
from tasks.execution import execution_to_json
from tasks.models import (
    Claim,
    FinishedRun,
    MisfireAction,
    RunOutcome,
    RunStatus,
    Task,
    TaskDraft,
    TaskRun,
    TaskStatus,
    new_task_id,
)
from tasks.planning import ClaimPlan, plan_claim, retry_lateness
from tasks.schedule import Schedule
from tasks.sqlite_checkpoint import WalCheckpointer
from tasks.sqlite_schema import (
    COMPONENT,
    MIGRATIONS,
    RUN_COLUMNS,
    SCHEMA_VERSION,
    TASK_COLUMNS,
    SchemaError,
    cached_rule,
    cached_schedule,
    run_from_row,
    seconds_opt,
    task_from_row,
    to_db,
    to_db_opt,
)
from tasks.store import (
    LEASE_LOST_ERROR,
    UNSET,
    GivenUp,
    TaskChange,
    TaskStore,
    failure_reason,
    not_found,
    wrong_state,
)

_ID_ATTEMPTS = 8
_IN_CHUNK = 500
_INSERT_TASK = (
    "INSERT INTO scheduled_tasks (id, owner_id, chat_id, task_type, description, schedule, "
    "execution_data, status, enabled, misfire_policy, misfire_grace, created_at, next_run) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, 'active', 1, ?, ?, ?, ?)"
)
_INSERT_RUN = (
    "INSERT INTO task_runs (id, task_id, scheduled_for, claimed_at, lease_until, status, "
    "misfire, missed, late_by, attempt, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_FINISH_RUN = (
    "UPDATE task_runs SET status = ?, started_at = ?, finished_at = ?, result = ?, error = ?, "
    "lease_until = NULL WHERE id = ?"
)
# Parameter 1: 0 resets the failure count, 1 adds one, 2 keeps it.
_FINISH_TASK = (
    "UPDATE scheduled_tasks SET last_run = ?, run_count = run_count + 1, "
    "consecutive_failures = CASE ? WHEN 0 THEN 0 WHEN 1 THEN consecutive_failures + 1 "
    "ELSE consecutive_failures END, "
    "status = CASE status WHEN 'running' THEN 'done' ELSE status END WHERE id = ?"
)

Row = tuple[Any, ...]


class SqliteTaskStore(TaskStore):
    """Tasks and their run ledger in a SQLite database file.

    Args:
        path: The database file; created with its directory when missing.
        busy_timeout: How long a statement waits for another connection's write lock.
    """

    def __init__(self, path: str | Path, *, busy_timeout: timedelta = timedelta(seconds=10)):
        self.path = Path(path)
        self._busy_ms = int(busy_timeout.total_seconds() * 1000)
        self._conn: aiosqlite.Connection | None = None
        self._lock = asyncio.Lock()
        self._checkpointer = WalCheckpointer(self.path, busy_ms=self._busy_ms)

    async def open(self) -> None:
        """Connect, switch to WAL, and create or migrate the task tables."""
        if self._conn is not None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = await aiosqlite.connect(self.path, isolation_level=None)
        try:
            await conn.execute(f"PRAGMA busy_timeout = {self._busy_ms}")
            await conn.execute("PRAGMA journal_mode = WAL")
            await conn.execute("PRAGMA synchronous = NORMAL")
            # Checkpoints run on the checkpointer's connection, never inside a claim's commit.
            await conn.execute("PRAGMA wal_autocheckpoint = 0")
            self._conn = conn
            await self._migrate()
            await self._checkpointer.open()
        except BaseException:
            self._conn = None
            await conn.close()
            await self._checkpointer.close()
            raise

    async def close(self) -> None:
        """Close the connection."""
        conn, self._conn = self._conn, None
        if conn is not None:
            async with self._lock:
                await conn.close()
            await self._checkpointer.close()

    async def add_task(self, draft: TaskDraft) -> Task:
        """Insert ``draft`` under a fresh id (a new id is drawn if one is taken)."""
        row = _draft_row(draft)
        for _ in range(_ID_ATTEMPTS):
            task_id = new_task_id()
            try:
                async with self._write() as conn:
                    await conn.execute(_INSERT_TASK, (task_id, *row))
            except sqlite3.IntegrityError:
                continue
            return _task_from_draft(task_id, draft)
        raise TaskError(f"could not find a free task id after {_ID_ATTEMPTS} attempts")

    async def add_tasks(self, drafts: Sequence[TaskDraft]) -> list[str]:
        """Insert many drafts with one ``executemany`` in one transaction."""
        rows = [_draft_row(d) for d in drafts]
        for _ in range(_ID_ATTEMPTS):
            ids = _distinct_ids(len(rows))
            try:
                async with self._write() as conn:
                    await conn.executemany(
                        _INSERT_TASK, [(i, *r) for i, r in zip(ids, rows, strict=True)]
                    )
            except sqlite3.IntegrityError:
                continue
            return ids
        raise TaskError(f"could not find free task ids after {_ID_ATTEMPTS} attempts")

    async def get_task(self, task_id: str, owner_id: str | None = None) -> Task | None:
        """Return the task, or ``None``."""
        async with self._read() as conn:
            row = await _owned_row(conn, task_id, owner_id)
        return None if row is None else task_from_row(row)

    async def list_tasks(self, owner_id: str, *, include_finished: bool = False) -> list[Task]:
        """Return the owner's tasks by next run (unscheduled last), then creation."""
        live = "" if include_finished else "AND status NOT IN ('done', 'cancelled') "
        async with self._read() as conn:
            rows = await conn.execute_fetchall(
                f"SELECT {TASK_COLUMNS} FROM scheduled_tasks WHERE owner_id = ? {live}"
                "ORDER BY next_run IS NULL, next_run, created_at, id",
                (owner_id,),
            )
        return [task_from_row(r) for r in rows]

    async def active_task_ids(self, owner_id: str) -> list[str]:
        """Return the owner's live task ids, oldest first."""
        async with self._read() as conn:
            rows = await conn.execute_fetchall(
                "SELECT id FROM scheduled_tasks WHERE owner_id = ? "
                "AND status NOT IN ('done', 'cancelled') ORDER BY created_at, id",
                (owner_id,),
            )
        return [r[0] for r in rows]

    async def update_task(
        self,
        task_id: str,
        owner_id: str,
        change: TaskChange,
        *,
        allowed_from: Collection[TaskStatus],
        action: str,
    ) -> Task:
        """Apply ``change`` in one transaction if the task's status allows it."""
        async with self._write() as conn:
            row = await _owned_row(conn, task_id, owner_id)
            if row is None:
                raise not_found(task_id)
            task = task_from_row(row)
            if task.status not in allowed_from:
                raise wrong_state(task, action)
            updated = replace(
                task,
                status=task.status if change.status is UNSET else change.status,
                next_run=task.next_run if change.next_run is UNSET else change.next_run,
                status_reason=(
                    task.status_reason if change.status_reason is UNSET else change.status_reason
                ),
                consecutive_failures=0 if change.reset_failures else task.consecutive_failures,
            )
            await conn.execute(
                "UPDATE scheduled_tasks SET status = ?, enabled = ?, next_run = ?, "
                "status_reason = ?, consecutive_failures = ? WHERE id = ?",
                (
                    updated.status.value,
                    int(updated.enabled),
                    to_db_opt(updated.next_run),
                    updated.status_reason,
                    updated.consecutive_failures,
                    task_id,
                ),
            )
        return updated

    async def claim_due(
        self, now: datetime, *, limit: int, lease: timedelta, ahead: timedelta = timedelta(0)
    ) -> list[Claim]:
        """Claim due tasks in one immediate transaction, earliest first."""
        now = require_aware(now, "now")
        async with self._write() as conn:
            # The last ledger id rides along (one round trip fewer on the hot path).
            rows = list(
                await conn.execute_fetchall(
                    f"SELECT {TASK_COLUMNS}, (SELECT coalesce(max(id), 0) FROM task_runs) "
                    "FROM scheduled_tasks WHERE enabled = 1 AND next_run <= ? "
                    "ORDER BY next_run LIMIT ?",
                    (to_db(now + ahead), limit),
                )
            )
            if not rows:
                return []
            batch = _ClaimBatch(now, lease, int(rows[0][-1]))
            claims: list[Claim] = []
            task_updates: list[Row] = []
            for row in rows:
                schedule = cached_schedule(row[5])
                rule = cached_rule(row[8], row[9])
                due = datetime.fromisoformat(row[11])
                plan = plan_claim(schedule, due, rule, now)
                status = _claimed_status(schedule, plan)
                next_text = to_db_opt(plan.next_run)
                task_updates.append(
                    (status.value, int(status is TaskStatus.ACTIVE), next_text, row[0], row[11])
                )
                run = batch.add(row[0], plan, due, row[11])
                if run is not None:
                    claimed = task_from_row(row, status=status, next_run=plan.next_run)
                    claims.append(Claim(claimed, run))
            await conn.executemany(
                "UPDATE scheduled_tasks SET status = ?, enabled = ?, next_run = ? "
                "WHERE id = ? AND next_run = ? AND enabled = 1",
                task_updates,
            )
            await conn.executemany(_INSERT_RUN, batch.rows)
        return claims

    async def reclaim_expired(
        self, now: datetime, *, limit: int, lease: timedelta
    ) -> tuple[list[Claim], list[GivenUp]]:
        """Retry once, or give up, runs whose lease ran out."""
        now = require_aware(now, "now")
        async with self._read() as conn:
            # A cheap indexed read first: most of the time no lease ran out and no write
            # transaction is needed.
            expired_any = await conn.execute_fetchall(
                "SELECT 1 FROM task_runs WHERE status = 'claimed' AND lease_until <= ? LIMIT 1",
                (to_db(now),),
            )
        if not list(expired_any):
            return [], []
        async with self._write() as conn:
            rows = await conn.execute_fetchall(
                f"SELECT {RUN_COLUMNS} FROM task_runs WHERE status = 'claimed' "
                "AND lease_until <= ? ORDER BY lease_until LIMIT ?",
                (to_db(now), limit),
            )
            claims: list[Claim] = []
            given_up: list[GivenUp] = []
            for expired in (run_from_row(r) for r in rows):
                task_row = await _owned_row(conn, expired.task_id, None)
                assert task_row is not None
                task = task_from_row(task_row)
                if expired.attempt == 1 and task.status is not TaskStatus.CANCELLED:
                    claims.append(await self._retry(conn, task, expired, now, lease))
                else:
                    given_up.append(await self._give_up(conn, task, expired, now))
        return claims, given_up

    async def renew_leases(
        self, run_ids: Collection[int], now: datetime, *, lease: timedelta
    ) -> set[int]:
        """Extend the leases of those runs that are still claimed, in one transaction."""
        until = to_db(require_aware(now, "now") + lease)
        ids = sorted(set(run_ids))
        if not ids:
            return set()
        renewed: set[int] = set()
        async with self._write() as conn:
            for start in range(0, len(ids), _IN_CHUNK):
                chunk = ids[start : start + _IN_CHUNK]
                marks = ", ".join("?" * len(chunk))
                rows = await conn.execute_fetchall(
                    "UPDATE task_runs SET lease_until = max(lease_until, ?) "
                    f"WHERE status = 'claimed' AND id IN ({marks}) RETURNING id",
                    (until, *chunk),
                )
                renewed.update(int(r[0]) for r in rows)
        return renewed

    async def claim_now(
        self, task_id: str, owner_id: str, now: datetime, *, lease: timedelta
    ) -> Claim:
        """Claim an extra run of the task now, in one transaction."""
        now = require_aware(now, "now")
        async with self._write() as conn:
            row = await _owned_row(conn, task_id, owner_id)
            if row is None:
                raise not_found(task_id)
            task = task_from_row(row)
            if task.status in (TaskStatus.CANCELLED, TaskStatus.RUNNING):
                raise wrong_state(task, "run")
            if task.schedule.kind == "once":
                task = replace(task, status=TaskStatus.RUNNING, next_run=None)
                await conn.execute(
                    "UPDATE scheduled_tasks SET status = 'running', enabled = 0, next_run = NULL "
                    "WHERE id = ?",
                    (task.id,),
                )
            run = _new_run(task.id, now, now, lease, MisfireAction.MANUAL, await _max_run_id(conn))
            await conn.execute(_INSERT_RUN, _run_row(run))
        return Claim(task, run)

    async def next_wakeup(self) -> datetime | None:
        """Return the earliest enabled next run or lease expiry (two index lookups)."""
        async with self._read() as conn:
            rows = list(
                await conn.execute_fetchall(
                    "SELECT (SELECT min(next_run) FROM scheduled_tasks WHERE enabled = 1), "
                    "(SELECT min(lease_until) FROM task_runs WHERE status = 'claimed')"
                )
            )
        found = [datetime.fromisoformat(v) for v in rows[0] if v is not None]
        return min(found, default=None)

    async def finish_runs(
        self, outcomes: Sequence[RunOutcome], *, max_failures: int
    ) -> list[FinishedRun]:
        """Record outcomes and update their tasks, all in one transaction."""
        if not outcomes:
            return []
        async with self._write() as conn:
            await _record_outcomes(conn, outcomes)
            disabled = await _disable_failing(conn, outcomes, max_failures)
            states = await _task_states(conn, {o.task_id for o in outcomes})
        finished = []
        for outcome in outcomes:
            status, failures = states.get(outcome.task_id, (None, 0))
            was_disabled = disabled.get(outcome.task_id) == outcome.run_id
            finished.append(
                FinishedRun(outcome.run_id, outcome.task_id, status, failures, was_disabled)
            )
        return finished

    async def pause_owner(self, owner_id: str, reason: str) -> list[str]:
        """Pause the owner's active tasks."""
        async with self._write() as conn:
            rows = await conn.execute_fetchall(
                "UPDATE scheduled_tasks SET status = 'paused', enabled = 0, status_reason = ? "
                "WHERE owner_id = ? AND status = 'active' RETURNING id",
                (reason, owner_id),
            )
        return sorted(r[0] for r in rows)

    async def history(self, task_id: str, owner_id: str, *, limit: int = 20) -> list[TaskRun]:
        """Return the task's ledger rows, newest first."""
        async with self._read() as conn:
            if await _owned_row(conn, task_id, owner_id) is None:
                raise not_found(task_id)
            rows = await conn.execute_fetchall(
                f"SELECT {RUN_COLUMNS} FROM task_runs WHERE task_id = ? ORDER BY id DESC LIMIT ?",
                (task_id, max(limit, 0)),
            )
        return [run_from_row(r) for r in rows]

    async def _retry(
        self,
        conn: aiosqlite.Connection,
        task: Task,
        expired: TaskRun,
        now: datetime,
        lease: timedelta,
    ) -> Claim:
        await conn.execute(
            "UPDATE task_runs SET status = 'abandoned', lease_until = NULL, error = ? WHERE id = ?",
            (LEASE_LOST_ERROR, expired.id),
        )
        run = _new_run(
            task.id,
            expired.scheduled_for,
            now,
            lease,
            MisfireAction.RETRY,
            await _max_run_id(conn),
            attempt=2,
        )
        run = replace(run, late_by=retry_lateness(task.misfire, expired.scheduled_for, now))
        await conn.execute(_INSERT_RUN, _run_row(run))
        return Claim(task, run)

    async def _give_up(
        self, conn: aiosqlite.Connection, task: Task, expired: TaskRun, now: datetime
    ) -> GivenUp:
        outcome = RunOutcome(
            expired.id, task.id, RunStatus.FAILED, now, now, error=LEASE_LOST_ERROR
        )
        await _record_outcomes(conn, [outcome])
        row = await _owned_row(conn, task.id, None)
        assert row is not None
        run = replace(
            expired,
            status=RunStatus.FAILED,
            started_at=now,
            finished_at=now,
            error=LEASE_LOST_ERROR,
            lease_until=None,
        )
        return GivenUp(task_from_row(row), run)

    async def _migrate(self) -> None:
        async with self._write() as conn:
            await conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_versions ("
                " component TEXT PRIMARY KEY, version INTEGER NOT NULL)"
            )
            rows = list(
                await conn.execute_fetchall(
                    "SELECT version FROM schema_versions WHERE component = ?", (COMPONENT,)
                )
            )
            found = int(rows[0][0]) if rows else 0
            if found > SCHEMA_VERSION:
                raise SchemaError(
                    f"the database {str(self.path)!r} has task schema version {found}, newer "
                    f"than this program's {SCHEMA_VERSION}; upgrade the program or use another "
                    "data directory"
                )
            for statements in MIGRATIONS[found:]:
                for statement in statements:
                    await conn.execute(statement)
            if found < SCHEMA_VERSION:
                await conn.execute(
                    "INSERT INTO schema_versions (component, version) VALUES (?, ?) "
                    "ON CONFLICT (component) DO UPDATE SET version = excluded.version",
                    (COMPONENT, SCHEMA_VERSION),
                )

    def _connection(self) -> aiosqlite.Connection:
        if self._conn is None:
            raise TaskError(
                f"the task store {str(self.path)!r} is not open; call 'await store.open()' "
                "(or start the TaskManager) first"
            )
        return self._conn

    @asynccontextmanager
    async def _read(self) -> AsyncIterator[aiosqlite.Connection]:
        async with self._lock:
            yield self._connection()

    @asynccontextmanager
    async def _write(self) -> AsyncIterator[aiosqlite.Connection]:
        async with self._lock:
            conn = self._connection()
            await conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                await asyncio.shield(conn.rollback())
                raise
            await conn.commit()
        self._checkpointer.committed()


async def _owned_row(
    conn: aiosqlite.Connection, task_id: str, owner_id: str | None
) -> sqlite3.Row | None:
    sql = f"SELECT {TASK_COLUMNS} FROM scheduled_tasks WHERE id = ?"
    params: tuple[str, ...] = (task_id,)
    if owner_id is not None:
        sql, params = sql + " AND owner_id = ?", (task_id, owner_id)
    rows = list(await conn.execute_fetchall(sql, params))
    return rows[0] if rows else None


async def _max_run_id(conn: aiosqlite.Connection) -> int:
    rows = list(await conn.execute_fetchall("SELECT coalesce(max(id), 0) FROM task_runs"))
    return int(rows[0][0])


async def _record_outcomes(conn: aiosqlite.Connection, outcomes: Sequence[RunOutcome]) -> None:
    await conn.executemany(
        _FINISH_RUN,
        [
            (
                o.status.value,
                to_db(o.started_at),
                to_db(o.finished_at),
                o.result,
                o.error,
                o.run_id,
            )
            for o in outcomes
        ],
    )
    await conn.executemany(
        _FINISH_TASK,
        [(to_db(o.finished_at), _failure_step(o.status), o.task_id) for o in outcomes],
    )


async def _disable_failing(
    conn: aiosqlite.Connection, outcomes: Sequence[RunOutcome], max_failures: int
) -> dict[str, int]:
    """Disable live tasks that reached ``max_failures``; return task id -> the run that did it."""
    disabled: dict[str, int] = {}
    for outcome in outcomes:
        if not outcome.status.is_failure or outcome.task_id in disabled:
            continue
        rows = list(
            await conn.execute_fetchall(
                "SELECT consecutive_failures FROM scheduled_tasks "
                "WHERE id = ? AND status = 'active' AND consecutive_failures >= ?",
                (outcome.task_id, max_failures),
            )
        )
        if rows:
            await conn.execute(
                "UPDATE scheduled_tasks SET status = 'disabled', enabled = 0, status_reason = ? "
                "WHERE id = ?",
                (failure_reason(int(rows[0][0]), outcome.error), outcome.task_id),
            )
            disabled[outcome.task_id] = outcome.run_id
    return disabled


async def _task_states(
    conn: aiosqlite.Connection, task_ids: set[str]
) -> dict[str, tuple[TaskStatus, int]]:
    ids = sorted(task_ids)
    states: dict[str, tuple[TaskStatus, int]] = {}
    for start in range(0, len(ids), _IN_CHUNK):
        chunk = ids[start : start + _IN_CHUNK]
        marks = ", ".join("?" * len(chunk))
        rows = await conn.execute_fetchall(
            f"SELECT id, status, consecutive_failures FROM scheduled_tasks WHERE id IN ({marks})",
            chunk,
        )
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
    lease: timedelta | None,
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
        lease_until=None if lease is None else now + lease,
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


def _draft_row(draft: TaskDraft) -> Row:
    return (
        draft.owner_id,
        draft.chat_id,
        draft.task_type.value,
        draft.description,
        draft.schedule.to_json(),
        execution_to_json(draft.execution),
        draft.misfire.policy.value,
        draft.misfire.grace.total_seconds(),
        to_db(draft.created_at),
        to_db(draft.next_run),
    )


def _task_from_draft(task_id: str, draft: TaskDraft) -> Task:
    return Task(
        id=task_id,
        owner_id=draft.owner_id,
        chat_id=draft.chat_id,
        task_type=draft.task_type,
        description=draft.description,
        schedule=draft.schedule,
        execution=draft.execution,
        misfire=draft.misfire,
        status=TaskStatus.ACTIVE,
        created_at=require_aware(draft.created_at, "created_at"),
        next_run=require_aware(draft.next_run, "next_run"),
    )


def _distinct_ids(count: int) -> list[str]:
    ids: set[str] = set()
    while len(ids) < count:
        ids.add(new_task_id())
    return list(ids)

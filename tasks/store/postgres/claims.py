"""Claims in PostgreSQL: due runs claimed, leases renewed, expired runs retried or given up.

Each function is the whole body of one store operation and runs inside the transaction
``PostgresDatabase.write`` opened. Any number of schedulers, on any number of hosts, claim
disjoint runs: the due tasks are read with ``FOR UPDATE SKIP LOCKED``, so a row another
scheduler is claiming is passed over, and a row it claimed and committed meanwhile is read
again as it now stands (its ``next_run`` moved on). Expired runs are taken the same way.

What a claim does to a task is decided by the pure functions of ``planning`` and
``transitions``, which the other stores call too; here their decisions are read from rows and
written back, a whole batch with one statement. Locks are always taken ledger rows first,
then task rows (in id order), so two schedulers never wait for each other in a circle.
Every query is parameterised.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from common import PgConnection
from tasks.models import Claim, MisfireAction, RunOutcome, RunStatus, Task, TaskRun, TaskStatus
from tasks.store.base import LEASE_LOST_ERROR, GivenUp, not_found
from tasks.store.planning import ClaimPlan, Reclaim, plan_claim, plan_reclaim
from tasks.store.postgres.db import execute
from tasks.store.postgres.dialect import POSTGRES
from tasks.store.postgres.runs import finish_runs
from tasks.store.postgres.schema import RUN_ID_SEQUENCE
from tasks.store.rows import (
    RUN_COLUMNS,
    TASK_COLUMNS,
    Row,
    cached_rule,
    cached_schedule,
    run_from_row,
    seconds_opt,
    task_from_row,
)
from tasks.store.scope import ChatScope
from tasks.store.steps import owned_row, store_state
from tasks.store.transitions import (
    after_skipped_retry,
    claimed_now,
    claimed_status,
    lost_outcome,
)

# One statement writes a claim batch: ledger ids drawn in order, the ledger rows inserted,
# the tasks advanced. Returns the ids in the order of the ledger rows.
_WRITE_CLAIMS = f"""
WITH ids AS MATERIALIZED (
    SELECT n, nextval('{RUN_ID_SEQUENCE}') AS id
    FROM generate_series(1, cardinality($1::text[])) AS n
), runs AS (
    INSERT INTO task_runs (id, task_id, scheduled_for, claimed_at, lease_until, status,
        misfire, missed, late_by, attempt, finished_at)
    SELECT ids.id, r.task_id, r.scheduled_for, $9, r.lease_until, r.status, r.misfire,
        r.missed, r.late_by, 1, r.finished_at
    FROM unnest($1::text[], $2::timestamptz[], $3::timestamptz[], $4::text[], $5::text[],
        $6::int[], $7::float8[], $8::timestamptz[])
        WITH ORDINALITY AS r(task_id, scheduled_for, lease_until, status, misfire, missed,
            late_by, finished_at, n)
    JOIN ids USING (n)
), tasks AS (
    UPDATE scheduled_tasks AS t
    SET status = u.status, enabled = u.status = 'active', next_run = u.next_run,
        finished_at = CASE WHEN u.status = 'done' THEN $9::timestamptz END  -- nothing left
    FROM unnest($10::text[], $11::text[], $12::timestamptz[]) AS u(id, status, next_run)
    WHERE t.id = ANY($10::text[]) AND t.id = u.id  -- by primary key, never a scan
)
SELECT id FROM ids ORDER BY n
"""
_YIELD_EVERY = 32  # rows planned between two turns of the event loop
_INSERT_RUN = (
    "INSERT INTO task_runs (task_id, scheduled_for, claimed_at, lease_until, status, misfire, "
    "missed, late_by, attempt, finished_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) "
    "RETURNING id"
)


def scope_filter(scope: ChatScope, column: str, first: int) -> tuple[str, list[Any]]:
    """The ``AND ...`` that keeps rows whose ``column`` is a chat in ``scope``, and its
    parameters (numbered from ``$first``)."""
    params: list[Any] = []

    def param(value: list[str]) -> str:
        params.append(value)
        return f"${first + len(params) - 1}::text[]"

    sql = ""
    if scope.only or scope.only_prefixes:
        chats, patterns = param(sorted(scope.only)), param(_like(scope.only_prefixes))
        sql += f" AND ({column} = ANY({chats}) OR {column} LIKE ANY({patterns}))"
    if scope.excluded or scope.excluded_prefixes:
        chats, patterns = param(sorted(scope.excluded)), param(_like(scope.excluded_prefixes))
        sql += f" AND {column} <> ALL({chats}) AND NOT {column} LIKE ANY({patterns})"
    return sql, params


def _like(prefixes: frozenset[str]) -> list[str]:
    """LIKE patterns for ids starting with each prefix (its own ``%``, ``_``, ``\\`` escaped)."""
    escaped = (p.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") for p in prefixes)
    return sorted(f"{p}%" for p in escaped)


async def claim_due(
    conn: PgConnection,
    now: datetime,
    limit: int,
    lease: timedelta,
    ahead: timedelta,
    scope: ChatScope,
) -> list[Claim]:
    """Claim up to ``limit`` tasks due by ``now + ahead``, earliest first (see the store)."""
    where, params = scope_filter(scope, "chat_id", 3)
    rows = await conn.fetch(
        f"SELECT {TASK_COLUMNS} FROM scheduled_tasks WHERE enabled AND next_run <= $1{where} "
        "ORDER BY next_run LIMIT $2 FOR UPDATE SKIP LOCKED",
        now + ahead,
        limit,
        *params,
    )
    if not rows:
        return []
    batch = _ClaimBatch(now, now + lease)
    for number, row in enumerate(rows, start=1):
        if number % _YIELD_EVERY == 0:
            # This planning runs on the event loop: runs due meanwhile start between rows
            # (a batch of 600 recurring tasks plans for tens of milliseconds).
            await asyncio.sleep(0)
        schedule = cached_schedule(row["schedule"])
        due: datetime = row["next_run"]
        plan = plan_claim(
            schedule, due, cached_rule(row["misfire_policy"], row["misfire_grace"]), now
        )
        batch.add(row, claimed_status(schedule, plan), plan)
    ids = await conn.fetch(_WRITE_CLAIMS, *batch.parameters())
    return batch.claims([r["id"] for r in ids])


async def reclaim_expired(
    conn: PgConnection,
    now: datetime,
    limit: int,
    lease: timedelta,
    scope: ChatScope,
    orphaned: bool = False,
) -> tuple[list[Claim], list[GivenUp]]:
    """Retry once, or give up, runs whose lease ran out (see the store)."""
    where, params = scope_filter(scope, "t.chat_id", 3)
    rows = await conn.fetch(
        f"SELECT {', '.join('r.' + c for c in RUN_COLUMNS.split(', '))} "
        "FROM task_runs AS r JOIN scheduled_tasks AS t ON t.id = r.task_id "
        f"WHERE r.status = 'claimed' AND r.lease_until <= $1{where} "
        "ORDER BY r.lease_until LIMIT $2 FOR UPDATE OF r SKIP LOCKED",
        _lease_cutoff(now, orphaned),
        limit,
        *params,
    )
    if not rows:
        return [], []
    # Their tasks are locked in id order before any of them is touched.
    await conn.execute(
        "SELECT 1 FROM scheduled_tasks WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE",
        sorted({r["task_id"] for r in rows}),
    )
    claims: list[Claim] = []
    given_up: list[GivenUp] = []
    for expired in (run_from_row(r, POSTGRES) for r in rows):
        task_row = await execute(conn, owned_row(POSTGRES, expired.task_id, None))
        assert task_row is not None, "task_runs.task_id references scheduled_tasks"
        task = task_from_row(task_row, POSTGRES)
        plan = plan_reclaim(task, expired, now)
        if plan.action in (Reclaim.GIVE_UP, Reclaim.UNKNOWN):
            outcome = lost_outcome(plan.action, expired, now)
            given_up.append(await _give_up(conn, task, expired, outcome))
            continue
        await _abandon(conn, expired)
        if plan.action is Reclaim.SKIP:
            await _skip_retry(conn, task, expired, now, plan.late_by)
        else:
            claims.append(await _retry(conn, task, expired, now, lease, plan.late_by))
    return claims, given_up


async def any_expired(
    conn: PgConnection, now: datetime, scope: ChatScope, orphaned: bool = False
) -> bool:
    """Whether a claimed run (of a chat in ``scope``) saw its lease run out by ``now`` (or,
    ``orphaned``, whether any is claimed at all)."""
    where, params = scope_filter(scope, "t.chat_id", 2)
    found = await conn.fetchval(
        "SELECT EXISTS (SELECT 1 FROM task_runs AS r JOIN scheduled_tasks AS t "
        f"ON t.id = r.task_id WHERE r.status = 'claimed' AND r.lease_until <= $1{where})",
        _lease_cutoff(now, orphaned),
        *params,
    )
    return bool(found)


async def renew_leases(conn: PgConnection, run_ids: Sequence[int], until: datetime) -> set[int]:
    """Extend the leases of the runs still claimed to ``until``; return their ids."""
    rows = await conn.fetch(
        "UPDATE task_runs SET lease_until = greatest(lease_until, $1) "
        "WHERE status = 'claimed' AND id = ANY($2::bigint[]) RETURNING id",
        until,
        list(run_ids),
    )
    return {int(r["id"]) for r in rows}


async def claim_now(
    conn: PgConnection, task_id: str, owner_id: str, now: datetime, lease: timedelta
) -> Claim:
    """Claim an extra run of the task now (see the store)."""
    row = await execute(conn, owned_row(POSTGRES, task_id, owner_id, lock=True))
    if row is None:
        raise not_found(task_id)
    stored = task_from_row(row, POSTGRES)
    task = claimed_now(stored)
    if task is not stored:
        await execute(conn, store_state(POSTGRES, task))
    run = await _insert_run(
        conn, task.id, now, now, misfire=MisfireAction.MANUAL, lease_until=now + lease
    )
    return Claim(task, run)


async def count_due(conn: PgConnection, until: datetime, limit: int, scope: ChatScope) -> int:
    """How many enabled tasks (of chats in ``scope``) are due by ``until``, counting at most
    ``limit`` (a range of the due index)."""
    where, params = scope_filter(scope, "chat_id", 3)
    count = await conn.fetchval(
        "SELECT count(*) FROM (SELECT 1 FROM scheduled_tasks "
        f"WHERE enabled AND next_run <= $1{where} LIMIT $2) AS due",
        until,
        limit,
        *params,
    )
    return int(count)


def _lease_cutoff(now: datetime, orphaned: bool) -> datetime:
    """The lease expiry up to which claimed runs are reclaimed: ``now``, or every one."""
    return datetime.max.replace(tzinfo=UTC) if orphaned else now


async def count_overdue(conn: PgConnection, before: datetime, scope: ChatScope) -> int:
    """The enabled tasks (of chats in ``scope``) due before ``before`` (a range of the due
    index)."""
    where, params = scope_filter(scope, "chat_id", 2)
    count = await conn.fetchval(
        f"SELECT count(*) FROM scheduled_tasks WHERE enabled AND next_run < $1{where}",
        before,
        *params,
    )
    return int(count)


async def next_wakeup(conn: PgConnection, scope: ChatScope) -> datetime | None:
    """The earliest enabled next run or lease expiry of a chat in ``scope``."""
    tasks, task_params = scope_filter(scope, "chat_id", 1)
    leases, lease_params = scope_filter(scope, "t.chat_id", 1 + len(task_params))
    row = await conn.fetchrow(
        f"SELECT (SELECT min(next_run) FROM scheduled_tasks WHERE enabled{tasks}) AS task, "
        "(SELECT min(r.lease_until) FROM task_runs AS r JOIN scheduled_tasks AS t "
        f"ON t.id = r.task_id WHERE r.status = 'claimed'{leases}) AS lease",
        *task_params,
        *lease_params,
    )
    assert row is not None
    found: list[datetime] = [v for v in (row["task"], row["lease"]) if v is not None]
    return min(found, default=None)


async def _abandon(conn: PgConnection, expired: TaskRun) -> None:
    await conn.execute(
        "UPDATE task_runs SET status = 'abandoned', lease_until = NULL, error = $1 WHERE id = $2",
        LEASE_LOST_ERROR,
        expired.id,
    )


async def _skip_retry(
    conn: PgConnection, task: Task, expired: TaskRun, now: datetime, late_by: timedelta | None
) -> None:
    """Record the retry as skipped (misfire policy); a one-time task ends DONE."""
    await _insert_run(
        conn, task.id, expired.scheduled_for, now,
        misfire=MisfireAction.SKIPPED, late_by=late_by, attempt=2,
    )  # fmt: skip
    done = after_skipped_retry(task, now)
    if done is not task:
        await execute(conn, store_state(POSTGRES, done))


async def _retry(
    conn: PgConnection,
    task: Task,
    expired: TaskRun,
    now: datetime,
    lease: timedelta,
    late_by: timedelta | None,
) -> Claim:
    run = await _insert_run(
        conn, task.id, expired.scheduled_for, now,
        misfire=MisfireAction.RETRY, lease_until=now + lease, attempt=2, late_by=late_by,
    )  # fmt: skip
    return Claim(task, run)


async def _give_up(
    conn: PgConnection, task: Task, expired: TaskRun, outcome: RunOutcome
) -> GivenUp:
    await finish_runs(conn, [outcome], max_failures=None)
    row = await execute(conn, owned_row(POSTGRES, task.id, None))
    assert row is not None, "the task was read in this transaction"
    return GivenUp(task_from_row(row, POSTGRES), expired.ended(outcome))


async def _insert_run(
    conn: PgConnection,
    task_id: str,
    scheduled_for: datetime,
    now: datetime,
    *,
    misfire: MisfireAction,
    lease_until: datetime | None = None,
    attempt: int = 1,
    late_by: timedelta | None = None,
) -> TaskRun:
    """Insert one ledger row made by ``TaskRun.new`` and return it with its id."""
    run = TaskRun.new(
        0, task_id, scheduled_for, now,
        misfire=misfire, lease_until=lease_until, attempt=attempt, late_by=late_by,
    )  # fmt: skip
    run_id = await conn.fetchval(
        _INSERT_RUN,
        run.task_id, run.scheduled_for, run.claimed_at, run.lease_until, run.status.value,
        run.misfire.value, run.missed, seconds_opt(run.late_by), run.attempt, run.finished_at,
    )  # fmt: skip
    return replace(run, id=int(run_id))


@dataclass
class _ClaimBatch:
    """The ledger rows and task updates of one claim transaction."""

    now: datetime
    lease_until: datetime
    # Ledger rows, column by column (the parameters of ``_WRITE_CLAIMS``).
    task_ids: list[str] = field(default_factory=list)
    scheduled: list[datetime] = field(default_factory=list)
    leases: list[datetime | None] = field(default_factory=list)
    statuses: list[str] = field(default_factory=list)
    misfires: list[str] = field(default_factory=list)
    missed: list[int] = field(default_factory=list)
    late: list[float | None] = field(default_factory=list)
    finished: list[datetime | None] = field(default_factory=list)
    # Task updates and the claims to return, by ledger row index.
    updates: list[tuple[str, str, datetime | None]] = field(default_factory=list)
    pending: list[tuple[int, Task, ClaimPlan]] = field(default_factory=list)

    def add(self, row: Row, status: TaskStatus, plan: ClaimPlan) -> None:
        """Add the rows for ``plan`` of the task in ``row``."""
        task_id: str = row["id"]
        self.updates.append((task_id, status.value, plan.next_run))
        if plan.skipped_from is not None:
            late = (self.now - plan.skipped_from).total_seconds()
            self._row(task_id, plan.skipped_from, None, RunStatus.SKIPPED,
                      MisfireAction.SKIPPED, plan.skipped - 1, late, self.now)  # fmt: skip
        if plan.run_for is None:
            return
        index = len(self.task_ids)
        self._row(task_id, plan.run_for, self.lease_until, RunStatus.CLAIMED, plan.action,
                  plan.missed, seconds_opt(plan.late_by), None)  # fmt: skip
        finished_at = self.now if status is TaskStatus.DONE else None
        task = task_from_row(
            row, POSTGRES, status=status, next_run=plan.next_run, finished_at=finished_at
        )
        self.pending.append((index, task, plan))

    def parameters(self) -> tuple[Any, ...]:
        """The parameters of ``_WRITE_CLAIMS``."""
        ids, statuses, next_runs = (list(c) for c in zip(*self.updates, strict=True))
        return (
            self.task_ids, self.scheduled, self.leases, self.statuses, self.misfires,
            self.missed, self.late, self.finished, self.now, ids, statuses, next_runs,
        )  # fmt: skip

    def claims(self, run_ids: Sequence[int]) -> list[Claim]:
        """The claimed runs, now that the ledger rows have their ids."""
        return [
            Claim(
                task,
                TaskRun(
                    id=int(run_ids[index]),
                    task_id=task.id,
                    scheduled_for=self.scheduled[index],
                    claimed_at=self.now,
                    status=RunStatus.CLAIMED,
                    misfire=plan.action,
                    missed=plan.missed,
                    late_by=plan.late_by,
                    lease_until=self.lease_until,
                ),
            )
            for index, task, plan in self.pending
        ]

    def _row(
        self,
        task_id: str,
        scheduled: datetime,
        lease_until: datetime | None,
        status: RunStatus,
        misfire: MisfireAction,
        missed: int,
        late: float | None,
        finished: datetime | None,
    ) -> None:
        self.task_ids.append(task_id)
        self.scheduled.append(scheduled)
        self.leases.append(lease_until)
        self.statuses.append(status.value)
        self.misfires.append(misfire.value)
        self.missed.append(missed)
        self.late.append(late)
        self.finished.append(finished)

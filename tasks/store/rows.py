"""The task tables' rows, columns and errors, shared by the SQLite and PostgreSQL stores.

Both databases hold the same three tables with the same columns; only the column types
differ (instants are SQLite text or PostgreSQL ``timestamptz``, read back through the store's
``Dialect``). Rows are read by position: ``sqlite3``'s tuples and ``asyncpg``'s records
both index by number. Stored schedules, execution data and misfire rules are parsed once per
distinct text (they are immutable values).
"""

from __future__ import annotations

import functools
import sys
from datetime import datetime, timedelta
from typing import Any, Literal, TypeAlias

from tasks.errors import TaskError
from tasks.execution import (
    ExecutionData,
    TaskType,
    execution_from_json,
    execution_to_json,
    parse_task_type,
)
from tasks.models import (
    LedgerSummary,
    MisfireAction,
    MisfirePolicy,
    MisfireRule,
    OwnerSummary,
    RunStatus,
    Task,
    TaskDraft,
    TaskRun,
    TaskStatus,
)
from tasks.schedule.model import Schedule
from tasks.schedule.stored import schedule_from_json
from tasks.store.dialect import Dialect
from tasks.store.retention import LedgerRow, counts_from_json, counts_json

COMPONENT = "tasks"
"""The task tables' row in ``schema_versions``."""

Row: TypeAlias = Any
"""A row as the database driver returns it (a tuple, an ``asyncpg.Record``): by position."""

TASK_COLUMNS = (
    "id, owner_id, chat_id, task_type, description, schedule, execution_data, status, "
    "misfire_policy, misfire_grace, created_at, next_run, last_run, run_count, "
    "consecutive_failures, status_reason, finished_at"
)
RUN_COLUMNS = (
    "id, task_id, scheduled_for, claimed_at, status, misfire, attempt, missed, late_by, "
    "lease_until, started_at, finished_at, result, error"
)
SUMMARY_COLUMNS = (
    "task_id, runs, counts, first_scheduled, last_scheduled, late_runs, max_late_by, last_run_id,"
    " last_status, last_failure, last_failure_at"
)
OWNER_SUMMARY_COLUMNS = (
    "owner_id, tasks, runs, counts, last_scheduled, last_status, last_failure, last_failure_at,"
    " last_failure_task"
)
LEDGER_COLUMNS = "id, status, scheduled_for, late_by, claimed_at, error"
"""What compaction reads of a ledger row (``ledger_row``)."""


class TaskStoreError(TaskError):
    """The task database failed (locked past the busy timeout, disk full, unreachable)."""


class SchemaError(TaskError):
    """The database holds a task schema this program cannot use."""


def seconds_opt(span: timedelta | None) -> float | None:
    """Return ``span`` in seconds, passing ``None`` through."""
    return None if span is None else span.total_seconds()


def span_opt(seconds: float | None) -> timedelta | None:
    """Read back a span stored by ``seconds_opt``."""
    return None if seconds is None else timedelta(seconds=seconds)


@functools.lru_cache(maxsize=4096)
def cached_schedule(text: str) -> Schedule:
    """Parse a stored schedule; schedules are immutable values, so equal texts share one."""
    return schedule_from_json(text)


@functools.lru_cache(maxsize=4096)
def cached_execution(task_type: str, text: str) -> ExecutionData:
    """Parse stored execution data; the models are frozen, so equal texts share one."""
    return execution_from_json(parse_task_type(task_type), text)


@functools.lru_cache(maxsize=256)
def cached_rule(policy: str, grace_seconds: float) -> MisfireRule:
    """Build a stored misfire rule (a handful of distinct values)."""
    return MisfireRule(MisfirePolicy(policy), timedelta(seconds=grace_seconds))


def draft_values(draft: TaskDraft, dialect: Dialect) -> tuple[Any, ...]:
    """The columns a new task stores from ``draft``: owner_id, chat_id, task_type,
    description, schedule, execution_data, misfire_policy, misfire_grace, created_at and
    next_run."""
    return (
        draft.owner_id,
        draft.chat_id,
        draft.task_type.value,
        draft.description,
        draft.schedule.to_json(),
        execution_to_json(draft.execution),
        draft.misfire.policy.value,
        draft.misfire.grace.total_seconds(),
        dialect.time(draft.created_at),
        dialect.time_opt(draft.next_run),
    )


def task_from_row(
    row: Row,
    dialect: Dialect,
    *,
    status: TaskStatus | None = None,
    next_run: datetime | Literal["stored"] | None = "stored",
    finished_at: datetime | Literal["stored"] | None = "stored",
) -> Task:
    """Build a ``Task`` from a row selected with ``TASK_COLUMNS``.

    ``status``, ``next_run`` and ``finished_at`` replace the stored values (a claim builds
    the claimed task directly instead of copying it). Owner and chat ids are interned: a
    burst holds thousands of claimed tasks of a few users.
    """
    return Task(
        id=row[0],
        owner_id=sys.intern(row[1]),
        chat_id=sys.intern(row[2]),
        task_type=TaskType(row[3]),
        description=row[4],
        schedule=cached_schedule(row[5]),
        execution=cached_execution(row[3], row[6]),
        status=TaskStatus(row[7]) if status is None else status,
        misfire=cached_rule(row[8], row[9]),
        created_at=dialect.read_shared_time(row[10]),
        next_run=dialect.read_time_opt(row[11]) if next_run == "stored" else next_run,
        last_run=dialect.read_time_opt(row[12]),
        run_count=row[13],
        consecutive_failures=row[14],
        status_reason=row[15],
        finished_at=dialect.read_time_opt(row[16]) if finished_at == "stored" else finished_at,
    )


def run_from_row(row: Row, dialect: Dialect) -> TaskRun:
    """Build a ``TaskRun`` from a row selected with ``RUN_COLUMNS``."""
    return TaskRun(
        id=row[0],
        task_id=row[1],
        scheduled_for=dialect.read_time(row[2]),
        claimed_at=dialect.read_time(row[3]),
        status=RunStatus(row[4]),
        misfire=MisfireAction(row[5]),
        attempt=row[6],
        missed=row[7],
        late_by=span_opt(row[8]),
        lease_until=dialect.read_time_opt(row[9]),
        started_at=dialect.read_time_opt(row[10]),
        finished_at=dialect.read_time_opt(row[11]),
        result=row[12],
        error=row[13],
    )


def summary_from_row(row: Row, dialect: Dialect) -> LedgerSummary:
    """Build a ``LedgerSummary`` from a row selected with ``SUMMARY_COLUMNS``."""
    return LedgerSummary(
        task_id=row[0],
        runs=int(row[1]),
        counts=counts_from_json(row[2]),
        first_scheduled=dialect.read_time_opt(row[3]),
        last_scheduled=dialect.read_time_opt(row[4]),
        late_runs=int(row[5]),
        max_late_by=span_opt(row[6]),
        last_run_id=int(row[7]),
        last_status=None if row[8] is None else RunStatus(row[8]),
        last_failure=row[9],
        last_failure_at=dialect.read_time_opt(row[10]),
    )


def summary_values(summary: LedgerSummary, dialect: Dialect) -> tuple[Any, ...]:
    """A summary as stored, in the order of ``SUMMARY_COLUMNS``."""
    return (
        summary.task_id, summary.runs, counts_json(summary),
        dialect.time_opt(summary.first_scheduled), dialect.time_opt(summary.last_scheduled),
        summary.late_runs, seconds_opt(summary.max_late_by), summary.last_run_id,
        None if summary.last_status is None else summary.last_status.value,
        summary.last_failure, dialect.time_opt(summary.last_failure_at),
    )  # fmt: skip


def owner_summary_from_row(row: Row, dialect: Dialect) -> OwnerSummary:
    """Build an ``OwnerSummary`` from a row selected with ``OWNER_SUMMARY_COLUMNS``."""
    return OwnerSummary(
        owner_id=row[0],
        tasks=int(row[1]),
        runs=int(row[2]),
        counts=counts_from_json(row[3]),
        last_scheduled=dialect.read_time_opt(row[4]),
        last_status=None if row[5] is None else RunStatus(row[5]),
        last_failure=row[6],
        last_failure_at=dialect.read_time_opt(row[7]),
        last_failure_task=row[8],
    )


def owner_summary_values(summary: OwnerSummary, dialect: Dialect) -> tuple[Any, ...]:
    """An owner's summary as stored, in the order of ``OWNER_SUMMARY_COLUMNS``."""
    return (
        summary.owner_id, summary.tasks, summary.runs, counts_json(summary),
        dialect.time_opt(summary.last_scheduled),
        None if summary.last_status is None else summary.last_status.value,
        summary.last_failure, dialect.time_opt(summary.last_failure_at),
        summary.last_failure_task,
    )  # fmt: skip


def ledger_row(row: Row, dialect: Dialect) -> LedgerRow:
    """What compaction needs of a row selected with ``LEDGER_COLUMNS``."""
    return LedgerRow(
        int(row[0]),
        row[1],
        dialect.read_time(row[2]),
        span_opt(row[3]),
        dialect.read_time(row[4]),
        row[5],
    )

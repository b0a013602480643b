"""The task tables in SQLite, their migrations, and the row <-> value conversions.

Instants are stored as fixed-width UTC ISO 8601 text (``2026-03-01T09:00:00.000000+00:00``),
which sorts like the instants it names, so ``next_run`` is indexable and ``WHERE next_run = ?``
compares exactly. Durations are REAL seconds. The version lives in ``schema_versions`` (shared
with the other packages, one row per component); ``migrate`` runs ``MIGRATIONS`` through the
runner in ``common.sqlite``.
"""

from __future__ import annotations

import functools
import sqlite3
import sys
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any, Literal

from common import to_db_time
from tasks.errors import TaskError
from tasks.execution import (
    ExecutionData,
    TaskType,
    execution_from_json,
    execution_to_json,
    parse_task_type,
)
from tasks.models import (
    MisfireAction,
    MisfirePolicy,
    MisfireRule,
    RunStatus,
    Task,
    TaskDraft,
    TaskRun,
    TaskStatus,
)
from tasks.schedule.model import Schedule
from tasks.schedule.stored import schedule_from_json
from tasks.store.sqlite.db import TaskDatabase

COMPONENT = "tasks"

_V1 = (
    """CREATE TABLE scheduled_tasks (
        id TEXT PRIMARY KEY,
        owner_id TEXT NOT NULL,
        chat_id TEXT NOT NULL,
        task_type TEXT NOT NULL,
        description TEXT NOT NULL,
        schedule TEXT NOT NULL,
        execution_data TEXT NOT NULL,
        status TEXT NOT NULL,
        enabled INTEGER NOT NULL,
        misfire_policy TEXT NOT NULL,
        misfire_grace REAL NOT NULL,
        created_at TEXT NOT NULL,
        next_run TEXT,
        last_run TEXT,
        run_count INTEGER NOT NULL DEFAULT 0,
        consecutive_failures INTEGER NOT NULL DEFAULT 0,
        status_reason TEXT
    )""",
    "CREATE INDEX scheduled_tasks_due ON scheduled_tasks (next_run) WHERE enabled = 1",
    "CREATE INDEX scheduled_tasks_by_owner ON scheduled_tasks (owner_id)",
    """CREATE TABLE task_runs (
        id INTEGER PRIMARY KEY,
        task_id TEXT NOT NULL REFERENCES scheduled_tasks (id),
        scheduled_for TEXT NOT NULL,
        claimed_at TEXT NOT NULL,
        started_at TEXT,
        finished_at TEXT,
        lease_until TEXT,
        status TEXT NOT NULL,
        misfire TEXT NOT NULL,
        missed INTEGER NOT NULL DEFAULT 0,
        late_by REAL,
        attempt INTEGER NOT NULL DEFAULT 1,
        result TEXT,
        error TEXT
    )""",
    "CREATE INDEX task_runs_by_task ON task_runs (task_id, id)",
    "CREATE INDEX task_runs_leases ON task_runs (lease_until) WHERE status = 'claimed'",
)

# Version 2: the summaries that compacted ledger rows are folded into (one row per task).
_V2 = (
    """CREATE TABLE task_run_summaries (
        task_id TEXT PRIMARY KEY REFERENCES scheduled_tasks (id),
        runs INTEGER NOT NULL,
        counts TEXT NOT NULL,
        first_scheduled TEXT,
        last_scheduled TEXT,
        late_runs INTEGER NOT NULL,
        max_late_by REAL,
        last_run_id INTEGER NOT NULL
    )""",
)

MIGRATIONS: tuple[tuple[str, ...], ...] = (_V1, _V2)
"""Statement lists; entry ``i`` moves the schema from version ``i`` to ``i + 1``."""

SCHEMA_VERSION = len(MIGRATIONS)

TASK_COLUMNS = (
    "id, owner_id, chat_id, task_type, description, schedule, execution_data, status, "
    "misfire_policy, misfire_grace, created_at, next_run, last_run, run_count, "
    "consecutive_failures, status_reason"
)
RUN_COLUMNS = (
    "id, task_id, scheduled_for, claimed_at, status, misfire, attempt, missed, late_by, "
    "lease_until, started_at, finished_at, result, error"
)


class SchemaError(TaskError):
    """The database holds a task schema this program cannot use."""


async def migrate(db: TaskDatabase) -> int:
    """Bring the task tables up to ``SCHEMA_VERSION``; return the version found before.

    Raises:
        SchemaError: when the file holds a newer task schema than this program knows.
        TaskStoreError: when SQLite fails.
    """
    return await db.migrate(component=COMPONENT, migrations=MIGRATIONS, error=SchemaError)


def to_db_opt(instant: datetime | None) -> str | None:
    """Like ``to_db_time``, passing ``None`` through."""
    return None if instant is None else to_db_time(instant)


def from_db(text: str | None) -> datetime | None:
    """Read back an instant stored by ``to_db_time``, passing ``None`` through."""
    return None if text is None else datetime.fromisoformat(text)


def seconds_opt(span: timedelta | None) -> float | None:
    """Return ``span`` in seconds, passing ``None`` through."""
    return None if span is None else span.total_seconds()


@functools.lru_cache(maxsize=4096)
def cached_schedule(text: str) -> Schedule:
    """Parse a stored schedule; schedules are immutable values, so equal texts share one."""
    return schedule_from_json(text)


@functools.lru_cache(maxsize=4096)
def cached_execution(task_type: str, text: str) -> ExecutionData:
    """Parse stored execution data; the models are frozen, so equal texts share one."""
    return execution_from_json(parse_task_type(task_type), text)


@functools.lru_cache(maxsize=4096)
def cached_instant(text: str) -> datetime:
    """Read a stored instant; many rows of a burst share one, and so share one object."""
    return datetime.fromisoformat(text)


@functools.lru_cache(maxsize=256)
def cached_rule(policy: str, grace_seconds: float) -> MisfireRule:
    """Build a stored misfire rule (a handful of distinct values)."""
    return MisfireRule(MisfirePolicy(policy), timedelta(seconds=grace_seconds))


def draft_values(
    draft: TaskDraft, instant: Callable[[datetime], Any] = to_db_time
) -> tuple[Any, ...]:
    """The columns a new task stores from ``draft``: owner_id, chat_id, task_type,
    description, schedule, execution_data, misfire_policy, misfire_grace, created_at and
    next_run, the two instants as ``instant`` stores them (SQLite's text by default)."""
    return (
        draft.owner_id,
        draft.chat_id,
        draft.task_type.value,
        draft.description,
        draft.schedule.to_json(),
        execution_to_json(draft.execution),
        draft.misfire.policy.value,
        draft.misfire.grace.total_seconds(),
        instant(draft.created_at),
        instant(draft.next_run),
    )


def task_from_row(
    row: sqlite3.Row | tuple[Any, ...],
    *,
    status: TaskStatus | None = None,
    next_run: datetime | Literal["stored"] | None = "stored",
) -> Task:
    """Build a ``Task`` from a row selected with ``TASK_COLUMNS``.

    ``status`` and ``next_run`` replace the stored values (a claim builds the claimed task
    directly instead of copying it). Owner and chat ids are interned: a burst holds
    thousands of claimed tasks of a few users.
    """
    execution = cached_execution(row[3], row[6])
    created_at = cached_instant(row[10])
    return Task(
        id=row[0],
        owner_id=sys.intern(row[1]),
        chat_id=sys.intern(row[2]),
        task_type=TaskType(row[3]),
        description=row[4],
        schedule=cached_schedule(row[5]),
        execution=execution,
        status=TaskStatus(row[7]) if status is None else status,
        misfire=cached_rule(row[8], row[9]),
        created_at=created_at,
        next_run=from_db(row[11]) if next_run == "stored" else next_run,
        last_run=from_db(row[12]),
        run_count=row[13],
        consecutive_failures=row[14],
        status_reason=row[15],
    )


def run_from_row(row: sqlite3.Row | tuple[Any, ...]) -> TaskRun:
    """Build a ``TaskRun`` from a row selected with ``RUN_COLUMNS``."""
    scheduled_for, claimed_at = from_db(row[2]), from_db(row[3])
    assert scheduled_for is not None and claimed_at is not None
    return TaskRun(
        id=row[0],
        task_id=row[1],
        scheduled_for=scheduled_for,
        claimed_at=claimed_at,
        status=RunStatus(row[4]),
        misfire=MisfireAction(row[5]),
        attempt=row[6],
        missed=row[7],
        late_by=None if row[8] is None else timedelta(seconds=row[8]),
        lease_until=from_db(row[9]),
        started_at=from_db(row[10]),
        finished_at=from_db(row[11]),
        result=row[12],
        error=row[13],
    )

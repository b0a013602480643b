"""The task tables in SQLite and their migrations.

Instants are stored as fixed-width UTC ISO 8601 text (``2026-03-01T09:00:00.000000+00:00``,
see ``dialect``), durations as REAL seconds. The columns and the row <-> value conversions
are the ones both databases share (``tasks.store.rows``). The version lives in
``schema_versions`` (shared with the other packages, one row per component); ``migrate`` runs
``MIGRATIONS`` through the runner in ``common.sqlite``.
"""

from __future__ import annotations

from tasks.store.rows import COMPONENT, SchemaError
from tasks.store.sqlite.db import TaskDatabase

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

# Version 3 (issue 29): a summary keeps how its newest run ended and its newest failure;
# finished tasks past the retention age are removed into one summary per owner, found through
# an index of finished tasks by their last activity.
_V3 = (
    "ALTER TABLE task_run_summaries ADD COLUMN last_status TEXT",
    "ALTER TABLE task_run_summaries ADD COLUMN last_failure TEXT",
    "ALTER TABLE task_run_summaries ADD COLUMN last_failure_at TEXT",
    """CREATE TABLE task_owner_summaries (
        owner_id TEXT PRIMARY KEY,
        tasks INTEGER NOT NULL,
        runs INTEGER NOT NULL,
        counts TEXT NOT NULL,
        last_scheduled TEXT,
        last_status TEXT,
        last_failure TEXT,
        last_failure_at TEXT,
        last_failure_task TEXT
    )""",
    "CREATE INDEX scheduled_tasks_finished ON scheduled_tasks (coalesce(last_run, created_at))"
    " WHERE status IN ('done', 'cancelled')",
)

# Version 4 (the issue-29 review). Run ids are never reused: retention deletes ledger rows,
# and without AUTOINCREMENT a new row took the id of a deleted newest one, so a held "Later"
# message of a removed task could act on another task's run. The table is rebuilt with
# AUTOINCREMENT (SQLite keeps the highest id ever used in ``sqlite_sequence``), starting
# above every id still named anywhere: the rows kept and the summaries of folded rows.
# A task keeps when it finished (``finished_at``), and finished tasks are found by it for
# removal; a task finished before this version gets its best known time: a done task its
# last run, any other (a cancellation, a skipped one-time run, whose time was not kept) the
# time of the upgrade, so none is removed sooner than the retention age after it finished.
# A run records its start before a request that must not be sent twice goes out; a run
# still claimed by an older version, which did not, counts as started (it may have acted).
_RUN_COLUMNS_V1 = (
    "id, task_id, scheduled_for, claimed_at, started_at, finished_at, lease_until, status, "
    "misfire, missed, late_by, attempt, result, error"
)
_V4 = (
    """CREATE TABLE task_runs_v4 (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
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
    f"INSERT INTO task_runs_v4 ({_RUN_COLUMNS_V1}) SELECT {_RUN_COLUMNS_V1} FROM task_runs",
    "DROP TABLE task_runs",
    "ALTER TABLE task_runs_v4 RENAME TO task_runs",
    "CREATE INDEX task_runs_by_task ON task_runs (task_id, id)",
    "CREATE INDEX task_runs_leases ON task_runs (lease_until) WHERE status = 'claimed'",
    "INSERT INTO sqlite_sequence (name, seq) SELECT 'task_runs', 0"
    " WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'task_runs')",
    "UPDATE sqlite_sequence SET seq = max(seq, (SELECT coalesce(max(last_run_id), 0)"
    " FROM task_run_summaries)) WHERE name = 'task_runs'",
    "ALTER TABLE scheduled_tasks ADD COLUMN finished_at TEXT",
    "UPDATE scheduled_tasks SET finished_at = CASE WHEN status = 'done' AND last_run IS NOT NULL"
    " THEN last_run ELSE strftime('%Y-%m-%dT%H:%M:%f', 'now') || '000+00:00' END"
    " WHERE status IN ('done', 'cancelled')",
    "DROP INDEX scheduled_tasks_finished",
    "CREATE INDEX scheduled_tasks_finished ON scheduled_tasks (finished_at)"
    " WHERE status IN ('done', 'cancelled')",
    "UPDATE task_runs SET started_at = claimed_at WHERE status = 'claimed' AND started_at IS NULL",
)

MIGRATIONS: tuple[tuple[str, ...], ...] = (_V1, _V2, _V3, _V4)
"""Statement lists; entry ``i`` moves the schema from version ``i`` to ``i + 1``."""

SCHEMA_VERSION = len(MIGRATIONS)


async def migrate(db: TaskDatabase) -> int:
    """Bring the task tables up to ``SCHEMA_VERSION``; return the version found before.

    Raises:
        SchemaError: when the file holds a newer task schema than this program knows.
        TaskStoreError: when SQLite fails.
    """
    return await db.migrate(component=COMPONENT, migrations=MIGRATIONS, error=SchemaError)

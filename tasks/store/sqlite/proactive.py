"""The proactive features' tables in SQLite (their own ``schema_versions`` component), and how
the SQLite store takes the held deliveries that are due.

One write transaction holds the whole file, so taking due deliveries needs no row locks: the
select and the lease written in one ``BEGIN IMMEDIATE`` are atomic against any other
connection.
"""

from __future__ import annotations

from tasks.store.proactive import COMPONENT
from tasks.store.rows import SchemaError
from tasks.store.sqlite.db import TaskDatabase

_V1 = (
    """CREATE TABLE monitor_observations (
        task_id TEXT PRIMARY KEY REFERENCES scheduled_tasks (id),
        value TEXT NOT NULL,
        observed_at TEXT NOT NULL,
        changed_at TEXT NOT NULL,
        holds INTEGER,
        pending TEXT,
        checks INTEGER NOT NULL,
        changes INTEGER NOT NULL
    )""",
    """CREATE TABLE held_deliveries (
        id INTEGER PRIMARY KEY,
        task_id TEXT NOT NULL,
        run_id INTEGER,
        owner_id TEXT NOT NULL,
        chat_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        text TEXT NOT NULL,
        late_by REAL,
        run_again INTEGER NOT NULL,
        nags INTEGER NOT NULL,
        reason TEXT NOT NULL,
        held_at TEXT NOT NULL,
        release_at TEXT NOT NULL,
        lease_until TEXT,
        repeats INTEGER NOT NULL DEFAULT 0,
        zone TEXT NOT NULL
    )""",
    "CREATE INDEX held_deliveries_due ON held_deliveries (release_at)",
    "CREATE INDEX held_deliveries_by_owner ON held_deliveries (owner_id, id)",
    "CREATE INDEX held_deliveries_by_task ON held_deliveries (task_id, reason)",
    "CREATE INDEX monitor_observations_changed ON monitor_observations (changed_at)",
    # A task's acknowledgements, newest first, without reading its other runs.
    "CREATE INDEX task_runs_acknowledged ON task_runs (task_id, id) WHERE status = 'acknowledged'",
)

MIGRATIONS: tuple[tuple[str, ...], ...] = (_V1,)
"""Statement lists; entry ``i`` moves the schema from version ``i`` to ``i + 1``."""


async def migrate(db: TaskDatabase) -> int:
    """Bring the proactive tables up to date; return the version found before.

    Raises:
        SchemaError: when the file holds a newer schema of them than this program knows.
    """
    return await db.migrate(component=COMPONENT, migrations=MIGRATIONS, error=SchemaError)

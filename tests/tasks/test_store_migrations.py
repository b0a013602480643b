"""Task databases written by an older version of the program, opened by this one.

A database of the previous schema version is built with that version's own migrations and
filled with rows as that version wrote them; opening the store migrates it.
"""

from __future__ import annotations

import sqlite3
from datetime import timedelta
from pathlib import Path

from common import to_db_time
from tasks import RunStatus, SqliteTaskStore
from tasks.store.sqlite import MIGRATIONS, TaskDatabase
from tests.tasks.conftest import T0, once_at

LEASE = timedelta(minutes=2)
MINUTE = timedelta(minutes=1)
V3 = MIGRATIONS[:3]
_TASK_V3 = (
    "INSERT INTO scheduled_tasks (id, owner_id, chat_id, task_type, description, schedule, "
    "execution_data, status, enabled, misfire_policy, misfire_grace, created_at, next_run, "
    "last_run) VALUES (?, 'alice', 'chat-alice', 'reminder', ?, ?, '{\"message\": \"call mom\"}', ?, "
    "?, 'run_late', 60, ?, ?, ?)"
)
_RUN_V3 = (
    "INSERT INTO task_runs (id, task_id, scheduled_for, claimed_at, started_at, finished_at, "
    "status, misfire) VALUES (?, ?, ?, ?, ?, ?, ?, 'on_time')"
)


def task_row(
    task_id: str, status: str, *, next_run: str | None, last_run: str | None
) -> tuple[str | int | None, ...]:
    """A one-time reminder's row as version 3 wrote it (created at T0, due at T0)."""
    return (
        task_id, f"reminder {task_id}", once_at(T0).to_json(), status,
        int(status == "active"), to_db_time(T0), next_run, last_run,
    )  # fmt: skip


async def build_v3(path: Path, fill: list[tuple[str, tuple[object, ...]]]) -> None:
    """A version 3 task database at ``path`` holding the rows ``fill`` inserts."""
    db = TaskDatabase(path, busy_ms=1000)
    await db.open()
    try:
        await db.migrate(component="tasks", migrations=V3, error=RuntimeError)

        def insert(conn: sqlite3.Connection) -> None:
            for sql, params in fill:
                conn.execute(sql, params)

        await db.write(insert)
    finally:
        await db.close()


async def test_sqlite_run_ids_continue_above_every_id_an_older_file_used(tmp_path: Path) -> None:
    # Version 3 reused the id of a deleted newest row; the rows up to 7 of task "folded"
    # were folded into its summary and deleted, and only runs 1 and 2 are left.
    path = tmp_path / "assistant.db"
    t0 = to_db_time(T0)
    await build_v3(
        path,
        [
            (_TASK_V3, task_row("kept01", "done", next_run=None, last_run=t0)),
            (_TASK_V3, task_row("folded", "done", next_run=None, last_run=t0)),
            (_TASK_V3, task_row("due001", "active", next_run=t0, last_run=None)),
            (_RUN_V3, (1, "kept01", t0, t0, t0, t0, "succeeded")),
            (_RUN_V3, (2, "folded", t0, t0, t0, t0, "succeeded")),
            (
                "INSERT INTO task_run_summaries (task_id, runs, counts, late_runs, last_run_id)"
                " VALUES ('folded', 5, '{\"succeeded\": 5}', 0, 7)",
                (),
            ),
        ],
    )

    async with SqliteTaskStore(path) as store:
        (kept,) = await store.history("kept01", "alice")
        (claim,) = await store.claim_due(T0, limit=10, lease=LEASE)

    assert kept.id == 1 and kept.status is RunStatus.SUCCEEDED
    assert claim.task.id == "due001" and claim.run.id == 8

"""Task databases written by an older version of the program, opened by this one.

A database of the previous schema version is built with that version's own migrations and
filled with rows as that version wrote them; opening the store migrates it.
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

from common import PgConnection, PostgresDatabase, PostgresFailures, to_db_time
from tasks import PostgresTaskStore, RunStatus, SqliteTaskStore, TaskStatus, TaskStoreError
from tasks.store import TaskStore
from tasks.store.postgres import MIGRATIONS as POSTGRES_MIGRATIONS
from tasks.store.sqlite import MIGRATIONS, TaskDatabase
from tests.tasks.conftest import T0, once_at

LEASE = timedelta(minutes=2)
MINUTE = timedelta(minutes=1)
HOUR = timedelta(hours=1)
V3 = MIGRATIONS[:3]
_TASK_V3 = (
    "INSERT INTO scheduled_tasks (id, owner_id, chat_id, task_type, description, schedule, "
    "execution_data, status, enabled, misfire_policy, misfire_grace, created_at, next_run, "
    "last_run) VALUES (?, 'alice', 'chat-alice', 'reminder', ?, ?, '{\"message\": \"call mom\"}', ?, "
    "?, 'run_late', 60, ?, ?, ?)"
)
_CLAIMED_V3 = (
    "INSERT INTO task_runs (id, task_id, scheduled_for, claimed_at, started_at, finished_at, "
    "status, misfire, lease_until) VALUES (?, ?, ?, ?, ?, ?, ?, 'on_time', ?)"
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


# Version 3 rows of the finished-at migration: a task cancelled (when was not kept), one done
# by its run an hour in, one done without a run (a skipped one-time run), one still due.
FINISHED_V3 = (
    ("cancel", "cancelled", None, None),
    ("ran001", "done", None, T0 + HOUR),
    ("skip01", "done", None, None),
    ("due001", "active", T0, None),
)


async def check_upgrade(store: TaskStore, *, clock_skew: timedelta) -> None:
    """Open ``store`` on the version 3 rows of ``FINISHED_V3`` and check what the upgrade
    made of them. A finished task gets its best known finish time: a done one its last run,
    any other the time of the upgrade (the database's clock, read within ``clock_skew``). A
    run still claimed by the old version counts as started (it may have acted)."""
    before = datetime.now(UTC) - clock_skew
    async with store:
        after = datetime.now(UTC) + clock_skew
        finished: dict[str, datetime | None] = {}
        for task_id, status, _, _ in FINISHED_V3:
            task = await store.get_task(task_id)
            assert task is not None and task.status is TaskStatus(status)
            finished[task_id] = task.finished_at
        removal = await store.remove_finished(before=T0 + 2 * HOUR, max_tasks=10, max_rows=10)
        (in_flight,) = await store.history("cancel", "alice")

    assert finished["ran001"] == T0 + HOUR and finished["due001"] is None
    for unknown in ("cancel", "skip01"):
        when = finished[unknown]
        assert when is not None and before <= when <= after
    assert removal.tasks == 1  # the one done an hour in; the others finished at the upgrade
    assert in_flight.started_at == T0


async def test_sqlite_finished_tasks_get_their_best_known_finish_time(tmp_path: Path) -> None:
    path = tmp_path / "assistant.db"
    rows = [
        (
            _TASK_V3,
            task_row(
                task_id, status, next_run=None if due is None else to_db_time(due),
                last_run=None if ran is None else to_db_time(ran),
            ),
        )
        for task_id, status, due, ran in FINISHED_V3
    ]  # fmt: skip
    t0 = to_db_time(T0)
    await build_v3(path, [*rows, (_CLAIMED_V3, (5, "cancel", t0, t0, None, None, "claimed", t0))])

    await check_upgrade(SqliteTaskStore(path), clock_skew=timedelta(milliseconds=1))


async def test_postgres_finished_tasks_get_their_best_known_finish_time(postgres_url: str) -> None:
    failures = PostgresFailures("the task database", TaskStoreError, TaskStoreError)
    db = PostgresDatabase(postgres_url, failures=failures)
    await db.open()
    try:
        await db.migrate(
            component="tasks", migrations=POSTGRES_MIGRATIONS[:3], error=TaskStoreError
        )

        async def insert(conn: PgConnection) -> None:
            for task_id, status, due, ran in FINISHED_V3:
                await conn.execute(
                    "INSERT INTO scheduled_tasks (id, owner_id, chat_id, task_type, description,"
                    " schedule, execution_data, status, enabled, misfire_policy, misfire_grace,"
                    " created_at, next_run, last_run) VALUES ($1, 'alice', 'chat-alice',"
                    " 'reminder', $2, $3, '{\"message\": \"call mom\"}', $4, $5, 'run_late', 60,"
                    " $6, $7, $8)",
                    task_id, f"reminder {task_id}", once_at(T0).to_json(), status,
                    status == "active", T0, due, ran,
                )  # fmt: skip
            await conn.execute(
                "INSERT INTO task_runs (task_id, scheduled_for, claimed_at, lease_until, status,"
                " misfire) VALUES ('cancel', $1, $1, $1, 'claimed', 'on_time')",
                T0,
            )

        await db.write(insert)
    finally:
        await db.close()

    await check_upgrade(PostgresTaskStore(postgres_url), clock_skew=timedelta(seconds=1))

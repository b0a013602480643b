"""The run ledger before and after compaction (issue 24, item 8).

Run with ``.venv/bin/python -m bench.ledger`` (``--tasks 200 --days 2``). A SQLite file gets
``--tasks`` tasks that ran every minute for ``--days`` days (1,440 ledger rows per task and
day, written straight into the table: this measures compaction, not the scheduler), then
``LedgerRetention`` rounds run until a pass is complete, with the default policy (rows
older than a day are folded, each task's newest 100 are kept, 1,000 rows a round). Printed: the
rows and the file's size before and after (after VACUUM, which gives the freed pages back),
and how long a round of 1,000 rows takes (p50 / p99 / max), which is what a scheduler pays per
round while it runs.
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import statistics
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from common import ManualClock, to_db_time
from tasks import (
    DEFAULT_MISFIRE_RULES,
    IntervalSchedule,
    LedgerPolicy,
    ReminderData,
    SqliteTaskStore,
    TaskDraft,
    TaskType,
)
from tasks.engine import LedgerRetention

START = datetime(2026, 3, 1, tzinfo=UTC)
MINUTE = timedelta(minutes=1)


def _draft(number: int) -> TaskDraft:
    schedule = IntervalSchedule(every=MINUTE, anchor=START, tz=ZoneInfo("UTC"))
    return TaskDraft(
        owner_id=f"user{number % 10}",
        chat_id="local",
        task_type=TaskType.REMINDER,
        description=f"reminder {number}",
        schedule=schedule,
        execution=ReminderData(message=f"reminder {number}"),
        misfire=DEFAULT_MISFIRE_RULES[TaskType.REMINDER],
        created_at=START,
        next_run=START,
    )


def _fill(path: Path, task_ids: list[str], days: int) -> int:
    """Write every task's runs, one a minute for ``days`` days; return how many."""
    rows = 0
    with sqlite3.connect(path) as conn:
        for minute in range(days * 1440):
            at = to_db_time(START + minute * MINUTE)
            conn.executemany(
                "INSERT INTO task_runs (task_id, scheduled_for, claimed_at, started_at,"
                " finished_at, status, misfire, result) VALUES (?, ?, ?, ?, ?, 'succeeded',"
                " 'on_time', 'reminder delivered')",
                [(task_id, at, at, at, at) for task_id in task_ids],
            )
            rows += len(task_ids)
    return rows


def _p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def _size(path: Path) -> float:
    return sum(p.stat().st_size for p in path.parent.glob(path.name + "*")) / 1e6


def _count(path: Path) -> int:
    with sqlite3.connect(path) as conn:
        return int(conn.execute("SELECT count(*) FROM task_runs").fetchone()[0])


def _vacuum(path: Path) -> None:
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.execute("VACUUM")


async def measure(folder: Path, tasks: int, days: int) -> None:
    path = folder / "assistant.db"
    async with SqliteTaskStore(path) as store:
        task_ids = await store.add_tasks([_draft(n) for n in range(tasks)])
    started = time.perf_counter()
    written = _fill(path, task_ids, days)
    took = time.perf_counter() - started
    print(f"wrote {written:,} ledger rows for {tasks} tasks in {took:.0f} s")
    _vacuum(path)
    rows_before, size_before = _count(path), _size(path)

    clock = ManualClock(START + days * 1440 * MINUTE)
    policy = LedgerPolicy(keep_runs=100, finished_for=None)  # the run measured below
    rounds: list[float] = []
    async with SqliteTaskStore(path) as store:
        retention = LedgerRetention(store, clock, policy)
        while True:
            began = time.perf_counter()
            done = await retention.round()
            rounds.append((time.perf_counter() - began) * 1000)
            if done.complete and done.folded == 0:
                break
        summary = await store.ledger_summary(task_ids[0], "user0")
    _vacuum(path)
    rows_after, size_after = _count(path), _size(path)
    print(f"ledger rows:   {rows_before:,} -> {rows_after:,}")
    print(f"database size: {size_before:.1f} MB -> {size_after:.1f} MB (after VACUUM)")
    print(
        f"rounds: {len(rounds)}, each at most {policy.rows_per_round:,} rows: "
        f"p50 {statistics.median(rounds):.0f} ms, p99 {_p99(rounds):.0f} ms, "
        f"max {max(rounds):.0f} ms (round {rounds.index(max(rounds)) + 1})"
    )
    if summary is not None:
        print(
            f"a task's summary: {summary.runs:,} runs from "
            f"{summary.first_scheduled:%Y-%m-%d %H:%M} to {summary.last_scheduled:%Y-%m-%d %H:%M}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--tasks", type=int, default=200)
    parser.add_argument("--days", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        asyncio.run(measure(Path(folder), args.tasks, args.days))


if __name__ == "__main__":
    main()

"""The SQLite task store's file stays small: bulk creation cannot grow the WAL past a small
multiple of the checkpoint size (issue 29: 1M tasks made a 2.2 GB WAL), and the pages removed
tasks left sparse are given back for new ones (repacking)."""

from __future__ import annotations

import sqlite3
from datetime import timedelta
from pathlib import Path

from tasks import SqliteTaskStore, TaskStatus
from tasks.store import TaskChange
from tests.tasks.conftest import T0, every, once_at, reminder_draft

MB = 1024 * 1024
HOUR = timedelta(hours=1)
DAY = timedelta(days=1)
CALLS = 12
PER_CALL = 2_000  # about 1 MB of WAL per call


async def test_bulk_creation_keeps_the_wal_within_twice_the_checkpoint_size(
    tmp_path: Path,
) -> None:
    path = tmp_path / "assistant.db"
    wal = tmp_path / "assistant.db-wal"
    sizes: list[int] = []
    async with SqliteTaskStore(path, wal_bytes=MB) as store:
        for call in range(CALLS):
            start = T0 + timedelta(days=1, hours=call)
            drafts = [
                reminder_draft(once_at(start + timedelta(seconds=n)), owner=f"user{n % 50}")
                for n in range(PER_CALL)
            ]
            await store.add_tasks(drafts)
            sizes.append(wal.stat().st_size)
    # Without checkpoints by size the WAL holds every call's pages (more than 12 MB here).
    assert max(sizes) <= 3 * MB, sizes
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT count(*) FROM scheduled_tasks").fetchone() == (
            CALLS * PER_CALL,
        )
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)


async def test_repacking_gives_back_the_pages_removed_tasks_left_sparse_and_keeps_every_task(
    tmp_path: Path,
) -> None:
    path = tmp_path / "assistant.db"
    async with SqliteTaskStore(path) as store:
        drafts = [
            reminder_draft(every(HOUR) if n % 4 == 0 else once_at(T0 + HOUR), owner=f"u{n % 9}")
            for n in range(4_000)
        ]
        ids = await store.add_tasks(drafts)
        kept = {i: await store.get_task(i) for i in ids[::4]}
        gone = [i for n, i in enumerate(ids) if n % 4]
        cancel = TaskChange(status=TaskStatus.CANCELLED, next_run=None)
        for task_id in gone:
            owner = f"u{ids.index(task_id) % 9}"
            await store.update_task(
                task_id, owner, cancel, allowed_from=set(TaskStatus), action="x", now=T0
            )
        removal = None
        while removal is None or removal.tasks:  # bounded rounds, until one removes nothing
            removal = await store.remove_finished(before=T0 + DAY, max_tasks=1000, max_rows=1000)
        pages_before = _pages(path)
        moved = 0
        repack = await store.repack(window=200)
        while not repack.complete:
            moved += repack.moved
            repack = await store.repack(window=200, after=repack.next_after)
        again = await store.repack(window=200)
        after = {i: await store.get_task(i) for i in kept}
    # Three in four rows went: every stretch was sparse, so every kept task moved once.
    assert moved == len(kept) == 1_000 and again.moved == 0
    assert after == kept
    # The emptied pages went back to the file system (the file frees pages incrementally).
    assert _pages(path) < pages_before - 50


def _pages(path: Path) -> int:
    with sqlite3.connect(path) as conn:
        return int(conn.execute("PRAGMA page_count").fetchone()[0])

"""The task store's WAL stays small whatever writes it: bulk creation cannot grow it past a
small multiple of the checkpoint size (issue 29: 1M tasks made a 2.2 GB WAL)."""

from __future__ import annotations

import sqlite3
from datetime import timedelta
from pathlib import Path

from tasks import SqliteTaskStore
from tests.tasks.conftest import T0, once_at, reminder_draft

MB = 1024 * 1024
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

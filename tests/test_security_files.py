"""Security checks on files: the data directory and everything in it are private to its user.

Notes, conversations and stored request headers live in the database; a sandboxed process
or another local user must not read them. New files are created private (never created
open and narrowed later), and an existing looser directory is tightened at start, said in
one log line.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sqlite3
import stat
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from assistant.app import open_app
from assistant.config import load_settings
from common import ManualClock
from interfaces import JsonlNotifier
from memory import MemoryStore
from tasks import Delivery, DeliveryKind, SqliteTaskStore, scheduler_lock


@pytest.fixture(autouse=True)
def usual_umask() -> Iterator[None]:
    """The usual umask (022), under which files are created readable by all unless made
    private on purpose: the tests hold whatever the user's umask is."""
    before = os.umask(0o022)
    yield
    os.umask(before)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def modes(directory: Path) -> dict[str, int]:
    """The mode of every entry below ``directory``, by relative path (a file that went away
    meanwhile, a backup's temporary name, is left out)."""
    found = {}
    for path in sorted(directory.rglob("*")):
        with contextlib.suppress(FileNotFoundError):
            found[str(path.relative_to(directory))] = mode(path)
    return found


async def test_a_new_data_directory_and_its_files_are_private(tmp_path: Path) -> None:
    data = tmp_path / "data"
    settings = load_settings(data_dir=data, timezone="Europe/Berlin")
    clock = ManualClock(datetime(2026, 3, 10, 13, 30, tzinfo=UTC))
    async with open_app(settings, clock=clock, run_scheduler=True) as app:
        await app.agent.handle_message(
            "note: the wifi password is hunter2", user_id="u", chat_id="c"
        )
        sink = JsonlNotifier(data / "deliveries.jsonl", clock=clock)
        await sink.deliver(Delivery("t1", 1, "u", "c", DeliveryKind.REMINDER, "stretch"))
        found = modes(data)
    found |= modes(data)  # the day's backup is finished when the app has stopped

    assert mode(data) == 0o700
    daily = f"backups/daily-{clock.now().date().isoformat()}.db"
    expected = {"assistant.db", "assistant.db-wal", "scheduler.lock", "deliveries.jsonl", daily}
    assert expected <= set(found)
    assert all(
        value == (0o700 if (data / name).is_dir() else 0o600) for name, value in found.items()
    ), found


async def test_each_store_creates_its_file_private_wherever_it_is(tmp_path: Path) -> None:
    async with SqliteTaskStore(tmp_path / "tasks" / "t.db"):
        pass
    memory = await MemoryStore.open(tmp_path / "memory" / "m.db")
    await memory.close()
    with scheduler_lock(tmp_path / "lock" / "scheduler.lock"):
        pass

    for folder, name in (("tasks", "t.db"), ("memory", "m.db"), ("lock", "scheduler.lock")):
        assert mode(tmp_path / folder) == 0o700
        assert mode(tmp_path / folder / name) == 0o600


async def test_an_open_data_directory_is_tightened_at_start_with_one_log_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    data = tmp_path / "data"
    (data / "custom_tools").mkdir(parents=True)
    with sqlite3.connect(data / "assistant.db") as conn:  # what an older version left: 0644
        conn.execute("CREATE TABLE t (x)")
    (data / "custom_tools" / "dice.py").write_text("")
    (data / "deliveries.jsonl").write_text(json.dumps({"text": "hello"}) + "\n")
    for path, loose in ((data, 0o755), (data / "custom_tools", 0o775)):
        path.chmod(loose)
    for path in (data / "assistant.db", data / "custom_tools" / "dice.py"):
        path.chmod(0o644)
    (data / "deliveries.jsonl").chmod(0o666)

    settings = load_settings(data_dir=data, timezone="Europe/Berlin")
    with caplog.at_level(logging.WARNING):
        async with open_app(settings):
            pass

    assert mode(data) == 0o700 and mode(data / "custom_tools") == 0o700
    assert all(value in (0o600, 0o700) for value in modes(data).values()), modes(data)
    assert mode(data / "deliveries.jsonl") == 0o600
    [line] = [r.getMessage() for r in caplog.records if "other users could read" in r.getMessage()]
    assert "assistant.db" in line and "0700" in line and "0600" in line
    caplog.clear()
    async with open_app(settings):  # nothing left to tighten: nothing said
        pass
    assert "other users could read" not in caplog.text

"""A damaged database: an unreadable row is skipped, an empty file is refused, backups restore.

The attack: one corrupted data page left text that is not UTF-8 in a message while
``quick_check`` said ok, and every ``assistant ask`` failed with "Could not decode to UTF-8".
Here the damage is made the same way (bytes that are not UTF-8 in a TEXT column), in a real
database file; the command line runs in real processes.
"""

from __future__ import annotations

import logging
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from assistant.app import open_app
from assistant.backup import DailyBackups
from assistant.config import load_settings
from common import ManualClock
from memory import MemoryStore, MessageRole, StoredMessage
from tests.assistant.test_cli import run

NOW = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)


def damage(database: Path, table: str, row_id: int) -> None:
    """Leave bytes that are not UTF-8 in the row's ``content``, as a damaged page does."""
    with sqlite3.connect(database) as conn:
        conn.execute(
            f"UPDATE {table} SET content = CAST(X'6869FF20' AS TEXT) WHERE id = ?", (row_id,)
        )
        assert conn.execute("PRAGMA quick_check").fetchone() == ("ok",)


async def test_an_unreadable_message_is_skipped_with_one_warning_not_the_history(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    database = tmp_path / "assistant.db"
    async with MemoryStore(database, clock=ManualClock(NOW)) as memory:
        for n in range(3):
            await memory.append_turn(
                "alice", "c", [StoredMessage(MessageRole.USER, f"question {n} about tea"),
                               StoredMessage(MessageRole.ASSISTANT, f"answer {n} about tea")],
            )  # fmt: skip
        await memory.add_note("alice", "tea is in the left cupboard", ["home"])
        await memory.add_note("alice", "more tea in the cellar", [])
    damage(database, "conversation_messages", 3)
    damage(database, "notes", 1)

    with caplog.at_level(logging.WARNING):
        async with MemoryStore(database, clock=ManualClock(NOW)) as memory:
            history = await memory.load_conversation("alice", "c")
            again = await memory.load_conversation("alice", "c")
            notes = await memory.list_notes("alice", 10)
            found = await memory.search_memory("alice", "tea", 20)

    assert [m.content for m in history] == [
        "question 0 about tea", "answer 0 about tea", "answer 1 about tea",
        "question 2 about tea", "answer 2 about tea",
    ]  # fmt: skip
    assert again == history
    assert [n.content for n in notes] == ["more tea in the cellar"]
    texts = {hit.text for hit in found}
    assert "more tea in the cellar" in texts and "question 1 about tea" not in texts
    assert not any("\ufffd" in text for text in texts)
    warnings = [r.getMessage() for r in caplog.records if "cannot be read" in r.getMessage()]
    assert len(warnings) == 2  # one for the message, one for the note, each said once
    assert "assistant doctor" in warnings[0]


def test_ask_still_answers_and_doctor_names_the_damaged_row(tmp_path: Path) -> None:
    run("ask", "note: the spare key is under the blue pot", data_dir=tmp_path)
    run("ask", "hello", data_dir=tmp_path)
    database = tmp_path / "assistant.db"
    damage(database, "conversation_messages", 1)

    asked = run("ask", "what is my spare key?", data_dir=tmp_path)
    doctor = run("doctor", data_dir=tmp_path, check=False)

    assert "blue pot" in asked.stdout
    assert "Could not decode" not in asked.stderr
    assert doctor.returncode == 1
    assert "PROBLEM  1 stored value(s) cannot be read" in doctor.stdout
    assert "conversation_messages row 1 (content)" in doctor.stdout
    assert "what to do:" in doctor.stdout


def test_a_healthy_data_dir_passes_the_doctor(tmp_path: Path) -> None:
    run("ask", "note: fine", data_dir=tmp_path)

    doctor = run("doctor", data_dir=tmp_path)

    assert "integrity_check ok" in doctor.stdout and "No problems found." in doctor.stdout


@pytest.mark.parametrize(
    ("content", "said"),
    [(b"", "is empty (0 bytes)"), (b"these are my notes\n", "is not a SQLite database")],
    ids=["zero bytes", "not SQLite"],
)
def test_a_database_that_is_not_one_is_refused_never_replaced(
    tmp_path: Path, content: bytes, said: str
) -> None:
    run("ask", "note: keep me", data_dir=tmp_path)
    assert run("backup", data_dir=tmp_path).stdout.startswith("Backed up")
    database = tmp_path / "assistant.db"
    database.write_bytes(content)

    refused = run("ask", "hello", data_dir=tmp_path, check=False)
    doctor = run("doctor", data_dir=tmp_path, check=False)

    assert refused.returncode == 1 and doctor.returncode == 1
    [line] = refused.stderr.strip().splitlines()
    assert line.startswith(("error: the database", "error: '"))
    assert said in line and "Traceback" not in refused.stderr
    assert said in doctor.stdout
    assert database.read_bytes() == content  # left as it was found


def test_a_backup_is_a_working_copy_and_restores(tmp_path: Path) -> None:
    run("ask", "note: the wifi password is hunter2", data_dir=tmp_path)
    made = run("backup", str(tmp_path / "copy.db"), data_dir=tmp_path)
    into_folder = run("backup", str(tmp_path), data_dir=tmp_path)
    again = run("backup", str(tmp_path / "copy.db"), data_dir=tmp_path, check=False)

    assert made.stdout.strip().endswith(str(tmp_path / "copy.db"))
    assert "manual-" in into_folder.stdout
    assert again.returncode == 1 and "exists already" in again.stderr
    with sqlite3.connect(tmp_path / "copy.db") as copy:
        assert copy.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        notes = copy.execute("SELECT content FROM notes").fetchall()
    assert notes == [("the wifi password is hunter2",)]
    assert (tmp_path / "copy.db").stat().st_mode & 0o077 == 0


def daily(days_from_now: int) -> str:
    return f"daily-{(NOW.date() + timedelta(days=days_from_now)).isoformat()}.db"


async def test_daily_backups_are_kept_for_seven_days(tmp_path: Path) -> None:
    database = tmp_path / "assistant.db"
    async with MemoryStore(database, clock=ManualClock(NOW)) as memory:
        await memory.add_note("alice", "in every backup", [])
    backups = tmp_path / "backups"
    backups.mkdir()
    for days_ago in (1, 6, 7, 30):  # what earlier days left
        (backups / daily(-days_ago)).write_bytes(b"old")
    (backups / "manual-2026-01-01T000000.db").write_bytes(b"made by hand: kept")
    clock = ManualClock(NOW)
    keeper = DailyBackups(database, backups, clock=clock, keep_days=7)

    made = await keeper.run_once()
    again = await keeper.run_once()  # the hourly check on the same day
    first = sorted(p.name for p in backups.iterdir())
    clock.advance(timedelta(days=1))
    await keeper.run_once()
    second = sorted(p.name for p in backups.iterdir())

    assert made == backups / daily(0) and again is None
    assert first == [daily(-6), daily(-1), daily(0), "manual-2026-01-01T000000.db"]
    assert second == [daily(-1), daily(0), daily(1), "manual-2026-01-01T000000.db"]
    with sqlite3.connect(backups / daily(1)) as copy:
        assert copy.execute("SELECT content FROM notes").fetchall() == [("in every backup",)]


async def test_a_scheduler_process_makes_the_days_backup(tmp_path: Path) -> None:
    data = tmp_path / "data"
    settings = load_settings(data_dir=data, timezone="Europe/Berlin")
    async with open_app(settings, clock=ManualClock(NOW), run_scheduler=True):
        pass  # the backup runs off the event loop; stopping waits for it
    assert (data / "backups" / daily(0)).is_file()
    no_backups = load_settings(data_dir=tmp_path / "other", timezone="UTC", backup_days=0)
    async with open_app(no_backups, clock=ManualClock(NOW), run_scheduler=True):
        pass
    assert not (tmp_path / "other" / "backups").exists()

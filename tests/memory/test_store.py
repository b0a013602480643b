"""MemoryStore as a whole: lifecycle, the shared file, schema versions and search_memory."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import threading
from pathlib import Path

import pytest

from memory import (
    SCHEMA_VERSION,
    HitKind,
    MemoryStore,
    MemoryStoreError,
    MessageRole,
    StoreClosedError,
    StoredMessage,
)
from tests.memory.conftest import MakeStore, StepClock


def read_sync(path: Path, sql: str) -> list[tuple[object, ...]]:
    with sqlite3.connect(path) as conn:
        return list(conn.execute(sql).fetchall())


async def test_open_creates_the_file_in_wal_mode_with_a_schema_version(tmp_path: Path) -> None:
    path = tmp_path / "new" / "dir" / "assistant.db"
    store = await MemoryStore.open(path)
    await store.close()

    assert read_sync(path, "PRAGMA journal_mode") == [("wal",)]
    assert read_sync(path, "SELECT component, version FROM schema_versions") == [
        ("memory", SCHEMA_VERSION)
    ]


async def test_data_survives_reopening(make_store: MakeStore) -> None:
    async with make_store() as store:
        await store.add_note("alice", "persisted")
    async with make_store() as store:
        assert [n.content for n in await store.list_notes("alice")] == ["persisted"]


async def test_other_components_rows_in_schema_versions_are_kept(db_path: Path) -> None:
    db_path.parent.mkdir(parents=True)
    with sqlite3.connect(db_path) as conn:
        conn.execute("CREATE TABLE schema_versions (component TEXT PRIMARY KEY, version INTEGER)")
        conn.execute("INSERT INTO schema_versions VALUES ('tasks', 3)")

    async with MemoryStore(db_path):
        pass

    assert sorted(read_sync(db_path, "SELECT * FROM schema_versions")) == [
        ("memory", SCHEMA_VERSION),
        ("tasks", 3),
    ]


async def test_a_newer_schema_is_refused(db_path: Path) -> None:
    async with MemoryStore(db_path):
        pass
    with sqlite3.connect(db_path) as conn:
        conn.execute("UPDATE schema_versions SET version = 99 WHERE component = 'memory'")

    with pytest.raises(MemoryStoreError, match="version 99"):
        await MemoryStore.open(db_path)


async def test_a_file_that_is_not_sqlite_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("this is not a database, " * 100)

    with pytest.raises(MemoryStoreError, match=r"notes\.txt"):
        await MemoryStore.open(path)


async def test_using_a_store_that_is_not_open_raises(make_store: MakeStore) -> None:
    store = make_store()
    with pytest.raises(StoreClosedError, match="not open"):
        await store.list_notes("alice")

    await store.start()
    await store.close()
    await store.close()
    with pytest.raises(StoreClosedError, match="closed"):
        await store.add_note("alice", "late")
    with pytest.raises(StoreClosedError, match="closed"):
        await store.start()


async def test_two_stores_on_one_database_see_each_others_writes(make_store: MakeStore) -> None:
    async with make_store() as one, make_store() as two:
        note = await one.add_note("alice", "shared wifi password")
        await two.set_timezone("alice", "Asia/Tokyo")

        assert [hit.id for hit in await two.search_memory("alice", "wifi")] == [note.id]
        profile = await one.get_user("alice")
        assert profile is not None
        assert profile.timezone == "Asia/Tokyo"


async def test_concurrent_writers_on_two_connections_lose_nothing(make_store: MakeStore) -> None:
    async with make_store() as one, make_store() as two:

        async def write(store: MemoryStore, who: str) -> None:
            for n in range(25):
                await store.add_note("alice", f"{who} note {n}")
                await store.append_turn(
                    "alice", who, [StoredMessage(MessageRole.USER, f"{who} message {n}")]
                )

        await asyncio.gather(write(one, "one"), write(two, "two"), write(one, "three"))

        assert len(await one.list_notes("alice", limit=1000)) == 75
        for chat in ("one", "two", "three"):
            assert len(await two.load_conversation("alice", chat)) == 25


async def test_search_memory_ranks_notes_and_messages(store: MemoryStore) -> None:
    await store.append_turn(
        "alice",
        "c1",
        [
            StoredMessage(MessageRole.USER, "what is the wifi password?"),
            StoredMessage(MessageRole.TOOL, "wifi password tool output", tool_call_id="x"),
            StoredMessage(MessageRole.ASSISTANT, "I don't know the wifi yet"),
        ],
    )
    note = await store.add_note("alice", "The wifi password is hunter2", ["home"])
    await store.add_note("alice", "the bank password is swordfish")

    hits = await store.search_memory("alice", "wifi password", limit=10)

    assert [(h.kind, h.text, h.matched_all) for h in hits] == [
        (HitKind.NOTE, note.content, True),
        (HitKind.MESSAGE, "what is the wifi password?", True),
        (HitKind.NOTE, "the bank password is swordfish", False),
        (HitKind.MESSAGE, "I don't know the wifi yet", False),
    ]
    assert hits[0].id == note.id
    assert hits[0].tags == ("home",)
    assert hits[0].created_at == note.created_at
    assert hits[1].role is MessageRole.USER
    assert hits[1].chat_id == "c1"
    assert all(h.score > 0 for h in hits)
    assert len(await store.search_memory("alice", "wifi password", limit=2)) == 2


async def test_the_clock_stamps_what_is_stored(make_store: MakeStore, clock: StepClock) -> None:
    async with make_store(clock=clock) as store:
        first = await store.add_note("alice", "a")
        second = await store.add_note("alice", "b")

    assert (second.created_at - first.created_at).total_seconds() == 1


@pytest.mark.parametrize("yields", range(12))
async def test_a_write_cancelled_at_any_point_leaves_the_store_usable(
    store: MemoryStore, yields: int
) -> None:
    messages = [StoredMessage(MessageRole.USER, "half"), StoredMessage(MessageRole.USER, "way")]
    writing = asyncio.create_task(store.append_turn("alice", "c", messages))
    for _ in range(yields):
        await asyncio.sleep(0)  # let the write reach a different statement each time
    writing.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await writing

    await store.append_turn("alice", "c", [StoredMessage(MessageRole.USER, "after")])
    contents = [m.content for m in await store.load_conversation("alice", "c")]
    assert contents in (["after"], ["half", "way", "after"])


async def test_messages_that_repeat_a_found_note_are_left_out(store: MemoryStore) -> None:
    note = await store.add_note("alice", "My locker is 42")
    await store.append_turn(
        "alice",
        "c",
        [
            StoredMessage(MessageRole.USER, "remember that my   LOCKER is 42"),
            StoredMessage(MessageRole.ASSISTANT, f"Saved note #{note.id}: My locker is 42"),
        ],
    )
    await store.append_turn(
        "alice", "c", [StoredMessage(MessageRole.USER, "the gym locker room is closed")]
    )

    hits = await store.search_memory("alice", "locker", limit=2)

    assert [(h.kind, h.text) for h in hits] == [
        (HitKind.NOTE, "My locker is 42"),
        (HitKind.MESSAGE, "the gym locker room is closed"),
    ]


async def test_search_memory_takes_the_largest_limit(store: MemoryStore) -> None:
    await store.add_note("alice", "one locker")
    await store.append_turn("alice", "c", [StoredMessage(MessageRole.USER, "locker two")])

    assert len(await store.search_memory("alice", "locker", limit=1000)) == 2


def store_threads() -> set[threading.Thread]:
    return {t for t in threading.enumerate() if t.name.startswith("memory-sqlite")}


async def test_closing_ends_the_connections_thread(db_path: Path, tmp_path: Path) -> None:
    before = store_threads()
    store = await MemoryStore.open(db_path)
    await store.add_note("alice", "one")
    assert store_threads() - before

    await store.close()
    not_sqlite = tmp_path / "notes.txt"
    not_sqlite.write_text("this is not a database, " * 100)
    with pytest.raises(MemoryStoreError):
        await MemoryStore.open(not_sqlite)

    assert store_threads() - before == set()


async def test_a_write_waiting_for_another_connections_lock_leaves_the_loop_free(
    db_path: Path,
) -> None:
    async with MemoryStore(db_path, busy_timeout=5) as store:
        holder = sqlite3.connect(db_path, isolation_level=None)
        try:
            holder.execute("BEGIN IMMEDIATE")
            writing = asyncio.create_task(store.add_note("alice", "after the lock"))
            await asyncio.sleep(0)  # the write starts and waits for the lock off the loop
            holder.execute("COMMIT")  # would never run if the waiting blocked the loop
        finally:
            holder.close()

        note = await writing
        assert await store.list_notes("alice") == [note]


async def test_a_lock_held_past_the_busy_timeout_is_an_error_and_the_store_recovers(
    db_path: Path,
) -> None:
    async with MemoryStore(db_path, busy_timeout=0.05) as store:
        holder = sqlite3.connect(db_path, isolation_level=None)
        try:
            holder.execute("BEGIN IMMEDIATE")
            with pytest.raises(MemoryStoreError, match=r"assistant\.db.*locked"):
                await store.add_note("alice", "blocked")
        finally:
            holder.execute("COMMIT")
            holder.close()

        note = await store.add_note("alice", "after")
        assert await store.list_notes("alice") == [note]


async def test_notes_saved_before_per_user_numbers_get_them_in_order(tmp_path: Path) -> None:
    path = tmp_path / "assistant.db"
    async with MemoryStore(path) as store:
        for user, text in [("alice", "a1"), ("bob", "b1"), ("alice", "a2"), ("bob", "b2")]:
            await store.add_note(user, text)
    with sqlite3.connect(path) as conn:  # as the file was before: no numbers, schema 1
        conn.execute("DROP INDEX notes_by_number")
        conn.execute("ALTER TABLE notes DROP COLUMN number")
        conn.execute("ALTER TABLE approvals DROP COLUMN reason")
        for table in ("calendar_feeds", "calendar_links", "calendar_sources"):
            conn.execute(f"DROP TABLE {table}")
        conn.execute("UPDATE schema_versions SET version = 1 WHERE component = 'memory'")

    async with MemoryStore(path) as store:
        alice = [(n.content, n.number) for n in await store.list_notes("alice")]
        bob = [(n.content, n.number) for n in await store.list_notes("bob")]
        third = await store.add_note("bob", "b3")

    assert alice == [("a2", 2), ("a1", 1)]
    assert bob == [("b2", 2), ("b1", 1)]
    assert third.number == 3
    assert read_sync(path, "SELECT version FROM schema_versions WHERE component = 'memory'") == [
        (SCHEMA_VERSION,)
    ]

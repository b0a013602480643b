"""The PostgreSQL helper on a real server: transactions, retries, migrations, LISTEN, errors."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest

from common import Listener, PgConnection, PostgresDatabase, PostgresFailures, notify


class StoreError(Exception):
    """The error a package would raise."""


class NotOpenError(StoreError):
    """Used before open."""


FAILURES = PostgresFailures("the test database", StoreError, NotOpenError)
MIGRATIONS = (
    ("CREATE TABLE items (id integer PRIMARY KEY, name text NOT NULL)",),
    ("ALTER TABLE items ADD COLUMN size integer NOT NULL DEFAULT 0",),
)


@pytest.fixture
async def db(postgres_url: str) -> AsyncIterator[PostgresDatabase]:
    database = PostgresDatabase(postgres_url, failures=FAILURES)
    await database.open()
    await database.migrate(component="test", migrations=MIGRATIONS, error=StoreError)
    yield database
    await database.close()


async def count(db: PostgresDatabase) -> int:
    async def read(conn: PgConnection) -> int:
        return int(await conn.fetchval("SELECT count(*) FROM items"))

    return await db.read(read)


async def test_a_write_commits_or_rolls_back_whole(db: PostgresDatabase) -> None:
    async def insert_two(conn: PgConnection) -> None:
        await conn.execute("INSERT INTO items (id, name) VALUES (1, 'a'), (2, 'b')")

    async def insert_then_fail(conn: PgConnection) -> None:
        await conn.execute("INSERT INTO items (id, name) VALUES (3, 'c')")
        raise ValueError("changed my mind")

    await db.write(insert_two)
    with pytest.raises(ValueError, match="changed my mind"):
        await db.write(insert_then_fail)

    assert await count(db) == 2


async def test_server_errors_become_the_packages_error(db: PostgresDatabase) -> None:
    async def duplicate(conn: PgConnection) -> None:
        await conn.execute("INSERT INTO items (id, name) VALUES (1, 'a'), (1, 'b')")

    with pytest.raises(StoreError, match=r"the test database .*duplicate key.*23505"):
        await db.write(duplicate)


async def test_migrations_run_once_and_a_newer_schema_is_refused(postgres_url: str) -> None:
    dbs = [PostgresDatabase(postgres_url, failures=FAILURES) for _ in range(3)]
    for database in dbs:
        await database.open()
    try:
        found = await asyncio.gather(
            *(d.migrate(component="test", migrations=MIGRATIONS, error=StoreError) for d in dbs)
        )
        assert sorted(found) == [0, 2, 2]
        assert await dbs[0].migrate(component="test", migrations=MIGRATIONS, error=StoreError) == 2
        with pytest.raises(StoreError, match="test schema version 2, newer than this program's 1"):
            await dbs[0].migrate(component="test", migrations=MIGRATIONS[:1], error=StoreError)
    finally:
        for database in dbs:
            await database.close()


async def test_a_deadlocked_transaction_runs_again(db: PostgresDatabase) -> None:
    async def seed(conn: PgConnection) -> None:
        await conn.execute("INSERT INTO items (id, name) VALUES (1, 'a'), (2, 'b')")

    await db.write(seed)
    both_hold_one = asyncio.Barrier(2)
    attempts: list[str] = []

    def crossing(first: int, second: int, name: str) -> Callable[[PgConnection], Awaitable[None]]:
        async def work(conn: PgConnection) -> None:
            attempts.append(name)
            await conn.execute("UPDATE items SET size = size + 1 WHERE id = $1", first)
            if len(attempts) <= 2:
                await both_hold_one.wait()
            await conn.execute("UPDATE items SET size = size + 1 WHERE id = $1", second)

        return work

    await asyncio.gather(db.write(crossing(1, 2, "a")), db.write(crossing(2, 1, "b")))

    assert len(attempts) == 3  # one of the two was chosen as the deadlock victim, once

    async def sizes(conn: PgConnection) -> list[int]:
        return [r[0] for r in await conn.fetch("SELECT size FROM items ORDER BY id")]

    assert await db.read(sizes) == [2, 2]


async def test_a_snapshot_read_sees_one_state(db: PostgresDatabase) -> None:
    seen: list[int] = []

    async def read_twice(conn: PgConnection) -> None:
        seen.append(int(await conn.fetchval("SELECT count(*) FROM items")))
        await db.write(lambda c: c.execute("INSERT INTO items (id, name) VALUES (9, 'z')"))
        seen.append(int(await conn.fetchval("SELECT count(*) FROM items")))

    await db.read(read_twice, snapshot=True)

    assert seen == [0, 0]
    assert await count(db) == 1


async def test_listeners_hear_commits_and_reconnect(db: PostgresDatabase) -> None:
    heard = asyncio.Event()
    listener: Listener = await db.listen("items_changed", heard.set, reconnect_delays=(0.05,))
    try:

        async def change(conn: PgConnection) -> None:
            await conn.execute("INSERT INTO items (id, name) VALUES (5, 'e')")
            await notify(conn, "items_changed", "5")

        await db.write(change)
        async with asyncio.timeout(5):
            await heard.wait()

        heard.clear()

        async def kill_listeners(conn: PgConnection) -> None:
            await conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE query LIKE 'LISTEN%' AND pid <> pg_backend_pid()"
            )

        await db.read(kill_listeners)
        async with asyncio.timeout(5):
            await heard.wait()  # called once after reconnecting: changes may have been missed
        heard.clear()
        await db.write(_notify_only)
        async with asyncio.timeout(5):
            await heard.wait()
    finally:
        await listener.close()


async def _notify_only(conn: PgConnection) -> None:
    await notify(conn, "items_changed")


async def test_unreachable_servers_and_closed_pools_say_so_without_the_password() -> None:
    closed = PostgresDatabase("postgresql://alice:s3cret@127.0.0.1:1/nowhere", failures=FAILURES)
    with pytest.raises(StoreError, match=r"cannot connect to the test database") as caught:
        await closed.open()
    assert "s3cret" not in str(caught.value)
    with pytest.raises(NotOpenError):
        await closed.read(lambda conn: conn.fetchval("SELECT 1"))
    with pytest.raises(StoreError, match="is not a PostgreSQL URL"):
        PostgresDatabase("mysql://x/y", failures=FAILURES)

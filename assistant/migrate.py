"""``assistant migrate``: copy a SQLite installation into PostgreSQL and verify the counts.

Everything moves: tasks and their run ledger, conversations, notes, users with their settings,
approval requests; ids are kept, so task ids users know and the ledger's run ids stay valid.
The copy is one PostgreSQL transaction that also compares every table's row count with the
source before committing: it lands whole and verified, or not at all. The target must be
empty (a fresh database); the source is read only, under its scheduler lock, so no scheduler
changes it meanwhile, and in one read transaction, so all of it is copied as of one moment.
Once committed, the copied tables are vacuumed and analysed, as PostgreSQL advises after a
bulk load: otherwise the server's autovacuum works through every new row just as the first
scheduler starts, and runs fall due on a machine busy with it (with a million tasks on two
cores, runs were a second late for about half a minute).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from common import (
    PgConnection,
    PostgresDatabase,
    PostgresFailures,
    TableCopy,
    copy_table,
    postgres_count,
    sqlite_count,
)
from memory import MEMORY_TABLES, MemoryStore
from tasks import (
    TASK_TABLES,
    PostgresTaskStore,
    SchedulerBusyError,
    SqliteTaskStore,
    scheduler_lock,
)

TABLES: tuple[TableCopy, ...] = (*MEMORY_TABLES, *TASK_TABLES)


class MigrationError(Exception):
    """The copy cannot be made or did not verify; nothing was written. The message says why."""


@dataclass(frozen=True, slots=True)
class Copied:
    """One table's row counts: in the SQLite file, and in PostgreSQL after the copy."""

    table: str
    source: int
    target: int


def source_path(text: str) -> Path:
    """The SQLite file named by ``sqlite:PATH`` (or a bare path).

    Raises:
        MigrationError: when it names no file.
    """
    path = Path(text.removeprefix("sqlite:")).expanduser()
    if not path.is_file():
        raise MigrationError(
            f"there is no SQLite database at {str(path)!r}; "
            "give --from sqlite:DATA_DIR/assistant.db"
        )
    return path


async def migrate(
    source: Path, url: str, *, say: Callable[[str], None] = lambda _line: None
) -> list[Copied]:
    """Copy the installation in ``source`` into the empty PostgreSQL database at ``url``.

    Raises:
        MigrationError: when a scheduler runs on the source, the target is not empty, or the
            counts differ after the copy (then nothing was committed).
        TaskError, MemoryStoreError: when either database cannot be used.
    """
    try:
        with scheduler_lock(source.parent / "scheduler.lock"):
            return await _migrate(source, url, say)
    except SchedulerBusyError as exc:
        raise MigrationError(
            f"{exc}: stop it first, so that nothing changes while the data is copied"
        ) from None


async def _migrate(source: Path, url: str, say: Callable[[str], None]) -> list[Copied]:
    # Opening each store brings its schema up to date: the SQLite one to read, PostgreSQL's
    # to receive.
    async with SqliteTaskStore(source), MemoryStore(source):
        pass
    async with PostgresTaskStore(url) as target, MemoryStore(database_url=url):
        say(f"copying {source} into {target.where}")
    reader = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    # One read transaction: every table is copied and counted as of one moment, so a
    # command that writes meanwhile (`assistant ask` takes no scheduler lock) cannot leave
    # a ledger row without its task.
    reader.execute("BEGIN")
    database = PostgresDatabase(url, failures=_FAILURES, max_size=1)
    try:
        await database.open()
        copied = await database.write(lambda conn: _copy_all(reader, conn, say))
        await database.read(lambda conn: _settle(conn, copied))
        return copied
    finally:
        await database.close()
        reader.close()


async def _copy_all(
    reader: sqlite3.Connection, conn: PgConnection, say: Callable[[str], None]
) -> list[Copied]:
    holding = {t.name: n for t in TABLES if (n := await postgres_count(conn, t))}
    if holding:
        shown = ", ".join(f"{n} rows in {name}" for name, n in holding.items())
        raise MigrationError(
            f"the target database is not empty ({shown}); migrate into a fresh database"
        )
    copied: list[Copied] = []
    for table in TABLES:
        count = await copy_table(reader, conn, table)
        copied.append(Copied(table.name, sqlite_count(reader, table), count))
        say(f"  {table.name}: {count} rows")
    for table, entry in zip(TABLES, copied, strict=True):
        stored = await postgres_count(conn, table)
        if stored != entry.source or entry.target != entry.source:
            raise MigrationError(
                f"{table.name}: {entry.source} rows in SQLite but {stored} in PostgreSQL after "
                "the copy; nothing was committed"
            )
    return copied


async def _settle(conn: PgConnection, copied: list[Copied]) -> None:
    """Vacuum and analyse the tables that received rows (outside a transaction, as VACUUM
    must run)."""
    for entry in copied:
        if entry.target:
            await conn.execute(f'VACUUM (ANALYZE) "{entry.table}"')


def _not_open(where: str) -> MigrationError:
    return MigrationError(f"the connection to {where!r} is not open")


_FAILURES = PostgresFailures("the target database", MigrationError, _not_open)

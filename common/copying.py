"""Copying tables from a SQLite file into PostgreSQL, as ``assistant migrate`` does.

Each package describes its own tables (``TableCopy``: the columns, how a stored SQLite value
becomes a PostgreSQL one, which id column continues its sequence); this module reads them in
chunks and writes them with ``COPY``, inside the caller's transaction, so a copy is whole or
not at all.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from common.postgres import PgConnection
from common.sqlite import from_db_time

CHUNK = 5000


def instant(value: Any) -> datetime | None:
    """A stored SQLite instant (ISO 8601 text) as an aware datetime; ``None`` stays."""
    return None if value is None else from_db_time(str(value))


def flag(value: Any) -> bool:
    """A SQLite 0/1 as a boolean."""
    return bool(value)


@dataclass(frozen=True, slots=True)
class TableCopy:
    """How one table moves from SQLite to PostgreSQL.

    Attributes:
        name: The table (the same name in both databases).
        columns: The columns copied, in both databases.
        convert: Per column, what turns the SQLite value into the PostgreSQL one (the value
            as it is when a column is not listed).
        identity: The id column whose sequence must continue after the copied ids.
    """

    name: str
    columns: tuple[str, ...]
    convert: Mapping[str, Callable[[Any], Any]] = field(default_factory=dict)
    identity: str | None = None

    def row(self, values: Sequence[Any]) -> tuple[Any, ...]:
        """One SQLite row as the PostgreSQL row."""
        return tuple(
            self.convert.get(column, _same)(value)
            for column, value in zip(self.columns, values, strict=True)
        )


async def copy_table(source: sqlite3.Connection, target: PgConnection, table: TableCopy) -> int:
    """Copy every row of ``table``; return how many were copied.

    The identity sequence (if any) is moved past the largest copied id, and past the largest
    id SQLite ever gave the table (an AUTOINCREMENT table keeps it after its newest rows were
    deleted), so rows added afterwards get ids no row ever had.
    """
    columns = ", ".join(table.columns)
    # Table and column names come from the packages' own descriptions, never from input.
    cursor = source.execute(f"SELECT {columns} FROM {table.name}")
    copied = 0
    while rows := cursor.fetchmany(CHUNK):
        records = [table.row(r) for r in rows]
        await target.copy_records_to_table(table.name, records=records, columns=table.columns)
        copied += len(records)
    if table.identity is not None:
        await target.execute(
            f"SELECT setval(pg_get_serial_sequence('{table.name}', '{table.identity}'),"
            f" greatest(coalesce((SELECT max({table.identity}) FROM {table.name}), 0), $1) + 1,"
            " false)",
            _highest_id_used(source, table.name),
        )
    return copied


def _highest_id_used(source: sqlite3.Connection, name: str) -> int:
    """The largest id SQLite ever gave ``name``'s rows, as its AUTOINCREMENT keeps it (0 for a
    table without one)."""
    try:
        row = source.execute("SELECT seq FROM sqlite_sequence WHERE name = ?", (name,)).fetchone()
    except sqlite3.OperationalError:  # no table of the file has AUTOINCREMENT
        return 0
    return 0 if row is None else int(row[0])


def sqlite_count(source: sqlite3.Connection, table: TableCopy) -> int:
    """How many rows ``table`` holds in the SQLite file."""
    return int(source.execute(f"SELECT count(*) FROM {table.name}").fetchone()[0])


async def postgres_count(target: PgConnection, table: TableCopy) -> int:
    """How many rows ``table`` holds in PostgreSQL."""
    return int(await target.fetchval(f"SELECT count(*) FROM {table.name}"))


def _same(value: Any) -> Any:
    return value

"""The memory repositories' SQLite connection: the shared ``common.sqlite`` helper, whose
work functions get a ``Session`` (statements by name, rows by column name) and whose errors
are the memory package's. See ``common.sqlite`` for what one operation on the connection's
own thread guarantees.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

from common import Failures, SqliteDatabase, UnreadableText, from_db_time
from common import to_db_time as _to_db_time
from memory.errors import MemoryInputError, MemoryStoreError, StoreClosedError

Params = Sequence[Any]

__all__ = ["Database", "Session", "decode_rows", "from_db_time", "to_db_time"]

T = TypeVar("T")
logger = logging.getLogger("memory")

# What decoding a damaged row raises: text that is not UTF-8, JSON that does not parse, a
# role or an instant that is not one.
_UNREADABLE = (ValueError, KeyError, TypeError, IndexError)


def decode_rows(
    rows: Iterable[sqlite3.Row],
    decode: Callable[[sqlite3.Row], T],
    what: str,
    *,
    reported: set[str],
) -> list[T]:
    """Decode ``rows``, skipping each row that cannot be read, with one warning for all.

    A damaged page can leave a value that is not UTF-8 (``UnreadableText``) or not what its
    column holds while ``quick_check`` still passes; one such row must not take the rest of
    the history with it. A row is warned about once per store (``reported`` remembers).
    """
    kept: list[T] = []
    skipped: list[str] = []
    for row in rows:
        try:
            if any(isinstance(value, UnreadableText) for value in row):
                raise ValueError("text that is not UTF-8")
            kept.append(decode(row))
        except _UNREADABLE as exc:
            names = row.keys()
            key = f"{what} {row['id'] if 'id' in names else '?'}"
            if key not in reported:
                reported.add(key)
                skipped.append(f"{key}: {exc}")
    if skipped:
        logger.warning(
            "skipped %d stored %s(s) that cannot be read (%s): the database file is damaged; "
            "run `assistant doctor` to see what is wrong and what to do",
            len(skipped),
            what,
            ", ".join(skipped[:5]),
        )
    return kept


def to_db_time(moment: datetime, *, what: str = "time") -> str:
    """Return ``moment`` as stored (``common.to_db_time``).

    Raises:
        MemoryInputError: when ``moment`` has no time zone.
    """
    return _to_db_time(moment, what=what, error=MemoryInputError)


class Session:
    """The statements of one operation; used only on the connection's thread, inside it."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def execute(self, sql: str, params: Params = ()) -> int:
        """Run one statement and return how many rows it changed."""
        return self._conn.execute(sql, params).rowcount

    def insert(self, sql: str, params: Params = ()) -> int:
        """Run one INSERT and return the new row's id."""
        rowid = self._conn.execute(sql, params).lastrowid
        if rowid is None:
            raise MemoryStoreError(f"SQLite returned no row id for {sql.split('(')[0]!r}")
        return rowid

    def execute_many(self, sql: str, rows: Iterable[Params]) -> None:
        """Run one statement once per parameter row."""
        self._conn.executemany(sql, rows)

    def fetch_all(self, sql: str, params: Params = ()) -> list[sqlite3.Row]:
        """Run a query and return every row."""
        rows: list[sqlite3.Row] = self._conn.execute(sql, params).fetchall()
        return rows

    def iterate(self, sql: str, params: Params = ()) -> Iterator[sqlite3.Row]:
        """Run a query and yield its rows as they are read; stopping early reads no more."""
        cursor = self._conn.execute(sql, params)
        try:
            yield from cursor
        finally:
            cursor.close()

    def fetch_one(self, sql: str, params: Params = ()) -> sqlite3.Row | None:
        """Run a query and return its first row, or ``None``."""
        row: sqlite3.Row | None = self._conn.execute(sql, params).fetchone()
        return row


class Database(SqliteDatabase[Session]):
    """The memory package's connection: work gets a ``Session``, errors are memory errors.

    Args:
        path: The database file; its directory is created when missing.
        busy_timeout: Seconds a statement waits for another connection's write lock.
    """

    def __init__(self, path: Path, *, busy_timeout: float) -> None:
        super().__init__(
            path,
            handle=Session,
            failures=_FAILURES,
            busy_ms=round(busy_timeout * 1000),
            thread_name="memory-sqlite",
            named_rows=True,
            foreign_keys=True,
            lenient_text=True,
        )
        self.reported: set[str] = set()
        """The unreadable rows already warned about (``decode_rows``)."""

    @classmethod
    async def connect(cls, path: Path, *, busy_timeout: float) -> Database:
        """Open ``path`` (creating its directory) in WAL mode with ``busy_timeout`` seconds.

        Raises:
            MemoryStoreError: when the file cannot be opened as a SQLite database.
        """
        db = cls(path, busy_timeout=busy_timeout)
        await db.open()
        return db

    async def fetch_all(self, sql: str, params: Params = ()) -> list[sqlite3.Row]:
        """Run one read-only query and return every row."""
        return await self.read(lambda session: session.fetch_all(sql, params))

    async def fetch_one(self, sql: str, params: Params = ()) -> sqlite3.Row | None:
        """Run one read-only query and return its first row, or ``None``."""
        return await self.read(lambda session: session.fetch_one(sql, params))


def _closed(path: Path) -> StoreClosedError:
    return StoreClosedError(f"the memory store on {str(path)!r} is closed")


_FAILURES = Failures("the memory database", MemoryStoreError, _closed)

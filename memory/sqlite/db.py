"""The memory repositories' SQLite connection: the shared ``common.sqlite`` helper, rows by
column name, errors of the memory package. ``SqliteSteps`` runs the repositories' steps
(``memory.sql``) on it, one operation per trip to the connection's thread; see
``common.sqlite`` for what that guarantees.
"""

from __future__ import annotations

import functools
import sqlite3
from pathlib import Path
from typing import Any, TypeVar

from common import Failures, SqliteDatabase, StepRun
from memory.errors import MemoryStoreError, StoreClosedError
from memory.sql import Statement, Steps
from memory.sqlite.dialect import SqliteDialect

T = TypeVar("T")


class Connection(SqliteDatabase[sqlite3.Connection]):
    """The memory package's connection: rows by column name, errors are memory errors.

    Args:
        path: The database file; its directory is created when missing.
        busy_timeout: Seconds a statement waits for another connection's write lock.
    """

    def __init__(self, path: Path, *, busy_timeout: float) -> None:
        super().__init__(
            path,
            handle=_itself,
            failures=_FAILURES,
            busy_ms=round(busy_timeout * 1000),
            thread_name="memory-sqlite",
            named_rows=True,
            foreign_keys=True,
            lenient_text=True,
        )


class SqliteSteps:
    """The repositories' ``memory.sql.Database`` on a SQLite connection: each operation's
    steps run on the connection's thread, in one transaction."""

    def __init__(self, connection: Connection) -> None:
        self._connection = connection
        self.dialect = SqliteDialect()

    async def read(self, steps: Steps[T], *, snapshot: bool = False) -> T:
        """Run ``steps``' queries (with ``snapshot``, inside one transaction)."""
        return await self._connection.read(
            functools.partial(run_steps, steps=steps), snapshot=snapshot
        )

    async def write(self, steps: Steps[T]) -> T:
        """Run ``steps`` in one write transaction."""
        return await self._connection.write(functools.partial(run_steps, steps=steps))

    async def close(self) -> None:
        """Close the connection."""
        await self._connection.close()


def run_steps(conn: sqlite3.Connection, steps: Steps[T]) -> T:
    """Run shared steps on the connection's thread; a cursor handed over for reading as
    it goes is closed when the next statement runs, or when the steps end."""
    run = StepRun(steps)
    reading: list[sqlite3.Cursor] = []
    try:
        for statement in run:
            for cursor in reading:
                cursor.close()
            reading.clear()
            if statement.want == "many":
                run.answer = conn.executemany(statement.sql, statement.params)
                continue
            run.answer = _answer(conn.execute(statement.sql, statement.params), statement)
            if statement.want == "rows":
                reading.append(run.answer)
    finally:
        for cursor in reading:
            cursor.close()
    return run.value


def _answer(cursor: sqlite3.Cursor, statement: Statement) -> Any:
    if statement.want == "rows":
        return cursor
    if statement.want == "all":
        return cursor.fetchall()
    if statement.want == "count":
        return cursor.rowcount
    if statement.want == "none":
        return None
    row = cursor.fetchone()
    if statement.want == "one" or row is None:
        return row
    return row[0]


def _itself(conn: sqlite3.Connection) -> sqlite3.Connection:
    return conn


def _closed(path: Path) -> StoreClosedError:
    return StoreClosedError(f"the memory store on {str(path)!r} is closed")


_FAILURES = Failures("the memory database", MemoryStoreError, _closed)

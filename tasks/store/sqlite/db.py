"""The task store's SQLite connections: the shared ``common.sqlite`` helper, raising task errors.

Work functions get the plain ``sqlite3.Connection`` and its tuple rows (the claim path reads
thousands of rows per second; tuples are the cheapest). See ``common.sqlite`` for what one
operation on the connection's own thread guarantees. ``run_steps`` runs the steps the stores
share (``tasks.store.steps``) on the connection, one statement after the other.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from common import Failures, SqliteDatabase, StepRun
from tasks.errors import TaskError
from tasks.store.dialect import Statement
from tasks.store.rows import TaskStoreError
from tasks.store.steps import Steps

__all__ = ["T", "TaskDatabase", "TaskStoreError", "Work", "execute", "run_steps"]

T = TypeVar("T")
Work = Callable[[sqlite3.Connection], T]


def execute(conn: sqlite3.Connection, statement: Statement) -> Any:
    """Run one shared statement and return what it wants of its rows."""
    cursor = conn.execute(statement.sql, statement.params)
    if statement.want == "all":
        return cursor.fetchall()
    row = None if statement.want == "none" else cursor.fetchone()
    return row[0] if statement.want == "value" and row is not None else row


def run_steps(conn: sqlite3.Connection, steps: Steps[T]) -> T:
    """Run shared steps on the connection's thread, inside the transaction it is in."""
    run = StepRun(steps)
    for statement in run:
        run.answer = execute(conn, statement)
    return run.value


def _not_open(path: Path) -> TaskError:
    return TaskError(
        f"the task store {str(path)!r} is not open; call 'await store.open()' "
        "(or start the TaskManager) first"
    )


def _itself(conn: sqlite3.Connection) -> sqlite3.Connection:
    return conn


_FAILURES = Failures("the task database", TaskStoreError, _not_open)


class TaskDatabase(SqliteDatabase[sqlite3.Connection]):
    """A ``SqliteDatabase`` whose work gets the connection and whose errors are task errors.

    Args:
        path: The database file; its directory is created when missing.
        busy_ms: How long a statement waits for another connection's write lock.
        thread_name: The name of the connection's thread.
        autocheckpoint: Whether commits on this connection may checkpoint the WAL (the task
            store leaves that to a connection of its own, see ``WalCheckpointer``).
    """

    def __init__(
        self,
        path: Path,
        *,
        busy_ms: int,
        thread_name: str = "task-sqlite",
        autocheckpoint: bool = True,
    ) -> None:
        super().__init__(
            path,
            handle=_itself,
            failures=_FAILURES,
            busy_ms=busy_ms,
            thread_name=thread_name,
            autocheckpoint=autocheckpoint,
        )

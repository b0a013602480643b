"""Running the steps both SQL stores share (``tasks.store.steps``) on a PostgreSQL connection.

Each statement is awaited in turn, inside the transaction ``common.PostgresDatabase`` opened
for the operation; what a statement returns is what it ``want``s of asyncpg's answer.
"""

from __future__ import annotations

from typing import Any, TypeVar

from common import PgConnection, StepRun
from tasks.store.dialect import Statement
from tasks.store.steps import Steps

T = TypeVar("T")


_CALLS = {"all": "fetch", "one": "fetchrow", "value": "fetchval", "none": "execute"}


async def execute(conn: PgConnection, statement: Statement) -> Any:
    """Run one shared statement and return what it wants of its rows."""
    return await getattr(conn, _CALLS[statement.want])(statement.sql, *statement.params)


async def run_steps(conn: PgConnection, steps: Steps[T]) -> T:
    """Run shared steps on ``conn``, inside the transaction it is in."""
    run = StepRun(steps)
    for statement in run:
        run.answer = await execute(conn, statement)
    return run.value

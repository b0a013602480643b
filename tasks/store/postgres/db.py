"""Running the steps both SQL stores share (``tasks.store.steps``) on a PostgreSQL connection.

Each statement is awaited in turn, inside the transaction ``common.PostgresDatabase`` opened
for the operation; what a statement returns is what it ``want``s of asyncpg's answer.
"""

from __future__ import annotations

from typing import Any, TypeVar

from common import PgConnection
from tasks.store.dialect import Statement
from tasks.store.steps import Steps

T = TypeVar("T")


async def execute(conn: PgConnection, statement: Statement) -> Any:
    """Run one shared statement and return what it wants of its rows."""
    if statement.want == "all":
        return await conn.fetch(statement.sql, *statement.params)
    if statement.want == "one":
        return await conn.fetchrow(statement.sql, *statement.params)
    if statement.want == "value":
        return await conn.fetchval(statement.sql, *statement.params)
    await conn.execute(statement.sql, *statement.params)
    return None


async def run_steps(conn: PgConnection, steps: Steps[T]) -> T:
    """Run shared steps on ``conn``, inside the transaction it is in."""
    result: Any = None
    while True:
        try:
            statement = steps.send(result)
        except StopIteration as done:
            value: T = done.value
            return value
        result = await execute(conn, statement)

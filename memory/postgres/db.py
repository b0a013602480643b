"""The repositories' ``memory.sql.Database`` on a PostgreSQL connection pool.

Each operation's steps run on one pooled connection, awaited statement by statement, inside
the transaction ``common.PostgresDatabase`` opened for it.
"""

from __future__ import annotations

import functools
from typing import Any, TypeVar

from common import PgConnection, PostgresDatabase
from memory.postgres.dialect import POSTGRES
from memory.sql import Statement, Steps

T = TypeVar("T")


class PostgresSteps:
    """Runs the repositories' steps on a ``common.PostgresDatabase``."""

    dialect = POSTGRES

    def __init__(self, db: PostgresDatabase) -> None:
        self._db = db

    async def read(self, steps: Steps[T], *, snapshot: bool = False) -> T:
        """Run ``steps``' queries (with ``snapshot``, in one REPEATABLE READ transaction)."""
        return await self._db.read(functools.partial(_run, steps=steps), snapshot=snapshot)

    async def write(self, steps: Steps[T]) -> T:
        """Run ``steps`` in one write transaction."""
        return await self._db.write(functools.partial(_run, steps=steps))

    async def close(self) -> None:
        """Close the connections."""
        await self._db.close()


async def _run(conn: PgConnection, steps: Steps[T]) -> T:
    result: Any = None
    while True:
        try:
            statement = steps.send(result)
        except StopIteration as done:
            value: T = done.value
            return value
        result = await _answer(conn, statement)


async def _answer(conn: PgConnection, statement: Statement) -> Any:
    sql, params = statement.sql, statement.params
    if statement.want in ("all", "rows"):
        return await conn.fetch(sql, *params)
    if statement.want == "one":
        return await conn.fetchrow(sql, *params)
    if statement.want == "value":
        return await conn.fetchval(sql, *params)
    if statement.want == "many":
        await conn.executemany(sql, params)
        return None
    status = await conn.execute(sql, *params)  # "UPDATE 3"
    return int(status.rsplit(" ", 1)[-1]) if statement.want == "count" else None

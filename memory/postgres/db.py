"""The repositories' ``memory.sql.Database`` on a PostgreSQL connection pool.

Each operation's steps run on one pooled connection, awaited statement by statement, inside
the transaction ``common.PostgresDatabase`` opened for it.
"""

from __future__ import annotations

import functools
from typing import TypeVar

from common import PgConnection, PostgresDatabase, StepRun
from memory.postgres.dialect import POSTGRES
from memory.sql import Steps

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


_FETCHES = {"all": "fetch", "rows": "fetch", "one": "fetchrow", "value": "fetchval"}


async def _run(conn: PgConnection, steps: Steps[T]) -> T:
    run = StepRun(steps)
    for statement in run:
        sql, params = statement.sql, statement.params
        if statement.want == "many":
            await conn.executemany(sql, params)
            run.answer = None
        elif statement.want in _FETCHES:
            run.answer = await getattr(conn, _FETCHES[statement.want])(sql, *params)
        else:  # "UPDATE 3": how many rows the statement changed
            status = await conn.execute(sql, *params)
            run.answer = int(status.rsplit(" ", 1)[-1]) if statement.want == "count" else None
    return run.value

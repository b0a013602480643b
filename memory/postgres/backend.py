"""The memory repositories on a PostgreSQL database (``memory.backend.MemoryBackend``)."""

from __future__ import annotations

from common import Clock, PostgresDatabase, PostgresFailures
from memory.backend import SqlBackend
from memory.errors import MemoryStoreError, StoreClosedError
from memory.postgres.db import PostgresSteps
from memory.postgres.schema import migrate


def _closed(where: str) -> StoreClosedError:
    return StoreClosedError(f"the memory store on {where!r} is closed")


_FAILURES = PostgresFailures("the memory database", MemoryStoreError, _closed)


async def open_postgres(url: str, *, clock: Clock, pool_size: int = 4) -> SqlBackend:
    """Connect, create or migrate the tables, and return the repositories on the pool.

    Raises:
        MemoryStoreError: when the server cannot be reached or holds a newer schema.
    """
    db = PostgresDatabase(
        url, failures=_FAILURES, max_size=pool_size, application_name="assistant-memory"
    )
    await db.open(migrate=migrate)
    return SqlBackend(PostgresSteps(db), clock)

"""The memory repositories on one SQLite file (``memory.backend.MemoryBackend``)."""

from __future__ import annotations

from pathlib import Path

from common import Clock
from memory.backend import SqlBackend
from memory.sqlite.db import Connection, SqliteSteps
from memory.sqlite.schema import migrate


async def open_sqlite(path: Path, *, clock: Clock, busy_timeout: float) -> SqlBackend:
    """Connect in WAL mode with ``busy_timeout`` seconds, create or migrate the tables, and
    return the repositories on the file.

    Raises:
        MemoryStoreError: when the file cannot be used (not SQLite, newer schema, ...).
    """
    connection = Connection(path, busy_timeout=busy_timeout)
    await connection.open()
    try:
        await migrate(connection)
    except BaseException:
        await connection.close()
        raise
    return SqlBackend(SqliteSteps(connection), clock)

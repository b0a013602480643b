"""The embedded PostgreSQL server the tests and benchmarks run: unprivileged, and loud when it
cannot start."""

from __future__ import annotations

import os
from pathlib import Path

import asyncpg
import pytest

from bench.pg_server import EmbeddedPostgres, EmbeddedPostgresError, ServerUser


def process_uid(pid: int) -> int:
    """The real user id of a running process, from ``/proc``."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("Uid:"):
            return int(line.split()[1])
    raise AssertionError(f"no Uid line for process {pid}")


async def test_the_server_runs_unprivileged_in_its_own_private_folder(
    postgres_server: EmbeddedPostgres,
) -> None:
    conn = await asyncpg.connect(postgres_server.url())
    try:
        data = await conn.fetchval("SELECT current_setting('data_directory')")
        listens = await conn.fetchval("SELECT current_setting('listen_addresses')")
    finally:
        await conn.close()

    assert process_uid(postgres_server.process.pid) != 0
    if os.geteuid() == 0:
        assert postgres_server.user.name == "nobody"
    assert Path(data).parent == postgres_server.root
    assert postgres_server.root.stat().st_mode & 0o077 == 0
    assert listens == "127.0.0.1"


def test_what_fails_says_why() -> None:
    me = ServerUser.choose()
    log = Path("/dev/null")
    with pytest.raises(EmbeddedPostgresError, match=rf"false \(as {me.name}\) exited with 1"):
        me.run(["false"], cwd=Path("/"), log=log)
    if os.geteuid() == 0:  # as root the server needs someone else to run as
        with pytest.raises(EmbeddedPostgresError, match="'no-such-user-here' to run it as does"):
            ServerUser.choose("no-such-user-here")

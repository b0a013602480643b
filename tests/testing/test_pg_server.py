"""The embedded PostgreSQL server the tests and benchmarks run: unprivileged, and loud when it
cannot start."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import asyncpg
import pytest

from testing.pg_server import EmbeddedPostgres, EmbeddedPostgresError, ServerUser, remove_stale


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


def server_folder(parent: Path, name: str, pid: int | None) -> Path:
    """A folder as ``EmbeddedPostgres.start`` leaves it, with its server's pid (if started)."""
    root = parent / f"assistant-pg-{name}"
    (root / "data").mkdir(parents=True)
    if pid is not None:
        (root / "data" / "postmaster.pid").write_text(f"{pid}\n{root / 'data'}\n")
    return root


def test_folders_a_killed_run_left_behind_are_removed_and_no_others(tmp_path: Path) -> None:
    gone = subprocess.Popen(["true"])
    gone.wait()
    dead = server_folder(tmp_path, "dead", gone.pid)
    alive = server_folder(tmp_path, "alive", os.getpid())
    starting = server_folder(tmp_path, "starting", None)
    abandoned = server_folder(tmp_path, "abandoned", None)
    two_hours_ago = time.time() - 7200
    os.utime(abandoned, (two_hours_ago, two_hours_ago))
    other = tmp_path / "someone-elses"
    other.mkdir()

    removed = remove_stale(tmp_path)

    assert sorted(removed) == sorted([dead, abandoned])
    assert alive.exists() and starting.exists() and other.exists()
    assert not dead.exists() and not abandoned.exists()

"""What an operator meets: each failure is one clear line (what happened, what to do).

A read-only data directory, a database another process keeps locked, an unreachable Telegram
Bot API and a scheduled call whose host does not resolve. The command line runs in real
processes; the read-only file system is a read-only bind mount made by bubblewrap (which the
sandbox needs anyway), so it holds for root too. The traceback stays in the log, at DEBUG.
"""

from __future__ import annotations

import logging
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from common import GuardedHttp, IPAddress, ManualClock, NetGuard, unresolvable
from tasks import RunStatus
from tasks.runners import ApiCallRunner, Deliverer
from tests.assistant.test_cli import BOT_TOKEN, run
from tests.tasks.conftest import RecordingNotifier
from tests.tasks.test_runners import api_task, make_run


def read_only(folder: Path, *args: str, data_dir: Path) -> subprocess.CompletedProcess[str]:
    """Run ``assistant ARGS`` with ``folder`` mounted read-only."""
    bwrap = shutil.which("bwrap")
    assert bwrap, "bubblewrap is needed (./scripts/setup installs it; see the README)"
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(data_dir),
        "ASSISTANT_DATA_DIR": str(data_dir),
        "ASSISTANT_TIMEZONE": "UTC",
    }
    command = [bwrap, "--dev-bind", "/", "/", "--ro-bind", str(folder), str(folder),
               sys.executable, "-m", "assistant.cli", *args]  # fmt: skip
    return subprocess.run(
        command, capture_output=True, text=True, env=env, cwd=folder, timeout=60, check=False
    )


def one_error_line(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    [line] = [line for line in done.stderr.splitlines() if line.startswith("error: ")]
    return line


def test_a_read_only_data_directory_is_one_clear_line(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    run("ask", "note: written before", data_dir=data)

    existing = one_error_line(read_only(data, "ask", "hello", data_dir=data))
    fresh = one_error_line(read_only(tmp_path, "ask", "hello", data_dir=tmp_path / "new"))

    assert "must be readable and writable by this user" in existing
    assert "fix the permissions, or use another data directory" in existing
    assert fresh.startswith(f"error: cannot use the data directory '{tmp_path / 'new'}'")
    assert "Read-only file system" in fresh and "ASSISTANT_DATA_DIR" in fresh


def test_a_database_locked_by_another_process_is_one_clear_line(tmp_path: Path) -> None:
    run("ask", "note: written before", data_dir=tmp_path)
    holder = sqlite3.connect(tmp_path / "assistant.db", isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # held for the whole run, as another program would
    try:
        quiet = run("ask", "note: now", data_dir=tmp_path, check=False)
        verbose = run(
            "ask", "note: now", data_dir=tmp_path, check=False,
            env={"ASSISTANT_LOG_LEVEL": "DEBUG"},
        )  # fmt: skip
    finally:
        holder.execute("ROLLBACK")
        holder.close()

    line = one_error_line(quiet)
    assert "database is locked: another process holds its lock (waited 5 s for it)" in line
    assert "close the other program using this database, then try again" in line
    assert verbose.returncode == 1 and "Traceback" in verbose.stderr  # the log keeps it


def test_an_unreachable_telegram_api_is_one_clear_line(tmp_path: Path) -> None:
    done = run(
        "telegram", data_dir=tmp_path, check=False,
        env={"TELEGRAM_BOT_TOKEN": BOT_TOKEN, "TELEGRAM_BASE_URL": "http://127.0.0.1:9/bot"},
    )  # fmt: skip

    line = one_error_line(done)
    assert line.startswith("error: cannot reach the Telegram Bot API at 'http://127.0.0.1:9/bot'")
    assert "check the network, or TELEGRAM_BASE_URL" in line


async def test_a_scheduled_call_whose_host_does_not_resolve_is_one_clear_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def no_dns(host: str) -> Sequence[IPAddress]:
        raise unresolvable(host, "Name or service not known")

    clock = ManualClock(make_run().scheduled_for)
    notifier = RecordingNotifier()
    http = GuardedHttp(guard=NetGuard(resolver=no_dns))
    runner = ApiCallRunner(Deliverer(notifier, sleep=clock.sleep), http, sleep=clock.sleep)

    with caplog.at_level(logging.DEBUG):
        report = await runner.run(api_task("http://lights.example/off"), make_run())
    await http.aclose()

    assert report.status is RunStatus.FAILED
    assert report.error == (
        "GET http://lights.example/off failed: cannot resolve host 'lights.example' (Name or "
        "service not known); check the name, and that this machine can reach its DNS server "
        "(after 3 attempts)"
    )
    loud = [r for r in caplog.records if r.exc_info and r.levelno > logging.DEBUG]
    quiet = [r for r in caplog.records if r.exc_info and r.levelno == logging.DEBUG]
    assert loud == [] and len(quiet) == 3

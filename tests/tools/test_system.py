"""Tests for get_current_time and the execute_code sandbox (real subprocesses, real limits)."""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from assistant.builtin.system import (
    CodeSandbox,
    SandboxLimits,
    SystemTools,
    count_tasks,
    get_current_time,
)
from tools import (
    RiskLevel,
    ToolCall,
    ToolContext,
    ToolError,
    ToolExecutor,
    ToolRegistry,
    ToolStatus,
)

BERLIN = ZoneInfo("Europe/Berlin")
NOW = datetime(2025, 3, 30, 0, 30, tzinfo=UTC)  # 01:30 CET, half an hour before DST starts


@pytest.fixture(scope="module")
def sandbox() -> CodeSandbox:
    return CodeSandbox(
        limits=SandboxLimits(memory_bytes=256 * 1024**2, file_bytes=1024**2, processes=8)
    )


def context() -> ToolContext:
    return ToolContext(user_id="u1", chat_id="c1", timezone=BERLIN, now=NOW)


async def wait_until_gone(uid: int, baseline: int) -> int:
    """Poll (killed processes need a moment to be reaped) until ``uid`` is back to baseline."""
    for _ in range(100):
        current = count_tasks(uid)
        if current <= baseline:
            return current
        await asyncio.sleep(0.02)
    return count_tasks(uid)


def test_current_time_is_in_the_users_zone() -> None:
    result = get_current_time(context())
    assert result == {
        "iso": "2025-03-30T01:30:00+01:00",
        "date": "2025-03-30",
        "time": "01:30:00",
        "weekday": "Sunday",
        "timezone": "Europe/Berlin",
        "utc_offset": "+01:00",
    }


def test_current_time_in_another_zone() -> None:
    result = get_current_time(context(), tz="Asia/Kolkata")
    assert (result["time"], result["utc_offset"]) == ("06:00:00", "+05:30")


def test_an_unknown_zone_is_explained() -> None:
    with pytest.raises(ToolError, match=r"unknown time zone 'Mars/Olympus'.*Europe/Berlin"):
        get_current_time(context(), tz="Mars/Olympus")


async def test_current_time_through_the_executor_reads_well() -> None:
    executor = ToolExecutor(ToolRegistry([get_current_time]))
    result = await executor.execute(ToolCall("get_current_time", {}), context())
    assert result.status is ToolStatus.OK
    assert result.text == "Sunday 2025-03-30 01:30:00 (Europe/Berlin, UTC+01:00)"


async def test_execute_code_always_needs_approval_and_is_high_risk(
    sandbox: CodeSandbox,
) -> None:
    registry = ToolRegistry([SystemTools(sandbox=sandbox)])
    executor = ToolExecutor(registry)
    result = await executor.execute(ToolCall("execute_code", {"code": "print(1)"}), context())
    assert result.status is ToolStatus.PENDING_APPROVAL
    assert result.approval is not None
    assert result.approval.arguments == {"code": "print(1)"}
    assert registry.get("execute_code").risk_level is RiskLevel.HIGH


async def test_code_runs_isolated_in_a_temporary_directory(
    sandbox: CodeSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ASSISTANT_TEST_SECRET", "do-not-leak")
    code = (
        "import os, sys\n"
        "print(os.getcwd())\n"
        "print(sys.flags.isolated, 'ASSISTANT_TEST_SECRET' in os.environ)\n"
        "print(sorted(os.listdir('.')))\n"
        "input()\n"
    )
    run = await sandbox.run(code, seconds=10)
    cwd, flags, listing = run.stdout.splitlines()
    assert Path(cwd).name.startswith("assistant-code-")
    assert not await asyncio.to_thread(Path(cwd).exists)
    assert flags == "1 False"
    assert listing == "['main.py']"
    assert "EOFError" in run.stderr
    assert run.exit_code == 1


async def test_an_endless_loop_is_stopped_by_the_timeout(sandbox: CodeSandbox) -> None:
    started = time.monotonic()
    run = await sandbox.run("while True:\n    pass\n", seconds=1)
    assert run.timed_out
    assert time.monotonic() - started < 5
    assert "ran longer than its timeout" in run.render()


async def test_a_memory_bomb_is_stopped_by_the_address_space_limit(sandbox: CodeSandbox) -> None:
    run = await sandbox.run("hog = []\nwhile True:\n    hog.append(bytearray(10**7))\n", seconds=10)
    assert not run.timed_out
    assert run.limit == "memory limit"
    assert "MemoryError" in run.stderr


async def test_big_files_are_stopped_by_the_file_size_limit(sandbox: CodeSandbox) -> None:
    run = await sandbox.run("open('big', 'wb').write(b'x' * 2 * 1024**2)\n", seconds=10)
    assert run.limit == "file size limit"
    assert "File too large" in run.stderr


async def test_output_is_capped() -> None:
    sandbox = CodeSandbox(limits=SandboxLimits(output_bytes=1000))
    run = await sandbox.run("print('x' * 100_000)\n", seconds=10)
    assert run.truncated
    assert run.stdout == "x" * 1000
    assert "(output was cut" in run.render()


async def test_a_fork_bomb_is_stopped_by_the_process_limit(sandbox: CodeSandbox) -> None:
    baseline = count_tasks(sandbox.uid)
    # A linear probe first: it proves the limit holds before an exponential bomb is tried.
    probe = (
        "import os, time\n"
        "made = 0\n"
        "for _ in range(100):\n"
        "    try:\n"
        "        if os.fork() == 0:\n"
        "            time.sleep(30)\n"
        "            os._exit(0)\n"
        "    except OSError:\n"
        "        break\n"
        "    made += 1\n"
        "print(made)\n"
    )
    run = await sandbox.run(probe, seconds=5)
    assert 0 < int(run.stdout) <= 8
    assert await wait_until_gone(sandbox.uid, baseline) <= baseline

    peak = [0]
    stop = threading.Event()

    def watch() -> None:
        while not stop.wait(0.002):
            peak[0] = max(peak[0], count_tasks(sandbox.uid))

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        run = await sandbox.run("import os\nwhile True:\n    os.fork()\n", seconds=2)
    finally:
        stop.set()
        watcher.join()
    assert peak[0] <= baseline + 8 + 1  # +1: the sandbox's own first process
    assert "Resource temporarily unavailable" in run.stderr
    assert await wait_until_gone(sandbox.uid, baseline) <= baseline


@pytest.fixture
def shared_dir() -> Iterator[Path]:
    """A directory the sandbox user may write to (pytest's tmp_path is private to root)."""
    path = Path(tempfile.mkdtemp(prefix="sandbox-test-"))
    path.chmod(0o777)
    yield path
    shutil.rmtree(path, ignore_errors=True)


async def test_a_cancelled_run_leaves_no_process_behind(
    sandbox: CodeSandbox, shared_dir: Path
) -> None:
    pid_file = shared_dir / "pid"
    code = (
        f"import os, time\nopen({str(pid_file)!r}, 'w').write(str(os.getpid()))\ntime.sleep(30)\n"
    )
    task = asyncio.create_task(sandbox.run(code, seconds=30))
    for _ in range(200):
        if pid_file.exists() and pid_file.read_text():
            break
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    pid = int(pid_file.read_text())
    for _ in range(100):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        await asyncio.sleep(0.02)
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


@pytest.mark.parametrize("seconds", [0, -1, 61])
async def test_timeouts_out_of_range_are_refused(sandbox: CodeSandbox, seconds: float) -> None:
    with pytest.raises(ToolError, match=rf"timeout {seconds!r} is out of range"):
        await sandbox.run("print(1)", seconds=seconds)


async def test_an_unusable_interpreter_is_reported() -> None:
    sandbox = CodeSandbox(python="/nonexistent/python3")
    with pytest.raises(ToolError, match=r"execute_code cannot run.*/nonexistent/python3"):
        await sandbox.run("print(1)", seconds=5)

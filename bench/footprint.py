"""Memory and start-up of the real ``assistant serve`` process, empty and with stored tasks.

Run with ``.venv/bin/python -m bench.footprint``. Starts ``assistant serve`` on an empty data
directory, then on one holding 10,000 reminders due next year; for each prints the time from
launch to its ``ready`` line and its resident memory (VmRSS) a second later.
"""

from __future__ import annotations

import asyncio
import random
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

from tasks import SqliteTaskStore
from testing.harness import CrashPlan, database_path, reminder_drafts
from testing.serve_process import ServeProcess, serve_command, serve_env

STORED = 10_000
SETTLE_SECONDS = 1.0


def resident_mb(pid: int) -> float:
    """Return the process's resident memory (VmRSS) in MB, read from ``/proc``."""
    status = Path(f"/proc/{pid}/status").read_text(encoding="utf-8")
    for line in status.splitlines():
        if line.startswith("VmRSS:"):
            return float(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS line in /proc/{pid}/status; is this Linux?")


async def measure(workdir: Path, stored: int) -> tuple[float, float]:
    """Start serve with ``stored`` future reminders; return (seconds to ready, RSS in MB)."""
    data_dir = workdir / "data"
    if stored:
        plan = CrashPlan(reminders=stored, span=3600.0, kills=0)
        next_year = datetime.now(UTC) + timedelta(days=365)
        drafts, _ = reminder_drafts(plan, next_year, random.Random(1))
        async with SqliteTaskStore(database_path(data_dir)) as store:
            await store.add_tasks(drafts)
    proc = ServeProcess(
        serve_command(workdir / "deliveries.jsonl"),
        env=serve_env(data_dir),
        log_path=workdir / "serve.log",
    )
    ready = await proc.start(within=60.0)
    try:
        await asyncio.sleep(SETTLE_SECONDS)
        pid = proc.pid
        assert pid is not None
        rss = resident_mb(pid)
    finally:
        await proc.terminate(within=30.0)
    return ready, rss


async def run() -> None:
    """Measure both cases and print one line each."""
    for stored in (0, STORED):
        with tempfile.TemporaryDirectory(prefix="assistant-footprint-") as tmp:
            ready, rss = await measure(Path(tmp), stored)
        label = f"assistant serve, {stored:,} tasks stored"
        print(f"{label:<40} launch to ready {ready:.2f} s   RSS {rss:.0f} MB", flush=True)


def main() -> int:
    """Run the measurements."""
    asyncio.run(run())
    return 0


if __name__ == "__main__":
    sys.exit(main())

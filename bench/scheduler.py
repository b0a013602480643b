"""Scheduler figures: lateness, burst delivery, start-up with many stored tasks, claim rate.

Run with ``.venv/bin/python -m bench.scheduler`` (``--only a|b|c|d`` for one part). Every part
uses the SQLite store in a temporary directory, a no-op notifier and the real clock, and runs
in a fresh process so that one part's memory does not show up in another's RSS.

(a) 10,000 one-time tasks due over 10 s: lateness p50 / p99 / max (target p99 < 10 ms).
(b) 10,000 tasks due at the same instant: time until the last is delivered (target < 1 s).
(c) 100,000 stored tasks: time from start to ready, and RSS (targets < 1 s, < 150 MB).
(d) claims per second: ``claim_due`` in batches of 500 over 20,000 due tasks.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from tasks.clock import SystemClock
from tasks.execution import ReminderData, TaskType
from tasks.manager import TaskManager
from tasks.models import DEFAULT_MISFIRE_RULES, TaskDraft
from tasks.protocols import Delivery, DeliveryStatus
from tasks.schedule import OnceSchedule
from tasks.sqlite_store import SqliteTaskStore

ZONE = ZoneInfo("Europe/Berlin")
RULE = DEFAULT_MISFIRE_RULES[TaskType.REMINDER]


class NoOpNotifier:
    """Accepts every delivery and notes when it arrived."""

    def __init__(self, expected: int) -> None:
        self.arrivals: dict[str, datetime] = {}
        self.expected = expected
        self.all_arrived = asyncio.Event()

    async def deliver(self, delivery: Delivery) -> DeliveryStatus:
        """Record the arrival time of ``delivery``."""
        self.arrivals[delivery.task_id] = datetime.now(UTC)
        if len(self.arrivals) >= self.expected:
            self.all_arrived.set()
        return DeliveryStatus.DELIVERED


def drafts(times: list[datetime]) -> list[TaskDraft]:
    """One reminder draft per instant."""
    now = datetime.now(UTC)
    data = ReminderData(message="bench")
    return [
        TaskDraft(
            owner_id=f"user{n % 100}",
            chat_id=f"chat{n % 100}",
            task_type=TaskType.REMINDER,
            description="bench",
            schedule=OnceSchedule(at=at, tz=ZONE),
            execution=data,
            misfire=RULE,
            created_at=now,
            next_run=at,
        )
        for n, at in enumerate(times)
    ]


async def insert(path: Path, times: list[datetime]) -> list[str]:
    """Bulk-insert one task per instant (one transaction per 20,000)."""
    ids: list[str] = []
    async with SqliteTaskStore(path) as store:
        for start in range(0, len(times), 20_000):
            ids += await store.add_tasks(drafts(times[start : start + 20_000]))
    return ids


async def fire_and_measure(path: Path, times: list[datetime], ids: list[str]) -> NoOpNotifier:
    """Run a manager until every task was delivered."""
    notifier = NoOpNotifier(len(ids))
    async with TaskManager(store=SqliteTaskStore(path), notifier=notifier, clock=SystemClock()):
        await asyncio.wait_for(notifier.all_arrived.wait(), timeout=120)
    return notifier


def percentile(values: list[float], share: float) -> float:
    """The ``share`` quantile (nearest rank) of ``values``."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


async def part_a(path: Path) -> None:
    """10,000 one-time tasks spread over 10 s."""
    start = datetime.now(UTC) + timedelta(seconds=3)
    times = [start + timedelta(milliseconds=n) for n in range(10_000)]
    ids = await insert(path, times)
    due = dict(zip(ids, times, strict=True))
    notifier = await fire_and_measure(path, times, ids)
    late_ms = [(notifier.arrivals[i] - due[i]).total_seconds() * 1000 for i in ids]
    print(
        f"(a) 10,000 tasks over 10 s: lateness p50 {statistics.median(late_ms):.2f} ms, "
        f"p99 {percentile(late_ms, 0.99):.2f} ms, max {max(late_ms):.2f} ms"
    )


async def part_b(path: Path) -> None:
    """10,000 tasks due at one instant."""
    at = datetime.now(UTC) + timedelta(seconds=3)
    ids = await insert(path, [at] * 10_000)
    notifier = await fire_and_measure(path, [at] * 10_000, ids)
    last = max(notifier.arrivals.values())
    first = min(notifier.arrivals.values())
    print(
        f"(b) 10,000 tasks due at once: first delivered after "
        f"{(first - at).total_seconds() * 1000:.1f} ms, last after "
        f"{(last - at).total_seconds() * 1000:.1f} ms"
    )


async def part_c_setup(path: Path) -> None:
    """Store 100,000 tasks due over the next 30 days."""
    now = datetime.now(UTC)
    times = [now + timedelta(days=1, seconds=26 * n) for n in range(100_000)]
    began = time.perf_counter()
    await insert(path, times)
    print(f"    (setup: 100,000 tasks inserted in {time.perf_counter() - began:.2f} s)")


async def part_c(path: Path) -> None:
    """Start a manager over 100,000 stored tasks."""
    notifier = NoOpNotifier(1)
    began = time.perf_counter()
    store = SqliteTaskStore(path)
    manager = TaskManager(store=store, notifier=notifier, clock=SystemClock())
    await manager.start()
    # Ready: nothing due was fired and the earliest next run is known (what the timer sleeps on).
    fired = await manager.run_due()
    next_run = await store.next_wakeup()
    ready = time.perf_counter() - began
    rss_mb = current_rss_mb()
    await manager.stop()
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    assert fired == 0 and next_run is not None
    print(
        f"(c) 100,000 stored tasks: ready in {ready * 1000:.1f} ms, RSS {rss_mb:.1f} MB "
        f"(peak {peak_mb:.1f} MB)"
    )


async def part_d(path: Path) -> None:
    """Claim 20,000 due tasks in batches of 500."""
    now = datetime.now(UTC)
    await insert(path, [now - timedelta(seconds=1)] * 20_000)
    claimed = 0
    async with SqliteTaskStore(path) as store:
        began = time.perf_counter()
        while claims := await store.claim_due(now, limit=500, lease=timedelta(minutes=3)):
            claimed += len(claims)
        elapsed = time.perf_counter() - began
    print(f"(d) claims: {claimed:,} in {elapsed:.2f} s = {claimed / elapsed:,.0f} claims/s")


def current_rss_mb() -> float:
    """The resident set size of this process now, from /proc (Linux)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/self/status; this figure needs Linux")


PARTS = {"a": part_a, "b": part_b, "c-setup": part_c_setup, "c": part_c, "d": part_d}


def run_part(name: str, path: Path) -> None:
    """Run one part in a fresh interpreter."""
    subprocess.run(
        [sys.executable, "-m", "bench.scheduler", "--only", name, "--db", str(path)],
        check=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)},
    )


def main() -> None:
    """Parse arguments and run the parts."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--only", choices=sorted(PARTS))
    parser.add_argument("--db", type=Path)
    args = parser.parse_args()
    if args.only:
        if args.db is None:
            parser.error("--only needs --db")
        asyncio.run(PARTS[args.only](args.db))
        return
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        run_part("a", root / "a.db")
        run_part("b", root / "b.db")
        run_part("c-setup", root / "c.db")
        run_part("c", root / "c.db")
        run_part("d", root / "d.db")


if __name__ == "__main__":
    main()

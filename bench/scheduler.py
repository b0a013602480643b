"""Scheduler figures: lateness, burst delivery, start-up with many stored tasks, claim rate.

Run with ``.venv/bin/python -m bench.scheduler`` (``--only a|b|c|d`` for one part; ``--json``
prints the figures as one JSON object instead of the text lines). Every part uses the SQLite
store in a temporary directory, a no-op notifier and the real clock, and runs in a fresh
process so that one part's memory does not show up in another's RSS.

(a) 10,000 one-time tasks due over 10 s: lateness p50 / p99 / max (target p99 < 10 ms).
(b) 10,000 tasks due at the same instant: time until the last is delivered (target < 1 s).
(c) 100,000 stored tasks: time from start to ready, and RSS (targets < 1 s, < 150 MB).
(d) claims per second: ``claim_due`` in batches of 500 over 20,000 due tasks.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from common import SystemClock
from tasks import (
    DEFAULT_MISFIRE_RULES,
    Delivery,
    DeliveryStatus,
    OnceSchedule,
    ReminderData,
    SqliteTaskStore,
    TaskDraft,
    TaskManager,
    TaskType,
)

ZONE = ZoneInfo("Europe/Berlin")
RULE = DEFAULT_MISFIRE_RULES[TaskType.REMINDER]


@dataclass
class Figures:
    """One part's figures: the text line it prints, and the same numbers by name."""

    text: str
    values: dict[str, float] = field(default_factory=dict)


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


async def part_a(path: Path) -> Figures:
    """10,000 one-time tasks spread over 10 s."""
    start = datetime.now(UTC) + timedelta(seconds=3)
    times = [start + timedelta(milliseconds=n) for n in range(10_000)]
    ids = await insert(path, times)
    due = dict(zip(ids, times, strict=True))
    notifier = await fire_and_measure(path, times, ids)
    late_ms = [(notifier.arrivals[i] - due[i]).total_seconds() * 1000 for i in ids]
    p50, p99, worst = statistics.median(late_ms), percentile(late_ms, 0.99), max(late_ms)
    return Figures(
        f"(a) 10,000 tasks over 10 s: lateness p50 {p50:.2f} ms, p99 {p99:.2f} ms, "
        f"max {worst:.2f} ms",
        {"a_p50_ms": p50, "a_p99_ms": p99, "a_max_ms": worst},
    )


async def part_b(path: Path) -> Figures:
    """10,000 tasks due at one instant."""
    at = datetime.now(UTC) + timedelta(seconds=3)
    ids = await insert(path, [at] * 10_000)
    notifier = await fire_and_measure(path, [at] * 10_000, ids)
    first_ms = (min(notifier.arrivals.values()) - at).total_seconds() * 1000
    last_ms = (max(notifier.arrivals.values()) - at).total_seconds() * 1000
    return Figures(
        f"(b) 10,000 tasks due at once: first delivered after {first_ms:.1f} ms, "
        f"last after {last_ms:.1f} ms",
        {"b_first_ms": first_ms, "b_last_ms": last_ms},
    )


async def part_c_setup(path: Path) -> Figures:
    """Store 100,000 tasks due over the next 30 days."""
    now = datetime.now(UTC)
    times = [now + timedelta(days=1, seconds=26 * n) for n in range(100_000)]
    began = time.perf_counter()
    await insert(path, times)
    seconds = time.perf_counter() - began
    return Figures(
        f"    (setup: 100,000 tasks inserted in {seconds:.2f} s)", {"c_setup_s": seconds}
    )


async def part_c(path: Path) -> Figures:
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
    return Figures(
        f"(c) 100,000 stored tasks: ready in {ready * 1000:.1f} ms, RSS {rss_mb:.1f} MB "
        f"(peak {peak_mb:.1f} MB)",
        {"c_ready_ms": ready * 1000, "c_rss_mb": rss_mb, "c_peak_mb": peak_mb},
    )


async def part_d(path: Path) -> Figures:
    """Claim 20,000 due tasks in batches of 500."""
    now = datetime.now(UTC)
    await insert(path, [now - timedelta(seconds=1)] * 20_000)
    claimed = 0
    async with SqliteTaskStore(path) as store:
        began = time.perf_counter()
        while claims := await store.claim_due(now, limit=500, lease=timedelta(minutes=3)):
            claimed += len(claims)
        elapsed = time.perf_counter() - began
    return Figures(
        f"(d) claims: {claimed:,} in {elapsed:.2f} s = {claimed / elapsed:,.0f} claims/s",
        {"d_claims": claimed, "d_seconds": elapsed, "d_claims_per_s": claimed / elapsed},
    )


def current_rss_mb() -> float:
    """The resident set size of this process now, from /proc (Linux)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/self/status; this figure needs Linux")


PARTS: dict[str, Callable[[Path], Coroutine[None, None, Figures]]] = {
    "a": part_a,
    "b": part_b,
    "c-setup": part_c_setup,
    "c": part_c,
    "d": part_d,
}


def run_part(name: str, path: Path, *, as_json: bool) -> dict[str, float]:
    """Run one part in a fresh interpreter; print its line, or return its figures (JSON)."""
    command = [sys.executable, "-m", "bench.scheduler", "--only", name, "--db", str(path)]
    done = subprocess.run(
        [*command, "--json"] if as_json else command,
        check=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)},
        stdout=subprocess.PIPE if as_json else None,
        text=True,
    )
    if not as_json:
        return {}
    values: dict[str, float] = json.loads(done.stdout)
    return values


def main() -> None:
    """Parse arguments and run the parts."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--only", choices=sorted(PARTS))
    parser.add_argument("--db", type=Path)
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    args = parser.parse_args()
    if args.only:
        if args.db is None:
            parser.error("--only needs --db")
        figures = asyncio.run(PARTS[args.only](args.db))
        print(json.dumps(figures.values) if args.json else figures.text)
        return
    collected: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for name, db in (("a", "a"), ("b", "b"), ("c-setup", "c"), ("c", "c"), ("d", "d")):
            collected |= run_part(name, root / f"{db}.db", as_json=args.json)
    if args.json:
        print(json.dumps(collected))


if __name__ == "__main__":
    main()

"""Scheduler figures: lateness, bursts, start-up with many stored tasks, claim rate.

Run with ``.venv/bin/python -m bench.scheduler`` (``--store memory`` for the in-memory store,
``--rounds 5`` for medians [min-max] over fresh runs, ``--only PART`` for one part, ``--json``
for the figures as one JSON object). Every part runs in a fresh process with the real clock,
a no-op notifier and the whole engine: claims, leases, the ledger (group commit) and nothing
skipped; a run counts as done when every task was delivered exactly once and the ledger
holds a success for each. With SQLite the tasks are stored by a separate process first, so
the figures (and the peak RSS) are those of a scheduler restarted over a persistent store.

(a)    10,000 one-time tasks due over 10 s: lateness p50 / p99 / max (target p99 < 10 ms).
(b)    10,000 tasks due at the same instant: first and last delivered, ledger settled.
(b100k) 100,000 tasks due at the same instant: the same, and the peak RSS.
(c)    100,000 stored tasks: time from start to ready, and RSS (targets < 1 s, < 150 MB).
(d)    claims per second: ``claim_due`` in batches of 500 over 20,000 due tasks.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from bench.workloads import (
    REPO_ROOT,
    burst,
    check_ready,
    current_rss_mb,
    lateness_figures,
    lead_for,
    peak_rss_mb,
    run_fresh,
    shown,
    spread,
    summarize,
)
from common import SystemClock
from tasks import (
    DEFAULT_MISFIRE_RULES,
    Delivery,
    DeliveryStatus,
    MemoryTaskStore,
    OnceSchedule,
    ReminderData,
    RunStatus,
    SqliteTaskStore,
    TaskDraft,
    TaskManager,
    TaskStore,
    TaskType,
)

ZONE = ZoneInfo("Europe/Berlin")
RULE = DEFAULT_MISFIRE_RULES[TaskType.REMINDER]
INSERT_CHUNK = 20_000


@dataclass
class Figures:
    """One part's figures: the text line it prints, and the same numbers by name."""

    text: str
    values: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Setup:
    """Where a part keeps its tasks: the store kind and the database file (SQLite)."""

    store: str
    db: Path

    def open_store(self) -> TaskStore:
        """A new store of this kind (SQLite: on ``db``)."""
        return MemoryTaskStore() if self.store == "memory" else SqliteTaskStore(self.db)


class NoOpNotifier:
    """Accepts every delivery and notes when each task's first one arrived (epoch seconds)."""

    def __init__(self, expected: int) -> None:
        self.arrivals: dict[str, float] = {}
        self.again = 0  # deliveries of a task that had already arrived
        self.expected = expected
        self.all_arrived = asyncio.Event()

    async def deliver(self, delivery: Delivery) -> DeliveryStatus:
        """Record the arrival time of ``delivery``."""
        if delivery.task_id in self.arrivals:
            self.again += 1
        else:
            self.arrivals[delivery.task_id] = time.time()
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


async def insert(store: TaskStore, times: list[datetime]) -> list[str]:
    """Store one task per instant (one transaction per 20,000)."""
    ids: list[str] = []
    for start in range(0, len(times), INSERT_CHUNK):
        ids += await store.add_tasks(drafts(times[start : start + INSERT_CHUNK]))
    return ids


async def store_times(db: Path, times: list[datetime]) -> list[str]:
    """Store the tasks in ``db`` (run in a separate process; see ``insert_elsewhere``)."""
    async with SqliteTaskStore(db) as store:
        return await insert(store, times)


def insert_elsewhere(db: Path, kind: str, first: datetime, count: int) -> list[str]:
    """Store the workload in ``db`` from a separate process; return the ids in due order."""
    done = subprocess.run(
        [sys.executable, "-m", "bench.scheduler", "--insert", kind, "--db", str(db),
         "--at", first.isoformat(), "--count", str(count)],
        check=True, cwd=REPO_ROOT, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    ids: list[str] = json.loads(done.stdout)
    return ids


def workload(kind: str, first: datetime, count: int) -> list[datetime]:
    """The due instants of a workload: ``spread`` over 10 s or ``burst`` at one instant."""
    return spread(first, count) if kind == "spread" else burst(first, count)


async def fire(setup: Setup, kind: str, count: int) -> tuple[dict[str, float], list[float]]:
    """Store the workload, run a manager until it is delivered and settled; return the figures.

    Returns:
        The figures (first and last delivery and the ledger settled, in ms after the first
        due time; the peak RSS in MB), and each task's lateness in ms.
    """
    first = datetime.now(UTC) + lead_for(count)
    times = workload(kind, first, count)
    store = setup.open_store()
    if isinstance(store, MemoryTaskStore):
        ids = await insert(store, times)
    else:
        ids = insert_elsewhere(setup.db, kind, first, count)
    notifier = NoOpNotifier(count)
    manager = TaskManager(store=store, notifier=notifier, clock=SystemClock())
    await manager.start(timer=False)
    check_ready(first)
    await manager.start()
    await asyncio.wait_for(notifier.all_arrived.wait(), timeout=300)
    await manager.wait_idle()
    settled = time.time()
    peak = peak_rss_mb()
    await verify(store, setup, notifier, ids)
    await manager.stop()
    base = first.timestamp()
    arrivals = [notifier.arrivals[i] for i in ids]
    late_ms = [(a - t.timestamp()) * 1000 for a, t in zip(arrivals, times, strict=True)]
    figures = {
        "first_ms": (min(arrivals) - base) * 1000,
        "last_ms": (max(arrivals) - base) * 1000,
        "settled_ms": (settled - base) * 1000,
        "peak_mb": peak,
    }
    return figures, late_ms


async def verify(store: TaskStore, setup: Setup, notifier: NoOpNotifier, ids: list[str]) -> None:
    """Every task delivered exactly once, and one run in the ledger for each, a success.

    Raises:
        RuntimeError: when a task was delivered twice or never, or its run is not a success.
    """
    twice = notifier.again
    missing = len(set(ids) - notifier.arrivals.keys())
    if isinstance(store, MemoryTaskStore):
        statuses = [
            run.status
            for n, task_id in enumerate(ids)
            for run in await store.history(task_id, f"user{n % 100}")
        ]
    else:
        with sqlite3.connect(setup.db) as conn:
            statuses = [RunStatus(r[0]) for r in conn.execute("SELECT status FROM task_runs")]
    succeeded = sum(1 for s in statuses if s is RunStatus.SUCCEEDED)
    if twice or missing or succeeded != len(ids) or len(statuses) != len(ids):
        raise RuntimeError(
            f"{len(ids)} tasks: {twice} delivered twice, {missing} never; the ledger holds "
            f"{len(statuses)} runs, {succeeded} of them succeeded"
        )


async def part_a(setup: Setup) -> Figures:
    """10,000 one-time tasks spread over 10 s."""
    figures, late_ms = await fire(setup, "spread", 10_000)
    values = {**lateness_figures("a", late_ms), "a_peak_mb": figures["peak_mb"]}
    return Figures(
        f"(a) 10,000 tasks over 10 s: lateness p50 {values['a_p50_ms']:.2f} ms, "
        f"p99 {values['a_p99_ms']:.2f} ms, max {values['a_max_ms']:.2f} ms",
        values,
    )


def burst_part(count: int, key: str) -> Callable[[Setup], Coroutine[None, None, Figures]]:
    """A part that fires ``count`` tasks due at one instant."""

    async def part(setup: Setup) -> Figures:
        figures, _ = await fire(setup, "burst", count)
        values = {f"{key}_{name}": value for name, value in figures.items()}
        return Figures(
            f"({key}) {count:,} tasks due at once: first delivered after "
            f"{figures['first_ms']:.1f} ms, last after {figures['last_ms']:.1f} ms, ledger "
            f"settled after {figures['settled_ms']:.1f} ms, peak RSS {figures['peak_mb']:.0f} MB",
            values,
        )

    return part


async def part_c_setup(setup: Setup) -> Figures:
    """Store 100,000 tasks due over the next 30 days."""
    now = datetime.now(UTC)
    times = [now + timedelta(days=1, seconds=26 * n) for n in range(100_000)]
    began = time.perf_counter()
    await store_times(setup.db, times)
    seconds = time.perf_counter() - began
    return Figures(
        f"    (setup: 100,000 tasks inserted in {seconds:.2f} s)", {"c_setup_s": seconds}
    )


async def restart_figures(store: TaskStore) -> dict[str, float]:
    """Start a manager over ``store``'s tasks: the time until it is ready (nothing due was
    fired and the earliest next run is known: what the timer sleeps on), in ms, and its
    resident memory, in MB (``ready_ms``, ``rss_mb``).

    Raises:
        RuntimeError: when the start fired a run (none may be due).
    """
    began = time.perf_counter()
    manager = TaskManager(store=store, notifier=NoOpNotifier(1), clock=SystemClock())
    await manager.start()
    fired = await manager.run_due()
    next_run = await store.next_wakeup()
    ready = time.perf_counter() - began
    rss_mb = current_rss_mb()
    await manager.stop()
    if fired or next_run is None:
        raise RuntimeError(f"a start over stored tasks fired {fired} runs (none is due)")
    return {"ready_ms": ready * 1000, "rss_mb": rss_mb}


async def part_c(setup: Setup) -> Figures:
    """Start a manager over 100,000 stored tasks."""
    figures = await restart_figures(SqliteTaskStore(setup.db))
    ready, rss_mb = figures["ready_ms"], figures["rss_mb"]
    peak = peak_rss_mb()
    return Figures(
        f"(c) 100,000 stored tasks: ready in {ready:.1f} ms, RSS {rss_mb:.1f} MB "
        f"(peak {peak:.1f} MB)",
        {"c_ready_ms": ready, "c_rss_mb": rss_mb, "c_peak_mb": peak},
    )


async def part_d(setup: Setup) -> Figures:
    """Claim 20,000 due tasks in batches of 500."""
    now = datetime.now(UTC)
    claimed = 0
    async with setup.open_store() as store:
        await insert(store, [now - timedelta(seconds=1)] * 20_000)
        began = time.perf_counter()
        while claims := await store.claim_due(now, limit=500, lease=timedelta(minutes=3)):
            claimed += len(claims)
        elapsed = time.perf_counter() - began
    return Figures(
        f"(d) claims: {claimed:,} in {elapsed:.2f} s = {claimed / elapsed:,.0f} claims/s",
        {"d_claims": claimed, "d_seconds": elapsed, "d_claims_per_s": claimed / elapsed},
    )


PARTS: dict[str, Callable[[Setup], Coroutine[None, None, Figures]]] = {
    "a": part_a,
    "b": burst_part(10_000, "b"),
    "b100k": burst_part(100_000, "b100k"),
    "c-setup": part_c_setup,
    "c": part_c,
    "d": part_d,
}
# Parts in the order a full run takes them, with the database file each one uses.
MEMORY_ORDER = (("a", "a"), ("b", "b"), ("b100k", "b100k"), ("d", "d"))
SQLITE_ORDER = (*MEMORY_ORDER[:3], ("c-setup", "c"), ("c", "c"), ("d", "d"))


def run_rounds(store: str, rounds: int, *, as_json: bool) -> None:
    """Run every part ``rounds`` times, each in a fresh process; print medians [min-max]."""
    collected: list[dict[str, float]] = [{} for _ in range(rounds)]
    order = SQLITE_ORDER if store == "sqlite" else MEMORY_ORDER
    for number in range(rounds):
        with tempfile.TemporaryDirectory(prefix="bench-scheduler-") as tmp:
            for name, db in order:
                args = ["--only", name, "--store", store, "--db", str(Path(tmp) / f"{db}.db")]
                collected[number] |= run_fresh("bench.scheduler", args)
    summary = summarize(collected)
    if as_json:
        print(json.dumps({k: v[0] for k, v in summary.items()}))
        return
    kind = "SQLite" if store == "sqlite" else "in-memory"
    print(
        f"{kind} store, {rounds} round(s), each part a fresh process"
        + (", median [min-max]" if rounds > 1 else "")
    )
    for label, text in describe(summary):
        print(f"{label:<32}  {text}")


def describe(summary: dict[str, tuple[float, float, float]]) -> list[tuple[str, str]]:
    """The figures as lines a person reads: a label and its values."""

    def get(key: str, digits: int = 0, unit: str = " ms") -> str:
        return shown(summary[key], digits) + unit if key in summary else "-"

    lines = [
        ("(a) 10,000 tasks over 10 s",
         f"lateness p50 {get('a_p50_ms', 2)}, p99 {get('a_p99_ms', 2)}, max {get('a_max_ms', 1)}"),
    ]  # fmt: skip
    for key, label in (("b", "(b) 10,000 due at once"), ("b100k", "(b100k) 100,000 due at once")):
        lines.append(
            (label, f"last delivered after {get(key + '_last_ms')}, ledger settled after "
                    f"{get(key + '_settled_ms')}, peak RSS {get(key + '_peak_mb', 0, ' MB')}")
        )  # fmt: skip
    if "c_ready_ms" in summary:
        lines.append(("(c) 100,000 stored tasks",
                      f"ready in {get('c_ready_ms', 1)}, RSS {get('c_rss_mb', 0, ' MB')} "
                      f"(100,000 stored in {get('c_setup_s', 2, ' s')})"))  # fmt: skip
    lines.append(("(d) claims, batches of 500", f"{get('d_claims_per_s', 0, ' claims/s')}"))
    return lines


def main() -> None:
    """Parse arguments and run the parts."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--only", choices=sorted(PARTS))
    parser.add_argument("--store", choices=["sqlite", "memory"], default="sqlite")
    parser.add_argument("--rounds", type=int, default=1, help="fresh runs of each part")
    parser.add_argument("--db", type=Path)
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    parser.add_argument("--insert", choices=["spread", "burst"], help=argparse.SUPPRESS)
    parser.add_argument("--at", help=argparse.SUPPRESS)
    parser.add_argument("--count", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.insert:
        times = workload(args.insert, datetime.fromisoformat(args.at), args.count)
        print(json.dumps(asyncio.run(store_times(args.db, times))))
        return
    if args.only:
        if args.db is None:
            parser.error("--only needs --db")
        if args.store == "memory" and args.only.startswith("c"):
            parser.error("part c measures start-up over a stored database: SQLite only")
        figures = asyncio.run(PARTS[args.only](Setup(args.store, args.db)))
        print(json.dumps(figures.values) if args.json else figures.text)
        return
    run_rounds(args.store, args.rounds, as_json=args.json)


if __name__ == "__main__":
    main()

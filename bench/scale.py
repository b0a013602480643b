"""The scheduler at scale (issue 29): 100k, 300k or 1M stored tasks over 10,000 users.

Run with ``.venv/bin/python -m bench.scale`` (SQLite and PostgreSQL at 100,000 tasks, about
two minutes); ``--tasks 100000,300000,1000000`` for the issue's sizes, ``--stores sqlite`` for
one store, ``--parts build,burst`` for some parts, ``--json`` for the figures as one object.
PostgreSQL is the embedded server of ``testing.pg_server`` (fsync on). Every part runs in a
fresh process over the database the build left, so each figure is a restarted scheduler's.

The stored mix: 70 % one-time reminders spread over 30 days, 30 % recurring (half daily, half
weekly) at random local times in six zones, all first due from two days on (nothing stored
fires during the parts), created with ``add_tasks``, 20,000 per call.

build    bulk creation: time, the database's size, the WAL's peak and final size (SQLite);
         on PostgreSQL then ``VACUUM (ANALYZE)`` of the loaded table, as after any bulk load
restart  a scheduler started over the stored tasks: time until ready, resident memory
crash    a bulk write killed (SIGKILL) half way through its third call of 20,000, then a
         scheduler started over what it left: the WAL at the kill, time until ready
list     one user's ``list_tasks``: a fixed cost plus a cost per task returned (least squares)
burst    2,000 runs due within 2 s among the stored, 600 of them recurring at one instant:
         lateness of each kind (p50 / p99 / max), lost and doubled (every delivery counted,
         the ledger read back)
year     a year of fires simulated on an injected clock (``bench.scale_year``): the database's
         size after creation and at its largest, and what retention kept
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Coroutine, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from datetime import time as wall_time
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import asyncpg

from bench.scheduler import NoOpNotifier, restart_figures
from bench.workloads import REPO_ROOT, check_ready, percentile, run_fresh
from common import SystemClock, settle_process
from tasks import (
    DEFAULT_MISFIRE_RULES,
    CycleSchedule,
    OnceSchedule,
    PostgresTaskStore,
    ReminderData,
    Schedule,
    SqliteTaskStore,
    TaskDraft,
    TaskManager,
    TaskStore,
    TaskType,
)
from testing.pg_server import EmbeddedPostgres

USERS = 10_000
CHUNK = 20_000
ONE_TIME_SHARE = 0.7
ZONES = tuple(
    ZoneInfo(name)
    for name in (
        "Europe/Berlin",
        "America/New_York",
        "Asia/Tokyo",
        "UTC",
        "America/Los_Angeles",
        "Australia/Sydney",
    )
)
RULE = DEFAULT_MISFIRE_RULES[TaskType.REMINDER]
FIRST_DUE = timedelta(days=2)
WINDOW = timedelta(seconds=2)
WINDOW_ONCE = 1_400
WINDOW_RECURRING = 600
BURST_LEAD = timedelta(seconds=8)
MESSAGES = (
    "call mom about the weekend",
    "take the blue pills",
    "water the plants on the balcony",
    "stand-up meeting notes",
    "pay the electricity bill",
    "pick up the kids from school",
)


@dataclass(frozen=True, slots=True)
class Target:
    """Where a size's tasks live: ``sqlite`` and a file, or ``postgres`` and a URL."""

    store: str
    where: str

    def open_store(self) -> TaskStore:
        """A new store on this target."""
        if self.store == "sqlite":
            return SqliteTaskStore(Path(self.where))
        return PostgresTaskStore(self.where)

    def args(self) -> list[str]:
        """This target as a child's arguments."""
        return ["--store", self.store, "--where", self.where]


# -- the stored mix ----------------------------------------------------------------------------


def reminder(
    owner: int, schedule: Schedule, first: datetime, created: datetime, text: str
) -> TaskDraft:
    """A reminder draft of user ``owner`` first due at ``first``."""
    return TaskDraft(
        owner_id=f"user{owner}",
        chat_id=f"chat{owner}",
        task_type=TaskType.REMINDER,
        description=text,
        schedule=schedule,
        execution=ReminderData(message=text),
        misfire=RULE,
        created_at=created,
        next_run=first,
    )


def recurring(rng: random.Random, start: datetime) -> tuple[Schedule, datetime]:
    """A daily or weekly schedule at a random local minute, and its first fire after
    ``start``."""
    zone = rng.choice(ZONES)
    local = start.astimezone(zone).date()
    every = rng.choice((1, 7))
    at = wall_time(rng.randrange(24), rng.randrange(60))
    schedule = CycleSchedule(every_days=every, anchor=local, days=(0,), times=(at,), tz=zone)
    first = schedule.next_after(start)
    assert first is not None
    return schedule, first


def stored_mix(count: int, now: datetime, *, seed: int = 29) -> Iterator[list[TaskDraft]]:
    """``count`` drafts in chunks of ``CHUNK``: the stored mix, first due from ``FIRST_DUE``."""
    rng = random.Random(seed)
    start = now + FIRST_DUE
    chunk: list[TaskDraft] = []
    for n in range(count):
        owner = rng.randrange(USERS)
        text = f"{rng.choice(MESSAGES)} #{n}"
        if rng.random() < ONE_TIME_SHARE:
            at = start + timedelta(seconds=rng.uniform(0, 30 * 86_400))
            chunk.append(reminder(owner, OnceSchedule(at=at, tz=ZONES[owner % 6]), at, now, text))
        else:
            schedule, first = recurring(rng, start)
            chunk.append(reminder(owner, schedule, first, now, text))
        if len(chunk) == CHUNK:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


# -- sizes ---------------------------------------------------------------------------------


def file_mb(path: Path) -> float:
    """A file's size in MB (0 when it does not exist)."""
    try:
        return path.stat().st_size / 1e6
    except FileNotFoundError:
        return 0.0


async def database_mb(target: Target) -> float:
    """The database's size in MB: SQLite's pages (as the file holds them once its WAL is
    copied back; the WAL apart), or PostgreSQL's database."""
    if target.store == "sqlite":
        return await asyncio.to_thread(_sqlite_mb, Path(target.where))
    conn = await asyncpg.connect(target.where)
    try:
        size = await conn.fetchval("SELECT pg_database_size(current_database())")
    finally:
        await conn.close()
    return float(size) / 1e6


def _sqlite_mb(path: Path) -> float:
    if not path.exists():
        return 0.0
    with contextlib.closing(sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)) as conn:
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        size = conn.execute("PRAGMA page_size").fetchone()[0]
    return max(file_mb(path), int(pages) * int(size) / 1e6)


class WalWatch:
    """Samples the size of a SQLite WAL file every few milliseconds on a thread: its peak."""

    def __init__(self, db: Path) -> None:
        self._wal = Path(f"{db}-wal")
        self.peak = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def __enter__(self) -> WalWatch:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()

    def _sample(self) -> None:
        while not self._stop.wait(0.002):
            self.peak = max(self.peak, file_mb(self._wal))


# -- the children: one part each, in a fresh process ----------------------------------------------


async def part_build(target: Target, count: int) -> dict[str, float]:
    """Create the stored mix with ``add_tasks``; its time and sizes."""
    now = datetime.now(UTC)
    watch = WalWatch(Path(target.where))
    with watch:
        began = time.perf_counter()
        async with target.open_store() as store:
            for drafts in stored_mix(count, now):
                await store.add_tasks(drafts)
            wal_end = file_mb(Path(f"{target.where}-wal"))
            took = time.perf_counter() - began
    figures = {"build_s": took, "db_mb": await database_mb(target)}
    if target.store == "sqlite":
        figures |= {"wal_peak_mb": watch.peak, "wal_end_mb": wal_end}
    else:
        figures["settle_s"] = await settle(target.where)
    return figures


async def settle(url: str) -> float:
    """Vacuum and analyse the loaded table, as ``assistant migrate`` does after its copy and
    PostgreSQL advises after any bulk load; return the seconds it took. Without it the
    server's autovacuum works through the million new rows while the next parts run (the
    burst was 0.35 s late at p50 and 1.3 s at p99 during it, on two cores)."""
    conn = await asyncpg.connect(url)
    try:
        began = time.perf_counter()
        await conn.execute("VACUUM (ANALYZE) scheduled_tasks")
        return time.perf_counter() - began
    finally:
        await conn.close()


async def part_restart(target: Target) -> dict[str, float]:
    """Start a scheduler over the stored tasks: time until it is ready, and its memory."""
    return await restart_figures(target.open_store())


async def part_write_forever(target: Target) -> dict[str, float]:
    """Add tasks due in a year, 20,000 per call, until killed; say ``wrote`` after each call."""
    now = datetime.now(UTC) + timedelta(days=365)
    async with target.open_store() as store:
        for drafts in stored_mix(10**9, now, seed=int(time.time())):
            await store.add_tasks(drafts)
            print("wrote", flush=True)
    raise AssertionError("unreachable: the parent kills this process")


async def part_list(target: Target, users: int = 400) -> dict[str, float]:
    """One user's live tasks: time per call against tasks returned, fitted to a line."""
    rng = random.Random(7)
    samples: list[tuple[int, float]] = []
    async with target.open_store() as store:
        for owner in rng.sample(range(USERS), users):
            for limit in (1, None):
                began = time.perf_counter()
                tasks = await store.list_tasks(f"user{owner}", limit=limit)
                samples.append((len(tasks), time.perf_counter() - began))
    fixed, per_task = fit_line(samples)
    returned = [n for n, _ in samples if n > 1]
    return {
        "list_fixed_ms": fixed * 1000,
        "list_per_task_us": per_task * 1e6,
        "list_tasks_mean": statistics.mean(returned) if returned else 0.0,
    }


def fit_line(samples: Sequence[tuple[int, float]]) -> tuple[float, float]:
    """Least squares ``seconds = fixed + per_task * tasks`` over the samples' medians per
    count (the medians keep a garbage collection from tilting the line)."""
    by_count: dict[int, list[float]] = {}
    for tasks, seconds in samples:
        by_count.setdefault(tasks, []).append(seconds)
    xs = sorted(by_count)
    ys = [statistics.median(by_count[x]) for x in xs]
    weights = [len(by_count[x]) for x in xs]
    total = sum(weights)
    mean_x = sum(w * x for w, x in zip(weights, xs, strict=True)) / total
    mean_y = sum(w * y for w, y in zip(weights, ys, strict=True)) / total
    spread = sum(w * (x - mean_x) ** 2 for w, x in zip(weights, xs, strict=True))
    slope = (
        sum(w * (x - mean_x) * (y - mean_y) for w, x, y in zip(weights, xs, ys, strict=True))
        / spread
        if spread
        else 0.0
    )
    return mean_y - slope * mean_x, slope


@dataclass(frozen=True, slots=True)
class Window:
    """The 2,000 runs of the burst: one-time ones over 2 s, recurring ones at one instant."""

    at: datetime
    once: dict[str, datetime]
    recurring: dict[str, datetime]

    def to_json(self) -> str:
        """The window as JSON text."""
        return json.dumps(
            {
                "at": self.at.isoformat(),
                "once": {k: v.isoformat() for k, v in self.once.items()},
                "recurring": {k: v.isoformat() for k, v in self.recurring.items()},
            }
        )

    @classmethod
    def from_json(cls, text: str) -> Window:
        """Read back ``to_json``."""
        data = json.loads(text)
        return cls(
            datetime.fromisoformat(data["at"]),
            {k: datetime.fromisoformat(v) for k, v in data["once"].items()},
            {k: datetime.fromisoformat(v) for k, v in data["recurring"].items()},
        )


def window_drafts(at: datetime) -> tuple[list[TaskDraft], list[TaskDraft]]:
    """The burst's drafts: 1,400 one-time ones over the 2 s around ``at`` (a whole second)
    and 600 recurring ones due at ``at`` (daily and weekly, three zones)."""
    rng = random.Random(2)
    now = datetime.now(UTC)
    once: list[TaskDraft] = []
    for n in range(WINDOW_ONCE):
        due = at - WINDOW / 2 + WINDOW * (n / WINDOW_ONCE)
        owner = rng.randrange(USERS)
        once.append(reminder(owner, OnceSchedule(at=due, tz=ZONES[0]), due, now, f"once {n}"))
    repeating: list[TaskDraft] = []
    for n in range(WINDOW_RECURRING):
        zone = ZONES[n % 3]
        local = at.astimezone(zone)
        every = 1 if n % 2 else 7
        schedule = CycleSchedule(
            every_days=every,
            anchor=local.date(),
            days=(0,),
            times=(local.time().replace(tzinfo=None),),
            tz=zone,
        )
        first = schedule.next_after(at - timedelta(microseconds=1))
        assert first == at, (first, at)
        repeating.append(reminder(rng.randrange(USERS), schedule, at, now, f"every {n}"))
    return once, repeating


async def part_burst_setup(target: Target, at: datetime, out: Path) -> dict[str, float]:
    """Store the burst's 2,000 tasks (from a process of its own) and write their ids."""
    once, repeating = window_drafts(at)
    async with target.open_store() as store:
        once_ids = await store.add_tasks(once)
        recurring_ids = await store.add_tasks(repeating)
    window = Window(
        at,
        {i: d.next_run for i, d in zip(once_ids, once, strict=True) if d.next_run is not None},
        dict.fromkeys(recurring_ids, at),
    )
    await asyncio.to_thread(out.write_text, window.to_json())
    return {}


async def part_burst(target: Target, window_file: Path) -> dict[str, float]:
    """Start a scheduler, wait for the 2,000 deliveries, check them against the ledger."""
    settle_process()  # as the command line does before it builds the app
    window = Window.from_json(await asyncio.to_thread(window_file.read_text))
    due = window.once | window.recurring
    store = target.open_store()
    notifier = NoOpNotifier(len(due))
    manager = TaskManager(store=store, notifier=notifier, clock=SystemClock())
    await manager.start(timer=False)
    check_ready(min(due.values()))
    await manager.start()
    with contextlib.suppress(TimeoutError):  # what did not arrive is counted as lost
        await asyncio.wait_for(notifier.all_arrived.wait(), timeout=60)
    await manager.wait_idle()
    ledger = await ledger_counts(store, window)
    await manager.stop()
    figures: dict[str, float] = {}
    for kind, ids in (("once", window.once), ("recurring", window.recurring)):
        arrived = notifier.arrivals
        late = [(arrived[i] - ids[i].timestamp()) * 1000 for i in ids if i in arrived]
        figures |= {
            f"{kind}_min_ms": min(late),
            f"{kind}_p50_ms": statistics.median(late),
            f"{kind}_p99_ms": percentile(late, 0.99),
            f"{kind}_max_ms": max(late),
        }
    figures["lost"] = len(due) - len(notifier.arrivals.keys() & due.keys())
    figures["doubled"] = notifier.again + sum(1 for n in ledger.values() if n > 1)
    figures["unrecorded"] = sum(1 for i in due if ledger.get(i, 0) == 0)
    return figures


async def ledger_counts(store: TaskStore, window: Window) -> dict[str, int]:
    """How many succeeded runs the ledger holds for each task of the window, at its time."""
    counts: dict[str, int] = {}
    for ids in (window.once, window.recurring):
        for task_id, due in ids.items():
            task = await store.get_task(task_id)
            assert task is not None
            runs = await store.history(task_id, task.owner_id)
            counts[task_id] = sum(
                1 for r in runs if r.scheduled_for == due and r.status.value == "succeeded"
            )
    return counts


# -- the parent ----------------------------------------------------------------------------------


def child(part: str, target: Target, *extra: str, timeout: float = 7200) -> dict[str, float]:
    """Run ``part`` on ``target`` in a fresh interpreter; return its figures."""
    return run_fresh("bench.scale", ["--part", part, *target.args(), *extra], timeout=timeout)


def crash(target: Target) -> dict[str, float]:
    """Kill a bulk write half way through its third call, then restart over what it left."""
    process = subprocess.Popen(
        [sys.executable, "-m", "bench.scale", "--part", "write-forever", *target.args()],
        cwd=REPO_ROOT,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    try:
        process.stdout.readline()
        began = time.perf_counter()
        if process.stdout.readline().strip() != "wrote":
            raise RuntimeError("the bulk writer stopped before its second call")
        time.sleep((time.perf_counter() - began) / 2)  # half way through the third call
        process.send_signal(signal.SIGKILL)
    finally:
        process.kill()
        process.wait()
    figures: dict[str, float] = {}
    if target.store == "sqlite":  # what the killed writer left (PostgreSQL's log is the server's)
        figures["crash_wal_mb"] = file_mb(Path(f"{target.where}-wal"))
    figures["crash_ready_ms"] = child("restart", target)["ready_ms"]
    return figures


def burst(target: Target, folder: Path) -> dict[str, float]:
    """Store the burst's tasks from one process, fire them from another."""
    at = (datetime.now(UTC) + BURST_LEAD).replace(microsecond=0)
    window_file = folder / "window.json"
    child("burst-setup", target, "--at", at.isoformat(), "--file", str(window_file))
    return child("burst", target, "--file", str(window_file))


PARTS = ("build", "restart", "crash", "list", "burst", "year")


async def pg_database(url: str, name: str) -> str:
    """A fresh database of that name on the server of ``url``; its URL."""
    admin = await asyncpg.connect(url)
    try:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    return url.rsplit("/", 1)[0] + f"/{name}"


def measure(target: Target, count: int, parts: Sequence[str], folder: Path) -> dict[str, float]:
    """Every part asked for, on one target holding ``count`` tasks."""
    figures: dict[str, float] = {}
    began = time.perf_counter()
    figures |= child("build", target, "--tasks", str(count))
    if "restart" in parts:
        figures |= child("restart", target)
    if "list" in parts:
        figures |= child("list", target)
    if "burst" in parts:
        figures |= burst(target, folder)
    if "crash" in parts:
        if target.store == "sqlite":
            copy = Target("sqlite", str(folder / "crash.db"))
            shutil.copyfile(target.where, copy.where)
            figures |= crash(copy)
            for path in folder.glob("crash.db*"):
                path.unlink()
        else:
            figures |= crash(target)
    if "year" in parts:
        if target.store == "sqlite":
            year = Target("sqlite", str(folder / "year.db"))
        else:
            year = Target("postgres", asyncio.run(pg_database(target.where, f"year{count}")))
        figures |= run_fresh(
            "bench.scale_year", [*year.args(), "--tasks", str(count)], timeout=12 * 3600
        )
        for path in folder.glob("year.db*"):
            path.unlink()
    figures["wall_s"] = time.perf_counter() - began
    return figures


def run(sizes: Sequence[int], stores: Sequence[str], parts: Sequence[str]) -> dict[str, Any]:
    """Measure every store at every size; return the figures by store and size."""
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="bench-scale-") as tmp:
        folder = Path(tmp)
        server = None
        try:
            for store in stores:
                for count in sizes:
                    print(f"{store}, {count:,} tasks ...", file=sys.stderr, flush=True)
                    if store == "sqlite":
                        db = folder / f"tasks-{count}.db"
                        target = Target("sqlite", str(db))
                    else:
                        if server is None:
                            server = EmbeddedPostgres.start(durable=True)
                        url = asyncio.run(pg_database(server.url(), f"scale{count}"))
                        target = Target("postgres", url)
                    results.setdefault(store, {})[str(count)] = measure(
                        target, count, parts, folder
                    )
                    if store == "sqlite":
                        for path in folder.glob(f"tasks-{count}.db*"):
                            path.unlink()
        finally:
            if server is not None:
                server.stop()
    return results


def _spread(figures: dict[str, float], prefix: str) -> str:
    """``p50 / p99 / max ms`` of the figures named ``PREFIX_p50_ms`` and so on."""
    return " / ".join(f"{figures[f'{prefix}_{q}_ms']:.1f}" for q in ("p50", "p99", "max")) + " ms"


ROWS: tuple[tuple[str, str, Callable[[dict[str, float]], str]], ...] = (
    ("build", "bulk creation (add_tasks, 20,000 a call)", lambda f: f"{f['build_s']:.1f} s"),
    ("build", "VACUUM ANALYZE after the load", lambda f: (
        f"{f['settle_s']:.1f} s" if "settle_s" in f else "-")),
    ("build", "database size after creation", lambda f: f"{f['db_mb']:.0f} MB"),
    ("build", "WAL at its largest / at the end", lambda f: (
        f"{f['wal_peak_mb']:.0f} / {f['wal_end_mb']:.0f} MB" if "wal_peak_mb" in f else "-")),
    ("restart", "restart to ready / RSS", lambda f: (
        f"{f['ready_ms']:.1f} ms / {f['rss_mb']:.0f} MB")),
    ("crash", "crash mid-write: WAL left / restart to ready", lambda f: (
        f"{f['crash_wal_mb']:.0f} MB" if "crash_wal_mb" in f else "-")
        + f" / {f['crash_ready_ms']:.1f} ms"),
    ("list", "one user's list", lambda f: (
        f"{f['list_fixed_ms']:.2f} ms + {f['list_per_task_us']:.0f} us per task")),
    ("burst", "2,000 due in 2 s: one-time late p50 / p99 / max",
     lambda f: _spread(f, "once")),
    ("burst", "600 recurring at one instant: late p50 / p99 / max",
     lambda f: _spread(f, "recurring")),
    ("burst", "lost / doubled / not in the ledger", lambda f: (
        f"{f['lost']:.0f} / {f['doubled']:.0f} / {f['unrecorded']:.0f}")),
    ("year", "a year of fires: runs / simulated in", lambda f: (
        f"{f['year_runs']:,.0f} / {f['year_s'] / 60:.0f} min")),
    ("year", "database after creation / largest / end", lambda f: (
        f"{f['year_start_mb']:.0f} / {f['year_peak_mb']:.0f} / {f['year_end_mb']:.0f} MB "
        f"({f['year_peak_mb'] / f['year_start_mb']:.2f}x)")),
    ("year", "kept at the end: tasks / ledger rows / summaries", lambda f: (
        f"{f['year_tasks']:,.0f} / {f['year_ledger_rows']:,.0f} / {f['year_summaries']:,.0f}")),
    ("year", "retention round p50 / p99 / max", lambda f: _spread(f, "year_round")),
    ("build", "whole size measured in", lambda f: f"{f['wall_s'] / 60:.1f} min"),
)  # fmt: skip


def table(results: dict[str, Any], parts: Sequence[str]) -> list[str]:
    """The figures as a table: a row per figure, a column per store and size."""
    columns = [
        (store, size, figures)
        for store, by_size in results.items()
        for size, figures in by_size.items()
    ]
    names = {"sqlite": "SQLite", "postgres": "PostgreSQL"}
    heads = [f"{names[s]} {int(n):,}" for s, n, _ in columns]
    width = 52
    lines = ["figure".ljust(width) + "".join(h.ljust(30) for h in heads)]
    for part, label, cell in ROWS:
        if part not in parts:
            continue
        cells = []
        for _, _, figures in columns:
            try:
                cells.append(cell(figures))
            except KeyError:
                cells.append("-")
        lines.append(label.ljust(width) + "".join(c.ljust(30) for c in cells))
    return lines


CHILDREN: dict[str, Callable[[argparse.Namespace, Target], Coroutine[Any, Any, dict[str, float]]]]
CHILDREN = {
    "build": lambda a, t: part_build(t, a.tasks),
    "restart": lambda a, t: part_restart(t),
    "write-forever": lambda a, t: part_write_forever(t),
    "list": lambda a, t: part_list(t),
    "burst-setup": lambda a, t: part_burst_setup(t, datetime.fromisoformat(a.at), Path(a.file)),
    "burst": lambda a, t: part_burst(t, Path(a.file)),
}


def main() -> None:
    """Parse arguments; run one child part, or every size and store."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--tasks", default="100000", help="sizes, comma separated")
    parser.add_argument("--stores", default="sqlite,postgres")
    parser.add_argument("--parts", default=",".join(p for p in PARTS if p != "year"))
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--part", choices=sorted(CHILDREN), help=argparse.SUPPRESS)
    parser.add_argument("--store", help=argparse.SUPPRESS)
    parser.add_argument("--where", help=argparse.SUPPRESS)
    parser.add_argument("--at", help=argparse.SUPPRESS)
    parser.add_argument("--file", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.part:
        args.tasks = int(args.tasks)
        figures = asyncio.run(CHILDREN[args.part](args, Target(args.store, args.where)))
        print(json.dumps(figures))
        return
    sizes = [int(n) for n in args.tasks.split(",")]
    stores = [s for s in args.stores.split(",") if s]
    parts = [p for p in args.parts.split(",") if p]
    for name in [*stores, *parts]:
        if name not in (*PARTS, "sqlite", "postgres"):
            parser.error(f"unknown store or part {name!r}; stores: sqlite, postgres; parts: "
                         f"{', '.join(PARTS)}")  # fmt: skip
    began = time.perf_counter()
    results = run(sizes, stores, parts)
    if args.json:
        print(json.dumps(results))
        return
    print(f"The scheduler at scale, {USERS:,} users; {time.perf_counter() - began:.0f} s in all")
    print("\n".join(table(results, ["build", *parts])))


if __name__ == "__main__":
    main()

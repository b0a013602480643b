"""Peers: the same workloads, in the same run, for what users would otherwise pick.

Run with ``.venv/bin/python -m bench.peers`` (``--rounds 5`` for medians [min-max], ``--only``
to pick contenders, ``--workload`` to pick workloads, ``--timeout`` per run). It needs the
``bench`` extra (``./scripts/setup dev`` installs it with every other extra).

Contenders, each in a fresh process per run, the rounds interleaved so that a busy moment of
the machine falls on all of them alike:

    floor               bare asyncio: one ``loop.call_at`` per job, which creates a task
    ours-memory         TaskManager over MemoryTaskStore (claims, leases, ledger)
    ours-sqlite         TaskManager over SqliteTaskStore, tasks stored by another process
    apscheduler-memory  APScheduler 3.11 AsyncIOScheduler, MemoryJobStore, default grace (1 s)
    apscheduler-memory-nograce   the same with misfire_grace_time=None (never skipped)
    apscheduler-sqlite  SQLAlchemyJobStore on SQLite, jobs stored by another process
    apscheduler-sqlite-nograce   the same with misfire_grace_time=None
    ptb-jobqueue        python-telegram-bot's JobQueue (APScheduler in memory, PTB's defaults)

Workloads: ``spread`` (10,000 jobs over 10 s: lateness), ``burst`` (10,000 at one instant)
and ``burst100k`` (100,000 at one instant). Every job records when it ran; a job the
scheduler skips (a misfire) is counted, never waited for. A run that has not finished
``--timeout`` seconds after the due time is reported as such, with what it delivered.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import pickle
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bench.machine import this_machine
from bench.scheduler import Setup, fire, workload
from bench.workloads import (
    REPO_ROOT,
    check_ready,
    lateness_figures,
    peak_rss_mb,
    run_fresh,
    summarize,
)

WORKLOADS = {
    "spread": ("spread", 10_000),
    "burst": ("burst", 10_000),
    "burst100k": ("burst", 100_000),
}
GRACE_DEFAULT = 1  # APScheduler 3's default misfire_grace_time, in seconds
JOB_SECONDS = 150e-6  # set-up per job for APScheduler (add_job, or building a stored row)
KILL_AFTER = 90.0  # seconds past --timeout (and set-up) before a run's process is killed

# What every job does: note when it ran (this process's only global state, for the jobs
# that APScheduler looks up by name).
ARRIVALS: dict[int, float] = {}


async def peer_job(number: int) -> None:
    """The job every contender runs: note the time."""
    ARRIVALS[number] = time.time()


@dataclass
class Tally:
    """Counts jobs that ran or were skipped, and says when all of them are accounted for."""

    expected: int
    skipped: int = 0

    def __post_init__(self) -> None:
        self.done = asyncio.Event()

    def check(self) -> None:
        """Set ``done`` once every job ran or was skipped."""
        if len(ARRIVALS) + self.skipped >= self.expected:
            self.done.set()


def figures(times: list[datetime], tally: Tally, finished: bool) -> dict[str, float]:
    """The figures of one run, from ``ARRIVALS``."""
    base = times[0].timestamp()
    ran = sorted(ARRIVALS)
    late_ms = [(ARRIVALS[n] - times[n].timestamp()) * 1000 for n in ran]
    values: dict[str, float] = {
        "delivered": len(ran),
        "skipped": tally.skipped,
        "finished": float(finished),
        "peak_mb": peak_rss_mb(),
    }
    if ran:
        values["first_ms"] = (min(ARRIVALS.values()) - base) * 1000
        values["last_ms"] = (max(ARRIVALS.values()) - base) * 1000
        values |= {k.removeprefix("x_"): v for k, v in lateness_figures("x", late_ms).items()}
    return values


async def wait_done(tally: Tally, first: datetime, limit: float) -> bool:
    """Wait until every job ran or was skipped, at most ``limit`` s after ``first``."""
    left = (first - datetime.now(UTC)).total_seconds() + limit
    try:
        await asyncio.wait_for(tally.done.wait(), max(left, 0.1))
    except TimeoutError:
        return False
    return True


# -- contenders ------------------------------------------------------------------------------


async def run_floor(times: list[datetime], db: Path, limit: float) -> dict[str, float]:
    """Bare asyncio: one ``call_at`` per job, creating a task at its time."""
    loop = asyncio.get_running_loop()
    tally = Tally(len(times))
    tasks: set[asyncio.Task[None]] = set()

    async def job(number: int) -> None:
        await peer_job(number)
        tally.check()

    def start(number: int) -> None:
        task = loop.create_task(job(number))
        tasks.add(task)
        task.add_done_callback(tasks.discard)

    offset = loop.time() - time.time()
    for number, at in enumerate(times):
        loop.call_at(at.timestamp() + offset, start, number)
    check_ready(times[0])
    finished = await wait_done(tally, times[0], limit)
    return figures(times, tally, finished)


def run_ours(store: str) -> Callable[[list[datetime], Path, float], Coroutine[Any, Any, Any]]:
    """Our TaskManager over ``store``: the figures ``bench.scheduler`` measures."""

    async def run(times: list[datetime], db: Path, limit: float) -> dict[str, float]:
        kind = "spread" if times[0] != times[-1] else "burst"
        values, late_ms = await fire(Setup(store, db), kind, len(times))
        return {
            "delivered": len(times),
            "skipped": 0,
            "finished": 1.0,
            **values,
            **{k.removeprefix("x_"): v for k, v in lateness_figures("x", late_ms).items()},
        }

    return run


def _scheduler(jobstore: object, grace: int | None) -> Any:
    from apscheduler.schedulers.asyncio import AsyncIOScheduler

    return AsyncIOScheduler(
        timezone=UTC,
        jobstores={"default": jobstore},
        job_defaults={"misfire_grace_time": grace},
    )


def _listen(scheduler: Any, tally: Tally) -> None:
    from apscheduler.events import EVENT_JOB_ERROR, EVENT_JOB_EXECUTED, EVENT_JOB_MISSED

    def heard(event: Any) -> None:
        if event.code == EVENT_JOB_MISSED:
            tally.skipped += 1
        tally.check()

    scheduler.add_listener(heard, EVENT_JOB_EXECUTED | EVENT_JOB_MISSED | EVENT_JOB_ERROR)


async def _start_and_wait(scheduler: Any, times: list[datetime], limit: float) -> dict[str, float]:
    """Start an APScheduler that holds its jobs; wait until each ran or was skipped."""
    tally = Tally(len(times))
    _listen(scheduler, tally)
    scheduler.start()
    check_ready(times[0])
    finished = await wait_done(tally, times[0], limit)
    scheduler.shutdown(wait=False)
    return figures(times, tally, finished)


def run_apscheduler_memory(
    grace: int | None,
) -> Callable[[list[datetime], Path, float], Coroutine[Any, Any, Any]]:
    """APScheduler 3 with its memory store: jobs added before it starts."""

    async def run(times: list[datetime], db: Path, limit: float) -> dict[str, float]:
        from apscheduler.jobstores.memory import MemoryJobStore

        scheduler = _scheduler(MemoryJobStore(), grace)
        for number, at in enumerate(times):
            scheduler.add_job(peer_job, "date", run_date=at, args=(number,), id=str(number))
        return await _start_and_wait(scheduler, times, limit)

    return run


def run_apscheduler_sqlite(
    grace: int | None,
) -> Callable[[list[datetime], Path, float], Coroutine[Any, Any, Any]]:
    """APScheduler 3 with its SQLAlchemy store on SQLite: jobs stored by another process."""

    async def run(times: list[datetime], db: Path, limit: float) -> dict[str, float]:
        from apscheduler.jobstores.sqlalchemy import SQLAlchemyJobStore

        store_elsewhere(db, times, grace)
        scheduler = _scheduler(SQLAlchemyJobStore(url=f"sqlite:///{db}"), grace)
        return await _start_and_wait(scheduler, times, limit)

    return run


def store_elsewhere(db: Path, times: list[datetime], grace: int | None) -> None:
    """Store the jobs in ``db`` from a separate process (see ``store_jobs``)."""
    subprocess.run(
        [sys.executable, "-m", "bench.peers", "--store-jobs", str(db),
         "--at", times[0].isoformat(), "--count", str(len(times)),
         "--spread", str(int(times[0] != times[-1])), "--grace", str(grace)],
        check=True, cwd=REPO_ROOT,
    )  # fmt: skip


def store_jobs(db: Path, times: list[datetime], grace: int | None) -> None:
    """Write the jobs as APScheduler's SQLAlchemy store does (its pickled job state), in one
    transaction instead of one per job (set-up only; the measured run reads them as usual)."""
    from apscheduler.job import Job
    from apscheduler.jobstores.sqlalchemy import SQLAlchemyJobStore
    from apscheduler.triggers.date import DateTrigger
    from apscheduler.util import datetime_to_utc_timestamp

    scheduler = _scheduler(SQLAlchemyJobStore(url=f"sqlite:///{db}"), grace)
    store = SQLAlchemyJobStore(url=f"sqlite:///{db}")
    store.start(scheduler, "default")
    rows = []
    for number, at in enumerate(times):
        job = Job(
            scheduler, id=str(number), func=peer_job, args=(number,), kwargs={},
            trigger=DateTrigger(at), executor="default", name="peer_job",
            misfire_grace_time=grace, coalesce=True, max_instances=1, next_run_time=at,
        )  # fmt: skip
        state = pickle.dumps(job.__getstate__(), store.pickle_protocol)
        rows.append(
            {"id": job.id, "next_run_time": datetime_to_utc_timestamp(at), "job_state": state}
        )
    with store.engine.begin() as connection:
        connection.execute(store.jobs_t.insert(), rows)
    store.shutdown()


async def run_ptb(times: list[datetime], db: Path, limit: float) -> dict[str, float]:
    """python-telegram-bot's JobQueue, as an application builds it (its default grace)."""
    from telegram.ext import ApplicationBuilder, ContextTypes

    application = ApplicationBuilder().token("1:bench").build()
    queue = application.job_queue
    assert queue is not None, "the job-queue extra of python-telegram-bot is not installed"
    tally = Tally(len(times))
    _listen(queue.scheduler, tally)

    async def callback(context: ContextTypes.DEFAULT_TYPE) -> None:
        assert context.job is not None and isinstance(context.job.data, int)
        await peer_job(context.job.data)

    for number, at in enumerate(times):
        queue.run_once(callback, at, data=number)
    await queue.start()
    check_ready(times[0])
    finished = await wait_done(tally, times[0], limit)
    await queue.stop(wait=False)
    return figures(times, tally, finished)


Runner = Callable[[list[datetime], Path, float], Coroutine[Any, Any, dict[str, float]]]
CONTENDERS: dict[str, tuple[Runner, float]] = {
    # name: (runner, set-up seconds per job before the first due time)
    "floor": (run_floor, 5e-6),
    "ours-memory": (run_ours("memory"), 0.0),
    "ours-sqlite": (run_ours("sqlite"), 0.0),
    "apscheduler-memory": (run_apscheduler_memory(GRACE_DEFAULT), JOB_SECONDS),
    "apscheduler-memory-nograce": (run_apscheduler_memory(None), JOB_SECONDS),
    "apscheduler-sqlite": (run_apscheduler_sqlite(GRACE_DEFAULT), JOB_SECONDS),
    "apscheduler-sqlite-nograce": (run_apscheduler_sqlite(None), JOB_SECONDS),
    "ptb-jobqueue": (run_ptb, JOB_SECONDS),
}


def run_one(name: str, work: str, db: Path, limit: float) -> dict[str, float]:
    """Run one contender on one workload in this process and return its figures."""
    runner, per_job = CONTENDERS[name]
    kind, count = WORKLOADS[work]
    first = datetime.now(UTC) + timedelta(seconds=3.0 + count * per_job)
    return asyncio.run(runner(workload(kind, first, count), db, limit))


# -- the comparison ------------------------------------------------------------------------


def compare(names: Sequence[str], works: Sequence[str], rounds: int, timeout: float) -> str:
    """Run every contender on every workload ``rounds`` times, interleaved; return the tables."""
    results: dict[tuple[str, str], list[dict[str, float]]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-peers-") as tmp:
        for number in range(rounds):
            for work in works:
                for name in names:
                    db = Path(tmp) / f"{name}-{work}-{number}.db"
                    args = ["--run", name, "--workload", work, "--db", str(db)]
                    args += ["--timeout", str(timeout)]
                    print(f"round {number + 1}/{rounds}: {work} {name}", file=sys.stderr)
                    runs = results.setdefault((work, name), [])
                    try:
                        runs.append(run_fresh("bench.peers", args, timeout=timeout + KILL_AFTER))
                    except subprocess.TimeoutExpired:
                        # A scheduler that blocks its event loop cannot notice the time limit.
                        runs.append({"finished": 0.0, "killed": 1.0, "delivered": 0.0,
                                     "skipped": 0.0, "peak_mb": 0.0})  # fmt: skip
                    except RuntimeError as exc:
                        print(f"  failed: {exc}", file=sys.stderr)
    lines = [f"Peers, {this_machine().describe()}", f"{rounds} round(s), fresh process per run"]
    for work in works:
        lines += ["", *table(work, names, results, timeout)]
    return "\n".join(lines)


def table(
    work: str,
    names: Sequence[str],
    results: dict[tuple[str, str], list[dict[str, float]]],
    timeout: float,
) -> list[str]:
    """One workload's rows: median [min-max] per contender, and ratios to the floor and to us."""
    kind, count = WORKLOADS[work]
    key = "p99_ms" if kind == "spread" else "last_ms"
    what = "lateness p99" if kind == "spread" else "last delivered after the due time"
    medians: dict[str, float] = {}
    rows: list[tuple[str, str, str, str, str]] = []
    for name in names:
        runs = results.get((work, name), [])
        if not runs:
            rows.append((name, "failed", "", "", ""))
            continue
        killed = sum(1 for r in runs if r.get("killed"))
        if killed == len(runs):
            rows.append((name, "-", "-", f"killed: not done in {timeout + KILL_AFTER:g} s", "-"))
            continue
        summary = summarize([r for r in runs if not r.get("killed")])
        unfinished = sum(1 for r in runs if not r["finished"])
        delivered = f"{summary['delivered'][0]:,.0f}"
        skipped = f"{summary['skipped'][0]:,.0f}"
        if key in summary and summary["delivered"][0]:
            medians[name] = summary[key][0]
            value = _ms(summary[key])
        else:
            value = "-"
        if unfinished:
            value += f" ({unfinished} of {len(runs)} not done in {timeout:g} s)"
        rows.append((name, delivered, skipped, value, f"{summary['peak_mb'][0]:.0f}"))
    out = [f"{work}: {count:,} jobs ({'over 10 s' if kind == 'spread' else 'due at once'}); "
           f"{what}, median [min-max]"]  # fmt: skip
    header = ("contender", "ran", "skipped", what.split(" after")[0], "x floor", "x ours", "MB")
    out.append(f"{header[0]:<28}{header[1]:>9}{header[2]:>9}  {header[3]:<34}{header[4]:>8}"
               f"{header[5]:>8}{header[6]:>6}")  # fmt: skip
    for name, delivered, skipped, value, peak in rows:
        floor = _ratio(medians.get(name), medians.get("floor"))
        ours = _ratio(medians.get(name), medians.get("ours-sqlite"))
        out.append(f"{name:<28}{delivered:>9}{skipped:>9}  {value:<34}{floor:>8}{ours:>8}"
                   f"{peak:>6}")  # fmt: skip
    return out


def _ms(value: tuple[float, float, float]) -> str:
    median, low, high = value
    digits = 1 if high < 100 else 0
    return f"{median:,.{digits}f} [{low:,.{digits}f}-{high:,.{digits}f}] ms"


def _ratio(value: float | None, base: float | None) -> str:
    if value is None or not base:
        return "-"
    return f"{value / base:.1f}"


def main() -> None:
    """Parse arguments; run the comparison, one run (``--run``), or a set-up (``--store-jobs``)."""
    parser = argparse.ArgumentParser(prog="bench.peers", description=__doc__)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", action="append", choices=sorted(CONTENDERS), default=[])
    parser.add_argument("--workload", action="append", choices=sorted(WORKLOADS), default=[])
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds after the due time")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--run", choices=sorted(CONTENDERS), help=argparse.SUPPRESS)
    parser.add_argument("--db", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--store-jobs", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--at", help=argparse.SUPPRESS)
    parser.add_argument("--count", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--spread", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--grace", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.store_jobs:
        kind = "spread" if args.spread else "burst"
        times = workload(kind, datetime.fromisoformat(args.at), args.count)
        store_jobs(args.store_jobs, times, None if args.grace == "None" else int(args.grace))
        return
    if args.run:
        (work,) = args.workload
        print(json.dumps(run_one(args.run, work, args.db, args.timeout)))
        return
    names = args.only or list(CONTENDERS)
    works = args.workload or list(WORKLOADS)
    print(compare(names, works, args.rounds, args.timeout))


if __name__ == "__main__":
    main()

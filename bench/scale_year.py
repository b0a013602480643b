"""A year of fires at scale on an injected clock: does retention keep the database bounded?

Run with ``.venv/bin/python -m bench.scale_year --store sqlite --where FILE --tasks N`` (or
``--store postgres --where URL``), or through ``bench.scale --parts year``. A fresh database
gets ``bench.scale``'s stored mix of N tasks over 10,000 users, created at a fixed instant.
A ``ManualClock`` then walks a year an hour at a time. Each hour the store's side of every fire
is done as the engine does it: the runs due within the hour are claimed (``claim_due``, their
ledger rows written, recurring tasks advanced, one-time tasks marked running) and finished as
delivered (``finish_runs``, in batches); deliveries themselves are not made. Each day, as many
new one-time reminders as fired that day are added (due 30 days on, so the store keeps its
mix and its rate of fires), and ``LedgerRetention`` runs its rounds with the default
``LedgerPolicy`` (the defaults of the ``ASSISTANT_LEDGER_*`` and
``ASSISTANT_FINISHED_KEEP_DAYS`` settings; a round here does ten default rounds' work) until
a cycle is complete, once a simulated day: a running scheduler does that in the background, a
round a second, many times a day, so a real store keeps no more than this one.

Printed (one JSON object): the runs simulated, the database's size after creation, at its
largest (sampled at the end of every day) and at the end, what is kept at the end (tasks, ledger
rows, summaries, owner summaries), the retention rounds' time (p50 / p99 / max, each ten
default rounds' work) and their most in one day, and how long the simulation took.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import time
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bench.scale import (
    CHUNK,
    ONE_TIME_SHARE,
    USERS,
    ZONES,
    Target,
    database_mb,
    file_mb,
    reminder,
    stored_mix,
)
from bench.workloads import percentile
from common import ManualClock
from tasks import LedgerPolicy, OnceSchedule, RunOutcome, RunStatus, TaskStore
from tasks.engine import LedgerRetention

START = datetime(2026, 1, 5, tzinfo=UTC)
HOUR = timedelta(hours=1)
DAY = timedelta(days=1)
LEASE = timedelta(minutes=5)
FINISH_BATCH = 5_000
ROUND_SCALE = 10


async def fire_hour(store: TaskStore, now: datetime) -> tuple[int, int]:
    """Claim every run due within the hour from ``now`` and finish it as delivered; return
    how many runs, and how many of them were one-time tasks'."""
    runs = once = 0
    while claims := await store.claim_due(now, limit=CHUNK, lease=LEASE, ahead=HOUR):
        for start in range(0, len(claims), FINISH_BATCH):
            batch = claims[start : start + FINISH_BATCH]
            outcomes = [_delivered(c.run.id, c.task.id, c.run.scheduled_for) for c in batch]
            await store.finish_runs(outcomes, max_failures=5)
        runs += len(claims)
        once += sum(1 for c in claims if c.task.schedule.kind == "once")
    return runs, once


def _delivered(run_id: int, task_id: str, at: datetime) -> RunOutcome:
    return RunOutcome(run_id, task_id, RunStatus.SUCCEEDED, at, at, result="reminder delivered")


async def replenish(store: TaskStore, count: int, now: datetime, rng: random.Random) -> None:
    """Add ``count`` one-time reminders due 30 days on (within that day): so the one-time
    reminders stay spread evenly over the next 30 days, as in the stored mix."""
    for start in range(0, count, CHUNK):
        drafts = []
        for n in range(start, min(count, start + CHUNK)):
            owner = rng.randrange(USERS)
            at = now + 29 * DAY + timedelta(seconds=rng.uniform(0, 86_400))
            once = OnceSchedule(at=at, tz=ZONES[owner % len(ZONES)])
            drafts.append(reminder(owner, once, at, now, f"take the blue pills #{n}"))
        await store.add_tasks(drafts)


async def retain(retention: LedgerRetention, rounds_ms: list[float]) -> int:
    """Run retention rounds until a pass is complete; return how many ran."""
    count = 0
    while True:
        began = time.perf_counter()
        done = await retention.round()
        rounds_ms.append((time.perf_counter() - began) * 1000)
        count += 1
        if done.complete:
            return count


@dataclass
class Progress:
    """Where a simulation stands, kept in a file after every simulated day (``--state``), so
    a long one (a year at a million tasks takes hours) can go on in another process."""

    day: int = 0
    start_mb: float = 0.0
    peak_mb: float = 0.0
    wal_peak_mb: float = 0.0
    runs: int = 0
    rounds_ms: list[float] = field(default_factory=list)
    most_rounds: int = 0
    seconds: float = 0.0
    rng: list[Any] = field(default_factory=list)

    def save(self, path: Path | None) -> None:
        """Write this to ``path`` (nothing when ``None``), replacing it whole."""
        if path is not None:
            partial = path.with_suffix(".partial")
            partial.write_text(json.dumps(asdict(self)))
            partial.replace(path)

    @classmethod
    def load(cls, path: Path) -> Progress:
        """Read what ``save`` wrote."""
        return cls(**json.loads(path.read_text()))


async def simulate(
    target: Target,
    count: int,
    days: int,
    state: Path | None = None,
    progress: Progress | None = None,
) -> dict[str, float]:
    """Create the mix, then fire ``days`` days of it with retention; the figures. With
    ``state``, keep the progress there after every day; with ``progress`` (read from it), go
    on from where a simulation stopped instead of creating the mix."""
    began = time.perf_counter()
    rng = random.Random(365)
    if progress is None:
        async with target.open_store() as store:
            for drafts in stored_mix(count, START - timedelta(days=2)):
                await store.add_tasks(drafts)
        start = await database_mb(target)
        progress = Progress(start_mb=start, peak_mb=start)
    else:
        rng.setstate(_rng_state(progress.rng))
    clock = ManualClock(START + progress.day * DAY)
    # What is kept is the default policy's; a round does ROUND_SCALE default rounds' work, so
    # a simulated day's retention takes fewer transactions (their cost per round is
    # bench.ledger's figure).
    default = LedgerPolicy()
    policy = replace(
        default,
        rows_per_round=default.rows_per_round * ROUND_SCALE,
        tasks_per_round=default.tasks_per_round * ROUND_SCALE,
    )
    async with target.open_store() as store:
        retention = LedgerRetention(store, clock, policy)
        while progress.day < days:
            day_began = time.perf_counter()
            fired_once = 0
            for _ in range(24):
                hour_runs, hour_once = await fire_hour(store, clock.now())
                progress.runs += hour_runs
                fired_once += hour_once
                clock.advance(HOUR)
            await replenish(store, fired_once, clock.now(), rng)
            rounds = await retain(retention, progress.rounds_ms)
            progress.most_rounds = max(progress.most_rounds, rounds)
            progress.peak_mb = max(progress.peak_mb, await database_mb(target))
            if target.store == "sqlite":
                wal = file_mb(Path(f"{target.where}-wal"))
                progress.wal_peak_mb = max(progress.wal_peak_mb, wal)
            progress.day += 1
            progress.seconds += time.perf_counter() - day_began
            progress.rng = _json_state(rng.getstate())
            progress.save(state)
        sizes = await store.sizes()
    end_mb = await database_mb(target)
    rounds_ms = progress.rounds_ms or [0.0]
    return {
        "year_days": progress.day,
        "year_runs": progress.runs,
        "year_start_mb": progress.start_mb,
        "year_peak_mb": max(progress.peak_mb, end_mb),
        "year_end_mb": end_mb,
        "year_wal_peak_mb": progress.wal_peak_mb,
        "year_tasks": sizes.live_tasks + sizes.finished_tasks,
        "year_finished_tasks": sizes.finished_tasks,
        "year_ledger_rows": sizes.ledger_rows,
        "year_summaries": sizes.summaries,
        "year_owner_summaries": sizes.owner_summaries,
        "year_removed_tasks": sizes.removed_tasks,
        "year_round_p50_ms": statistics.median(rounds_ms),
        "year_round_p99_ms": percentile(rounds_ms, 0.99),
        "year_round_max_ms": max(rounds_ms),
        "year_rounds_most_in_a_day": progress.most_rounds,
        "year_keep_days": policy.keep_for / DAY,
        "year_keep_runs": policy.keep_runs,
        "year_finished_days": (policy.finished_for or timedelta(0)) / DAY,
        "year_one_time_share": ONE_TIME_SHARE,
        "year_s": progress.seconds + (time.perf_counter() - began if progress.day == 0 else 0),
    }


def _json_state(state: tuple[Any, ...]) -> list[Any]:
    """``random.Random.getstate()`` as JSON can hold it."""
    version, internal, gauss = state
    return [version, list(internal), gauss]


def _rng_state(saved: list[Any]) -> tuple[Any, ...]:
    """Read back ``_json_state``."""
    version, internal, gauss = saved
    return (version, tuple(internal), gauss)


def main() -> None:
    """Parse arguments and simulate."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--store", choices=["sqlite", "postgres"], required=True)
    parser.add_argument("--where", required=True, help="the SQLite file, or the database URL")
    parser.add_argument("--tasks", type=int, default=100_000)
    parser.add_argument("--days", type=int, default=365)
    parser.add_argument(
        "--state", type=Path, help="keep the progress in this file, and go on from it if there"
    )
    parser.add_argument("--json", action="store_true", help="(the figures are always JSON)")
    args = parser.parse_args()
    target = Target(args.store, args.where)
    progress = None
    if args.state is not None and args.state.exists():
        progress = Progress.load(args.state)
    elif target.store == "sqlite":
        Path(args.where).unlink(missing_ok=True)
    figures = asyncio.run(simulate(target, args.tasks, args.days, args.state, progress))
    print(json.dumps(figures))


if __name__ == "__main__":
    main()

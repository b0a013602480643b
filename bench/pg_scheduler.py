"""Scheduler figures on PostgreSQL, beside SQLite in the same run.

Run with ``.venv/bin/python -m bench.pg_scheduler`` (``--repeat N`` rounds, default 3;
``--json`` for one JSON object). It starts its own embedded PostgreSQL server (fsync on,
commits not waiting for the disk, like SQLite's WAL with ``synchronous = NORMAL``). Each round
measures SQLite (``bench.scheduler``'s parts, one scheduler: its lock allows no second) and
then PostgreSQL with 1, 2 and 4 scheduler processes, each on a fresh database; the figures
printed are the medians over the rounds, so SQLite and PostgreSQL are measured alternately on
a machine others share.

- claims per second: 20,000 due tasks claimed with ``claim_due`` in batches of 500 by N
  processes started together; the rate is 20,000 over the time until the last one finished.
- 10,000 due at once: a ``TaskManager`` per process, a no-op notifier; the time from the due
  instant until the last of the 10,000 was delivered (whichever process delivered it).
- restart with 100,000 stored tasks: a fresh process starts a manager over 100,000 tasks due
  in the next 30 days: time until it is ready (nothing due fired, the next wake-up known) and
  its resident memory.

Every part runs in fresh interpreters, so one part's memory and event loop do not colour
another's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg

from bench.scheduler import NoOpNotifier, drafts, restart_figures
from bench.workloads import run_fresh
from common import SystemClock
from tasks import PostgresTaskStore, TaskManager
from testing.pg_server import EmbeddedPostgres, embedded_postgres

SCHEDULERS = (1, 2, 4)
CLAIMS = 20_000
BURST = 10_000
STORED = 100_000
REPO = Path(__file__).resolve().parent.parent


# -- the children: one scheduler process each ------------------------------------------------


async def child_claim(url: str, start_at: float) -> dict[str, float]:
    """Claim due tasks in batches of 500 from ``start_at`` (epoch seconds) until none is left."""
    claimed = 0
    async with PostgresTaskStore(url, pool_size=1) as store:
        await asyncio.sleep(max(0.0, start_at - time.time()))
        now = datetime.now(UTC)
        while claims := await store.claim_due(now, limit=500, lease=timedelta(minutes=3)):
            claimed += len(claims)
        finished = time.time()
    return {"claimed": claimed, "finished": finished}


async def child_burst(url: str, expected: int) -> dict[str, Any]:
    """Run a manager until ``expected`` runs succeeded in the database; report own arrivals."""
    notifier = NoOpNotifier(expected)
    conn = await asyncpg.connect(url)
    try:
        async with TaskManager(
            store=PostgresTaskStore(url), notifier=notifier, clock=SystemClock()
        ):
            print("ready", flush=True)
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                done = await conn.fetchval(
                    "SELECT count(*) FROM task_runs WHERE status = 'succeeded'"
                )
                if done >= expected:
                    break
                await asyncio.sleep(0.02)
    finally:
        await conn.close()
    arrivals = sorted(notifier.arrivals.values())
    return {
        "delivered": len(arrivals),
        "first": datetime.fromtimestamp(arrivals[0], UTC).isoformat() if arrivals else None,
        "last": datetime.fromtimestamp(arrivals[-1], UTC).isoformat() if arrivals else None,
    }


async def child_ready(url: str) -> dict[str, float]:
    """Start a manager over the stored tasks; time until ready, and resident memory."""
    return await restart_figures(PostgresTaskStore(url))


# -- the parent ------------------------------------------------------------------------------


def spawn(*args: str, module: str = "bench.pg_scheduler") -> subprocess.Popen[str]:
    """Start a child of ``module`` (``--child ARGS``) in a fresh interpreter."""
    return subprocess.Popen(
        [sys.executable, "-m", module, "--child", *args],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        stdout=subprocess.PIPE,
        text=True,
    )


def result(child: subprocess.Popen[str]) -> dict[str, Any]:
    """The JSON the child printed last."""
    out, _ = child.communicate(timeout=300)
    if child.returncode != 0:
        raise RuntimeError(f"a bench child exited with {child.returncode}: {out[-500:]!r}")
    value: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    return value


async def fresh_database(server: EmbeddedPostgres, name: str) -> str:
    """Create an empty database (dropping one of that name) and return its URL."""
    admin = await asyncpg.connect(server.url())
    try:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    return server.url(name)


async def insert(url: str, times: list[datetime]) -> None:
    """Store one reminder per instant (20,000 per transaction), creating the tables."""
    async with PostgresTaskStore(url) as store:
        for start in range(0, len(times), 20_000):
            await store.add_tasks(drafts(times[start : start + 20_000]))


async def pg_claims(server: EmbeddedPostgres, schedulers: int) -> float:
    """Claims per second of ``schedulers`` processes over 20,000 due tasks."""
    url = await fresh_database(server, f"claims{schedulers}")
    await insert(url, [datetime.now(UTC) - timedelta(seconds=1)] * CLAIMS)
    start_at = time.time() + 2.0  # every child is connected by then
    children = [spawn("claim", url, str(start_at)) for _ in range(schedulers)]
    results = [result(c) for c in children]
    assert sum(r["claimed"] for r in results) == CLAIMS, results
    finished = max(float(r["finished"]) for r in results)
    return CLAIMS / (finished - start_at)


async def pg_burst(server: EmbeddedPostgres, schedulers: int) -> float:
    """Milliseconds from the due instant to the last of 10,000 deliveries."""
    url = await fresh_database(server, f"burst{schedulers}")
    at = datetime.now(UTC) + timedelta(seconds=30)  # pushed back once every child is ready
    await insert(url, [at] * BURST)
    children = [spawn("burst", url, str(BURST)) for _ in range(schedulers)]
    for child in children:
        assert child.stdout is not None
        if child.stdout.readline().strip() != "ready":
            raise RuntimeError("a burst child did not start")
    at = datetime.now(UTC) + timedelta(seconds=2)
    conn = await asyncpg.connect(url)
    try:  # every task due at one instant, two seconds from now; the schedulers are told
        await conn.execute("UPDATE scheduled_tasks SET next_run = $1", at)
        await conn.execute("NOTIFY assistant_tasks")
    finally:
        await conn.close()
    results = [result(c) for c in children]
    assert sum(r["delivered"] for r in results) == BURST, results
    last = max(datetime.fromisoformat(r["last"]) for r in results if r["last"])
    return (last - at).total_seconds() * 1000


async def pg_ready(server: EmbeddedPostgres) -> dict[str, float]:
    """Start-up over 100,000 stored tasks."""
    url = await fresh_database(server, "ready")
    now = datetime.now(UTC)
    await insert(url, [now + timedelta(days=1, seconds=26 * n) for n in range(STORED)])
    return result(spawn("ready", url))


def sqlite_figures(root: Path) -> dict[str, float]:
    """SQLite's figures from ``bench.scheduler`` (b, c and d), each in a fresh process."""
    values: dict[str, float] = {}
    for part, db in (("b", "b"), ("c-setup", "c"), ("c", "c"), ("d", "d")):
        values |= run_fresh("bench.scheduler", ["--only", part, "--db", str(root / f"{db}.db")])
    return values


async def one_round(server: EmbeddedPostgres) -> dict[str, float]:
    """SQLite's figures, then PostgreSQL's with 1, 2 and 4 schedulers."""
    figures: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        sqlite = sqlite_figures(Path(tmp))
    figures["sqlite_claims_per_s"] = sqlite["d_claims_per_s"]
    figures["sqlite_burst_last_ms"] = sqlite["b_last_ms"]
    figures["sqlite_ready_ms"] = sqlite["c_ready_ms"]
    figures["sqlite_rss_mb"] = sqlite["c_rss_mb"]
    for n in SCHEDULERS:
        figures[f"pg{n}_claims_per_s"] = await pg_claims(server, n)
        figures[f"pg{n}_burst_last_ms"] = await pg_burst(server, n)
    ready = await pg_ready(server)
    figures["pg_ready_ms"] = ready["ready_ms"]
    figures["pg_rss_mb"] = ready["rss_mb"]
    return figures


def render(medians: dict[str, float], rounds: int) -> list[str]:
    """The figures as the lines ``bench.run_all`` turns into table rows."""
    lines = [f"medians of {rounds} rounds, SQLite and PostgreSQL measured alternately"]
    lines.append(f"claims/s, SQLite (1 scheduler)          {medians['sqlite_claims_per_s']:,.0f}")
    for n in SCHEDULERS:
        lines.append(
            f"claims/s, PostgreSQL, {n} scheduler{'s' if n > 1 else ' '}       "
            f"{medians[f'pg{n}_claims_per_s']:,.0f}"
        )
    lines.append(
        f"10,000 due at once, SQLite (1)          last delivered after "
        f"{medians['sqlite_burst_last_ms']:.0f} ms"
    )
    for n in SCHEDULERS:
        lines.append(
            f"10,000 due at once, PostgreSQL ({n})      last delivered after "
            f"{medians[f'pg{n}_burst_last_ms']:.0f} ms"
        )
    lines.append(
        f"restart, 100,000 stored, SQLite         ready in {medians['sqlite_ready_ms']:.1f} ms, "
        f"RSS {medians['sqlite_rss_mb']:.0f} MB"
    )
    lines.append(
        f"restart, 100,000 stored, PostgreSQL     ready in {medians['pg_ready_ms']:.1f} ms, "
        f"RSS {medians['pg_rss_mb']:.0f} MB"
    )
    return lines


async def run(rounds: int, as_json: bool) -> None:
    """Measure ``rounds`` rounds and print the medians."""
    collected: list[dict[str, float]] = []
    with embedded_postgres(durable=True) as server:
        for number in range(1, rounds + 1):
            print(f"round {number}/{rounds} ...", file=sys.stderr, flush=True)
            collected.append(await one_round(server))
    medians = {key: statistics.median(r[key] for r in collected) for key in collected[0]}
    if as_json:
        print(json.dumps({"medians": medians, "rounds": collected}))
    else:
        print("\n".join(render(medians, rounds)))


def child(args: Sequence[str]) -> None:
    """Run one child part and print its JSON."""
    kind, url, *rest = args
    if kind == "claim":
        value: dict[str, Any] = asyncio.run(child_claim(url, float(rest[0])))
    elif kind == "burst":
        value = asyncio.run(child_burst(url, int(rest[0])))
    else:
        value = asyncio.run(child_ready(url))
    print(json.dumps(value), flush=True)


def main(argv: Sequence[str] | None = None) -> None:
    """Parse the flags; run the rounds (or, with ``--child``, one child part)."""
    parser = argparse.ArgumentParser(prog="bench.pg_scheduler", description=__doc__)
    parser.add_argument("--repeat", type=int, default=3, help="rounds (medians are printed)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child)
        return
    asyncio.run(run(max(1, args.repeat), args.json))


if __name__ == "__main__":
    main()

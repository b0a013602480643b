"""Crash recovery across processes: several ``assistant serve`` on one PostgreSQL database.

``run_pg_crash_test`` stores reminders due over a span of seconds, starts ``schedulers``
``assistant serve`` processes on the same database (each with its own JSON Lines sink), and
SIGKILLs one of them, chosen at random, at random moments, restarting it at once. When every
reminder is due, delivered and settled, it stops them all and checks the sinks together
against the store (``testing.crash_check``): every reminder delivered, no more duplicates than
kills, the ledger consistent both ways, and the tables' invariants intact.

The long form is ``.venv/bin/python -m bench.pg_crash``; the short one is a test
(``tests/test_crash_recovery_postgres.py``).
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import asyncpg

from assistant.app import LOCAL_CHAT
from tasks import PostgresTaskStore
from testing.crash_check import CrashReport, PlannedReminder, check_crash_run
from testing.harness import OWNER, CrashPlan, Progress, reminder_drafts, settle, sleep_until
from testing.serve_process import ServeProcess, serve_command, serve_env
from testing.sink_file import SinkLine, SinkReader

_INVARIANTS = {
    "claimed runs left after settling": "SELECT count(*) FROM task_runs WHERE status = 'claimed'",
    "tasks whose enabled flag disagrees with their status": (
        "SELECT count(*) FROM scheduled_tasks WHERE enabled <> (status = 'active')"
    ),
    "active tasks without a next run": (
        "SELECT count(*) FROM scheduled_tasks WHERE status = 'active' AND next_run IS NULL"
    ),
    "finished runs without an end": (
        "SELECT count(*) FROM task_runs WHERE status NOT IN ('claimed') AND finished_at IS NULL"
        " AND status <> 'abandoned'"
    ),
    "runs of one task claimed twice for one time": (
        "SELECT count(*) FROM (SELECT task_id, scheduled_for FROM task_runs"
        " WHERE status = 'succeeded' GROUP BY 1, 2 HAVING count(*) > 1) AS twice"
    ),
}


class Sinks:
    """The sink files of all the schedulers, read together."""

    def __init__(self, paths: Sequence[Path]) -> None:
        self.readers = [SinkReader(path) for path in paths]

    def read_new(self) -> list[SinkLine]:
        """The lines written to any sink since the last call."""
        return [line for reader in self.readers for line in reader.read_new()]

    def read_rest(self) -> None:
        """Consume everything, counting torn last lines as corrupt."""
        for reader in self.readers:
            reader.read_rest()

    @property
    def lines(self) -> list[SinkLine]:
        """Every line read so far."""
        return [line for reader in self.readers for line in reader.lines]

    @property
    def corrupt(self) -> list[str]:
        """Every line that was not a valid delivery."""
        return [line for reader in self.readers for line in reader.corrupt]


async def invariants(url: str) -> str:
    """``ok``, or which of the ledger's invariants the database breaks and how often."""
    conn = await asyncpg.connect(url)
    try:
        broken = [
            f"{count} {what}"
            for what, sql in _INVARIANTS.items()
            if (count := int(await conn.fetchval(sql)))
        ]
    finally:
        await conn.close()
    return "; ".join(broken) or "ok"


async def run_pg_crash_test(
    plan: CrashPlan,
    url: str,
    workdir: Path,
    *,
    schedulers: int = 3,
    progress: Progress | None = None,
) -> CrashReport:
    """Run the plan with ``schedulers`` serve processes on the database at ``url``."""
    say = progress or (lambda _line: None)
    began = time.monotonic()
    rng = random.Random(plan.seed)
    report = CrashReport(plan.reminders, 0, timedelta(seconds=plan.grace))
    start = datetime.now(UTC)
    # The terminal's chat: `assistant serve` delivers it to its own sink.
    drafts, dues = reminder_drafts(plan, start, rng, chat_id=LOCAL_CHAT)
    sinks = [workdir / f"deliveries-{n}.jsonl" for n in range(schedulers)]
    reader = Sinks(sinks)
    async with PostgresTaskStore(url) as store:
        ids = await store.add_tasks(drafts)
        planned = [
            PlannedReminder(i, due, d.description)
            for i, due, d in zip(ids, dues, drafts, strict=True)
        ]
        say(f"stored {len(ids)} reminders due over {plan.span:g} s for {schedulers} schedulers")
        procs = [
            ServeProcess(
                serve_command(sink),
                env=serve_env(workdir / f"data-{n}", {"ASSISTANT_DATABASE_URL": url}),
                log_path=workdir / f"serve-{n}.log",
            )
            for n, sink in enumerate(sinks)
        ]
        try:
            ready = await asyncio.gather(*(p.start(within=plan.startup_timeout) for p in procs))
            report.startup_seconds += ready
            await _kill_one_at_a_time(plan, procs, start, rng, report, say)
            await settle(plan, store, reader, set(ids), start, report, say)
            codes = await asyncio.gather(*(p.terminate(within=30.0) for p in procs))
            report.exit_code = next((code for code in codes if code != 0), 0)
        finally:
            for proc in procs:
                await proc.kill()
        reader.read_rest()
        report.corrupt_lines += reader.corrupt
        await check_crash_run(report, planned, reader.lines, store, None, owner_id=OWNER)
    report.integrity = await invariants(url)
    report.elapsed_seconds = time.monotonic() - began
    return report


async def _kill_one_at_a_time(
    plan: CrashPlan,
    procs: list[ServeProcess],
    start: datetime,
    rng: random.Random,
    report: CrashReport,
    say: Progress,
) -> None:
    """SIGKILL one scheduler, chosen at random, at each kill moment; restart it at once."""
    moments = sorted(rng.uniform(0, plan.lead + plan.span) for _ in range(plan.kills))
    for number, moment in enumerate(moments, start=1):
        await sleep_until(start + timedelta(seconds=moment))
        victim = rng.randrange(len(procs))
        await procs[victim].kill()
        report.kills += 1
        elapsed = (datetime.now(UTC) - start).total_seconds()
        say(f"kill {number}/{plan.kills}: scheduler {victim} at +{elapsed:.2f} s; restarting")
        report.startup_seconds.append(await procs[victim].start(within=plan.startup_timeout))

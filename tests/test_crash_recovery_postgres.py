"""Crash recovery across processes, short form: three ``assistant serve`` on one PostgreSQL
database, one of them SIGKILLed at random moments while reminders fire, and restarted.

Real time, like the SQLite crash test: 150 reminders over 8 seconds, four kills. Every wait
inside is bounded, and so is the whole run. The long form (3 schedulers, 2,000 reminders over
60 s, 15 kills) is ``.venv/bin/python -m bench.pg_crash``.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from testing.crash_check import CrashReport
from testing.harness import CrashPlan
from testing.pg_crash import run_pg_crash_test

PLAN = CrashPlan(reminders=150, span=8.0, kills=4, seed=20261124, lead=4.0, lease_wait=40.0)
SCHEDULERS = 3
WHOLE_RUN_LIMIT = 90.0


async def test_three_schedulers_deliver_every_reminder_once_despite_sigkills(
    tmp_path: Path, postgres_url: str
) -> None:
    try:
        report: CrashReport = await asyncio.wait_for(
            run_pg_crash_test(PLAN, postgres_url, tmp_path, schedulers=SCHEDULERS),
            WHOLE_RUN_LIMIT,
        )
    except TimeoutError:
        raise AssertionError(
            f"the crash run overran {WHOLE_RUN_LIMIT:g} s; logs: {log_tails(tmp_path)!r}"
        ) from None

    assert report.problems() == [], report.render()
    assert report.kills == PLAN.kills
    assert report.delivered == PLAN.reminders, report.render()
    assert report.duplicates <= report.kills, report.render()
    assert report.integrity == "ok", report.render()
    assert report.exit_code == 0, report.render()
    assert len(sinks_written(tmp_path)) >= 2, "the schedulers shared the work"


def log_tails(workdir: Path) -> list[str]:
    """The end of every scheduler's log."""
    return [p.read_text(errors="replace")[-1000:] for p in sorted(workdir.glob("serve-*.log"))]


def sinks_written(workdir: Path) -> list[str]:
    """The sink files that received deliveries."""
    return [p.name for p in sorted(workdir.glob("deliveries-*.jsonl")) if p.stat().st_size]

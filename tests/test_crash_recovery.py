"""Crash recovery, short form: the real ``assistant serve`` SIGKILLed while reminders fire.

This is the one test that runs in real time: 60 reminders fall due over 6 seconds while the
process is killed three times at random moments and restarted at once. Every wait inside is
bounded (see ``testing.harness``), and the whole run is bounded here. The long form, 1,000
reminders and 10 kills, is ``.venv/bin/python -m bench.crash``.
"""

from __future__ import annotations

import asyncio
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

from tasks import RunOutcome, RunStatus, SqliteTaskStore
from testing.crash_check import CrashReport, PlannedReminder, check_crash_run
from testing.harness import OWNER, CrashPlan, reminder_drafts, run_crash_test
from testing.sink_file import SinkLine

PLAN = CrashPlan(reminders=60, span=6.0, kills=3, seed=20261122, lease_wait=10.0)
WHOLE_RUN_LIMIT = 60.0


async def crash_run(tmp_path: Path) -> CrashReport:
    """Run the short plan, failing clearly when the run itself overruns its limit."""
    try:
        return await asyncio.wait_for(run_crash_test(PLAN, tmp_path), WHOLE_RUN_LIMIT)
    except TimeoutError:
        log = (tmp_path / "serve.log").read_text(encoding="utf-8", errors="replace")[-2000:]
        raise AssertionError(
            f"the crash run did not finish within {WHOLE_RUN_LIMIT:g} s; serve log: {log!r}"
        ) from None


async def test_every_reminder_arrives_once_despite_sigkills(tmp_path: Path) -> None:
    report = await crash_run(tmp_path)

    assert report.problems() == [], report.render()
    assert report.kills == PLAN.kills
    assert report.delivered == PLAN.reminders, report.render()
    assert report.duplicates <= report.kills, report.render()
    assert report.integrity == "ok"
    assert report.exit_code == 0, report.render()


async def test_the_check_flags_lost_duplicated_and_unrecorded_deliveries(tmp_path: Path) -> None:
    start = datetime.now(UTC) - timedelta(minutes=1)
    plan = CrashPlan(reminders=3, span=1.0, kills=0, lead=0.0)
    drafts, dues = reminder_drafts(plan, start, random.Random(1))
    store = SqliteTaskStore(tmp_path / "assistant.db")
    async with store:
        ids = await store.add_tasks(drafts)
        claimed = await store.claim_due(datetime.now(UTC), limit=10, lease=timedelta(minutes=3))
        claims = {claim.task.id: claim for claim in claimed}
        done, unrecorded, running = ids
        now = datetime.now(UTC)
        await store.finish_runs(
            [
                RunOutcome(claims[i].run.id, i, RunStatus.SUCCEEDED, now, now)
                for i in (done, unrecorded)
            ],
            max_failures=5,
        )
        planned = [
            PlannedReminder(i, due, d.description)
            for i, due, d in zip(ids, dues, drafts, strict=True)
        ]
        texts = {p.task_id: p.message for p in planned}
        lines = [
            SinkLine(i, claims[i].run.id, "reminder", texts[i], None, now)
            for i in (done, done, running)
        ]
        report = CrashReport(plan.reminders, 0, timedelta(seconds=plan.grace))
        await check_crash_run(report, planned, lines, store, store.path, owner_id=OWNER)

    problems = "\n".join(report.problems())
    assert report.lost == [unrecorded]
    assert report.duplicate_tasks == [done]
    assert report.success_without_line == [f"{unrecorded}/run {claims[unrecorded].run.id}"]
    assert report.not_final == [f"{running}: running"]
    assert "1 duplicate deliveries for 0 kills" in problems
    assert "delivered lines whose run is not marked succeeded" in problems
    assert f"{done}/run {claims[done].run.id}" in report.late_unmarked[0]
    assert report.corrupted == []
    assert report.integrity == "ok"

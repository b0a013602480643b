"""Crash recovery under SIGKILL: the real ``assistant serve`` process, killed and restarted.

``run_crash_test`` stores reminders due over a span of seconds, starts ``assistant serve`` with
a JSON Lines sink, kills it with SIGKILL at random moments (restarting it at once each time),
waits until every reminder is due, delivered and settled in the ledger, stops the last process
cleanly, and checks the sink against the store (see ``testing.crash_check``). Every wait has a
deadline; what did not happen in time is reported, never waited for forever.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Protocol
from zoneinfo import ZoneInfo

from assistant.config import Settings
from tasks import (
    MisfirePolicy,
    MisfireRule,
    OnceSchedule,
    ReminderData,
    SqliteTaskStore,
    TaskDraft,
    TaskStore,
    TaskType,
)
from testing.crash_check import CrashReport, PlannedReminder, check_crash_run
from testing.serve_process import ServeProcess, serve_command, serve_env
from testing.sink_file import SinkLine, SinkReader

OWNER = "crash-test"
POLL_SECONDS = 0.05
SETTLE_SECONDS = 15.0

Progress = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class CrashPlan:
    """What one crash run does.

    Attributes:
        reminders: How many one-time reminders to store.
        span: Seconds over which they fall due (uniformly at random).
        kills: How many times the process is killed with SIGKILL and restarted.
        seed: Seeds the due times and the kill moments, so a run can be repeated.
        lead: Seconds from storing the reminders to the first possible due time.
        grace: The reminders' misfire grace: later than this, a run counts as late.
        startup_timeout: Longest wait for a process's ``ready`` line.
        lease_wait: Longest wait past the span for runs a killed process held under a lease.
    """

    reminders: int = 1000
    span: float = 60.0
    kills: int = 10
    seed: int = 1
    lead: float = 2.0
    grace: float = 1.0
    startup_timeout: float = 60.0
    lease_wait: float = 240.0

    def __post_init__(self) -> None:
        if self.reminders < 1 or self.kills < 0 or self.span <= 0 or self.lead < 0:
            raise ValueError(
                f"a crash plan needs reminders >= 1 (got {self.reminders!r}), kills >= 0 "
                f"(got {self.kills!r}), span > 0 (got {self.span!r}) and lead >= 0 "
                f"(got {self.lead!r})"
            )


def database_path(data_dir: Path) -> Path:
    """Return the database file the assistant uses under ``data_dir``."""
    settings = Settings.model_validate({"ASSISTANT_DATA_DIR": str(data_dir)})
    return settings.database_path


def reminder_drafts(
    plan: CrashPlan, start: datetime, rng: random.Random, *, chat_id: str = OWNER
) -> tuple[list[TaskDraft], list[datetime]]:
    """Return the reminders to store and their due times (sorted), for a plan starting now."""
    utc = ZoneInfo("UTC")
    first = start + timedelta(seconds=plan.lead)
    dues = sorted(
        first + timedelta(seconds=rng.uniform(0, plan.span)) for _ in range(plan.reminders)
    )
    rule = MisfireRule(MisfirePolicy.COALESCE, grace=timedelta(seconds=plan.grace))
    drafts = [
        TaskDraft(
            owner_id=OWNER,
            chat_id=chat_id,
            task_type=TaskType.REMINDER,
            description=_message(number),
            schedule=OnceSchedule(at=due, tz=utc),
            execution=ReminderData(message=_message(number)),
            misfire=rule,
            created_at=start,
            next_run=due,
        )
        for number, due in enumerate(dues, start=1)
    ]
    return drafts, dues


async def run_crash_test(
    plan: CrashPlan,
    workdir: Path,
    *,
    command: Sequence[str] | None = None,
    env: Mapping[str, str] | None = None,
    progress: Progress | None = None,
) -> CrashReport:
    """Run the plan against the serve process in ``workdir`` and return what it found.

    Args:
        plan: How many reminders, over how long, and how many kills.
        workdir: An empty directory for the data dir, the sink and the process log.
        command: The serve command line (the real ``assistant serve`` by default).
        env: Extra environment variables for the process.
        progress: Receives a line at each step (kills, waits).
    """
    say = progress or (lambda _line: None)
    began = time.monotonic()
    data_dir, sink = workdir / "data", workdir / "deliveries.jsonl"
    rng = random.Random(plan.seed)
    report = CrashReport(plan.reminders, 0, timedelta(seconds=plan.grace))
    start = datetime.now(UTC)
    drafts, dues = reminder_drafts(plan, start, rng)
    store = SqliteTaskStore(database_path(data_dir))
    async with store:
        ids = await store.add_tasks(drafts)
        planned = [
            PlannedReminder(i, due, d.description)
            for i, due, d in zip(ids, dues, drafts, strict=True)
        ]
        say(f"stored {len(ids)} reminders due over {plan.span:g} s")
        proc = ServeProcess(
            command or serve_command(sink),
            env=serve_env(data_dir, env),
            log_path=workdir / "serve.log",
        )
        try:
            await _kill_and_restart(plan, proc, start, rng, report, say)
            reader = SinkReader(sink)
            await settle(plan, store, reader, set(ids), start, report, say)
            report.exit_code = await proc.terminate(within=30.0)
        finally:
            # Whatever went wrong (or cancelled the run), no serve process is left behind.
            await proc.kill()
        reader.read_rest()
        report.corrupt_lines += reader.corrupt
        await check_crash_run(report, planned, reader.lines, store, store.path, owner_id=OWNER)
    report.elapsed_seconds = time.monotonic() - began
    return report


async def _kill_and_restart(
    plan: CrashPlan,
    proc: ServeProcess,
    start: datetime,
    rng: random.Random,
    report: CrashReport,
    say: Progress,
) -> None:
    """Start the process, then SIGKILL it at random moments of the span, restarting it at once."""
    report.startup_seconds.append(await proc.start(within=plan.startup_timeout))
    moments = sorted(rng.uniform(0, plan.lead + plan.span) for _ in range(plan.kills))
    for number, moment in enumerate(moments, start=1):
        await sleep_until(start + timedelta(seconds=moment))
        await proc.kill()
        report.kills += 1
        say(f"kill {number}/{plan.kills} at +{_since(start):.2f} s; restarting")
        report.startup_seconds.append(await proc.start(within=plan.startup_timeout))


class Deliveries(Protocol):
    """Where the delivered lines are read from: one sink file, or several."""

    def read_new(self) -> list[SinkLine]:
        """The lines written since the last call."""
        ...


async def settle(
    plan: CrashPlan,
    store: TaskStore,
    reader: Deliveries,
    ids: set[str],
    start: datetime,
    report: CrashReport,
    say: Progress,
) -> None:
    """Wait until the run settled (``wait_settled``, from the end of the span that began at
    ``start``); record how long it took, and why it stopped waiting if it gave up."""
    end_of_span = start + timedelta(seconds=plan.lead + plan.span)
    report.settle_seconds, gave_up = await wait_settled(plan, store, reader, ids, end_of_span, say)
    if gave_up:
        say(gave_up)
        report.notes.append(gave_up)


async def wait_settled(
    plan: CrashPlan,
    store: TaskStore,
    reader: Deliveries,
    ids: set[str],
    end_of_span: datetime,
    say: Progress,
) -> tuple[float, str | None]:
    """Wait until every reminder has a line and nothing is due or leased.

    The deadline is the end of the span plus ``SETTLE_SECONDS``; while the store says a killed
    process still holds a lease, the deadline moves to its expiry (at most ``lease_wait``).

    Returns:
        The seconds from the end of the span until settled, and why it stopped waiting early
        (``None`` when everything settled).
    """
    hard_limit = end_of_span + timedelta(seconds=plan.lease_wait)
    deadline = end_of_span + timedelta(seconds=SETTLE_SECONDS)
    delivered: set[str] = set()
    told: datetime | None = None
    while True:
        delivered.update(line.task_id for line in reader.read_new())
        wakeup = await store.next_wakeup()
        now = datetime.now(UTC)
        waited = max(0.0, (now - end_of_span).total_seconds())
        if wakeup is None and ids <= delivered:
            return waited, None
        if wakeup is not None and wakeup > now:
            deadline = max(deadline, min(wakeup + timedelta(seconds=SETTLE_SECONDS), hard_limit))
            if wakeup > end_of_span and told != wakeup:
                told = wakeup
                say(
                    f"{len(ids - delivered)} undelivered; a killed process's lease runs out in "
                    f"{(wakeup - now).total_seconds():.1f} s; waiting"
                )
        if now >= deadline:
            return waited, (
                f"stopped waiting {waited:.0f} s after the last due time with "
                f"{len(ids - delivered)} reminders undelivered; the store's next wake-up was "
                f"{wakeup.isoformat() if wakeup else None}"
            )
        await asyncio.sleep(POLL_SECONDS)


async def sleep_until(moment: datetime) -> None:
    """Sleep until the wall-clock ``moment``."""
    delay = (moment - datetime.now(UTC)).total_seconds()
    if delay > 0:
        await asyncio.sleep(delay)


def _since(start: datetime) -> float:
    return (datetime.now(UTC) - start).total_seconds()


def _message(number: int) -> str:
    return f"crash-test reminder #{number}"

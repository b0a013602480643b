"""Runs claimed runs: each at its time, bounded in number and in time, its outcome to the ledger.

A run claimed ahead of its time waits for it (``ClaimedAhead``), then takes one of the
concurrency slots and runs under the shared ``Watchdog``. A successful run queues its outcome
for the ledger and ends; a failed or undelivered one waits for its commit, which says what
follows (``FollowUps``). While a run is in flight its lease is renewed (``LeaseKeeper``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta

from common import Clock
from tasks.engine.ahead import ClaimedAhead
from tasks.engine.leases import LeaseKeeper
from tasks.engine.ledger import LedgerWriter
from tasks.engine.notices import FollowUps
from tasks.engine.watchdog import Watchdog
from tasks.errors import TaskError
from tasks.execution import TaskType, repeat_is_safe
from tasks.models import Claim, MisfireAction, RunOutcome, RunStatus, TaskRun, TaskStatus
from tasks.runners.base import RunReport, TaskRunner

log = logging.getLogger(__name__)

RETRACTED_REPORT = RunReport(
    RunStatus.SKIPPED, error="the task was cancelled or paused just before this run was due"
)
# Outcomes whose commit decides a follow-up (pause the owner, tell them, disable the task);
# any other outcome is queued for the ledger without waiting.
_FOLLOWED_UP = frozenset({RunStatus.FAILED, RunStatus.UNDELIVERED, RunStatus.OUTCOME_UNKNOWN})
DELIVERY_BACKOFF = timedelta(minutes=1)
MAX_DELIVERY_BACKOFF = timedelta(minutes=30)


def delivery_backoff(failures: int) -> timedelta:
    """How long a one-time task waits to run again after ``failures`` failed runs in a row.

    One minute after the first failure, doubling per further failure, at most 30 minutes.
    """
    return min(DELIVERY_BACKOFF * (1 << min(failures, 16)), MAX_DELIVERY_BACKOFF)


class RunExecutor:
    """Starts claimed runs as event-loop tasks and sees each one through to the ledger.

    Args:
        clock: The source of time.
        runners: The runner per task type.
        ledger: Where outcomes are written.
        leases: Renews the leases of the runs in flight.
        ahead: The runs claimed ahead of their time.
        follow_ups: What happens after a failed or undelivered run.
        wake: Set when a run put its task back with a backoff (the timer re-reads the store).
        max_concurrent_runs: How many runs execute at the same time.
        run_timeout: How long one run may take before it counts as failed.
    """

    def __init__(
        self,
        *,
        clock: Clock,
        runners: Mapping[TaskType, TaskRunner],
        ledger: LedgerWriter,
        leases: LeaseKeeper,
        ahead: ClaimedAhead,
        follow_ups: FollowUps,
        wake: asyncio.Event,
        max_concurrent_runs: int,
        run_timeout: timedelta,
    ) -> None:
        self._clock = clock
        self._runners = dict(runners)
        self._ledger = ledger
        self._leases = leases
        self._ahead = ahead
        self._follow_ups = follow_ups
        self._wake = wake
        self._slots = asyncio.Semaphore(max_concurrent_runs)
        self._watchdog = Watchdog(run_timeout.total_seconds())
        self._running: dict[asyncio.Task[RunOutcome], int] = {}

    def start(self, claims: Sequence[Claim]) -> list[asyncio.Task[RunOutcome]]:
        """Start one event-loop task per claim; each waits for its time if claimed ahead."""
        now = self._clock.now()
        return [self._spawn(claim, now) for claim in claims]

    async def run_claimed(self, claim: Claim) -> TaskRun:
        """Run ``claim`` now and return its finished ledger row ("run now")."""
        (run,) = self.start([claim])
        outcome = await run
        await self._ledger.flush()
        return claim.run.ended(outcome)

    async def settle(self, runs: Sequence[asyncio.Task[RunOutcome]]) -> None:
        """Wait until ``runs`` finished and their outcomes are in the ledger."""
        await asyncio.gather(*runs, return_exceptions=True)
        await self._ledger.flush()

    async def wait_idle(self) -> None:
        """Wait until every run started so far has finished and is in the ledger."""
        while self._running:
            await asyncio.gather(*set(self._running), return_exceptions=True)
        await self._ledger.flush()

    async def drain(self, within: timedelta) -> None:
        """Let the runs in flight finish for up to ``within``, cancel the rest, flush.

        Cancelled runs stay claimed and are retried once their lease runs out.
        """
        if self._running:
            _, pending = await asyncio.wait(set(self._running), timeout=within.total_seconds())
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
        await self._ledger.flush()

    def _spawn(self, claim: Claim, now: datetime) -> asyncio.Task[RunOutcome]:
        run_id = claim.run.id
        if claim.run.scheduled_for > now:
            self._ahead.note(claim)
        self._leases.hold(run_id)
        task = asyncio.create_task(self._execute(claim), name=f"task-run-{run_id}")
        self._running[task] = run_id
        task.add_done_callback(self._run_done)
        return task

    def _run_done(self, task: asyncio.Task[RunOutcome]) -> None:
        # A run cancelled before its outcome was queued leaves its lease to run out.
        self._leases.drop(self._running.pop(task))

    async def _execute(self, claim: Claim) -> RunOutcome:
        retracted = await self._ahead.wait_until_due(claim)
        async with self._slots:
            started = self._clock.now()
            report = RETRACTED_REPORT if retracted else await self._run_safely(claim)
            finished_at = self._clock.now()
        outcome = RunOutcome(
            claim.run.id,
            claim.task.id,
            report.status,
            started,
            finished_at,
            result=report.result,
            error=report.error,
            retry_at=self._retry_at(claim, report, finished_at),
            extra=claim.run.misfire is MisfireAction.MANUAL,
        )
        self._leases.finishing(claim.run.id)
        if report.status not in _FOLLOWED_UP:
            self._ledger.submit_nowait(outcome)
            return outcome
        finished = await self._ledger.submit(outcome)
        if outcome.retry_at is not None and finished.task_status is TaskStatus.ACTIVE:
            self._wake.set()  # put back with a backoff: the timer learns its new next_run
        await self._follow_ups.after_run(claim, report, finished)
        return outcome

    def _retry_at(self, claim: Claim, report: RunReport, finished_at: datetime) -> datetime | None:
        """When to run a one-time task again whose run failed for now (undelivered)."""
        if not report.retry_later or claim.task.schedule.kind != "once":
            return None
        return finished_at + delivery_backoff(claim.task.consecutive_failures)

    async def _run_safely(self, claim: Claim) -> RunReport:
        runner = self._runners.get(claim.task.task_type)
        if runner is None:
            return RunReport(
                RunStatus.FAILED,
                error=f"no runner is configured for {claim.task.task_type.value!r} tasks",
            )
        seconds = self._watchdog.limit
        try:
            with self._watchdog.guard():
                return await runner.run(claim.task, claim.run)
        except TimeoutError:
            error = f"the run did not finish within {seconds:g} s"
            if not repeat_is_safe(claim.task.execution):
                # Cut off mid-request: the server may have acted on it.
                return RunReport(RunStatus.OUTCOME_UNKNOWN, error=error)
            return RunReport(RunStatus.FAILED, error=error)
        except TaskError as exc:
            return RunReport(RunStatus.FAILED, error=str(exc))
        except Exception as exc:
            log.exception("task %s run %s raised", claim.task.id, claim.run.id)
            return RunReport(RunStatus.FAILED, error=f"{type(exc).__name__}: {exc}")

"""Runs claimed runs: each at its time, bounded in number and in time, its outcome to the ledger.

Claimed runs wait in ``ClaimedAhead`` (a heap, not event-loop tasks) until they are due; the
``WorkerPool`` runs each due run while fewer than ``max_concurrent_runs`` run, under the
shared ``Watchdog``. A run that succeeded the usual way leaves its bookkeeping (its lateness,
its outcome queued for the ledger) until no run is due, or ``SETTLE_WITHIN`` at the latest
(every worker may be busy with a slow run): the runs of a burst start one after the other
with nothing else between them. A failed or undelivered one waits for its commit, which says
what follows (``FollowUps``). From its claim until its outcome is in the ledger a run's lease
is renewed (``LeaseKeeper``). A run that must not act twice (a POST, a PATCH) records its
start in the ledger before its first attempt; when the manager stops, the claimed runs that
never started are given back to the store, due again at their time.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta

from common import Clock
from tasks.engine.ahead import ClaimedAhead
from tasks.engine.leases import LeaseKeeper
from tasks.engine.ledger import Ended, LedgerWriter
from tasks.engine.notices import FollowUps
from tasks.engine.pool import WorkerPool
from tasks.engine.watchdog import Watchdog
from tasks.errors import TaskError
from tasks.execution import TaskType, repeat_is_safe
from tasks.models import Claim, MisfireAction, RunOutcome, RunStatus, TaskRun, TaskStatus
from tasks.runners.base import RunReport, TaskRunner
from tasks.store import TaskStore

log = logging.getLogger(__name__)

RETRACTED_REPORT = RunReport(
    RunStatus.SKIPPED, error="the task was cancelled or paused just before this run was due"
)
# Outcomes whose commit decides a follow-up (pause the owner, tell them, disable the task);
# any other outcome is queued for the ledger without waiting.
_FOLLOWED_UP = frozenset({RunStatus.FAILED, RunStatus.UNDELIVERED, RunStatus.OUTCOME_UNKNOWN})
_SETTLE_EVERY = 1000  # runs left for bookkeeping that are recorded without waiting longer
SETTLE_WITHIN = 0.05
"""The most seconds a run that succeeded waits for its bookkeeping (the ledger's own wait for a
burst comes after it)."""
DELIVERY_BACKOFF = timedelta(minutes=1)
MAX_DELIVERY_BACKOFF = timedelta(minutes=30)


def delivery_backoff(failures: int) -> timedelta:
    """How long a one-time task waits to run again after ``failures`` failed runs in a row.

    One minute after the first failure, doubling per further failure, at most 30 minutes.
    """
    return min(DELIVERY_BACKOFF * (1 << min(failures, 16)), MAX_DELIVERY_BACKOFF)


class Lateness:
    """How late on-time runs started in the last minute: the most per second, kept for a
    minute (a constant cost however many runs start; a run of a burst costs a comparison)."""

    WINDOW = 60

    def __init__(self) -> None:
        self._worst: dict[int, timedelta] = {}  # by whole epoch second
        self._second = 0
        # The current second, as instants: a run compares, instead of converting its time.
        self._second_starts = self._second_ends = datetime.min.replace(tzinfo=UTC)
        self._current = timedelta(0)  # the most in the current second

    def record(self, started: datetime, late: timedelta) -> None:
        """Note that a run started ``late`` after its time at ``started``."""
        if not self._second_starts <= started < self._second_ends:
            self._enter(started)
        if late > self._current:
            self._current = self._worst[self._second] = late

    def recent(self, now: datetime) -> timedelta:
        """The most any on-time run started late within the last minute."""
        self._forget(int(now.timestamp()))
        return max(self._worst.values(), default=timedelta(0))

    def _enter(self, started: datetime) -> None:
        """Start keeping the second ``started`` falls in."""
        second = int(started.timestamp())
        self._second = second
        self._second_starts = datetime.fromtimestamp(second, UTC)
        self._second_ends = datetime.fromtimestamp(second + 1, UTC)
        self._current = self._worst.get(second, timedelta(0))
        if len(self._worst) > 2 * self.WINDOW:
            self._forget(second)

    def _forget(self, second: int) -> None:
        for old in [s for s in self._worst if s <= second - self.WINDOW]:
            del self._worst[old]
        if self._second not in self._worst:
            self._current = timedelta(0)


class RunExecutor:
    """Starts claimed runs as event-loop tasks and sees each one through to the ledger.

    Args:
        store: Where runs record their start and claims are given back.
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
        store: TaskStore,
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
        self._store = store
        self._clock = clock
        self._runners = dict(runners)
        self._ledger = ledger
        self._leases = leases
        self._ahead = ahead
        self._follow_ups = follow_ups
        self._wake = wake
        self._watchdog = Watchdog(run_timeout.total_seconds())
        self._pool = WorkerPool(
            clock=clock,
            ahead=ahead,
            size=max_concurrent_runs,
            run=self._run,
            settle=self._settle_ended,
        )
        self.lateness = Lateness()
        # Runs that succeeded the usual way, their bookkeeping left for ``_settle_ended``:
        # (claim, report, started, finished).
        self._ended: list[tuple[Claim, RunReport, datetime, datetime]] = []
        self._settle_timer: asyncio.TimerHandle | None = None
        self._unfinished: set[int] = set()  # queued or running
        self._waiters: dict[int, asyncio.Future[RunOutcome]] = {}
        self._idle = asyncio.Event()
        self._idle.set()

    def start(self, claims: Sequence[Claim]) -> list[int]:
        """Queue the claimed runs; each starts at its time. Return their run ids."""
        for claim in claims:
            run_id = claim.run.id
            self._leases.hold(run_id)
            self._ahead.add(claim)
            self._unfinished.add(run_id)
        if claims:
            self._idle.clear()
            self._pool.queued()
        return [claim.run.id for claim in claims]

    async def run_claimed(self, claim: Claim) -> TaskRun:
        """Run ``claim`` now and return its finished ledger row ("run now")."""
        (run_id,) = self.start([claim])
        outcome = await self._outcome(run_id)
        await self._ledger.flush()
        return claim.run.ended(outcome)

    async def settle(self, run_ids: Sequence[int]) -> None:
        """Wait until the runs ``run_ids`` finished and their outcomes are in the ledger."""
        waiting = [self._outcome(i) for i in run_ids if i in self._unfinished]
        await asyncio.gather(*waiting, return_exceptions=True)
        await self._ledger.flush()

    async def wait_idle(self) -> None:
        """Wait until every run queued so far has finished and is in the ledger."""
        await self._idle.wait()
        await self._ledger.flush()

    async def caught_up(self, within: float) -> None:
        """Wait (up to ``within`` seconds) until no due run waits for a worker.

        The ledger writer waits for this before each batch: during a burst the deliveries
        go first, and the ledger follows in larger batches.
        """
        caught_up = self._pool.caught_up
        if not caught_up.is_set():
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(within):
                    await caught_up.wait()

    async def drain(self, within: timedelta) -> None:
        """Let the queued and running runs finish for up to ``within``, then stop the rest.

        Runs still queued never started: they are given back to the store (due again at
        their time, for the next manager), and those retracted meanwhile are recorded as
        skipped, as at their time. Running ones are cancelled: they stay claimed, and are
        retried (or, having maybe acted, given up) when the next manager starts, or once
        their lease runs out.
        """
        if not self._idle.is_set():
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(within.total_seconds()):
                    await self._idle.wait()
        queued = self._ahead.clear()
        await self._pool.stop()
        self._settle_ended()  # delivered before a worker was stopped
        now = self._clock.now()
        for claim, retracted in queued:
            if retracted:
                await self._run(claim, True, now)
        await self._give_back([claim for claim, retracted in queued if not retracted])
        await self._ledger.flush()

    async def _give_back(self, claims: Sequence[Claim]) -> None:
        """Give the claimed runs that never started back to the store."""
        if not claims:
            return
        try:
            given = await self._store.give_back([claim.run.id for claim in claims])
        except Exception:
            # They stay claimed: the next manager retries them (they never started).
            log.exception("%d claimed runs could not be given back", len(claims))
        else:
            kept = len(claims) - len(given)
            log.info("gave back %d claimed runs (%d left claimed)", len(given), kept)
        for claim in claims:
            self._finished(claim.run.id, None)

    async def _run(self, claim: Claim, retracted: bool, started: datetime) -> None:
        """Run one claimed run, starting ``started``, and see it to the ledger.

        The pool calls this for each run, one after the other through a burst, so the usual
        path (a run that succeeds) is this one coroutine and the runner's.
        """
        run = claim.run
        try:
            runner = self._runners.get(claim.task.task_type)
            if retracted:
                report = RETRACTED_REPORT
            elif runner is None:
                report = _no_runner(claim)
            elif not repeat_is_safe(claim.task.execution) and not await self._store.mark_started(
                run.id, started
            ):
                # Its lease ran out and another scheduler took it over, or it was given back:
                # it is not this manager's to send.
                log.warning("task %s run %s is no longer claimed; not sent", claim.task.id, run.id)
                self._finished(run.id, None)
                return
            else:
                try:
                    with self._watchdog.guard():
                        report = await runner.run(claim.task, run)
                except Exception as exc:
                    report = self._report_of(claim, exc)
            finished_at = self._clock.now()
            if (
                report.status is RunStatus.SUCCEEDED
                and report.again_at is None
                and claim.task.consecutive_failures < self._follow_ups.alert_after
            ):
                # The usual end: what follows needs nothing from the ledger, and waits until
                # no other run is due (the pool calls ``_settle_ended``), or the timer.
                if not self._ended:
                    loop = asyncio.get_running_loop()
                    self._settle_timer = loop.call_later(SETTLE_WITHIN, self._settle_ended)
                self._ended.append((claim, report, started, finished_at))
                if len(self._ended) >= _SETTLE_EVERY:
                    self._settle_ended()
                return
            if run.misfire is MisfireAction.ON_TIME and not retracted:
                self.lateness.record(started, started - run.scheduled_for)
            self._leases.finishing(run.id)  # renewed until the ledger has it
            outcome: RunOutcome | Ended
            if report.status in _FOLLOWED_UP:
                outcome = self._outcome_of(claim, report, started, finished_at)
                await self._follow_up(claim, report, outcome)
            elif report.status is RunStatus.SUCCEEDED and report.again_at is None:
                # It failed often enough to alert its owner: its success may be a recovery.
                outcome = self._outcome_of(claim, report, started, finished_at)
                await self._follow_ups.after_success(claim, await self._ledger.submit(outcome))
            elif report.again_at is not None:
                # A reminder repeated until acknowledged: its commit puts it back then.
                outcome = self._outcome_of(claim, report, started, finished_at)
                self._ledger.submit_nowait(outcome)
            else:
                outcome = _ended(claim, report, started, finished_at)
                self._ledger.submit_nowait(outcome)
        except asyncio.CancelledError:
            self._finished(run.id, None)  # the manager stops: the run stays claimed
            raise
        except Exception as exc:
            log.exception("task %s run %s could not be recorded", claim.task.id, run.id)
            self._finished(run.id, exc)
        else:
            self._finished(run.id, outcome)

    def _settle_ended(self) -> None:
        """Record the runs that succeeded the usual way since the last call: each one's
        lateness, its outcome queued for the ledger, and its end (``_finished``)."""
        ended, self._ended = self._ended, []
        if self._settle_timer is not None:
            self._settle_timer.cancel()
            self._settle_timer = None
        for claim, report, started, finished_at in ended:
            run = claim.run
            try:
                self._leases.finishing(run.id)
                outcome = _ended(claim, report, started, finished_at)
                self._ledger.submit_nowait(outcome)
                if run.misfire is MisfireAction.ON_TIME:
                    self.lateness.record(started, started - run.scheduled_for)
            except Exception as exc:
                log.exception("task %s run %s could not be recorded", claim.task.id, run.id)
                self._finished(run.id, exc)
            else:
                self._finished(run.id, outcome)

    def _outcome(self, run_id: int) -> asyncio.Future[RunOutcome]:
        waiter = self._waiters.get(run_id)
        if waiter is None:
            waiter = self._waiters[run_id] = asyncio.get_running_loop().create_future()
        return waiter

    def _finished(self, run_id: int, outcome: RunOutcome | Ended | Exception | None) -> None:
        """The run left the executor: with its outcome, an error, or ``None`` when it was
        dropped (a run that never queued its outcome leaves its lease to run out)."""
        self._leases.drop(run_id)
        self._unfinished.discard(run_id)
        waiter = self._waiters.pop(run_id, None)
        if waiter is not None and not waiter.done():
            if isinstance(outcome, Ended):
                waiter.set_result(outcome.outcome())
            elif isinstance(outcome, RunOutcome):
                waiter.set_result(outcome)
            elif outcome is None:
                waiter.cancel()
            else:
                waiter.set_exception(outcome)
        if not self._unfinished:
            self._idle.set()

    def late_now(self) -> timedelta:
        """How late on-time runs start: the most in the last minute, or how long the
        oldest run waiting for a worker has waited past its time, whichever is more."""
        now = self._clock.now()
        waiting = self._ahead.next_due()
        queued = now - waiting if waiting is not None and waiting < now else timedelta(0)
        return max(self.lateness.recent(now), queued)

    def _outcome_of(
        self, claim: Claim, report: RunReport, started: datetime, finished_at: datetime
    ) -> RunOutcome:
        """The outcome of a run whose commit decides what follows (or is followed up)."""
        run = claim.run
        return RunOutcome(
            run.id,
            claim.task.id,
            report.status,
            started,
            finished_at,
            result=report.result,
            error=report.error,
            retry_at=self._retry_at(claim, report, finished_at),
            extra=run.misfire is MisfireAction.MANUAL,
        )

    async def _follow_up(self, claim: Claim, report: RunReport, outcome: RunOutcome) -> None:
        """A failed or undelivered run waits for its commit, which says what follows."""
        finished = await self._ledger.submit(outcome)
        if outcome.retry_at is not None and finished.task_status is TaskStatus.ACTIVE:
            self._wake.set()  # put back with a backoff: the timer learns its new next_run
        await self._follow_ups.after_run(claim, report, finished)

    def _retry_at(self, claim: Claim, report: RunReport, finished_at: datetime) -> datetime | None:
        """When to run the task again before its schedule says: a reminder repeated until
        acknowledged, or a one-time task whose run failed for now (undelivered)."""
        if report.again_at is not None:
            return report.again_at
        if not report.retry_later or claim.task.schedule.kind != "once":
            return None
        return finished_at + delivery_backoff(claim.task.consecutive_failures)

    def _report_of(self, claim: Claim, exc: Exception) -> RunReport:
        """The report of a run whose runner raised (its time ran out, or it failed)."""
        if isinstance(exc, TimeoutError):
            error = f"the run did not finish within {self._watchdog.limit:g} s"
            if not repeat_is_safe(claim.task.execution):
                # Cut off mid-request: the server may have acted on it.
                return RunReport(RunStatus.OUTCOME_UNKNOWN, error=error)
            return RunReport(RunStatus.FAILED, error=error)
        if isinstance(exc, TaskError):
            return RunReport(RunStatus.FAILED, error=str(exc))
        log.exception("task %s run %s raised", claim.task.id, claim.run.id, exc_info=exc)
        return RunReport(RunStatus.FAILED, error=f"{type(exc).__name__}: {exc}")


def _ended(claim: Claim, report: RunReport, started: datetime, finished_at: datetime) -> Ended:
    """The outcome of a run that needs nothing back from the ledger."""
    run = claim.run
    return Ended(
        run.id, claim.task.id, report.status, started, finished_at,
        report.result, report.error, run.misfire is MisfireAction.MANUAL,
    )  # fmt: skip


def _no_runner(claim: Claim) -> RunReport:
    return RunReport(
        RunStatus.FAILED,
        error=f"no runner is configured for {claim.task.task_type.value!r} tasks",
    )

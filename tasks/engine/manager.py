"""The TaskManager: the timer that fires due tasks, and the operations on tasks.

The timer sleeps until the earliest ``next_run`` the store knows (one indexed lookup, never a
scan of all tasks) and is woken at once when this manager adds or changes a task. Each wake-up
calls ``run_due``, which claims due runs atomically in batches and executes them concurrently
(bounded); finished runs are written to the ledger by group commit. So that tasks written by
another process (a second manager, the command line) are noticed, the timer also re-reads the
earliest ``next_run`` every ``recheck_every`` at the latest; that never delays a known task.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from types import TracebackType

import httpx

from common.clock import Clock, SystemClock
from tasks.engine.leases import LeaseKeeper
from tasks.engine.ledger import LedgerWriter
from tasks.engine.notices import disabled_notice, failed_notice, given_up_notice
from tasks.engine.operations import TaskOperations
from tasks.engine.watchdog import Watchdog
from tasks.errors import TaskError
from tasks.execution import TaskType
from tasks.models import (
    DEFAULT_MISFIRE_RULES,
    Claim,
    FinishedRun,
    MisfireRule,
    RunOutcome,
    RunStatus,
    TaskRun,
    TaskStatus,
)
from tasks.protocols import AgentRunner, Delivery, DeliveryKind, DeliveryStatus, Notifier, Searcher
from tasks.runners.api_call import ApiCallRunner
from tasks.runners.base import (
    BLOCKED_ERROR,
    AgentTaskRunner,
    Deliverer,
    ReminderRunner,
    RunReport,
    TaskRunner,
    WebSearchRunner,
)
from tasks.store.base import GivenUp, TaskStore

log = logging.getLogger(__name__)

_STORE_RETRY = timedelta(seconds=1)
RETRACTED_REPORT = RunReport(
    RunStatus.SKIPPED, error="the task was cancelled or paused just before this run was due"
)
_MAX_IDLE_ROUNDS = 3
# Outcomes whose commit decides a follow-up (pause the owner, tell them, disable the task);
# any other outcome is queued for the ledger without waiting.
_FOLLOWED_UP = frozenset({RunStatus.FAILED, RunStatus.UNDELIVERED})
DEFAULT_LEASE = timedelta(seconds=10)
"""Short, because leases are renewed: a run held by a process that died waits this long."""
DELIVERY_BACKOFF = timedelta(minutes=1)
MAX_DELIVERY_BACKOFF = timedelta(minutes=30)


def delivery_backoff(failures: int) -> timedelta:
    """How long a one-time task waits to run again after ``failures`` failed runs in a row.

    One minute after the first failure, doubling per further failure, at most 30 minutes.
    """
    return min(DELIVERY_BACKOFF * (1 << min(failures, 16)), MAX_DELIVERY_BACKOFF)


class TaskManager(TaskOperations):
    """Fires due tasks on time and offers the operations on tasks (see ``TaskOperations``).

    Args:
        store: The task store; ``start`` opens it and ``stop`` closes it.
        notifier: Delivers reminders, results and notices.
        clock: The source of time (``SystemClock`` by default; tests pass a ``ManualClock``).
        agent: Runs agent tasks; without it they fail with a clear error.
        searcher: Runs web searches; without it web_search tasks fail with a clear error.
        summarizer: When given, summarises web search hits instead of listing them.
        http: The HTTP client for api_call tasks; without it the manager makes its own.
        runners: Runners per task type, replacing the built-in ones.
        misfire_rules: Per-type misfire defaults, merged over ``DEFAULT_MISFIRE_RULES``.
        max_failures: Failed runs in a row after which a recurring task is disabled.
        max_concurrent_runs: How many runs execute at the same time.
        claim_batch: How many runs one claim transaction takes.
        run_timeout: How long one run may take before it counts as failed.
        lease: How long a claim holds without renewal. While this manager lives it renews
            the leases of its runs in flight every third of ``lease`` (however long they
            take); the runs of a manager that died are retried once this long after its
            last renewal. At least one second.
        recheck_every: The longest the timer sleeps without re-reading the store.
        drain_timeout: How long ``stop`` waits for running runs before cancelling them
            (cancelled runs stay claimed and are retried once their lease runs out).
        prefetch: How far ahead the timer claims runs; each then starts at its exact time,
            so one database round trip serves every run due in that window. A run cancelled
            or paused inside the window is recorded as skipped instead of running.
    """

    def __init__(
        self,
        *,
        store: TaskStore,
        notifier: Notifier,
        clock: Clock | None = None,
        agent: AgentRunner | None = None,
        searcher: Searcher | None = None,
        summarizer: AgentRunner | None = None,
        http: httpx.AsyncClient | None = None,
        runners: Mapping[TaskType, TaskRunner] | None = None,
        misfire_rules: Mapping[TaskType, MisfireRule] | None = None,
        max_failures: int = 5,
        max_concurrent_runs: int = 256,
        claim_batch: int = 1000,
        run_timeout: timedelta = timedelta(minutes=2),
        lease: timedelta = DEFAULT_LEASE,
        recheck_every: timedelta = timedelta(seconds=30),
        drain_timeout: timedelta = timedelta(seconds=10),
        prefetch: timedelta = timedelta(milliseconds=50),
    ) -> None:
        clock = clock or SystemClock()
        super().__init__(
            store=store,
            clock=clock,
            misfire_rules={**DEFAULT_MISFIRE_RULES, **(misfire_rules or {})},
        )
        if max_failures < 1 or max_concurrent_runs < 1 or claim_batch < 1:
            raise TaskError(
                f"max_failures ({max_failures!r}), max_concurrent_runs "
                f"({max_concurrent_runs!r}) and claim_batch ({claim_batch!r}) must be at least 1"
            )
        self._deliverer = Deliverer(notifier, sleep=clock.sleep)
        self._api_runner = ApiCallRunner(self._deliverer, http, sleep=clock.sleep)
        self._runners: dict[TaskType, TaskRunner] = {
            TaskType.REMINDER: ReminderRunner(self._deliverer),
            TaskType.AGENT_TASK: AgentTaskRunner(self._deliverer, agent),
            TaskType.WEB_SEARCH: WebSearchRunner(self._deliverer, searcher, summarizer=summarizer),
            TaskType.API_CALL: self._api_runner,
            **(runners or {}),
        }
        self.max_failures = max_failures
        self._claiming = 0
        self._claims_done = asyncio.Event()
        self._claims_done.set()
        self._ledger = LedgerWriter(
            store,
            max_failures=max_failures,
            before_write=self._claims_finished,
            after_write=self._written,
        )
        self._slots = asyncio.Semaphore(max_concurrent_runs)
        self._batch = claim_batch
        self._run_timeout = run_timeout
        self._watchdog = Watchdog(run_timeout.total_seconds())
        self._lease = lease
        self._leases = LeaseKeeper(store, clock, lease)
        self._recheck = recheck_every
        self._drain_timeout = drain_timeout
        self._running: dict[asyncio.Task[RunOutcome], int] = {}
        self._timer: asyncio.Task[None] | None = None
        self._known_wakeup: tuple[datetime | None] | None = None
        self._prefetch = prefetch
        self._never = asyncio.Event()
        self._ahead: set[int] = set()
        self._waiting: dict[str, int] = {}
        self._retracted: set[str] = set()

    async def __aenter__(self) -> TaskManager:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()

    @property
    def running(self) -> bool:
        """Whether the timer is running."""
        return self._timer is not None and not self._timer.done()

    async def start(self, *, timer: bool = True) -> None:
        """Open the store and start the timer (``timer=False``: operations only, no firing)."""
        await self._store.open()
        if timer and not self.running:
            self._timer = asyncio.create_task(self._timer_loop(), name="task-manager-timer")

    async def stop(self) -> None:
        """Stop the timer, let running runs finish (up to ``drain_timeout``), close the store."""
        timer, self._timer = self._timer, None
        if timer is not None:
            timer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await timer
        if self._running:
            _, pending = await asyncio.wait(
                set(self._running), timeout=self._drain_timeout.total_seconds()
            )
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
        await self._ledger.flush()
        await self._leases.close()
        await self._api_runner.aclose()
        await self._store.close()

    async def wait_idle(self) -> None:
        """Wait until every run started so far has finished and is in the ledger."""
        while self._running:
            await asyncio.gather(*set(self._running), return_exceptions=True)
        await self._ledger.flush()

    async def run_due(self, *, wait: bool = True) -> int:
        """Claim and start every run due at the clock's current time; return how many.

        With ``wait`` (the default) return once those runs finished and are in the ledger;
        the timer passes ``wait=False`` so a slow run never delays the next due one.
        """
        return await self._run_due(wait=wait, ahead=timedelta(0))

    async def _run_due(self, *, wait: bool, ahead: timedelta) -> int:
        now = self._clock.now()
        self._claiming += 1
        self._claims_done.clear()
        try:
            started, given_up = await self._claim_all(now, ahead)
        finally:
            self._claiming -= 1
            if not self._claiming:
                self._claims_done.set()
        for lost in given_up:
            await self._tell_given_up(lost)
        if wait and started:
            await asyncio.gather(*started, return_exceptions=True)
            await self._ledger.flush()
        return len(started)

    async def _claim_all(
        self, now: datetime, ahead: timedelta
    ) -> tuple[list[asyncio.Task[RunOutcome]], list[GivenUp]]:
        """Claim (and start) every run due by ``now + ahead``, expired leases first."""
        started: list[asyncio.Task[RunOutcome]] = []
        given_up: list[GivenUp] = []
        # Our own runs' leases are renewed first if a beat is overdue (a long claim loop),
        # so this manager never takes its own live runs for dead ones.
        await self._leases.renew_if_due()
        while True:
            retries, lost = await self._store.reclaim_expired(
                now, limit=self._batch, lease=self._lease
            )
            started += self._spawn_all(retries)
            given_up += lost
            if len(retries) + len(lost) < self._batch:
                break
        idle_rounds = 0
        while idle_rounds < _MAX_IDLE_ROUNDS:
            claims = await self._store.claim_due(
                now, limit=self._batch, lease=self._lease, ahead=ahead
            )
            started += self._spawn_all(claims)
            if len(claims) == self._batch:
                idle_rounds = 0
                continue
            # A short batch: nothing more is due, unless the misfire plans skipped some.
            next_wakeup = await self._store.next_wakeup()
            if next_wakeup is None or next_wakeup > now + ahead:
                self._known_wakeup = (next_wakeup,)
                break
            idle_rounds = 0 if claims else idle_rounds + 1
        return started, given_up

    async def _claims_finished(self) -> None:
        """Wait while a claim loop runs: ledger writes yield the connection to claims."""
        await self._claims_done.wait()

    async def _run_now_claimed(self, claim: Claim) -> TaskRun:
        (run,) = self._spawn_all([claim])
        outcome = await run
        await self._ledger.flush()
        return replace(
            claim.run,
            status=outcome.status,
            started_at=outcome.started_at,
            finished_at=outcome.finished_at,
            result=outcome.result,
            error=outcome.error,
            lease_until=None,
        )

    def _run_now_lease(self) -> timedelta:
        return self._lease

    def _spawn_all(self, claims: list[Claim]) -> list[asyncio.Task[RunOutcome]]:
        now = self._clock.now()
        return [self._spawn(claim, now) for claim in claims]

    def _spawn(self, claim: Claim, now: datetime) -> asyncio.Task[RunOutcome]:
        run_id = claim.run.id
        if claim.run.scheduled_for > now:
            # Registered before the run first awaits, so a cancel right away still retracts it.
            self._ahead.add(run_id)
            self._waiting[claim.task.id] = self._waiting.get(claim.task.id, 0) + 1
        self._leases.hold(run_id)
        task = asyncio.create_task(self._execute(claim), name=f"task-run-{run_id}")
        self._running[task] = run_id
        task.add_done_callback(self._run_done)
        return task

    def _run_done(self, task: asyncio.Task[RunOutcome]) -> None:
        # A run cancelled before its outcome was queued leaves its lease to run out.
        self._leases.drop(self._running.pop(task))

    def _written(self, outcomes: Sequence[RunOutcome]) -> None:
        for outcome in outcomes:
            self._leases.release(outcome.run_id)

    async def _timer_loop(self) -> None:
        while True:
            self._wake.clear()
            self._known_wakeup = None
            # Everything due by the horizon is claimed in this round.
            horizon = self._clock.now() + self._prefetch
            try:
                await self._run_due(wait=False, ahead=self._prefetch)
                # run_due usually ends by reading the next wake-up; a change since then set
                # ``_wake``, so the timer comes straight back.
                known = self._known_wakeup
                next_wakeup = known[0] if known else await self._store.next_wakeup()
            except Exception:
                log.exception("the task timer could not read the store; retrying shortly")
                next_wakeup = self._clock.now() + _STORE_RETRY
            recheck = self._clock.now() + self._recheck
            if next_wakeup is not None and next_wakeup > horizon:
                next_wakeup -= self._prefetch  # wake a moment early, to claim ahead
            # A wake-up inside the horizon is a lease running out (the due runs were just
            # claimed): that one is waited for exactly, not spun towards.
            deadline = recheck if next_wakeup is None else min(next_wakeup, recheck)
            await self._clock.sleep_until(deadline, self._wake)

    async def _execute(self, claim: Claim) -> RunOutcome:
        retracted = await self._wait_until_due(claim)
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
        )
        self._leases.finishing(claim.run.id)
        if report.status not in _FOLLOWED_UP:
            self._ledger.submit_nowait(outcome)
            return outcome
        finished = await self._ledger.submit(outcome)
        if outcome.retry_at is not None and finished.task_status is TaskStatus.ACTIVE:
            self._wake.set()  # put back with a backoff: the timer learns its new next_run
        await self._follow_up(claim, report, finished)
        return outcome

    def _retry_at(self, claim: Claim, report: RunReport, finished_at: datetime) -> datetime | None:
        """When to run a one-time task again whose run failed for now (undelivered)."""
        if not report.retry_later or claim.task.schedule.kind != "once":
            return None
        return finished_at + delivery_backoff(claim.task.consecutive_failures)

    async def _wait_until_due(self, claim: Claim) -> bool:
        """Wait for a run claimed ahead of time; return whether it was retracted meanwhile."""
        task_id = claim.task.id
        if claim.run.id not in self._ahead:
            return False
        try:
            await self._clock.sleep_until(claim.run.scheduled_for, self._never)
        finally:
            self._ahead.discard(claim.run.id)
            self._waiting[task_id] -= 1
            if not self._waiting[task_id]:
                del self._waiting[task_id]
        retracted = task_id in self._retracted
        if task_id not in self._waiting:
            self._retracted.discard(task_id)
        return retracted

    def _retract(self, task_id: str) -> None:
        if task_id in self._waiting:
            self._retracted.add(task_id)

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
            return RunReport(RunStatus.FAILED, error=f"the run did not finish within {seconds:g} s")
        except TaskError as exc:
            return RunReport(RunStatus.FAILED, error=str(exc))
        except Exception as exc:
            log.exception("task %s run %s raised", claim.task.id, claim.run.id)
            return RunReport(RunStatus.FAILED, error=f"{type(exc).__name__}: {exc}")

    async def _follow_up(self, claim: Claim, report: RunReport, finished: FinishedRun) -> None:
        task = claim.task
        if report.status is RunStatus.UNDELIVERED:
            paused = await self._store.pause_owner(task.owner_id, BLOCKED_ERROR)
            log.warning("paused %d tasks of %s: %s", len(paused), task.owner_id, BLOCKED_ERROR)
            self._wake.set()
        elif finished.disabled:
            text = disabled_notice(task, finished.consecutive_failures, report.error)
            await self._notice(claim, text)
        elif report.status is RunStatus.FAILED and report.notify_failure:
            error = report.error or "unknown error"
            text = failed_notice(task, error, finished.consecutive_failures, self.max_failures)
            await self._notice(claim, text)

    async def _tell_given_up(self, lost: GivenUp) -> None:
        await self._notice(Claim(lost.task, lost.run), given_up_notice(lost.task))

    async def _notice(self, claim: Claim, text: str) -> None:
        task = claim.task
        delivery = Delivery(
            task.id, claim.run.id, task.owner_id, task.chat_id, DeliveryKind.NOTICE, text
        )
        status = await self._deliverer.deliver(delivery)
        if status is DeliveryStatus.BLOCKED:
            await self._store.pause_owner(task.owner_id, BLOCKED_ERROR)
        elif status is not DeliveryStatus.DELIVERED:
            log.warning("could not deliver a notice about task %s: %s", task.id, status.value)

"""The timer: sleeps until the earliest ``next_run``, then claims what is due and starts it.

The timer sleeps until the earliest ``next_run`` the store knows (one indexed lookup, never a
scan of all tasks) and is woken at once when this manager adds or changes a task. Each wake-up
claims the due runs atomically in batches (expired leases first) and hands them to the
``RunExecutor``. So that tasks written by another process (a second manager, the command line)
are noticed, the timer also re-reads the earliest ``next_run`` every ``recheck_every`` at the
latest; that never delays a known task.

Runs are claimed a moment before they are due and started at their exact time: the timer
wakes half the ``prefetch`` before the next run (so that a steady stream is claimed in rounds
of half a window), plus as long as claiming the runs due by then takes (the count of due runs
times the measured cost of one claim, with a margin, at most ``MAX_LEAD``). A claim does all
of a run's work in the store: a recurring task's next fire is computed and written in it, a
one-time task is marked running. So when many runs fall due at one instant (600 daily
reminders at 09:00), that work is done before the instant, off the delivery path, and their
deliveries wait for nothing but the event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta

from common import Clock, cancel_and_wait
from tasks.engine.executor import RunExecutor
from tasks.engine.leases import LeaseKeeper
from tasks.engine.notices import FollowUps
from tasks.store import GivenUp, TaskStore, TaskStoreError

log = logging.getLogger(__name__)

_STORE_RETRY = timedelta(seconds=1)
_MAX_IDLE_ROUNDS = 3
MAX_LEAD = timedelta(seconds=10)
"""The earliest the timer starts claiming a burst before it is due."""
_FIRST_CLAIM_COST = 50e-6  # seconds per claimed run, until measured
_MIN_CLAIM_COST = 5e-6
_COST_SAMPLE = 16  # claims in a batch for it to count as a measurement of the cost per run
_LEAD_MARGIN = 1.5  # a busy machine claims slower than it measured
_FIRST_OVERHEAD = 1e-3  # seconds a claim round costs besides its runs, until measured
_MAX_OVERHEAD = 0.05  # a round slower than this waited (for a lock, a checkpoint): not its cost
_MAX_CLAIM_COST = 1e-3  # likewise for a run of a batch: 10,000 of them are MAX_LEAD


@dataclass(frozen=True, slots=True)
class _Burst:
    """A wake-up planned early for a burst: at ``wake``, claim everything due by ``until``."""

    wake: datetime
    until: datetime


def _followed(estimate: float, sample: float) -> float:
    """A moving estimate that takes a higher sample at once and a lower one slowly."""
    return sample if sample > estimate else estimate + 0.1 * (sample - estimate)


class ClaimsFirst:
    """Lets claims go first: ledger writes wait while a claim loop runs.

    So a burst is claimed (and delivered) before its ledger is written; both share one
    database connection.
    """

    def __init__(self) -> None:
        self._claiming = 0
        self._done = asyncio.Event()
        self._done.set()

    @contextlib.contextmanager
    def claiming(self) -> Iterator[None]:
        """Mark a claim loop in progress for the duration of the block."""
        self._claiming += 1
        self._done.clear()
        try:
            yield
        finally:
            self._claiming -= 1
            if not self._claiming:
                self._done.set()

    async def wait(self) -> None:
        """Wait until no claim loop runs."""
        await self._done.wait()


class Timer:
    """Claims due runs on time and hands them to the executor.

    Args:
        store: Where the tasks are.
        clock: The source of time; the timer sleeps on it.
        executor: Runs what was claimed.
        leases: The leases of this manager's runs (renewed before reclaiming expired ones).
        follow_ups: Tells owners about runs given up.
        gate: Marks the claim loops, so ledger writes wait for them.
        wake: Set when tasks change; the timer then re-reads the store at once.
        claim_batch: How many runs one claim transaction takes.
        recheck_every: The longest the timer sleeps without re-reading the store.
        prefetch: How far ahead the timer claims runs.
        orphans_at_start: Whether the runs still claimed when the timer first looks were
            claimed by a process that is gone (so they are retried at once).
    """

    def __init__(
        self,
        *,
        store: TaskStore,
        clock: Clock,
        executor: RunExecutor,
        leases: LeaseKeeper,
        follow_ups: FollowUps,
        gate: ClaimsFirst,
        wake: asyncio.Event,
        claim_batch: int,
        recheck_every: timedelta,
        prefetch: timedelta,
        orphans_at_start: bool = False,
    ) -> None:
        self._store = store
        self._clock = clock
        self._executor = executor
        self._leases = leases
        self._follow_ups = follow_ups
        self._gate = gate
        self._wake = wake
        self._batch = claim_batch
        self._recheck = recheck_every
        self._prefetch = prefetch
        self._task: asyncio.Task[None] | None = None
        self._known_wakeup: tuple[datetime | None] | None = None
        self._orphans = orphans_at_start
        self._claim_cost = _FIRST_CLAIM_COST
        self._claim_overhead = _FIRST_OVERHEAD  # a transaction's cost, whatever it claims
        self._burst: _Burst | None = None
        self.last_tick: datetime | None = None
        """When the loop last woke up to claim due runs (for health checks)."""

    @property
    def running(self) -> bool:
        """Whether the timer is running."""
        return self._task is not None and not self._task.done()

    def start(self) -> None:
        """Start the timer (no-op when it runs)."""
        if not self.running:
            self._task = asyncio.create_task(self._loop(), name="task-manager-timer")

    async def stop(self) -> None:
        """Stop the timer (the runs it started go on)."""
        task, self._task = self._task, None
        await cancel_and_wait(task)

    async def run_due(self, *, wait: bool, ahead: timedelta = timedelta(0)) -> int:
        """Claim and start every run due by now + ``ahead``; return how many.

        With ``wait``, return once those runs finished and are in the ledger.
        """
        now = self._clock.now()
        with self._gate.claiming():
            started, given_up = await self._claim_all(now, ahead)
        for lost in given_up:
            await self._follow_ups.given_up(lost)
        if wait and started:
            await self._executor.settle(started)
        return len(started)

    async def _claim_all(self, now: datetime, ahead: timedelta) -> tuple[list[int], list[GivenUp]]:
        """Claim (and queue) every run due by ``now + ahead``, expired leases first.

        Each batch is claimed at the time it is claimed (its misfire decisions, its leases):
        a burst's claims can take seconds. Between batches the loop runs what is ready
        (deliveries of runs already due), whether or not the store ever awaits.
        """
        started: list[int] = []
        given_up: list[GivenUp] = []
        lease = self._leases.lease
        # Our own runs' leases are renewed first if a beat is overdue (a long claim loop),
        # so this manager never takes its own live runs for dead ones.
        await self._leases.renew_if_due()
        orphaned = self._orphans
        while True:
            retries, lost = await self._store.reclaim_expired(
                now, limit=self._batch, lease=lease, orphaned=orphaned
            )
            started += self._executor.start(retries)
            given_up += lost
            if len(retries) + len(lost) < self._batch:
                break
        self._orphans = False
        until = now + ahead
        idle_rounds = 0
        while idle_rounds < _MAX_IDLE_ROUNDS:
            now = self._clock.now()
            ahead = max(timedelta(0), until - now)
            began = time.perf_counter()
            claims = await self._store.claim_due(now, limit=self._batch, lease=lease, ahead=ahead)
            self._measure(time.perf_counter() - began, len(claims))
            started += self._executor.start(claims)
            await asyncio.sleep(0)
            if len(claims) == self._batch:
                idle_rounds = 0
                continue
            # A short batch: nothing more is due, unless the misfire plans skipped some.
            next_wakeup = await self._store.next_wakeup()
            if next_wakeup is None or next_wakeup > max(until, now):
                self._known_wakeup = (next_wakeup,)
                break
            idle_rounds = 0 if claims else idle_rounds + 1
        return started, given_up

    def _measure(self, seconds: float, claims: int) -> None:
        """Fold a claim batch's time into the cost of a round and of one claim in it: a
        batch of a few runs measures the round, a larger one (less the round) the runs. A
        dearer sample (recurring runs, whose next fire each claim computes; a busy store)
        counts at once, a cheaper one slowly, so a burst is claimed early rather than late.
        An empty round says nothing of claiming, and what a round spent waiting for the store
        (its write lock, a checkpoint) is capped: one slow round must not keep every run
        claimed seconds early for long afterwards (a run claimed ahead cannot be cancelled by
        another process)."""
        if claims == 1:
            sample = min(seconds, _MAX_OVERHEAD)
            self._claim_overhead = _followed(self._claim_overhead, sample)
        elif claims >= _COST_SAMPLE:
            per_claim = (seconds - min(self._claim_overhead, seconds / 2)) / claims
            sample = min(max(per_claim, _MIN_CLAIM_COST), _MAX_CLAIM_COST)
            self._claim_cost = _followed(self._claim_cost, sample)

    async def _lead(self, next_wakeup: datetime) -> timedelta:
        """How long before ``next_wakeup`` to start claiming: half the ``prefetch`` (a steady
        stream is claimed in rounds of half a window), plus as long as claiming the runs due
        by ``next_wakeup + prefetch`` takes, so that they are claimed (each recurring run's
        next fire computed and written) before the first of them is due."""
        cap = int(MAX_LEAD.total_seconds() / self._claim_cost)
        try:
            due = await self._store.count_due(next_wakeup + self._prefetch, limit=cap)
        except TaskStoreError as exc:
            log.warning("the task timer could not count the runs due soon (%s)", exc)
            log.debug("the task timer's store failure", exc_info=exc)
            return self._prefetch
        except Exception:
            log.exception("the task timer could not count the runs due soon")
            return self._prefetch
        claiming = (self._claim_overhead + due * self._claim_cost) * _LEAD_MARGIN
        return min(self._prefetch / 2 + timedelta(seconds=claiming), MAX_LEAD)

    async def _loop(self) -> None:
        while True:
            self._wake.clear()
            self._known_wakeup = None
            self.last_tick = self._clock.now()
            # Everything due by the horizon is claimed in this round.
            now = self._clock.now()
            horizon = now + self._prefetch
            burst, self._burst = self._burst, None
            if burst is not None and now >= burst.wake:
                horizon = max(horizon, burst.until)
            try:
                await self.run_due(wait=False, ahead=horizon - now)
                # run_due usually ends by reading the next wake-up; a change since then set
                # ``_wake``, so the timer comes straight back.
                known = self._known_wakeup
                next_wakeup = known[0] if known else await self._store.next_wakeup()
            except TaskStoreError as exc:
                # A lock held elsewhere, a full disk: the message says it; one line per retry.
                log.warning("the task timer could not use the store (%s); retrying in 1 s", exc)
                log.debug("the task timer's store failure", exc_info=exc)
                next_wakeup = self._clock.now() + _STORE_RETRY
            except Exception:
                log.exception("the task timer could not read the store; retrying shortly")
                next_wakeup = self._clock.now() + _STORE_RETRY
            recheck = self._clock.now() + self._recheck
            if next_wakeup is not None and next_wakeup > horizon:
                # Wake early enough to have claimed the next runs before they are due; when
                # that is more than a window ahead (a burst), the round claims up to them.
                lead = await self._lead(next_wakeup)
                if lead > self._prefetch:
                    self._burst = _Burst(next_wakeup - lead, next_wakeup + self._prefetch)
                next_wakeup -= lead
            # A wake-up inside the horizon is a lease running out (the due runs were just
            # claimed): that one is waited for exactly, not spun towards.
            deadline = recheck if next_wakeup is None else min(next_wakeup, recheck)
            await self._clock.sleep_until(deadline, self._wake)

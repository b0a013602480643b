"""An in-memory task store with the same contract as the SQLite one (tests, throwaway sessions).

Every method runs without awaiting in the middle, so each one is atomic on the event loop,
which is what the SQLite store gets from its transactions.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from typing import TypeVar

from common import require_aware
from tasks.errors import TaskError
from tasks.models import (
    Claim,
    FinishedRun,
    MisfireAction,
    RunOutcome,
    RunStatus,
    Task,
    TaskDraft,
    TaskRun,
    TaskStatus,
    new_task_id,
)
from tasks.store.base import LEASE_LOST_ERROR, UNSET, GivenUp, TaskChange, TaskStore, not_found
from tasks.store.planning import Reclaim, plan_claim, plan_reclaim
from tasks.store.transitions import (
    after_run,
    after_skipped_retry,
    changed,
    claimed_now,
    claimed_status,
    lost_outcome,
)

T = TypeVar("T")
_FAR_FUTURE_KEY = (1, 0.0)
_ID_DRAWS = 64


class MemoryTaskStore(TaskStore):
    """Tasks and runs in dictionaries; gone when the process ends.

    Args:
        new_id: Draws a fresh task id (tests pass one that repeats itself).
    """

    def __init__(self, *, new_id: Callable[[], str] = new_task_id) -> None:
        self._new_id = new_id
        self._tasks: dict[str, Task] = {}
        self._runs: dict[int, TaskRun] = {}
        self._runs_of: dict[str, list[int]] = {}
        self._run_ids = itertools.count(1)

    async def open(self) -> None:
        """Nothing to open."""

    async def close(self) -> None:
        """Nothing to close; the data stays until the object is dropped."""

    async def add_task(self, draft: TaskDraft) -> Task:
        """Store ``draft`` under a fresh id."""
        return self._insert(draft)

    async def add_tasks(self, drafts: Sequence[TaskDraft]) -> list[str]:
        """Store many drafts."""
        return [self._insert(draft).id for draft in drafts]

    async def get_task(self, task_id: str, owner_id: str | None = None) -> Task | None:
        """Return the task if it exists (and belongs to ``owner_id`` when given)."""
        task = self._tasks.get(task_id)
        if task is None or (owner_id is not None and task.owner_id != owner_id):
            return None
        return task

    async def list_tasks(self, owner_id: str, *, include_finished: bool = False) -> list[Task]:
        """Return the owner's tasks by next run, then creation."""
        tasks = [
            t
            for t in self._tasks.values()
            if t.owner_id == owner_id and (include_finished or t.status.is_live)
        ]
        return sorted(tasks, key=_listing_key)

    async def active_task_ids(self, owner_id: str) -> list[str]:
        """Return the owner's live task ids, oldest first."""
        live = [t for t in self._tasks.values() if t.owner_id == owner_id and t.status.is_live]
        return [t.id for t in sorted(live, key=lambda t: (t.created_at, t.id))]

    async def update_task(
        self,
        task_id: str,
        owner_id: str,
        change: TaskChange,
        *,
        allowed_from: Collection[TaskStatus],
        action: str,
    ) -> Task:
        """Apply ``change`` when the task's status allows it."""
        task = self._owned(task_id, owner_id)
        updated = changed(task, change, allowed_from=allowed_from, action=action)
        self._tasks[task_id] = updated
        return updated

    async def claim_due(
        self, now: datetime, *, limit: int, lease: timedelta, ahead: timedelta = timedelta(0)
    ) -> list[Claim]:
        """Claim due tasks, earliest first, applying each one's misfire plan."""
        now = require_aware(now, "now")
        due = _earliest(self._enabled(), until=now + ahead, limit=limit)
        claims: list[Claim] = []
        for task in due:
            claim = self._claim_one(task, now, lease)
            if claim is not None:
                claims.append(claim)
        return claims

    async def reclaim_expired(
        self, now: datetime, *, limit: int, lease: timedelta
    ) -> tuple[list[Claim], list[GivenUp]]:
        """Retry or give up runs whose lease ran out."""
        now = require_aware(now, "now")
        expired = _earliest(self._leased(), until=now, limit=limit)
        claims: list[Claim] = []
        given_up: list[GivenUp] = []
        for run in expired:
            task = self._tasks[run.task_id]
            plan = plan_reclaim(task, run, now)
            if plan.action in (Reclaim.GIVE_UP, Reclaim.UNKNOWN):
                self._finish(lost_outcome(plan.action, run, now), max_failures=None)
                given_up.append(GivenUp(self._tasks[task.id], self._runs[run.id]))
                continue
            self._runs[run.id] = replace(
                run, status=RunStatus.ABANDONED, lease_until=None, error=LEASE_LOST_ERROR
            )
            if plan.action is Reclaim.SKIP:
                self._skip_retry(task, run, now, plan.late_by)
                continue
            retry = TaskRun.new(
                next(self._run_ids), task.id, run.scheduled_for, now,
                misfire=MisfireAction.RETRY, lease_until=now + lease, attempt=2,
                late_by=plan.late_by,
            )  # fmt: skip
            claims.append(Claim(task, self._record(retry)))
        return claims, given_up

    async def renew_leases(
        self, run_ids: Collection[int], now: datetime, *, lease: timedelta
    ) -> set[int]:
        """Extend the leases of those runs that are still claimed."""
        until = require_aware(now, "now") + lease
        renewed: set[int] = set()
        for run_id in set(run_ids):
            run = self._runs.get(run_id)
            if run is None or run.status is not RunStatus.CLAIMED or run.lease_until is None:
                continue
            if run.lease_until < until:
                self._runs[run_id] = replace(run, lease_until=until)
            renewed.add(run_id)
        return renewed

    async def claim_now(
        self, task_id: str, owner_id: str, now: datetime, *, lease: timedelta
    ) -> Claim:
        """Claim an extra run of the task now."""
        now = require_aware(now, "now")
        task = claimed_now(self._owned(task_id, owner_id))
        self._tasks[task.id] = task
        run = TaskRun.new(
            next(self._run_ids), task.id, now, now,
            misfire=MisfireAction.MANUAL, lease_until=now + lease,
        )  # fmt: skip
        return Claim(task, self._record(run))

    async def next_wakeup(self) -> datetime | None:
        """Return the earliest enabled next run or lease expiry."""
        times = [when for when, _, _ in itertools.chain(self._enabled(), self._leased())]
        return min(times, default=None)

    async def count_overdue(self, before: datetime) -> int:
        """Count the enabled tasks due before ``before``."""
        before = require_aware(before, "before")
        return sum(1 for when, _, _ in self._enabled() if when < before)

    async def finish_runs(
        self, outcomes: Sequence[RunOutcome], *, max_failures: int
    ) -> list[FinishedRun]:
        """Record outcomes and update their tasks."""
        return [self._finish(outcome, max_failures=max_failures) for outcome in outcomes]

    async def pause_owner(self, owner_id: str, reason: str) -> list[str]:
        """Pause the owner's active tasks."""
        paused: list[str] = []
        for task in list(self._tasks.values()):
            if task.owner_id == owner_id and task.status is TaskStatus.ACTIVE:
                self._tasks[task.id] = replace(task, status=TaskStatus.PAUSED, status_reason=reason)
                paused.append(task.id)
        return paused

    async def history(self, task_id: str, owner_id: str, *, limit: int = 20) -> list[TaskRun]:
        """Return the task's runs, newest first."""
        self._owned(task_id, owner_id)
        ids = self._runs_of.get(task_id, [])
        return [self._runs[run_id] for run_id in reversed(ids[-limit:] if limit > 0 else [])]

    def _insert(self, draft: TaskDraft) -> Task:
        task_id = self._new_id()
        for _ in range(_ID_DRAWS):
            if task_id not in self._tasks:
                break
            task_id = self._new_id()
        else:
            raise TaskError(f"could not find a free task id after {_ID_DRAWS} draws")
        task = draft.to_task(task_id)
        self._tasks[task_id] = task
        return task

    def _enabled(self) -> list[tuple[datetime, str, Task]]:
        """The tasks the timer fires, by next run (what the SQLite store's due index holds)."""
        return [
            (t.next_run, t.id, t)
            for t in self._tasks.values()
            if t.enabled and t.next_run is not None
        ]

    def _leased(self) -> list[tuple[datetime, int, TaskRun]]:
        """The claimed runs, by lease expiry (what the SQLite store's lease index holds)."""
        return [
            (r.lease_until, r.id, r)
            for r in self._runs.values()
            if r.status is RunStatus.CLAIMED and r.lease_until is not None
        ]

    def _owned(self, task_id: str, owner_id: str) -> Task:
        task = self._tasks.get(task_id)
        if task is None or task.owner_id != owner_id:
            raise not_found(task_id)
        return task

    def _claim_one(self, task: Task, now: datetime, lease: timedelta) -> Claim | None:
        assert task.next_run is not None
        plan = plan_claim(task.schedule, task.next_run, task.misfire, now)
        status = claimed_status(task.schedule, plan)
        claimed = replace(task, status=status, next_run=plan.next_run)
        self._tasks[task.id] = claimed
        if plan.skipped_from is not None:
            skip = TaskRun.new(
                next(self._run_ids), task.id, plan.skipped_from, now,
                misfire=MisfireAction.SKIPPED, late_by=now - plan.skipped_from,
                missed=plan.skipped - 1,
            )  # fmt: skip
            self._record(skip)
        if plan.run_for is None:
            return None
        run = TaskRun.new(
            next(self._run_ids), task.id, plan.run_for, now, misfire=plan.action,
            lease_until=now + lease, missed=plan.missed, late_by=plan.late_by,
        )  # fmt: skip
        return Claim(claimed, self._record(run))

    def _skip_retry(
        self, task: Task, run: TaskRun, now: datetime, late_by: timedelta | None
    ) -> None:
        """Record the retry as skipped (misfire policy); a one-time task ends DONE."""
        skip = TaskRun.new(
            next(self._run_ids), task.id, run.scheduled_for, now,
            misfire=MisfireAction.SKIPPED, late_by=late_by, attempt=2,
        )  # fmt: skip
        self._record(skip)
        self._tasks[task.id] = after_skipped_retry(task)

    def _record(self, run: TaskRun) -> TaskRun:
        """Add a new ledger row."""
        self._runs[run.id] = run
        self._runs_of.setdefault(run.task_id, []).append(run.id)
        return run

    def _finish(self, outcome: RunOutcome, *, max_failures: int | None) -> FinishedRun:
        run = self._runs.get(outcome.run_id)
        if run is not None:
            self._runs[run.id] = run.ended(outcome)
        task = self._tasks.get(outcome.task_id)
        if task is None:
            return FinishedRun(outcome.run_id, outcome.task_id, None, 0)
        after = after_run(
            task.status, task.consecutive_failures, outcome, max_failures=max_failures
        )
        task = replace(
            task,
            status=after.status,
            next_run=task.next_run if after.next_run is UNSET else after.next_run,
            status_reason=(
                task.status_reason if after.status_reason is UNSET else after.status_reason
            ),
            last_run=outcome.finished_at,
            run_count=task.run_count + 1,
            consecutive_failures=after.consecutive_failures,
        )
        self._tasks[task.id] = task
        return after.finished(outcome)


def _earliest(
    entries: Iterable[tuple[datetime, str | int, T]], *, until: datetime, limit: int
) -> list[T]:
    """The first ``limit`` items due by ``until``, earliest first (ties by id)."""
    due = sorted((e for e in entries if e[0] <= until), key=lambda e: (e[0], e[1]))
    return [item for _, _, item in due[:limit]]


def _listing_key(task: Task) -> tuple[tuple[int, float], datetime, str]:
    when = (0, task.next_run.timestamp()) if task.next_run is not None else _FAR_FUTURE_KEY
    return when, task.created_at, task.id

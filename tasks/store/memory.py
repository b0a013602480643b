"""An in-memory task store with the same contract as the SQLite one (tests, throwaway sessions).

Every method runs without awaiting in the middle, so each one is atomic on the event loop,
which is what the SQLite store gets from its transactions.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Collection, Sequence
from dataclasses import replace
from datetime import datetime, timedelta

from common.clock import require_aware
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
from tasks.store.base import (
    LEASE_LOST_ERROR,
    UNSET,
    GivenUp,
    TaskChange,
    TaskStore,
    failure_reason,
    failures_after,
    not_found,
    wrong_state,
)
from tasks.store.planning import plan_claim, retry_lateness, retry_skipped

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
        if task.status not in allowed_from:
            raise wrong_state(task, action)
        updated = replace(
            task,
            status=task.status if change.status is UNSET else change.status,
            next_run=task.next_run if change.next_run is UNSET else change.next_run,
            status_reason=(
                task.status_reason if change.status_reason is UNSET else change.status_reason
            ),
            consecutive_failures=0 if change.reset_failures else task.consecutive_failures,
            schedule=task.schedule if change.schedule is UNSET else change.schedule,
        )
        self._tasks[task_id] = updated
        return updated

    async def claim_due(
        self, now: datetime, *, limit: int, lease: timedelta, ahead: timedelta = timedelta(0)
    ) -> list[Claim]:
        """Claim due tasks, earliest first, applying each one's misfire plan."""
        now = require_aware(now, "now")
        horizon = now + ahead
        due = sorted(
            (
                t
                for t in self._tasks.values()
                if t.status is TaskStatus.ACTIVE
                and t.next_run is not None
                and t.next_run <= horizon
            ),
            key=lambda t: (t.next_run, t.id),
        )[:limit]
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
        expired = sorted(
            (
                r
                for r in self._runs.values()
                if r.status is RunStatus.CLAIMED
                and r.lease_until is not None
                and r.lease_until <= now
            ),
            key=lambda r: (r.lease_until, r.id),
        )[:limit]
        claims: list[Claim] = []
        given_up: list[GivenUp] = []
        for run in expired:
            task = self._tasks[run.task_id]
            if run.attempt == 1 and task.status is not TaskStatus.CANCELLED:
                self._runs[run.id] = replace(
                    run, status=RunStatus.ABANDONED, lease_until=None, error=LEASE_LOST_ERROR
                )
                skipped_late = retry_skipped(task.misfire, run.scheduled_for, now)
                if skipped_late is not None:
                    self._skip_retry(task, run, now, skipped_late)
                    continue
                retry = self._new_run(
                    task.id, run.scheduled_for, now, lease, MisfireAction.RETRY, attempt=2
                )
                retry = replace(retry, late_by=retry_lateness(task.misfire, run.scheduled_for, now))
                self._runs[retry.id] = retry
                claims.append(Claim(task, retry))
                continue
            outcome = RunOutcome(
                run.id, task.id, RunStatus.FAILED, now, now, error=LEASE_LOST_ERROR
            )
            self._finish(outcome, max_failures=None)
            given_up.append(GivenUp(self._tasks[task.id], self._runs[run.id]))
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
        task = self._owned(task_id, owner_id)
        if task.status in (TaskStatus.CANCELLED, TaskStatus.RUNNING):
            raise wrong_state(task, "run")
        if task.schedule.kind == "once":
            task = replace(task, status=TaskStatus.RUNNING, next_run=None)
            self._tasks[task.id] = task
        run = self._new_run(task.id, now, now, lease, MisfireAction.MANUAL)
        return Claim(task, run)

    async def next_wakeup(self) -> datetime | None:
        """Return the earliest enabled next run or lease expiry."""
        times = [
            t.next_run
            for t in self._tasks.values()
            if t.status is TaskStatus.ACTIVE and t.next_run is not None
        ]
        times += [
            r.lease_until
            for r in self._runs.values()
            if r.status is RunStatus.CLAIMED and r.lease_until is not None
        ]
        return min(times, default=None)

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

    def _owned(self, task_id: str, owner_id: str) -> Task:
        task = self._tasks.get(task_id)
        if task is None or task.owner_id != owner_id:
            raise not_found(task_id)
        return task

    def _claim_one(self, task: Task, now: datetime, lease: timedelta) -> Claim | None:
        assert task.next_run is not None
        plan = plan_claim(task.schedule, task.next_run, task.misfire, now)
        if task.schedule.kind == "once":
            status = TaskStatus.RUNNING if plan.run_for is not None else TaskStatus.DONE
        else:
            status = TaskStatus.ACTIVE if plan.next_run is not None else TaskStatus.DONE
        claimed = replace(task, status=status, next_run=plan.next_run)
        self._tasks[task.id] = claimed
        if plan.skipped_from is not None:
            skip = self._new_run(task.id, plan.skipped_from, now, None, MisfireAction.SKIPPED)
            self._runs[skip.id] = replace(
                skip,
                status=RunStatus.SKIPPED,
                missed=plan.skipped - 1,
                late_by=now - plan.skipped_from,
                finished_at=now,
            )
        if plan.run_for is None:
            return None
        run = self._new_run(task.id, plan.run_for, now, lease, plan.action)
        run = replace(run, missed=plan.missed, late_by=plan.late_by)
        self._runs[run.id] = run
        return Claim(claimed, run)

    def _skip_retry(self, task: Task, run: TaskRun, now: datetime, late_by: timedelta) -> None:
        """Record the retry as skipped (misfire policy); a one-time task ends DONE."""
        skip = self._new_run(
            task.id, run.scheduled_for, now, None, MisfireAction.SKIPPED, attempt=2
        )
        self._runs[skip.id] = replace(
            skip, status=RunStatus.SKIPPED, late_by=late_by, finished_at=now
        )
        if task.status is TaskStatus.RUNNING:
            self._tasks[task.id] = replace(task, status=TaskStatus.DONE, next_run=None)

    def _new_run(
        self,
        task_id: str,
        scheduled_for: datetime,
        now: datetime,
        lease: timedelta | None,
        action: MisfireAction,
        *,
        attempt: int = 1,
    ) -> TaskRun:
        run = TaskRun(
            id=next(self._run_ids),
            task_id=task_id,
            scheduled_for=scheduled_for,
            claimed_at=now,
            status=RunStatus.CLAIMED,
            misfire=action,
            attempt=attempt,
            lease_until=None if lease is None else now + lease,
        )
        self._runs[run.id] = run
        self._runs_of.setdefault(task_id, []).append(run.id)
        return run

    def _finish(self, outcome: RunOutcome, *, max_failures: int | None) -> FinishedRun:
        run = self._runs.get(outcome.run_id)
        if run is not None:
            self._runs[run.id] = replace(
                run,
                status=outcome.status,
                started_at=outcome.started_at,
                finished_at=outcome.finished_at,
                result=outcome.result,
                error=outcome.error,
                lease_until=None,
            )
        task = self._tasks.get(outcome.task_id)
        if task is None:
            return FinishedRun(outcome.run_id, outcome.task_id, None, 0)
        failures = failures_after(task.consecutive_failures, outcome.status)
        status, next_run = task.status, task.next_run
        if status is TaskStatus.RUNNING:
            status = TaskStatus.DONE if outcome.retry_at is None else TaskStatus.ACTIVE
            next_run = outcome.retry_at
        disabled = (
            max_failures is not None
            and outcome.status.is_failure
            and status is TaskStatus.ACTIVE
            and failures >= max_failures
        )
        task = replace(
            task,
            status=TaskStatus.DISABLED if disabled else status,
            status_reason=failure_reason(failures, outcome.error)
            if disabled
            else task.status_reason,
            next_run=next_run,
            last_run=outcome.finished_at,
            run_count=task.run_count + 1,
            consecutive_failures=failures,
        )
        self._tasks[task.id] = task
        return FinishedRun(outcome.run_id, task.id, task.status, failures, disabled)


def _listing_key(task: Task) -> tuple[tuple[int, float], datetime, str]:
    when = (0, task.next_run.timestamp()) if task.next_run is not None else _FAR_FUTURE_KEY
    return when, task.created_at, task.id

"""How a task's state changes when its runs are claimed and finished: pure functions.

Both stores call these inside their transaction (as they call ``planning`` for misfire
decisions), so the in-memory and the SQLite store move tasks through the same states::

    claim       one-time: ACTIVE -> RUNNING (or DONE when its run is skipped)
                recurring: stays ACTIVE with its next run (DONE when there is none)
    run now     unchanged: an extra run never consumes a scheduled one
    finish      success resets the failure count, a failure adds one;
                RUNNING -> DONE, or ACTIVE again at the outcome's ``retry_at``
                (not for an extra run: the status of its task stays);
                ACTIVE with ``max_failures`` failures in a row -> DISABLED
    skip retry  RUNNING -> DONE (a recurring task keeps its schedule)
    lost run    a run not run again after its lease ran out (given up, or of unknown outcome)
                finishes like a failed run that never disables its task
    give back   a claimed run that never started, of a manager that stops: the task is due
                at the run's time again, as if it had not been claimed (``given_back``)
    change      an owner's change (cancel, pause, ...) applies only from the statuses it allows

``enabled`` in the SQLite table is ``Task.enabled``: true exactly when the status is ACTIVE.
``finished_at`` is set whenever a task becomes finished (DONE or CANCELLED), by whichever of
these moves it there, kept while it stays finished and cleared when it is live again
(``finish_time``): retention counts a finished task's age from it.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TypeVar

from tasks.models import (
    FinishedRun,
    MisfireAction,
    RunOutcome,
    RunStatus,
    Task,
    TaskRun,
    TaskStatus,
)
from tasks.schedule.model import Schedule
from tasks.store.base import (
    LEASE_LOST_ERROR,
    OUTCOME_UNKNOWN_ERROR,
    UNSET,
    TaskChange,
    Unset,
    wrong_state,
)
from tasks.store.planning import ClaimPlan, Reclaim

When = TypeVar("When", datetime, str)


def claimed_status(schedule: Schedule, plan: ClaimPlan) -> TaskStatus:
    """A task's status once ``plan`` claimed it."""
    if schedule.kind == "once":
        return TaskStatus.RUNNING if plan.run_for is not None else TaskStatus.DONE
    return TaskStatus.ACTIVE if plan.next_run is not None else TaskStatus.DONE


def claimed_now(task: Task) -> Task:
    """The task once a run of it was claimed outside its schedule ("run now"): unchanged.

    The extra run never consumes a scheduled one: a one-time task stays due at its time,
    a recurring one keeps its next run.

    Raises:
        TaskStateError: when it is cancelled or already running.
    """
    if task.status in (TaskStatus.CANCELLED, TaskStatus.RUNNING):
        raise wrong_state(task, "run")
    return task


def finish_time(was: TaskStatus, kept: When | None, status: TaskStatus, now: When) -> When | None:
    """When a task that was in ``was`` (finished at ``kept``, if it was) and is now in
    ``status`` finished: ``None`` while it is live, ``kept`` while it stays finished, ``now``
    when it has just become finished (done, cancelled). (An instant, or its stored text.)"""
    if status.is_live:
        return None
    return kept if kept is not None and not was.is_live else now


def changed(
    task: Task,
    change: TaskChange,
    *,
    allowed_from: Collection[TaskStatus],
    action: str,
    now: datetime,
) -> Task:
    """The task with ``change`` applied at ``now`` (``TaskStore.update_task``).

    Raises:
        TaskStateError: when its status is not in ``allowed_from``.
    """
    if task.status not in allowed_from:
        raise wrong_state(task, action)
    status = task.status if change.status is UNSET else change.status
    return replace(
        task,
        status=status,
        next_run=task.next_run if change.next_run is UNSET else change.next_run,
        status_reason=task.status_reason if change.status_reason is UNSET else change.status_reason,
        consecutive_failures=0 if change.reset_failures else task.consecutive_failures,
        schedule=task.schedule if change.schedule is UNSET else change.schedule,
        finished_at=finish_time(task.status, task.finished_at, status, now),
    )


def after_skipped_retry(task: Task, now: datetime) -> Task:
    """The task once the retry of its run was skipped (misfire policy) at ``now``.

    A one-time task (RUNNING) is DONE; a recurring one keeps its status and its schedule.
    """
    if task.status is TaskStatus.RUNNING:
        return replace(task, status=TaskStatus.DONE, next_run=None, finished_at=now)
    return task


def given_back(task: Task, run: TaskRun) -> Task | None:
    """The task once ``run``, claimed and never started, is given back (its manager stops),
    or ``None`` when the run cannot be given back and is left claimed.

    A one-time task that is RUNNING is ACTIVE again, due at the run's time. A recurring task
    is due at the run's time again only while its next run is still the one the claim
    computed (nothing after the run was claimed since: given back the latest first, a
    task's several claims all return); its next fire is then computed again by the next
    claim, to the same instant. Otherwise (another scheduler claimed the next occurrence,
    another process moved it) the run is left claimed, and once its lease runs out it is
    retried by the rules for a lost run that never started, so no occurrence is skipped or
    run twice. An extra run ("run now"), and a run of a task stopped since (cancelled,
    paused, disabled), is dropped: the task stays as it is.
    """
    if run.misfire is MisfireAction.MANUAL or task.status in _STOPPED:
        return task
    if task.schedule.kind == "once":
        due_again = task.status is TaskStatus.RUNNING
    else:
        due_again = task.next_run == task.schedule.next_after(run.scheduled_for)
    if not due_again:
        return None
    return replace(task, status=TaskStatus.ACTIVE, next_run=run.scheduled_for, finished_at=None)


_STOPPED = frozenset({TaskStatus.CANCELLED, TaskStatus.PAUSED, TaskStatus.DISABLED})


def lost_outcome(action: Reclaim, run: TaskRun, now: datetime) -> RunOutcome:
    """How a run whose lease ran out ends when it is not run again (GIVE_UP or UNKNOWN).

    The stores finish it with ``max_failures=None``: the failure counts, but a process that
    stopped never disables a task by itself.
    """
    if action is Reclaim.UNKNOWN:
        status, error = RunStatus.OUTCOME_UNKNOWN, OUTCOME_UNKNOWN_ERROR
    else:
        status, error = RunStatus.FAILED, LEASE_LOST_ERROR
    extra = run.misfire is MisfireAction.MANUAL
    return RunOutcome(run.id, run.task_id, status, now, now, error=error, extra=extra)


@dataclass(frozen=True, slots=True)
class AfterRun:
    """What finishing one run does to its task.

    Attributes:
        status: The task's new status.
        consecutive_failures: The task's new count of failed runs in a row.
        next_run: The new next run, or ``UNSET`` when it stays.
        status_reason: The new reason text, or ``UNSET`` when it stays.
        disabled: Whether this run's failure disabled the task.
        sooner: The next run moves to this instant when it is earlier (or none is set): a
            reminder repeated until it is acknowledged, before its next occurrence.
        previous_failures: The failures in a row before this run.
    """

    status: TaskStatus
    consecutive_failures: int
    next_run: datetime | Unset | None = UNSET
    status_reason: str | Unset = UNSET
    disabled: bool = False
    sooner: datetime | None = None
    previous_failures: int = 0

    def finished(self, outcome: RunOutcome) -> FinishedRun:
        """What finishing ``outcome``'s run did, as the store reports it."""
        return FinishedRun(
            outcome.run_id,
            outcome.task_id,
            self.status,
            self.consecutive_failures,
            self.disabled,
            self.previous_failures,
        )

    def next_after(self, current: datetime | None) -> datetime | None:
        """The task's next run once this is applied to one whose next run is ``current``."""
        run = current if self.next_run is UNSET else self.next_run
        if self.sooner is not None and (run is None or self.sooner < run):
            return self.sooner
        return run


def after_run(
    status: TaskStatus, failures: int, outcome: RunOutcome, *, max_failures: int | None
) -> AfterRun:
    """What ``outcome`` does to a task in ``status`` with ``failures`` failures in a row.

    ``max_failures`` is ``None`` for a run given up after its lease ran out twice: that
    failure counts, but never disables the task by itself.
    """
    before = failures
    failures = failures_after(failures, outcome.status)
    next_run: datetime | Unset | None = UNSET
    sooner = None
    if status is TaskStatus.RUNNING and not outcome.extra:
        status = TaskStatus.DONE if outcome.retry_at is None else TaskStatus.ACTIVE
        next_run = outcome.retry_at
    elif outcome.retry_at is not None and not outcome.extra:
        # A recurring task runs again before its next occurrence (a reminder repeated until
        # acknowledged); one whose schedule has ended is kept until then.
        if status is TaskStatus.DONE:
            status, next_run = TaskStatus.ACTIVE, None
        if status is TaskStatus.ACTIVE:
            sooner = outcome.retry_at
    if (
        max_failures is not None
        and outcome.status.is_failure
        and status is TaskStatus.ACTIVE
        and failures >= max_failures
    ):
        reason = failure_reason(failures, outcome.error)
        return AfterRun(
            TaskStatus.DISABLED, failures, next_run, reason, disabled=True, previous_failures=before
        )
    return AfterRun(status, failures, next_run, sooner=sooner, previous_failures=before)


def failures_after(current: int, status: RunStatus) -> int:
    """The consecutive failure count after a run that ended with ``status``."""
    if status is RunStatus.SUCCEEDED:
        return 0
    return current + 1 if status.is_failure else current


def failure_reason(failures: int, error: str | None) -> str:
    """The reason stored on a task disabled after ``failures`` failures in a row."""
    return f"failed {failures} times in a row; last error: {error or 'unknown'}"

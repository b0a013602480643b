"""Misfire decisions: what a claim does with a due task, as a pure function of the time.

Both stores call ``plan_claim`` (and ``plan_reclaim`` for runs whose lease ran out) inside
their claim transaction, so every store decides identically and the decision is recorded in
the same step as the claim. One rule here guards against acting twice: a run that may have
sent a non-idempotent request (POST, PATCH) before its process died is never repeated by a
reclaim; it is recorded as of unknown outcome and its owner is asked. Such a run records its
start in the ledger before its request goes out (``TaskStore.mark_started``), so one that was
claimed but never started is told apart: it never acted, and it runs like any other.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import Enum
from typing import NamedTuple

from tasks.execution import repeat_is_safe
from tasks.models import MisfireAction, MisfirePolicy, MisfireRule, Task, TaskRun, TaskStatus
from tasks.schedule.model import Schedule

# Walking more missed occurrences than this (an "every minute" task down for months) stops
# early; the decision stays the same, only the count of missed runs is capped.
MAX_MISSED_WALK = 100_000


@dataclass(frozen=True, slots=True)
class ClaimPlan:
    """What one claim of a due task does.

    Attributes:
        run_for: The scheduled instant to run now, or ``None`` when nothing runs.
        action: The decision for the run row (or for the skipped row when nothing runs).
        late_by: How late the run starts, when later than the grace period.
        missed: How many other scheduled runs the run stands for (coalesced).
        skipped_from: The first skipped scheduled instant, when runs are skipped.
        skipped: How many scheduled runs are skipped.
        next_run: The task's next run after this claim, or ``None``.
    """

    run_for: datetime | None
    action: MisfireAction
    late_by: timedelta | None
    missed: int
    skipped_from: datetime | None
    skipped: int
    next_run: datetime | None


def plan_claim(schedule: Schedule, due: datetime, rule: MisfireRule, now: datetime) -> ClaimPlan:
    """Decide how to claim a task whose ``next_run`` is ``due`` (not after ``now``)."""
    if schedule.kind == "once":
        return _plan_once(due, rule, now)
    if rule.policy is MisfirePolicy.RUN_LATE:
        late = _lateness(due, rule, now)
        action = MisfireAction.LATE if late else MisfireAction.ON_TIME
        return ClaimPlan(due, action, late, 0, None, 0, schedule.next_after(due))
    missed = _walk_missed(schedule, due, now)
    if rule.policy is MisfirePolicy.COALESCE:
        return _plan_coalesce(missed, rule, now)
    return _plan_skip(due, missed, rule, now)


class _Missed(NamedTuple):
    """The occurrences of a recurring task due by now, walked from its ``next_run``."""

    latest: datetime  # the latest occurrence not after now
    due: int  # how many occurrences are due (the latest included)
    following: datetime | None  # the first occurrence after now


def _plan_once(due: datetime, rule: MisfireRule, now: datetime) -> ClaimPlan:
    late = _lateness(due, rule, now)
    if late is None:
        return ClaimPlan(due, MisfireAction.ON_TIME, None, 0, None, 0, None)
    if rule.policy is MisfirePolicy.SKIP:
        return ClaimPlan(None, MisfireAction.SKIPPED, late, 0, due, 1, None)
    return ClaimPlan(due, MisfireAction.LATE, late, 0, None, 0, None)


def _plan_coalesce(missed: _Missed, rule: MisfireRule, now: datetime) -> ClaimPlan:
    latest, count, following = missed
    late = _lateness(latest, rule, now)
    if count > 1:
        action = MisfireAction.COALESCED
    else:
        action = MisfireAction.LATE if late else MisfireAction.ON_TIME
    return ClaimPlan(latest, action, late, count - 1, None, 0, following)


def _plan_skip(due: datetime, missed: _Missed, rule: MisfireRule, now: datetime) -> ClaimPlan:
    latest, count, following = missed
    if _lateness(latest, rule, now) is None:
        if count == 1:
            return ClaimPlan(latest, MisfireAction.ON_TIME, None, 0, None, 0, following)
        return ClaimPlan(latest, MisfireAction.ON_TIME, None, 0, due, count - 1, following)
    return ClaimPlan(None, MisfireAction.SKIPPED, now - latest, 0, due, count, following)


class Reclaim(Enum):
    """What becomes of a claimed run whose lease ran out (its process stopped)."""

    RETRY = "retry"  # claimed again as attempt 2, marked late when it is
    SKIP = "skip"  # the SKIP misfire policy says not to run it this late: recorded as skipped
    GIVE_UP = "give_up"  # a second attempt, or its task was cancelled: recorded as failed
    # A run that may have acted and must not act twice (a POST may have been sent): recorded
    # as OUTCOME_UNKNOWN, never repeated automatically; its owner decides.
    UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class ReclaimPlan:
    """What a reclaim does with one expired run.

    Attributes:
        action: Retry, skip or give up.
        late_by: How late the retry (or the skipped retry) is, when later than the grace.
    """

    action: Reclaim
    late_by: timedelta | None = None


def plan_reclaim(task: Task, run: TaskRun, now: datetime) -> ReclaimPlan:
    """Decide what becomes of ``run`` of ``task``, whose lease ran out before ``now``.

    A run that is not safe to repeat (a POST or PATCH request: ``repeat_is_safe``) and that
    started (its ``started_at`` is recorded before its request goes out) is never run again
    automatically, whatever its attempt, status or policy: its process may have sent the
    request before it died, so its outcome is unknown. One that never started sent nothing,
    and is decided like any other run. Otherwise a retry is a run that missed its time like
    any other: it is delivered marked late, and beyond the grace period a task with the SKIP
    policy ("lights off at 1 am") is not run late at all.
    """
    if run.started_at is not None and not repeat_is_safe(task.execution):
        return ReclaimPlan(Reclaim.UNKNOWN)
    if run.attempt != 1 or task.status is TaskStatus.CANCELLED:
        return ReclaimPlan(Reclaim.GIVE_UP)
    late = _lateness(run.scheduled_for, task.misfire, now)
    if late is not None and task.misfire.policy is MisfirePolicy.SKIP:
        return ReclaimPlan(Reclaim.SKIP, late)
    return ReclaimPlan(Reclaim.RETRY, late)


def _walk_missed(schedule: Schedule, due: datetime, now: datetime) -> _Missed:
    """Return the latest occurrence not after ``now``, how many there are, and the next one."""
    latest, count = due, 1
    following = schedule.next_after(due)
    while following is not None and following <= now and count < MAX_MISSED_WALK:
        latest, count = following, count + 1
        following = schedule.next_after(following)
    if following is not None and following <= now:
        following = schedule.next_after(now)
    return _Missed(latest, count, following)


def _lateness(scheduled: datetime, rule: MisfireRule, now: datetime) -> timedelta | None:
    late = now - scheduled
    return late if late > rule.grace else None

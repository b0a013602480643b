"""What an owner's cancel, pause, resume, snooze, reschedule, acknowledgement and a new time
zone do to a task: pure functions of its state.

Each returns an ``OwnerChange``: the change and the statuses it applies from. The store
applies it in one step, conditional on the status it finds then, so a task that changed
meanwhile (a run finished it) is refused with the same message as if it had been so before.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo

from tasks.describe import when_text
from tasks.engine.drafts import first_run
from tasks.errors import TaskDataError, TaskStateError
from tasks.execution import ReminderData, TaskType
from tasks.models import Task, TaskStatus
from tasks.schedule import (
    BoundedSchedule,
    OnceSchedule,
    Schedule,
    format_local,
    resolve_local,
    schedule_from_json,
)
from tasks.store.base import TaskChange, wrong_state

MAX_SNOOZE = timedelta(days=366)
JUST_WENT_OFF = timedelta(hours=1)
"""How long after a repeating reminder went off a snooze brings it back instead of putting
its next run off."""
_LIVE = frozenset(s for s in TaskStatus if s.is_live)


@dataclass(frozen=True, slots=True)
class OwnerChange:
    """A change an owner asked for, and the statuses it applies from.

    Attributes:
        change: What changes.
        allowed_from: The statuses the task may be in for it to apply.
        action: The verb, for the refusal's message ("cannot pause task ...").
    """

    change: TaskChange
    allowed_from: frozenset[TaskStatus]
    action: str


CANCEL = OwnerChange(
    TaskChange(status=TaskStatus.CANCELLED, next_run=None, status_reason="cancelled by its owner"),
    _LIVE,
    "cancel",
)
"""Cancel a live task: a run in progress finishes and is recorded, nothing fires again."""

PAUSE = OwnerChange(
    TaskChange(status=TaskStatus.PAUSED, status_reason="paused by its owner"),
    frozenset({TaskStatus.ACTIVE}),
    "pause",
)
"""Pause an active task until it is resumed."""


def resume(task: Task, now: datetime) -> OwnerChange:
    """Resume a paused or disabled task (see ``TaskManager.resume``).

    Raises:
        TaskStateError: when the task is neither paused nor disabled, or has no further run.
    """
    if task.status not in (TaskStatus.PAUSED, TaskStatus.DISABLED):
        raise wrong_state(task, "resume")
    next_run = task.next_run if task.schedule.kind == "once" else task.schedule.next_after(now)
    if next_run is None:
        raise wrong_state(replace(task, status=TaskStatus.DONE), "resume")
    change = TaskChange(
        status=TaskStatus.ACTIVE, next_run=next_run, status_reason=None, reset_failures=True
    )
    return OwnerChange(change, frozenset({task.status}), "resume")


def awaits_acknowledgement(task: Task, now: datetime) -> bool:
    """Whether ``task`` is a reminder that repeats until acknowledged and went off without
    being acknowledged (its next run is a repeat, not its next occurrence)."""
    data = task.execution
    if not isinstance(data, ReminderData) or data.nag_minutes is None:
        return False
    if task.status is not TaskStatus.ACTIVE or task.next_run is None or task.run_count == 0:
        return False
    if task.schedule.kind == "once":
        return True
    following = task.schedule.next_after(now)
    return following is None or task.next_run < following


def nagging_now(task: Task, now: datetime) -> bool:
    """Whether ``task`` awaits acknowledgement and its next run is its next nag (it went off
    and is repeating now), not a snooze that put it off beyond that."""
    if not awaits_acknowledgement(task, now):
        return False
    data = task.execution
    assert isinstance(data, ReminderData) and data.nag_minutes is not None  # it awaits
    assert task.next_run is not None and task.last_run is not None
    return task.next_run <= task.last_run + timedelta(minutes=data.nag_minutes)


def acknowledge(task: Task, now: datetime) -> OwnerChange | None:
    """What acknowledging the task does (``TaskManager.acknowledge``): a reminder repeating
    until acknowledged stops (a one-time one is done, a repeating one waits for its next
    occurrence); anything else only records the acknowledgement (``None``)."""
    if not awaits_acknowledgement(task, now):
        return None
    allowed = frozenset({TaskStatus.ACTIVE})
    following = None if task.schedule.kind == "once" else task.schedule.next_after(now)
    if following is not None:
        return OwnerChange(TaskChange(next_run=following), allowed, "acknowledge")
    change = TaskChange(status=TaskStatus.DONE, next_run=None, status_reason="acknowledged")
    return OwnerChange(change, allowed, "acknowledge")


def checked_snooze(
    until: timedelta | datetime, now: datetime, zone: ZoneInfo
) -> timedelta | datetime:
    """Return ``until`` when a snooze may end then: a ``checked_delay``, or an instant between
    a second and ``MAX_SNOOZE`` from ``now`` (said in its own zone, else in ``zone``, when it
    is not).

    Raises:
        TaskDataError: when it may not.
    """
    if isinstance(until, timedelta):
        return checked_delay(until)
    ahead = until - now
    if timedelta(seconds=1) <= ahead <= MAX_SNOOZE:
        return until
    when = f"cannot snooze until {when_text(until, _zone_of(until, zone), now)}"
    if ahead > MAX_SNOOZE:
        raise TaskDataError(
            f"{when}: that is more than 366 days away; say a time within a year, or a delay "
            "such as '1h'"
        )
    passed = "has passed" if ahead <= timedelta(0) else "is less than a second away"
    raise TaskDataError(
        f"{when}: that {passed}; say a later time, e.g. 'until 5pm' or 'tomorrow at 9am', or "
        "a delay such as '10m'"
    )


def checked_delay(delay: timedelta) -> timedelta:
    """Return ``delay`` when it is a snooze's: between one second and a year.

    Raises:
        TaskDataError: when it is not.
    """
    if not timedelta(seconds=1) <= delay <= MAX_SNOOZE:
        raise TaskDataError(
            f"cannot snooze by {_said(delay)}: the delay must be between 1 second and 366 "
            "days, e.g. '10m' or '1h'"
        )
    return delay


def snooze(
    task: Task, now: datetime, until: timedelta | datetime, *, done_at: datetime | None = None
) -> OwnerChange:
    """Put the task's next run off by a delay or until an instant (``checked_snooze``; see
    ``TaskManager.snooze``); ``done_at`` is when the task was last acknowledged.

    Raises:
        TaskDataError: when the instant is before the run it would put off (a snooze never
            brings a run forward: moving the task does).
        TaskStateError: when the snooze would bring back a reminder acknowledged since it
            last went off (Done means it should not come again).
    """
    brings_back = task.status is TaskStatus.DONE or _just_went_off(task, now)
    if brings_back and done_at is not None and acknowledged_since_it_went_off(task, done_at):
        raise marked_done(task, done_at)
    if task.schedule.kind == "once" and task.status is TaskStatus.DONE:
        change = TaskChange(
            status=TaskStatus.ACTIVE, next_run=_after(now, until), status_reason=None
        )
        allowed = {TaskStatus.DONE}
    elif task.schedule.kind == "once" and task.next_run is not None:
        change = TaskChange(next_run=_put_off(task, max(task.next_run, now), until))
        allowed = {TaskStatus.ACTIVE, TaskStatus.PAUSED}
    elif _just_went_off(task, now) or task.next_run is None:
        # the run that went off comes again; the next one on the schedule is then skipped
        change = TaskChange(next_run=_past_its_end(task, _after(now, until), task.next_run))
        allowed = {TaskStatus.ACTIVE}
    else:
        change = TaskChange(next_run=_put_off(task, max(task.next_run, now), until))
        allowed = {TaskStatus.ACTIVE}
    return OwnerChange(change, frozenset(allowed), "snooze")


def _after(start: datetime, until: timedelta | datetime) -> datetime:
    """When a snooze from ``start`` ends."""
    return start + until if isinstance(until, timedelta) else until


def _put_off(task: Task, pending: datetime, until: timedelta | datetime) -> datetime:
    """When the ``pending`` run comes once snoozed: a delay after it, or at the instant,
    which must be after it (a snooze never brings a run on)."""
    if isinstance(until, timedelta) or until > pending:
        return _past_its_end(task, _after(pending, until), task.schedule.next_after(pending))
    zone = _zone_of(until, task.schedule.tz)
    runs, asked = format_local(pending, zone), format_local(until, zone)
    label = f"task {task.id} ('{task.description}')"
    if until == pending:
        raise TaskDataError(
            f"{label} already runs at {runs} ({zone.key}), so nothing changed; say a later "
            "time, or a delay such as '1h'"
        )
    hint = f"say a time after {runs}, or a delay such as '1h'"
    if task.schedule.kind == "once":  # moving a repeating task would change all its runs
        hint += f"; to have it run earlier, move it: 'move {task.id} to {asked}'"
    raise TaskDataError(
        f"cannot snooze {label} until {asked} ({zone.key}): its next run, {runs}, is later, "
        f"and a snooze only puts a run off; {hint}"
    )


def _past_its_end(task: Task, run: datetime, skipped: datetime | None) -> datetime:
    """``run``, unless it falls after the end of the task's repetition ("every day next week",
    "10 times") while a run of it (``skipped``, the next one the snooze passes over) is still
    to come before the end: those runs would be lost. The last run may go anywhere."""
    schedule = task.schedule
    end = schedule.end if isinstance(schedule, BoundedSchedule) else None
    if end is None or run <= end or skipped is None or skipped > end or skipped >= run:
        return run
    zone = schedule.tz
    local_end = end.astimezone(zone)
    if local_end.time() >= time(23, 59, 59):
        ends = f"after {local_end:%Y-%m-%d}"
    else:
        ends = format_local(end, zone)
    raise TaskDataError(
        f"cannot snooze task {task.id} ('{task.description}') until "
        f"{format_local(run, zone)} ({zone.key}): its repetition ends {ends}, and its runs "
        f"until then, from {format_local(skipped, zone)}, would be skipped; say an earlier "
        f"time, or move it to change its days: 'move {task.id} to ...'"
    )


def _zone_of(instant: datetime, otherwise: ZoneInfo) -> ZoneInfo:
    """The zone ``instant`` was said in (the owner's, as ``read_snooze`` gives it), else
    ``otherwise``."""
    return instant.tzinfo if isinstance(instant.tzinfo, ZoneInfo) else otherwise


def marked_done(task: Task, done_at: datetime) -> TaskStateError:
    """The refusal to bring back (snooze) a reminder acknowledged at ``done_at``."""
    clock = format_local(done_at, task.schedule.tz).split(" ")[-1]
    return TaskStateError(
        f"task {task.id} ('{task.description}') was marked done at {clock}, so a snooze "
        f"does not bring it back; say e.g. 'remind me in 10 minutes to {task.description}' "
        "for a new reminder"
    )


def acknowledged_since_it_went_off(task: Task, done_at: datetime | None) -> bool:
    """Whether the acknowledgement at ``done_at`` came after the task last went off."""
    return done_at is not None and task.last_run is not None and done_at >= task.last_run


def _just_went_off(task: Task, now: datetime) -> bool:
    """Whether a repeating reminder went off within ``JUST_WENT_OFF``: a snooze then means
    "remind me of it again" (its message's Snooze button), not "put the next one off"."""
    if task.task_type is not TaskType.REMINDER or task.last_run is None:
        return False
    return now - task.last_run <= JUST_WENT_OFF


def reschedule(schedule: Schedule, now: datetime) -> OwnerChange:
    """Give an active or paused task a new schedule; its next run is the schedule's first (a
    paused task stays paused until it is resumed).

    Raises:
        ScheduleError: when the schedule has no run after ``now``.
    """
    change = TaskChange(schedule=schedule, next_run=first_run(schedule, now))
    return OwnerChange(change, frozenset({TaskStatus.ACTIVE, TaskStatus.PAUSED}), "reschedule")


def rezone(task: Task, zone: ZoneInfo, now: datetime) -> OwnerChange:
    """Move the task to ``zone`` at the same wall-clock times (``rezoned``).

    An active or paused task's next run becomes the new schedule's next one (a one-time
    time that has passed there is due now); a disabled task keeps having none.

    Raises:
        TaskStateError: when the task is running, finished or cancelled.
    """
    schedule = rezoned(task.schedule, zone)
    if task.status is TaskStatus.DISABLED:
        change = TaskChange(schedule=schedule)
    elif isinstance(schedule, OnceSchedule):
        change = TaskChange(schedule=schedule, next_run=max(schedule.at, now))
    else:
        change = TaskChange(schedule=schedule, next_run=schedule.next_after(now))
    allowed = frozenset({TaskStatus.ACTIVE, TaskStatus.PAUSED, TaskStatus.DISABLED})
    return OwnerChange(change, allowed, "move to another time zone")


def rezoned(schedule: Schedule, zone: ZoneInfo) -> Schedule:
    """``schedule`` in ``zone``, keeping its wall-clock times: "every day at 09:00" stays
    09:00 there, and so does a one-time reminder for 09:00.

    A one-time time set by a delay ("in 10 minutes", which keeps the second it was set at,
    where a clock time falls on the minute) keeps its moment; so does "every 15 minutes",
    which counts elapsed time.
    """
    if not isinstance(schedule, OnceSchedule):
        # Wall times, cron fields and cycles are local: the same values in the new zone.
        fields = json.loads(schedule.to_json())
        return schedule_from_json(json.dumps({**fields, "tz": zone.key}))
    at = schedule.at
    if at.second == 0 and at.microsecond == 0:
        wall = at.astimezone(schedule.tz).replace(tzinfo=None)
        at = resolve_local(wall, zone)
    return OnceSchedule(at=at, tz=zone)


def _said(delay: timedelta) -> str:
    """A delay as people write it: ``0 seconds``, ``-5 minutes``, ``400 days``."""
    seconds = delay.total_seconds()
    for unit, size in (("days", 86400), ("hours", 3600), ("minutes", 60)):
        if seconds and seconds % size == 0:
            return f"{seconds / size:g} {unit}"
    return f"{seconds:g} seconds"

"""A task as a calendar event: what the feed, ``export-ics`` and the CalDAV sync write.

``task_event(task, now=..., horizon=...)`` says what a task will still do: a one-time task as
one event, a repeating one as one event with its rule (``tasks.recurrence_of``) in the task's
zone, from its next run on. A run put off ("snooze") is an extra date (RDATE) in place of the
schedule's own (EXDATE). Only reminders carry an alarm. A task that will not fire (paused,
disabled, done, cancelled) has no event, and neither has a monitor: it checks something, often
every few minutes, and is nothing in the person's day. Nothing here reads a clock or writes a
file.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from tasks import Recurrence, Task, TaskStatus, TaskType, recurrence_of

UID_DOMAIN = "assistant"
"""The right-hand side of the events' UIDs: ``task-k3m9xa@assistant``."""
NOT_IN_THE_DAY = frozenset({TaskType.MONITOR})
"""The kinds of task that are checks, not things in the person's day: no event, and not
listed with the day's tasks ("what's on tomorrow?")."""
_TYPE_WORDS = {
    TaskType.REMINDER: "reminder",
    TaskType.AGENT_TASK: "agent task",
    TaskType.WEB_SEARCH: "web search",
    TaskType.API_CALL: "HTTP call",
}


@dataclass(frozen=True, slots=True)
class TaskEvent:
    """One task as an event.

    Attributes:
        uid: The event's UID (``task-<id>@assistant``): stable, so a calendar app updates it.
        task_id: The task's id.
        summary: What the calendar shows (the task's description).
        description: The task's kind, id and schedule in words.
        recurrence: When: DTSTART, RRULE, EXDATEs, RDATEs.
        alarm: Whether it carries an alarm (a reminder).
        schedule_json: The task's schedule (``Schedule.to_json``), which the importer uses
            when the event is still as it was written (see ``calendars.importing``).
        horizon: How far lists of dates go where a rule cannot say everything.
        updated: When it was written.
    """

    uid: str
    task_id: str
    summary: str
    description: str
    recurrence: Recurrence
    alarm: bool
    schedule_json: str
    horizon: datetime
    updated: datetime


def task_uid(task_id: str) -> str:
    """The UID of a task's event."""
    return f"task-{task_id}@{UID_DOMAIN}"


def task_of_uid(uid: str) -> str | None:
    """The task id in a UID made by ``task_uid``, or ``None``."""
    name, at, domain = uid.partition("@")
    if not at or domain != UID_DOMAIN or not name.startswith("task-"):
        return None
    return name.removeprefix("task-") or None


def task_event(
    task: Task, *, now: datetime, horizon: datetime, paused: bool = False
) -> TaskEvent | None:
    """The event of what ``task`` will still do, or ``None`` when it will not fire.

    With ``paused``, a paused or disabled task is written as its schedule would fire from
    now (the CalDAV sync keeps the event of a paused reminder).
    """
    if task.task_type in NOT_IN_THE_DAY:
        return None
    if paused and task.status in (TaskStatus.PAUSED, TaskStatus.DISABLED):
        recurrence = recurrence_of(task.schedule, after=now, horizon=horizon)
    elif task.status is not TaskStatus.ACTIVE or task.next_run is None:
        return None
    else:
        recurrence = _pending(task, now, horizon)
    if recurrence is None:
        return None
    kind = _TYPE_WORDS.get(task.task_type, task.task_type.value)
    return TaskEvent(
        uid=task_uid(task.id),
        task_id=task.id,
        summary=task.description,
        description=f"{kind} {task.id}: {task.schedule.describe()}",
        recurrence=recurrence,
        alarm=task.task_type is TaskType.REMINDER,
        schedule_json=task.schedule.to_json(),
        horizon=horizon,
        updated=now,
    )


def _pending(task: Task, now: datetime, horizon: datetime) -> Recurrence | None:
    """The task's next run and the schedule's fires after it."""
    next_run = task.next_run
    assert next_run is not None
    if task.schedule.kind == "once":
        return Recurrence(start=next_run.astimezone(task.schedule.tz))
    before = next_run - timedelta(microseconds=1)
    if task.schedule.next_after(before) == next_run:
        return recurrence_of(task.schedule, after=before, horizon=horizon)
    # Put off (snoozed, or due and not run yet): the run as it stands, then the schedule.
    rest = recurrence_of(task.schedule, after=next_run, horizon=horizon)
    moved = next_run.astimezone(task.schedule.tz)
    if rest is None:
        return Recurrence(start=moved)
    return Recurrence(
        start=rest.start,
        rule=rest.rule,
        exdates=rest.exdates,
        rdates=(moved, *rest.rdates),
        exact_until=rest.exact_until,
    )

"""How a task reads to a person, in one place: every listing, notice and tool reply uses it.

    task_label(task)            task k3m9xa ("call mom")                 (inside a sentence)
    when_text(instant, zone)    today at 14:35 (Europe/Berlin)
    schedule_words(task, zone)  once at 2026-03-10 09:00 (Europe/Berlin) / every weekday at ...
    task_line(task, zone, now)  [k3m9xa] reminder: call mom · today at 14:35 (Europe/Berlin)

Times are said in the zone of the person reading (``/tz`` sets it), whatever zone the task
was made in.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from tasks.models import Task, TaskStatus
from tasks.schedule import OnceSchedule, format_local

_LABEL_CHARS = 60


def task_label(task: Task) -> str:
    """Name a task inside a sentence: ``task k3m9xa ("call mom")``."""
    text = " ".join(task.description.split())
    if len(text) > _LABEL_CHARS:
        text = text[: _LABEL_CHARS - 1] + "…"
    return f'task {task.id} ("{text}")'


def when_text(instant: datetime | None, zone: ZoneInfo, now: datetime) -> str:
    """Say an instant: ``today at 14:35 (Europe/Berlin)``, ``tomorrow at 09:00 (...)``,
    ``on Fri 2026-03-06 at 17:00 (...)``."""
    if instant is None:
        return "never (nothing is scheduled)"
    local = instant.astimezone(zone)
    today = now.astimezone(zone).date()
    clock = local.strftime("%H:%M:%S" if local.second else "%H:%M")
    if local.date() == today:
        day = "today "
    elif local.date() == today + timedelta(days=1):
        day = "tomorrow "
    else:
        day = f"on {local.strftime('%a')} {local.date().isoformat()} "
    return f"{day}at {clock} ({zone.key})"


def schedule_words(task: Task, zone: ZoneInfo) -> str:
    """A task's schedule in words; a one-time task's time in the reader's zone."""
    schedule = task.schedule
    if isinstance(schedule, OnceSchedule):
        return f"once at {format_local(schedule.at, zone)} ({zone.key})"
    return schedule.describe()


def task_line(
    task: Task, zone: ZoneInfo, now: datetime, *, next_run: datetime | None = None
) -> str:
    """One task on one line, as every listing shows it.

    ``[k3m9xa] reminder: call mom · today at 14:35 (Europe/Berlin)``; a repeating task also
    says its schedule, ``· every weekday at 09:00 (Europe/Berlin) · next tomorrow at 09:00
    (Europe/Berlin)``; a task that will not run says why, ``· paused (paused by its owner)``.
    ``next_run`` says another of its runs instead of the next one (a listing of one day).
    """
    kind = task.task_type.value.replace("_", " ")
    head = f"[{task.id}] {kind}: {task.description}"
    run = next_run or task.next_run
    if task.status is TaskStatus.ACTIVE and run is not None:
        when = when_text(run, zone, now)
        if isinstance(task.schedule, OnceSchedule):
            return f"{head} · {when}"
        return f"{head} · {schedule_words(task, zone)} · next {when}"
    reason = f" ({task.status_reason})" if task.status_reason else ""
    return f"{head} · {schedule_words(task, zone)} · {task.status.value}{reason}"

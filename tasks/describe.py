"""How a task reads to a person, in one place: every listing, notice and tool reply uses it.

    task_label(task)            task k3m9xa ("call mom")                 (inside a sentence)
    when_text(instant, zone)    today at 14:35 (Europe/Berlin)
    next_run_words(task, ...)   tomorrow at 01:00 (America/New_York), 07:00 in Europe/Berlin
    schedule_words(task, zone)  once at 2026-03-10 09:00 (Europe/Berlin) / every weekday at ...
    task_line(task, zone, now)  [k3m9xa] reminder: call mom · today at 14:35 (Europe/Berlin)
    run_line(run, zone)         2026-03-10 09:00 · succeeded · late by 2 h: Sent the top 3
    still_scheduled(task, ...)  it still fires tomorrow at 07:00 (Europe/Berlin)  (after run now)

Times are said in the zone of the person reading (``/tz`` sets it), whatever zone the task
was made in; a repeating task kept in another zone says its wall-clock times in that zone
(its schedule's words), and its next run in both.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from tasks.models import MisfireAction, Task, TaskRun, TaskStatus, format_lateness
from tasks.schedule import OnceSchedule, format_local

_LABEL_CHARS = 60
RUN_DETAIL_CHARS = 120
"""How much of a run's result or error its line shows."""


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


def next_run_words(
    task: Task, zone: ZoneInfo, now: datetime, *, run: datetime | None = None
) -> str:
    """Say a task's next run (or ``run``) in the reader's ``zone``; for a repeating task kept
    in another zone, also at which of its own clock times, as its schedule says them:
    ``tomorrow at 01:00 (America/New_York), 07:00 in Europe/Berlin``."""
    run = run or task.next_run
    said = when_text(run, zone, now)
    own = task.schedule.tz
    if run is None or isinstance(task.schedule, OnceSchedule) or own.key == zone.key:
        return said
    return f"{said}, {run.astimezone(own):%H:%M} in {own.key}"


def still_scheduled(task: Task, zone: ZoneInfo, now: datetime) -> str:
    """Say what an extra run ("run now") left of the task's schedule: ``it still fires
    tomorrow at 07:00 (Europe/Berlin)``, ``it stays paused``, ``nothing more is scheduled``."""
    if task.status is TaskStatus.ACTIVE and task.next_run is not None:
        return f"it still fires {when_text(task.next_run, zone, now)}"
    if task.status in (TaskStatus.PAUSED, TaskStatus.DISABLED):
        return f"it stays {task.status.value}"
    return "nothing more is scheduled"


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
        when = next_run_words(task, zone, now, run=run)
        if isinstance(task.schedule, OnceSchedule):
            return f"{head} · {when}"
        return f"{head} · {schedule_words(task, zone)} · next {when}"
    reason = f" ({task.status_reason})" if task.status_reason else ""
    return f"{head} · {schedule_words(task, zone)} · {task.status.value}{reason}"


def run_line(run: TaskRun, zone: ZoneInfo, *, detail_chars: int = RUN_DETAIL_CHARS) -> str:
    """One row of a task's run ledger on one line, as ``/runs`` and ``task_history`` show it:
    when it was due (in the reader's zone), how it ended, what the scheduler decided when that
    was not "on time", how late it started, and the start of its result or error."""
    parts = [format_local(run.scheduled_for, zone), run.status.value.replace("_", " ")]
    if run.misfire is not MisfireAction.ON_TIME:
        parts.append(run.misfire.value.replace("_", " "))
    if run.late_by:
        parts.append(f"late by {format_lateness(run.late_by)}")
    line = " · ".join(parts)
    detail = " ".join((run.error or run.result or "").split())
    if not detail:
        return line
    if len(detail) > detail_chars:
        detail = detail[: detail_chars - 1].rstrip() + f"… ({len(detail)} characters in all)"
    return f"{line}: {detail}"

"""A task as programs read it: one JSON shape for the HTTP API (``GET /tasks`` and every
answer that carries a task) and the command line (``assistant tasks --json``).

Times are ISO 8601 with the offset of the reader's zone (``/tz`` sets it), and each also comes
in words, written the way every other interface says it (``tasks.next_run_words``).
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from pydantic import BaseModel, ConfigDict, Field

from tasks import Task, TaskStatus, next_run_words, schedule_words, task_line


class TaskOut(BaseModel):
    """A scheduled task."""

    model_config = ConfigDict(defer_build=True)  # built when first used, not on import

    id: str
    type: str
    description: str
    schedule: str = Field(description="The schedule in words, in your zone.")
    status: str
    status_reason: str | None
    next_run: datetime | None
    next_run_text: str = Field(description="The next run in words, e.g. 'today at 14:35 (...)'.")
    run_count: int
    line: str = Field(description="The task on one line, as every interface lists it.")


def task_out(task: Task, zone: ZoneInfo, now: datetime) -> TaskOut:
    """``task`` read in ``zone`` at ``now``; only an active task has a next run."""
    upcoming = task.next_run if task.status is TaskStatus.ACTIVE else None
    return TaskOut(
        id=task.id,
        type=task.task_type.value,
        description=task.description,
        schedule=schedule_words(task, zone),
        status=task.status.value,
        status_reason=task.status_reason,
        next_run=upcoming.astimezone(zone) if upcoming is not None else None,
        next_run_text=next_run_words(task, zone, now) if upcoming else task.status.value,
        run_count=task.run_count,
        line=task_line(task, zone, now),
    )

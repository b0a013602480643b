"""The texts the scheduler sends an owner about their tasks (NOTICE deliveries)."""

from __future__ import annotations

from tasks.models import Task, TaskStatus
from tasks.schedule.model import format_local


def label(task: Task) -> str:
    """Name a task for a person: ``task k3m9xa ("call mom")``."""
    text = " ".join(task.description.split())
    if len(text) > 60:
        text = text[:59] + "…"
    return f'task {task.id} ("{text}")'


def _opening(text: str) -> str:
    """``text`` opening a sentence: its first letter upper case, the rest as written
    (``str.capitalize`` would lower-case the task's description)."""
    return text[:1].upper() + text[1:]


def failed_notice(task: Task, error: str, failures: int, max_failures: int) -> str:
    """Say that a run failed and what happens next."""
    head = f"{_opening(label(task))} failed: {error}"
    if task.schedule.kind == "once" or task.status is not TaskStatus.ACTIVE:
        return f"{head}\nIt will not run again."
    if task.next_run is None:
        return head
    when = f"{format_local(task.next_run, task.schedule.tz)} ({task.schedule.tz.key})"
    return (
        f"{head}\nNext run: {when}. After {max_failures} failures in a row I disable it "
        f"({failures} so far)."
    )


def disabled_notice(task: Task, failures: int, error: str | None) -> str:
    """Say that a task was disabled after failing too often, and how to turn it back on."""
    return (
        f"I disabled {label(task)}: it failed {failures} times in a row. "
        f"Last error: {error or 'unknown'}\nResume it with 'resume task {task.id}' "
        "once the problem is fixed."
    )


def given_up_notice(task: Task) -> str:
    """Say that a run was given up after the process stopped during it twice."""
    return (
        f"{_opening(label(task))} did not finish: the assistant stopped twice while "
        "running it, so I gave that run up."
    )

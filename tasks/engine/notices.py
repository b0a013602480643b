"""What the scheduler tells an owner about their tasks (NOTICE deliveries), and when."""

from __future__ import annotations

import asyncio
import logging

from tasks.describe import task_label
from tasks.models import Claim, FinishedRun, RunStatus, Task, TaskStatus
from tasks.protocols import Delivery, DeliveryKind, DeliveryStatus
from tasks.runners.base import BLOCKED_ERROR, Deliverer, RunReport
from tasks.schedule.model import format_local
from tasks.store.base import GivenUp, TaskStore

log = logging.getLogger(__name__)


def _opening(text: str) -> str:
    """``text`` opening a sentence: its first letter upper case, the rest as written
    (``str.capitalize`` would lower-case the task's description)."""
    return text[:1].upper() + text[1:]


def failed_notice(task: Task, error: str, failures: int, max_failures: int) -> str:
    """Say that a run failed and what happens next."""
    head = f"{_opening(task_label(task))} failed: {error}"
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
        f"I disabled {task_label(task)}: it failed {failures} times in a row. "
        f"Last error: {error or 'unknown'}\nResume it with 'resume task {task.id}' "
        "once the problem is fixed."
    )


def given_up_notice(task: Task) -> str:
    """Say that a run was given up after the process stopped during it twice."""
    return (
        f"{_opening(task_label(task))} did not finish: the assistant stopped twice while "
        "running it, so I gave that run up."
    )


class FollowUps:
    """What the scheduler does after a run that needs more than a ledger row.

    A run that could not reach its chat pauses the owner's tasks; a run whose failure
    disabled its task, a failure worth telling, and a run given up each send the owner a
    notice. A notice that finds the chat blocked pauses the owner's tasks too.

    Args:
        store: Where the owner's tasks are paused.
        deliverer: Sends the notices.
        max_failures: Failed runs in a row after which a recurring task is disabled.
        wake: Set when tasks were paused, so the timer re-reads the store.
    """

    def __init__(
        self, store: TaskStore, deliverer: Deliverer, *, max_failures: int, wake: asyncio.Event
    ) -> None:
        self._store = store
        self._deliverer = deliverer
        self._max_failures = max_failures
        self._wake = wake

    async def after_run(self, claim: Claim, report: RunReport, finished: FinishedRun) -> None:
        """Follow up a run whose outcome is committed (``finished``)."""
        task = claim.task
        if report.status is RunStatus.UNDELIVERED:
            paused = await self._store.pause_owner(task.owner_id, BLOCKED_ERROR)
            log.warning("paused %d tasks of %s: %s", len(paused), task.owner_id, BLOCKED_ERROR)
            self._wake.set()
        elif finished.disabled:
            text = disabled_notice(task, finished.consecutive_failures, report.error)
            await self._notice(claim, text)
        elif report.status is RunStatus.FAILED and report.notify_failure:
            error = report.error or "unknown error"
            text = failed_notice(task, error, finished.consecutive_failures, self._max_failures)
            await self._notice(claim, text)

    async def given_up(self, lost: GivenUp) -> None:
        """Tell the owner that a run was given up."""
        await self._notice(Claim(lost.task, lost.run), given_up_notice(lost.task))

    async def _notice(self, claim: Claim, text: str) -> None:
        task = claim.task
        delivery = Delivery(
            task.id, claim.run.id, task.owner_id, task.chat_id, DeliveryKind.NOTICE, text
        )
        status = await self._deliverer.deliver(delivery)
        if status is DeliveryStatus.BLOCKED:
            await self._store.pause_owner(task.owner_id, BLOCKED_ERROR)
        elif status is not DeliveryStatus.DELIVERED:
            log.warning("could not deliver a notice about task %s: %s", task.id, status.value)

"""What the scheduler tells an owner about their tasks (NOTICE deliveries), and when.

Failure alerts (issue 28) are the one failure path: a repeating task that fails tells its
owner once, when it has failed ``alert_after`` times in a row, with the reason; its other
failures are only in its run ledger (a monitor's first look that fails is told at once:
its address may be wrong); the first success after such an alert tells them it
recovered. A task that goes on failing is still disabled after ``max_failures`` in a row,
with a notice (the same count in the store decides both). A one-time task's failure is told
at once: it is its only run.
"""

from __future__ import annotations

import asyncio
import logging

from tasks.describe import task_label
from tasks.models import Claim, FinishedRun, MisfireAction, RunStatus, Task, TaskStatus
from tasks.protocols import Delivery, DeliveryKind, DeliveryStatus
from tasks.runners.base import BLOCKED_ERROR, Deliverer, RunReport
from tasks.schedule.model import format_local
from tasks.store.base import GivenUp, TaskStore

log = logging.getLogger(__name__)


def _opening(text: str) -> str:
    """``text`` opening a sentence: its first letter upper case, the rest as written
    (``str.capitalize`` would lower-case the task's description)."""
    return text[:1].upper() + text[1:]


def failed_notice(task: Task, error: str) -> str:
    """Say that a run failed and what follows: a one-time task's was its only run; a
    repeating task's (started by hand) leaves its schedule as it was."""
    text = f"{_opening(task_label(task))} failed: {error}"
    if task.schedule.kind == "once":
        return text + "\nIt will not run again."
    if task.status is TaskStatus.ACTIVE and task.next_run is not None:
        when = f"{format_local(task.next_run, task.schedule.tz)} ({task.schedule.tz.key})"
        return text + f"\nIt keeps its schedule: next run {when}."
    return text


def alert_notice(task: Task, error: str, failures: int, max_failures: int) -> str:
    """Say that a repeating task failed ``failures`` times in a row, why, and what follows."""
    text = f"{_opening(task_label(task))} has failed {failures} times in a row. Last error: {error}"
    if task.status is TaskStatus.ACTIVE and task.next_run is not None:
        when = f"{format_local(task.next_run, task.schedule.tz)} ({task.schedule.tz.key})"
        text += f"\nI keep trying on its schedule (next run: {when})"
        if max_failures > failures:
            text += f" and disable it after {max_failures} failures in a row"
        text += "; I'll tell you when it works again."
    return text


def first_look_notice(task: Task, error: str, alert_after: int) -> str:
    """Say that a monitor's first look failed, why, and what the owner can do."""
    text = (
        f"{_opening(task_label(task))} could not take its first look: {error}\n"
        f"If the address or what it watches is wrong, cancel it ('cancel {task.id}') and "
        "set it up again"
    )
    if task.status is TaskStatus.ACTIVE and task.next_run is not None:
        when = f"{format_local(task.next_run, task.schedule.tz)} ({task.schedule.tz.key})"
        text += (
            f"; otherwise I keep looking on its schedule (next: {when}) and tell you if it "
            f"fails {alert_after} times in a row"
        )
    return text + "."


def recovered_notice(task: Task, failures: int) -> str:
    """Say that a task that had failed ``failures`` times in a row works again."""
    return (
        f"{_opening(task_label(task))} works again: it succeeded after {failures} failures "
        "in a row."
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


def unknown_notice(task: Task, error: str) -> str:
    """Say that a run may or may not have acted, that it was not repeated, and what to do."""
    text = (
        f"{_opening(task_label(task))} may or may not have happened: {error}. I did not run it "
        "again, so that it cannot happen twice. If it did not happen, run it again."
    )
    if task.status is TaskStatus.ACTIVE and task.next_run is not None:
        when = f"{format_local(task.next_run, task.schedule.tz)} ({task.schedule.tz.key})"
        text += f"\nIts next scheduled run: {when}."
    return text


class FollowUps:
    """What the scheduler does after a run that needs more than a ledger row.

    A run that could not reach its chat pauses the owner's tasks; a run whose failure
    disabled its task, a one-time task's failure, a repeating task's ``alert_after``-th
    failure in a row (the failure alert), the success that ends such a streak, and a run
    given up each send the owner a notice. A run whose outcome is unknown (it may have
    acted; it is never repeated automatically) sends a notice that offers a one-tap "Run
    again" while the task is not cancelled. A notice that finds the chat blocked pauses the
    owner's tasks too.

    Args:
        store: Where the owner's tasks are paused.
        deliverer: Sends the notices.
        max_failures: Failed runs in a row after which a recurring task is disabled.
        wake: Set when tasks were paused, so the timer re-reads the store.
        alert_after: Failed runs in a row of a repeating task after which its owner is told
            (once), and after which a success is told as a recovery.
    """

    def __init__(
        self,
        store: TaskStore,
        deliverer: Deliverer,
        *,
        max_failures: int,
        wake: asyncio.Event,
        alert_after: int = 3,
    ) -> None:
        self._store = store
        self._deliverer = deliverer
        self._max_failures = max_failures
        self._wake = wake
        self.alert_after = alert_after

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
        elif report.status is RunStatus.OUTCOME_UNKNOWN:
            await self._unknown(claim, report.error or "its outcome is unknown")
        elif report.status is RunStatus.FAILED and report.notify_failure:
            error = report.error or "unknown error"
            failures = finished.consecutive_failures
            if task.schedule.kind == "once" or claim.run.misfire is MisfireAction.MANUAL:
                # A one-time task has no next run to tell; a run the owner started waits for it.
                await self._notice(claim, failed_notice(task, error))
            elif report.first_look:
                await self._notice(claim, first_look_notice(task, error, self.alert_after))
            elif failures == self.alert_after:
                await self._notice(claim, alert_notice(task, error, failures, self._max_failures))

    async def after_success(self, claim: Claim, finished: FinishedRun) -> None:
        """Tell the owner that a task which had failed ``alert_after`` times in a row (and
        was told so) works again."""
        if finished.previous_failures >= self.alert_after:
            await self._notice(claim, recovered_notice(claim.task, finished.previous_failures))

    async def given_up(self, lost: GivenUp) -> None:
        """Tell the owner that a run was given up, or that its outcome is unknown."""
        claim = Claim(lost.task, lost.run)
        if lost.run.status is RunStatus.OUTCOME_UNKNOWN:
            await self._unknown(claim, lost.run.error or "its outcome is unknown")
        else:
            await self._notice(claim, given_up_notice(lost.task))

    async def _unknown(self, claim: Claim, error: str) -> None:
        task = claim.task
        offer = task.status is not TaskStatus.CANCELLED
        await self._notice(claim, unknown_notice(task, error), run_again=offer)

    async def _notice(self, claim: Claim, text: str, *, run_again: bool = False) -> None:
        task = claim.task
        delivery = Delivery(
            task.id,
            claim.run.id,
            task.owner_id,
            task.chat_id,
            DeliveryKind.NOTICE,
            text,
            run_again=run_again,
        )
        status = await self._deliverer.deliver(delivery)
        if status is DeliveryStatus.BLOCKED:
            await self._store.pause_owner(task.owner_id, BLOCKED_ERROR)
        elif status not in (DeliveryStatus.DELIVERED, DeliveryStatus.HELD):
            log.warning("could not deliver a notice about task %s: %s", task.id, status.value)

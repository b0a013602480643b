"""What the runners share: the ``TaskRunner`` protocol, the ``RunReport`` each run ends with,
and the ``Deliverer`` that hands their messages to the notifier.

A runner never raises for an expected failure: it returns a ``RunReport`` whose status the
manager writes to the ledger.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from tasks.models import MisfireAction, RunStatus, Task, TaskRun, format_lateness
from tasks.protocols import Delivery, DeliveryKind, DeliveryStatus, Notifier
from tasks.schedule.model import format_local

log = logging.getLogger(__name__)

Sleep = Callable[[float], Awaitable[None]]
BLOCKED_ERROR = "the chat cannot be reached (the user blocked the bot or left the chat)"


@dataclass(frozen=True, slots=True)
class RunReport:
    """How a runner's work ended: SUCCEEDED, FAILED or UNDELIVERED, with a short account.

    Attributes:
        status: How it ended.
        result: What it did, for the ledger.
        error: Why it failed.
        notify_failure: Whether a failure is worth a notice to the owner (not when the
            failure was that messages cannot be delivered).
        retry_later: Whether running again later may succeed without repeating a side
            effect (a message that could not be delivered for now); a one-time task is then
            put back with a backoff instead of ending.
        again_at: Run the task again then, before its next scheduled run (a reminder that
            repeats until it is acknowledged).
        first_look: Whether the failure was a monitor's first look: its owner is told at
            once (the address or what it watches may be wrong), not at the failure alert.
    """

    status: RunStatus
    result: str | None = None
    error: str | None = None
    notify_failure: bool = True
    retry_later: bool = False
    again_at: datetime | None = None
    first_look: bool = False


class TaskRunner(Protocol):
    """Runs one claimed run of a task."""

    async def run(self, task: Task, run: TaskRun) -> RunReport:
        """Do the task's work and deliver its result; report how it went."""
        ...


class Deliverer:
    """Delivers through a ``Notifier``, retrying FAILED deliveries with backoff.

    Args:
        notifier: Where messages go.
        sleep: Waits between attempts (the clock's ``sleep``, so tests do not wait).
        attempts: Delivery attempts before a FAILED delivery is final.
        backoff: Seconds before the second attempt; doubles each time.
    """

    def __init__(
        self, notifier: Notifier, *, sleep: Sleep, attempts: int = 3, backoff: float = 1.0
    ) -> None:
        self.notifier = notifier
        self._sleep = sleep
        self._attempts = max(1, attempts)
        self._backoff = backoff

    async def deliver(self, delivery: Delivery) -> DeliveryStatus:
        """Deliver, retrying FAILED; BLOCKED, HELD and DELIVERED are final at once."""
        status = await self._attempt(delivery)
        return await self._again(delivery) if status is DeliveryStatus.FAILED else status

    async def report(
        self,
        task: Task,
        run: TaskRun,
        kind: DeliveryKind,
        text: str,
        result: str,
        *,
        urgent: bool = False,
        nags: bool = False,
    ) -> RunReport:
        """Deliver ``text`` for this run and turn the delivery status into a report
        (``urgent`` passes the owner's quiet hours; ``nags``: it repeats until acknowledged)."""
        delivery = Delivery(
            task_id=task.id,
            run_id=run.id,
            owner_id=task.owner_id,
            chat_id=task.chat_id,
            kind=kind,
            text=text if run.late_by is None else text + late_note(task, run),
            late_by=run.late_by,
            urgent=urgent,
            nags=nags,
        )
        # ``deliver`` written out: a burst's deliveries pass through two coroutines fewer.
        try:
            status = await self.notifier.deliver(delivery)
        except Exception:
            status = _raised(delivery)
        if status is DeliveryStatus.FAILED:
            status = await self._again(delivery)
        if status is DeliveryStatus.DELIVERED:
            return _succeeded(result)
        if status is DeliveryStatus.HELD:
            return RunReport(RunStatus.SUCCEEDED, result=held_result(result))
        if status is DeliveryStatus.BLOCKED:
            return RunReport(RunStatus.UNDELIVERED, result=result, error=BLOCKED_ERROR)
        return RunReport(
            RunStatus.FAILED,
            result=result,
            error=f"the message could not be delivered after {self._attempts} attempts",
            notify_failure=False,
            retry_later=True,
        )

    async def _again(self, delivery: Delivery) -> DeliveryStatus:
        """The attempts after a failed first one, with backoff."""
        status = DeliveryStatus.FAILED
        for attempt in range(1, self._attempts):
            await self._sleep(self._backoff * 2 ** (attempt - 1))
            status = await self._attempt(delivery)
            if status is not DeliveryStatus.FAILED:
                break
        return status

    async def _attempt(self, delivery: Delivery) -> DeliveryStatus:
        try:
            return await self.notifier.deliver(delivery)
        except Exception:
            return _raised(delivery)


def _raised(delivery: Delivery) -> DeliveryStatus:
    """A Notifier must not raise; one that does made a failed attempt (said in the log)."""
    log.exception("the notifier raised while delivering for task %s", delivery.task_id)
    return DeliveryStatus.FAILED


@functools.lru_cache(maxsize=64)
def _succeeded(result: str) -> RunReport:
    """The report of a successful run (frozen, so runs with the same result share one)."""
    return RunReport(RunStatus.SUCCEEDED, result=result)


def late_note(task: Task, run: TaskRun) -> str:
    """Say why a run comes late: ``(late by 2 h: it was due at 09:00 (Europe/Berlin))``."""
    if run.late_by is None:
        return ""
    due = format_local(run.scheduled_for, task.schedule.tz)
    note = (
        f"\n(late by {format_lateness(run.late_by)}: it was due at {due} ({task.schedule.tz.key})"
    )
    if run.misfire is MisfireAction.COALESCED and run.missed:
        note += f"; {run.missed} earlier missed run{'s' if run.missed != 1 else ''} combined"
    return note + ")"


def wrong_data(task: Task) -> RunReport:
    """The failure of a run whose task carries another type's execution data."""
    return RunReport(
        RunStatus.FAILED,
        error=(
            f"task {task.id!r} of type {task.task_type.value!r} carries "
            f"{type(task.execution).__name__} data; recreate the task"
        ),
    )


def held_result(result: str) -> str:
    """``result`` of a run whose message waits for the end of quiet hours ("reminder
    delivered" becomes "reminder held for quiet hours"; its release adds when it went)."""
    if " delivered" in result:
        return result.replace(" delivered", " held for quiet hours", 1)
    return f"{result} (held for quiet hours)"

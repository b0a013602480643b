"""The ``reminder`` runner: the reminder's text, delivered by code (no LLM call).

A reminder that nags (``nag_minutes``) comes again every so many minutes until its owner
acknowledges it (Done, "done", ``/done``): each delivery asks the scheduler to run it again
then (``RunReport.again_at``), and an acknowledgement moves the task past it. A repeat
claimed just before an acknowledgement (by another scheduler) is dropped here: it looks for
an acknowledgement made since it was claimed.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Protocol
from zoneinfo import ZoneInfo

from common import Clock, LazyPattern, SystemClock
from tasks.errors import ScheduleError, TaskDataError
from tasks.execution import MAX_NAG_MINUTES, ReminderData
from tasks.models import RunStatus, Task, TaskRun
from tasks.protocols import DeliveryKind
from tasks.runners.base import Deliverer, RunReport, wrong_data
from tasks.schedule import IntervalSchedule, read_delay, read_schedule
from tasks.schedule.model import format_local

ACKNOWLEDGED_BEFORE = RunReport(
    RunStatus.SKIPPED, error="acknowledged just before this repeat went out"
)


class Acknowledgements(Protocol):
    """Whether a task was acknowledged since an instant (the task store)."""

    async def acknowledged_since(self, task_id: str, since: datetime) -> bool:
        """Whether the task was acknowledged at ``since`` or later."""
        ...


_EVERY = LazyPattern(r"^(?:every|each)\s+", re.IGNORECASE)
_EPOCH = datetime(2000, 1, 1, tzinfo=UTC)


def read_nag(words: str) -> int:
    """How many minutes a reminder that nags waits between repeats, read from how often it
    was said ("10 minutes", "every minute", "every other minute", "half an hour", "an
    hour"): any span the schedule language reads after "every".

    Raises:
        TaskDataError: when the words are no span, or not 1 to ``MAX_NAG_MINUTES`` minutes,
            quoting them.
    """
    said = " ".join(str(words).split())
    span = _EVERY.sub("", said, count=1)
    try:
        delay = read_delay(span)
        every = delay.total if delay is not None else _interval(f"every {span}")
    except ScheduleError:
        every = None
    minutes = None if every is None else round(every.total_seconds() / 60)
    if minutes is None or not 1 <= minutes <= MAX_NAG_MINUTES:
        raise TaskDataError(
            f"a reminder nags every 1 to {MAX_NAG_MINUTES:,} minutes (a day), and {said!r} is "
            f"{'not a span' if minutes is None else f'{minutes:,} minutes'}; say e.g. 'every "
            "10 minutes', 'every minute' or 'every hour'"
        )
    return minutes


def _interval(words: str) -> timedelta | None:
    """The interval of a repeating schedule such as "every other minute", or ``None``."""
    schedule = read_schedule(words, now=_EPOCH, tz=ZoneInfo("UTC"), recurring=True).schedule
    return schedule.every if isinstance(schedule, IntervalSchedule) else None


def nag_note(minutes: int) -> str:
    """What a nagging reminder says under its text."""
    return f"(again every {minutes} min until you press Done or say 'done')"


class ReminderRunner:
    """Delivers a reminder's text by code: zero LLM calls.

    Args:
        deliverer: Where it goes.
        acks: Where acknowledgements are recorded (a nagging reminder's repeats look).
        clock: When its next repeat falls.
    """

    def __init__(
        self,
        deliverer: Deliverer,
        *,
        acks: Acknowledgements | None = None,
        clock: Clock | None = None,
    ) -> None:
        self._deliverer = deliverer
        self._acks = acks
        self._clock = clock or SystemClock()

    async def run(self, task: Task, run: TaskRun) -> RunReport:
        """Deliver the reminder as a REMINDER message (and ask for its repeat, if it nags)."""
        data = task.execution
        if not isinstance(data, ReminderData):
            return wrong_data(task)
        nag = data.nag_minutes
        if nag is None:
            return await self._deliverer.report(
                task, run, DeliveryKind.REMINDER, data.message, result="reminder delivered",
                urgent=data.urgent,
            )  # fmt: skip
        if self._acks is not None and await self._acks.acknowledged_since(task.id, run.claimed_at):
            return ACKNOWLEDGED_BEFORE
        report = await self._deliverer.report(
            task, run, DeliveryKind.REMINDER, f"{data.message}\n{nag_note(nag)}",
            result="reminder delivered", urgent=data.urgent, nags=True,
        )  # fmt: skip
        if report.status is not RunStatus.SUCCEEDED:
            return report
        again = self._clock.now() + timedelta(minutes=nag)
        clock = format_local(again, task.schedule.tz).split(" ")[-1]
        said = f"{report.result}; again at {clock} unless acknowledged"
        return RunReport(report.status, result=said, again_at=again)

"""The ``reminder`` runner: the reminder's text, delivered by code (no LLM call)."""

from __future__ import annotations

from tasks.execution import ReminderData
from tasks.models import Task, TaskRun
from tasks.protocols import DeliveryKind
from tasks.runners.base import Deliverer, RunReport, wrong_data


class ReminderRunner:
    """Delivers a reminder's text by code: zero LLM calls."""

    def __init__(self, deliverer: Deliverer) -> None:
        self._deliverer = deliverer

    async def run(self, task: Task, run: TaskRun) -> RunReport:
        """Deliver the reminder as a REMINDER message."""
        data = task.execution
        if not isinstance(data, ReminderData):
            return wrong_data(task)
        return await self._deliverer.report(
            task, run, DeliveryKind.REMINDER, data.message, result="reminder delivered"
        )

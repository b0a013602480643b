"""Runs claimed ahead of their time, and which of them were retracted while they waited.

The timer claims the runs due in the next moment in one transaction and starts each one at
its exact time. A task cancelled or paused in that moment has a run already claimed; it is
retracted here, and the run is then recorded as skipped instead of running.
"""

from __future__ import annotations

import asyncio

from common import Clock
from tasks.models import Claim


class ClaimedAhead:
    """Keeps the runs that wait for their time, by task, so a cancel can retract them.

    Args:
        clock: The source of time; waiting runs sleep on it.
    """

    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self._runs: set[int] = set()
        self._waiting: dict[str, int] = {}
        self._retracted: set[str] = set()
        self._never = asyncio.Event()

    def note(self, claim: Claim) -> None:
        """Register a run claimed before its time (before it first awaits, so a cancel
        right away still retracts it)."""
        self._runs.add(claim.run.id)
        task_id = claim.task.id
        self._waiting[task_id] = self._waiting.get(task_id, 0) + 1

    async def wait_until_due(self, claim: Claim) -> bool:
        """Wait until a noted run is due; return whether it was retracted meanwhile.

        A run that was not noted returns ``False`` at once.
        """
        task_id = claim.task.id
        if claim.run.id not in self._runs:
            return False
        try:
            await self._clock.sleep_until(claim.run.scheduled_for, self._never)
        finally:
            self._runs.discard(claim.run.id)
            self._waiting[task_id] -= 1
            if not self._waiting[task_id]:
                del self._waiting[task_id]
        retracted = task_id in self._retracted
        if task_id not in self._waiting:
            self._retracted.discard(task_id)
        return retracted

    def retract(self, task_id: str) -> None:
        """Keep the task's runs that wait for their time from running (cancel, pause)."""
        if task_id in self._waiting:
            self._retracted.add(task_id)

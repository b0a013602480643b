"""The claimed runs that have not started yet, earliest first, and which of them were retracted.

The timer claims runs a moment before they are due (a burst: as long before as its claims
take) and the executor starts each one at its exact time, as a slot is free. Until then a
run is only an entry here, not an event-loop task: a burst of 100,000 runs costs a heap of
claims, not 100,000 sleeping tasks. A task cancelled or paused meanwhile has a run already
claimed; it is retracted here, and the run is then recorded as skipped instead of running.
"""

from __future__ import annotations

import heapq
from datetime import datetime

from tasks.models import Claim


class ClaimedAhead:
    """The claimed runs waiting for their time or for a free worker, by scheduled time."""

    def __init__(self) -> None:
        self._heap: list[tuple[datetime, int, Claim]] = []
        self._retracted: set[int] = set()  # run ids

    def __len__(self) -> int:
        return len(self._heap)

    def add(self, claim: Claim) -> None:
        """Queue a claimed run until its ``scheduled_for``."""
        run = claim.run
        heapq.heappush(self._heap, (run.scheduled_for, run.id, claim))

    def next_due(self) -> datetime | None:
        """The scheduled time of the earliest queued run, or ``None`` when none waits."""
        return self._heap[0][0] if self._heap else None

    def bunched(self) -> bool:
        """Whether another queued run shares the earliest one's time (a burst). The second
        earliest is always a child of the heap's root."""
        heap = self._heap
        if len(heap) < 2:
            return False
        first = heap[0][0]
        return heap[1][0] == first or (len(heap) > 2 and heap[2][0] == first)

    def pop_due(self, now: datetime) -> tuple[Claim, bool] | None:
        """Take the earliest run due by ``now``, and whether it was retracted meanwhile."""
        if not self._heap or self._heap[0][0] > now:
            return None
        claim = heapq.heappop(self._heap)[2]
        if not self._retracted:
            return claim, False
        retracted = claim.run.id in self._retracted
        self._retracted.discard(claim.run.id)
        return claim, retracted

    def queued(self, task_id: str) -> Claim | None:
        """The task's earliest queued run that was not retracted, or ``None``."""
        found = [
            claim
            for _, _, claim in self._heap
            if claim.task.id == task_id and claim.run.id not in self._retracted
        ]
        return min(found, key=lambda claim: claim.run.scheduled_for, default=None)

    def retract(self, task_id: str) -> None:
        """Keep the task's queued runs from running (cancel, pause).

        It looks at every queued run: cancelling is rare, and a queue holds more than the
        runs of the next moment only during a burst.
        """
        self._retracted.update(
            claim.run.id for _, _, claim in self._heap if claim.task.id == task_id
        )

    def clear(self) -> list[tuple[Claim, bool]]:
        """Take every queued run off the queue (the manager stops) and return them, each with
        whether it was retracted."""
        claims = [(claim, claim.run.id in self._retracted) for _, _, claim in self._heap]
        self._heap.clear()
        self._retracted.clear()
        return claims

"""The heartbeat of a manager's runs in flight: their leases are renewed while it lives.

A claim holds its run under a short lease. While this manager has runs in flight (claimed,
running, or waiting for their ledger write), a background beat extends all their leases
every third of the lease, with one store write for all of them. A manager that dies stops
beating, so its runs are retried soon after; a run that is merely slow (an agent task, a
delivery waiting out a rate limit) is never taken over while its manager lives.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence
from datetime import datetime, timedelta

from common import Clock
from tasks.errors import TaskError
from tasks.models import RunOutcome
from tasks.store.base import TaskStore

log = logging.getLogger(__name__)

MIN_LEASE = timedelta(seconds=1)


class LeaseKeeper:
    """Renews the leases of the runs this manager holds.

    Args:
        store: Where the leases are.
        clock: The source of time; the beat sleeps on it.
        lease: How long a claim holds; the beat renews every third of it.

    Raises:
        TaskError: when ``lease`` is shorter than one second.
    """

    def __init__(self, store: TaskStore, clock: Clock, lease: timedelta) -> None:
        if lease < MIN_LEASE:
            raise TaskError(
                f"the lease must be at least 1 second (runs are renewed every third of it), "
                f"got {lease!r}; e.g. timedelta(seconds=10)"
            )
        self._store = store
        self._clock = clock
        self.lease = lease
        self.interval = lease / 3
        self._held: set[int] = set()
        self._finishing: set[int] = set()
        self._next_beat: datetime | None = None
        self._wake = asyncio.Event()
        self._beat: asyncio.Task[None] | None = None

    @property
    def held(self) -> frozenset[int]:
        """The ids of the runs whose leases this keeper renews."""
        return frozenset(self._held)

    def hold(self, run_id: int) -> None:
        """Start renewing the lease of a run this manager just claimed."""
        if not self._held:
            self._next_beat = self._clock.now() + self.interval
            self._wake.set()
        self._held.add(run_id)
        if self._beat is None or self._beat.done():
            self._beat = asyncio.create_task(self._beat_loop(), name="task-lease-heartbeat")

    def finishing(self, run_id: int) -> None:
        """Note that the run's outcome is on its way to the ledger (it stays renewed)."""
        self._finishing.add(run_id)

    def drop(self, run_id: int) -> None:
        """Stop renewing a run that never reached the ledger (it was cancelled)."""
        if run_id not in self._finishing:
            self.release(run_id)

    def release(self, run_id: int) -> None:
        """Stop renewing the run's lease (its outcome is in the ledger, or it was dropped)."""
        self._held.discard(run_id)
        self._finishing.discard(run_id)
        if not self._held:
            self._next_beat = None
            self._wake.set()

    def written(self, outcomes: Sequence[RunOutcome]) -> None:
        """Stop renewing the runs whose outcomes reached the ledger (or failed to)."""
        for outcome in outcomes:
            self.release(outcome.run_id)

    async def renew_if_due(self) -> None:
        """Renew now when a beat is due or overdue (before this manager reclaims leases)."""
        if self._next_beat is not None and self._clock.now() >= self._next_beat:
            await self.renew()

    async def renew(self) -> None:
        """Extend every held lease to now + lease, in one store write."""
        if not self._held:
            return
        now = self._clock.now()
        self._next_beat = now + self.interval
        asked = set(self._held)
        renewed = await self._store.renew_leases(asked, now, lease=self.lease)
        lost = (asked - renewed) & (self._held - self._finishing)
        for run_id in sorted(lost):
            log.warning(
                "run %s lost its lease (it was given up and retried elsewhere); it may be "
                "delivered twice",
                run_id,
            )
            self._held.discard(run_id)

    async def close(self) -> None:
        """Stop beating (held runs are left to expire and be retried)."""
        beat, self._beat = self._beat, None
        if beat is not None:
            beat.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await beat

    async def _beat_loop(self) -> None:
        while self._held:
            self._wake.clear()
            await self._clock.sleep_until(self._next_beat, self._wake)
            try:
                await self.renew_if_due()
            except Exception:
                # The next beat tries again; the leases still have two thirds to run.
                log.exception("could not renew the leases of %d runs", len(self._held))

"""The workers that start queued runs at their time: one watches the clock, the others park.

Claimed runs wait in ``ClaimedAhead`` until they are due. A worker takes the earliest due run
and runs it in its own coroutine, so a run that never waits (a reminder to a fast notifier)
costs a call, not an event-loop task. Workers are called as runs fall due, up to ``size`` of
them. When nothing is due, one idle worker sleeps until the next run's time (the watcher) and
the other idle workers park until they are called: each due run wakes one worker, never
every idle one. A worker that finds no run due first has the executor do the bookkeeping its
runs left for later (``settle``): between the runs of a burst there is nothing else.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import datetime

from common import Clock
from tasks.engine.ahead import ClaimedAhead
from tasks.models import Claim

_YIELD_EVERY = 32  # runs a worker starts in a row before it lets the event loop run


class WorkerPool:
    """Runs the queued runs as they fall due, at most ``size`` at a time.

    Args:
        clock: The source of time; the watcher sleeps on it.
        ahead: The queue of claimed runs, earliest first.
        size: The most runs that run at the same time.
        run: Runs one claim (whether it was retracted, and when it was taken off the queue:
            the time it starts); must not raise.
        settle: Called when a worker finds no run due (before it waits or ends): the
            bookkeeping that ``run`` left for later; must not raise.
    """

    def __init__(
        self,
        *,
        clock: Clock,
        ahead: ClaimedAhead,
        size: int,
        run: Callable[[Claim, bool, datetime], Awaitable[None]],
        settle: Callable[[], None],
    ) -> None:
        self._clock = clock
        self._ahead = ahead
        self._size = size
        self._run = run
        self._settle = settle
        self._workers: set[asyncio.Task[None]] = set()
        self._parked: list[asyncio.Future[None]] = []
        self._watching = False
        self._calling = 0  # workers called (woken or created) that have not looked yet
        self._queued = asyncio.Event()  # runs were queued: the watcher looks again
        self.caught_up = asyncio.Event()
        """Set while no due run waits for a worker."""
        self.caught_up.set()

    def queued(self) -> None:
        """Runs were added to the queue: the watcher looks again, or a worker is called."""
        self._queued.set()
        if not self._watching:
            self._call()

    async def stop(self) -> None:
        """Cancel every worker (the runs they run are cancelled) and wait for them to end."""
        workers = list(self._workers)
        for worker in workers:
            worker.cancel()
        await asyncio.gather(*workers, return_exceptions=True)
        self._parked.clear()
        self._calling = 0
        self._watching = False

    def _call(self) -> None:
        """Have one more worker look at the queue: a parked one, or a new one while fewer than
        ``size`` exist. When every worker is busy, the first one done looks next."""
        if self._calling:
            return  # one is on its way already
        if self._parked:
            self._calling += 1
            self._parked.pop().set_result(None)
        elif len(self._workers) < self._size:
            self._calling += 1
            worker = asyncio.create_task(self._work(), name="task-run-worker")
            self._workers.add(worker)
            worker.add_done_callback(self._workers.discard)

    async def _work(self) -> None:
        """One worker: runs the due runs one after the other while any is queued."""
        self._calling -= 1
        ahead, clock, caught_up, ran = self._ahead, self._clock, self.caught_up, 0
        # Written out (few calls): every run of a burst passes here.
        while True:
            now = clock.now()
            due = ahead.pop_due(now)
            if due is None:
                self._settle()
                if not ahead:
                    break
                caught_up.set()
                await self._wait()
                continue
            caught_up.clear()
            if not self._watching and not self._calling and ahead:
                self._call()  # while this run runs, another worker keeps the time
            await self._run(due[0], due[1], now)
            ran += 1
            if ran % _YIELD_EVERY == 0:
                await asyncio.sleep(0)
        caught_up.set()
        self._release_parked()

    async def _wait(self) -> None:
        """Sleep until the next run is due or more are queued (the watcher), or park until
        called when another worker watches already."""
        if self._watching:
            parked = asyncio.get_running_loop().create_future()
            self._parked.append(parked)
            await parked
            self._calling -= 1
            return
        self._watching = True
        self._queued.clear()
        try:
            # The first run of a burst starts exactly at its time (its lateness is every
            # other's); a run alone may start up to a millisecond late (``Clock``).
            ahead = self._ahead
            await self._clock.sleep_until(ahead.next_due(), self._queued, exact=ahead.bunched())
        finally:
            self._watching = False

    def _release_parked(self) -> None:
        """The queue is empty: wake the parked workers, which end."""
        while self._parked:
            self._calling += 1
            self._parked.pop().set_result(None)

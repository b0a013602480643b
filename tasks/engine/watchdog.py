"""A time limit shared by many runs, kept with one timer instead of one per run.

``asyncio.timeout`` arms a timer per use: a heap push on entry and a cancelled handle left in
the heap on exit. Under a burst of 10,000 runs that was a fifth of the event loop's work.
Every run gets the same limit, so their deadlines come in the order the runs start: a queue
of guards and one timer, for the oldest guard still open, do the same job.
"""

from __future__ import annotations

import asyncio
from collections import deque
from types import TracebackType


class Watchdog:
    """Cancels the code inside a guard that overruns ``limit`` seconds, as a ``TimeoutError``.

    Args:
        limit: The seconds any one guard may stay open.
    """

    def __init__(self, limit: float) -> None:
        self.limit = limit
        self._guards: deque[Guard] = deque()
        self._timer: asyncio.TimerHandle | None = None

    def guard(self) -> Guard:
        """Return a context manager limiting the current task's time inside it.

        Use it like ``asyncio.timeout``: ``with watchdog.guard(): await work()``. When the
        limit passes, the task is cancelled and the guard raises ``TimeoutError`` on exit;
        a cancellation from elsewhere passes through unchanged.
        """
        return Guard(self)

    def _arm(self, deadline: float) -> None:
        self._timer = asyncio.get_running_loop().call_at(deadline, self._fire)

    def _fire(self) -> None:
        self._timer = None
        now = asyncio.get_running_loop().time()
        guards = self._guards
        while guards and (guards[0].closed or guards[0].deadline <= now):
            expired = guards.popleft()
            if not expired.closed:
                expired.expire()
        if guards:
            self._arm(guards[0].deadline)


class Guard:
    """One use of a ``Watchdog`` (see ``Watchdog.guard``)."""

    __slots__ = ("_cancelling", "_task", "_watchdog", "closed", "deadline", "expired")

    def __init__(self, watchdog: Watchdog) -> None:
        self._watchdog = watchdog
        self.deadline = 0.0
        self.closed = False
        self.expired = False
        self._task: asyncio.Task[object] | None = None
        self._cancelling = 0

    def __enter__(self) -> Guard:
        # Written out (no helper calls): every run of a burst enters one.
        loop = asyncio.get_running_loop()
        task = asyncio.current_task(loop)
        if task is None:
            raise RuntimeError("a watchdog guard must be used inside a task")
        self._task = task
        self._cancelling = task.cancelling()
        watchdog = self._watchdog
        self.deadline = loop.time() + watchdog.limit
        watchdog._guards.append(self)
        if watchdog._timer is None:
            watchdog._arm(self.deadline)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.closed = True
        # The closed guards at the head of the queue go: runs mostly end in the order they
        # started, so a burst's guards do not wait out the limit in memory.
        guards = self._watchdog._guards
        while guards and guards[0].closed:
            guards.popleft()
        # A guard behind an open one waits in the queue; the task must not wait with it.
        task, self._task = self._task, None
        if not self.expired or task is None:
            return
        # Our own cancel request is taken back; only when no other one is pending does the
        # cancellation become the timeout (the rule asyncio.timeout follows).
        if task.uncancel() <= self._cancelling and exc_type is asyncio.CancelledError:
            raise TimeoutError from exc

    @property
    def task(self) -> asyncio.Task[object] | None:
        """The guarded task while the guard is open (``None`` once it closed)."""
        return self._task

    def expire(self) -> None:
        """Cancel the guarded task: its time is up."""
        if self._task is not None and not self.closed:
            self.expired = True
            self._task.cancel()

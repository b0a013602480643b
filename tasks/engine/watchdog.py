"""A time limit shared by many runs, kept with one timer instead of one per run.

``asyncio.timeout`` arms a timer per use: a heap push on entry and a cancelled handle left in
the heap on exit. Under a burst of 10,000 runs that was a fifth of the event loop's work.
Every run gets the same limit, and an executor's worker runs its runs one after the other: so
each task has one guard, used again for each of its runs (entering it writes a deadline,
leaving it lowers a flag), and one timer looks at the open guards when the earliest deadline
it knows of passes.
"""

from __future__ import annotations

import asyncio
from types import TracebackType


class Watchdog:
    """Cancels the code inside a guard that overruns ``limit`` seconds, as a ``TimeoutError``.

    Args:
        limit: The seconds any one guard may stay open (fixed for the watchdog's life).
    """

    def __init__(self, limit: float) -> None:
        self.limit = limit
        self._guards: dict[asyncio.Task[object], Guard] = {}  # forgotten as the task ends
        self._timer: asyncio.TimerHandle | None = None

    def guard(self) -> Guard:
        """Return the current task's guard, a context manager limiting its time inside.

        Use it like ``asyncio.timeout``: ``with watchdog.guard(): await work()``. When the
        limit passes, the task is cancelled and the guard raises ``TimeoutError`` on exit;
        a cancellation from elsewhere passes through unchanged. A task's guards do not nest.
        """
        task = asyncio.current_task()
        if task is None:
            raise RuntimeError("a watchdog guard must be used inside a task")
        guard = self._guards.get(task)
        if guard is None:
            guard = self._guards[task] = Guard(self, task)
            task.add_done_callback(self._forget)
        return guard

    def _forget(self, task: asyncio.Task[object]) -> None:
        self._guards.pop(task, None)

    def _arm(self, loop: asyncio.AbstractEventLoop, deadline: float) -> None:
        self._timer = loop.call_at(deadline, self._fire, loop)

    def _fire(self, loop: asyncio.AbstractEventLoop) -> None:
        """Cancel the open guards whose time is up; wait for the earliest of the others.

        Every guard opened after the timer was armed has a later deadline (the limit is
        the same for all), so the timer never passes an open guard's deadline unseen.
        """
        self._timer = None
        now = loop.time()
        earliest: float | None = None
        for guard in list(self._guards.values()):
            if not guard.open or guard.expired:
                continue
            if guard.deadline <= now:
                guard.expire()
            elif earliest is None or guard.deadline < earliest:
                earliest = guard.deadline
        if earliest is not None:
            self._arm(loop, earliest)


class Guard:
    """One task's use of a ``Watchdog`` (see ``Watchdog.guard``), open or not."""

    __slots__ = ("_cancelling", "_loop", "_task", "_watchdog", "deadline", "expired", "open")

    def __init__(self, watchdog: Watchdog, task: asyncio.Task[object]) -> None:
        self._watchdog = watchdog
        self._task = task
        self._loop = task.get_loop()
        self.deadline = 0.0
        self.open = False
        self.expired = False
        self._cancelling = 0

    def __enter__(self) -> Guard:
        # Written out (no helper calls): every run of a burst enters one.
        if self.open:
            raise RuntimeError("this task's watchdog guard is open already; guards do not nest")
        watchdog = self._watchdog
        self.deadline = self._loop.time() + watchdog.limit
        self._cancelling = self._task.cancelling()
        self.open = True
        if watchdog._timer is None:
            watchdog._arm(self._loop, self.deadline)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.open = False
        if not self.expired:
            return
        self.expired = False
        # Our own cancel request is taken back; only when no other one is pending does the
        # cancellation become the timeout (the rule asyncio.timeout follows).
        if self._task.uncancel() <= self._cancelling and exc_type is asyncio.CancelledError:
            raise TimeoutError from exc

    @property
    def task(self) -> asyncio.Task[object] | None:
        """The guarded task while the guard is open (``None`` while it is closed)."""
        return self._task if self.open else None

    def expire(self) -> None:
        """Cancel the guarded task: its time is up."""
        if self.open and not self.expired:
            self.expired = True
            self._task.cancel()

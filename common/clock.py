"""Clocks: the scheduler asks a clock for the time and for sleeping, so tests control time.

``SystemClock`` is real time. ``ManualClock`` is time a test moves by hand: ``sleep_until``
returns when the test advances the clock past the deadline (or something wakes the sleeper),
and ``sleep`` advances the clock by itself, so code that backs off between retries finishes
at once while still observing the time it waited.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from datetime import UTC, datetime, timedelta
from typing import Protocol


def require_aware(instant: datetime, name: str = "instant") -> datetime:
    """Return ``instant`` converted to UTC.

    Raises:
        ValueError: when ``instant`` has no time zone.
    """
    if instant.tzinfo is None or instant.utcoffset() is None:
        raise ValueError(
            f"{name} must carry a time zone, got the naive {instant.isoformat()!r}; "
            "use e.g. datetime.now(UTC)"
        )
    return instant.astimezone(UTC)


class Clock(Protocol):
    """The scheduler's source of time."""

    def now(self) -> datetime:
        """Return the current instant, timezone-aware, in UTC."""
        ...

    async def sleep_until(
        self, deadline: datetime | None, wake: asyncio.Event, *, exact: bool = False
    ) -> None:
        """Return at ``deadline`` (never, when ``None``) or as soon as ``wake`` is set.

        Yields to the event loop at least once, even when the deadline has passed or
        ``wake`` is already set: a caller that is behind still lets the ready tasks run.
        With ``exact``, return as close after ``deadline`` as the clock can (a run's start);
        without it, within about a millisecond after it.
        """
        ...

    async def sleep(self, seconds: float) -> None:
        """Wait ``seconds`` (a retry backoff)."""
        ...


_EPOLL_STEP = 0.001
"""The event loop's waits end on whole milliseconds (epoll), rounded up: up to this late."""


class SystemClock:
    """Real time from the operating system."""

    def now(self) -> datetime:
        """Return the current instant in UTC."""
        return datetime.now(UTC)

    async def sleep_until(
        self, deadline: datetime | None, wake: asyncio.Event, *, exact: bool = False
    ) -> None:
        """Wait on ``wake`` with a timeout that ends at ``deadline`` (always yielding once).

        The event loop's timeouts end up to a millisecond late. With ``exact`` the loop's
        wait ends a millisecond early and the thread sleeps the rest (at most that
        millisecond, with the operating system's finer timer): the loop is held for it,
        which only a run due at that instant asks for.
        """
        delay = None if deadline is None else (deadline - self.now()).total_seconds()
        if wake.is_set() or (delay is not None and delay <= 0):
            await asyncio.sleep(0)
            return
        if delay is None:
            await wake.wait()
            return
        coarse = delay - _EPOLL_STEP if exact else delay
        if coarse <= 0:
            await asyncio.sleep(0)
        else:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(coarse):
                    await wake.wait()
        if exact and deadline is not None and not wake.is_set():
            rest = (deadline - self.now()).total_seconds()
            if rest > 0:
                time.sleep(min(rest, _EPOLL_STEP))  # noqa: ASYNC251 (at most 1 ms, on purpose)

    async def sleep(self, seconds: float) -> None:
        """Sleep for real."""
        await asyncio.sleep(max(0.0, seconds))


class ManualClock:
    """A clock that only moves when told to (tests).

    Args:
        start: The initial instant; must be timezone-aware.
    """

    def __init__(self, start: datetime) -> None:
        self._now = require_aware(start, "start")
        self._moved = asyncio.Event()
        self.slept: list[float] = []

    def now(self) -> datetime:
        """Return the clock's current instant."""
        return self._now

    def set(self, instant: datetime) -> None:
        """Move the clock to ``instant`` and wake every sleeper whose deadline passed.

        Raises:
            ValueError: when ``instant`` is naive or earlier than the current time.
        """
        instant = require_aware(instant)
        if instant < self._now:
            raise ValueError(
                f"a ManualClock only moves forward: {instant.isoformat()!r} is before "
                f"{self._now.isoformat()!r}"
            )
        self._now = instant
        moved, self._moved = self._moved, asyncio.Event()
        moved.set()

    def advance(self, delta: timedelta | float) -> datetime:
        """Move the clock forward by ``delta`` (a timedelta or seconds) and return the new time."""
        step = delta if isinstance(delta, timedelta) else timedelta(seconds=delta)
        self.set(self._now + step)
        return self._now

    async def sleep_until(
        self, deadline: datetime | None, wake: asyncio.Event, *, exact: bool = False
    ) -> None:
        """Return once the clock reaches ``deadline`` or ``wake`` is set (yields at least once;
        always exact)."""
        await asyncio.sleep(0)
        while not wake.is_set() and (deadline is None or self._now < deadline):
            moved = self._moved
            waiters = {
                asyncio.ensure_future(wake.wait()),
                asyncio.ensure_future(moved.wait()),
            }
            try:
                await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for waiter in waiters:
                    waiter.cancel()

    async def sleep(self, seconds: float) -> None:
        """Record the wait, advance the clock by ``seconds`` and yield once to the loop."""
        self.slept.append(seconds)
        if seconds > 0:
            self.advance(seconds)
        await asyncio.sleep(0)

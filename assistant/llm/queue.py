"""A first-come, first-served queue for one model that serves one request at a time."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, Callable

from assistant.llm.base import Waiting

Monotonic = Callable[[], float]


class Ticket:
    """One request's place in a ``ModelQueue``."""

    def __init__(self, granted: asyncio.Future[None]) -> None:
        self.granted = granted


class ModelQueue:
    """Serves requests one at a time, in the order they came, and says who waits how long.

    A request ``join``s, waits for its turn (``wait`` yields ``Waiting`` notices while it
    waits long), and ``leave``s when done or given up; leaving hands the model to the next.
    """

    def __init__(self, *, notice_after: float = 2.0, monotonic: Monotonic = time.monotonic):
        """Create a queue.

        Args:
            notice_after: Seconds of waiting before the first notice; after it, a notice
                follows whenever the place in the queue changes.
            monotonic: The clock that measures waits.
        """
        self._notice_after = notice_after
        self._monotonic = monotonic
        self._holder: Ticket | None = None
        self._waiting: list[Ticket] = []

    def __len__(self) -> int:
        """Requests running or waiting."""
        return len(self._waiting) + (self._holder is not None)

    def join(self) -> Ticket:
        """Take a place; the ticket is granted at once when the model is free."""
        ticket = Ticket(asyncio.get_running_loop().create_future())
        if self._holder is None:
            self._grant(ticket)
        else:
            self._waiting.append(ticket)
        return ticket

    def ahead_of(self, ticket: Ticket) -> int:
        """Requests that will be served before ``ticket`` (0 once it is granted)."""
        if ticket is self._holder or ticket not in self._waiting:
            return 0
        return self._waiting.index(ticket) + (self._holder is not None)

    async def wait(self, ticket: Ticket) -> AsyncGenerator[Waiting, None]:
        """Wait for ``ticket``'s turn, yielding a notice whenever the wait is long."""
        started = self._monotonic()
        said: int | None = None
        while not ticket.granted.done():
            try:
                await asyncio.wait_for(asyncio.shield(ticket.granted), self._notice_after)
            except TimeoutError:
                ahead = self.ahead_of(ticket)
                if ahead and ahead != said:
                    said = ahead
                    yield Waiting(ahead=ahead, waited=self._monotonic() - started)

    def leave(self, ticket: Ticket) -> None:
        """Give up the place (waiting) or the model (granted); the next in line is served."""
        if ticket is self._holder:
            self._holder = None
            if self._waiting:
                self._grant(self._waiting.pop(0))
        elif ticket in self._waiting:
            self._waiting.remove(ticket)

    def _grant(self, ticket: Ticket) -> None:
        self._holder = ticket
        if not ticket.granted.done():
            ticket.granted.set_result(None)

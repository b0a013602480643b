"""A fair queue in front of a model: a few requests at a time, taken from users in turn.

A model serves a few requests at once (one for a model in this process, a handful for a
server). When more arrive, first come first served lets one user's flood hold up everyone
else. ``ModelQueue`` instead keeps each user's waiting requests in their own line and serves
the lines in turn, and no user holds more than ``per_user`` of the places: another user's
request waits for at most the requests already running, never behind the flood.

Whose request it is comes from ``REQUESTER``, which the agent sets for the turn it runs
(the backends' signatures stay those of every other backend).
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import AsyncGenerator, Callable
from contextvars import ContextVar

from agent.llm.base import Waiting

Monotonic = Callable[[], float]

REQUESTER: ContextVar[str] = ContextVar("model_requester", default="")
"""The user the model's next request is for ("" when nobody in particular)."""


class Ticket:
    """One request's place in a ``ModelQueue``."""

    def __init__(self, user: str, granted: asyncio.Future[None]) -> None:
        self.user = user
        self.granted = granted


class ModelQueue:
    """Serves requests ``capacity`` at a time, users in turn, and says who waits how long.

    A request ``join``s, waits for its turn (``wait`` yields ``Waiting`` notices while it
    waits long), and ``leave``s when done or given up; leaving hands its place to the next
    user in line.
    """

    def __init__(
        self,
        *,
        capacity: int = 1,
        per_user: int | None = None,
        notice_after: float = 2.0,
        monotonic: Monotonic = time.monotonic,
    ):
        """Create a queue.

        Args:
            capacity: Requests served at once.
            per_user: The most of them one user may hold (default: half, at least one), so
                the rest stay free for others.
            notice_after: Seconds of waiting before the first notice; after it, a notice
                follows whenever the place in the queue changes.
            monotonic: The clock that measures waits.
        """
        if capacity < 1:
            raise ValueError(f"capacity must be 1 or more, got {capacity!r}")
        self.capacity = capacity
        self.per_user = max(1, min(per_user or capacity // 2, capacity))
        self._notice_after = notice_after
        self._monotonic = monotonic
        self._holders: list[Ticket] = []
        self._lines: dict[str, deque[Ticket]] = {}
        """Each user's waiting requests, oldest first."""
        self._served: dict[str, int] = {}
        """When each user with a request here was last given a place (a count)."""
        self._grants = 0

    def __len__(self) -> int:
        """Requests running or waiting."""
        return len(self._holders) + sum(len(line) for line in self._lines.values())

    def join(self, user: str | None = None) -> Ticket:
        """Take a place for ``user`` (by default ``REQUESTER``'s); granted at once when
        there is room."""
        who = REQUESTER.get() if user is None else user
        ticket = Ticket(who, asyncio.get_running_loop().create_future())
        self._lines.setdefault(who, deque()).append(ticket)
        self._serve()
        return ticket

    def ahead_of(self, ticket: Ticket) -> int:
        """Requests that will be served before ``ticket`` (0 once it is granted)."""
        if ticket.granted.done():
            return 0
        order = self._order()
        return len(self._holders) + (order.index(ticket) if ticket in order else 0)

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
        """Give up the place (waiting) or the model (granted); the next in turn is served."""
        if ticket in self._holders:
            self._holders.remove(ticket)
        else:
            line = self._lines.get(ticket.user)
            if line is not None and ticket in line:
                line.remove(ticket)
                if not line:
                    del self._lines[ticket.user]
        self._serve()

    def _held_by(self, user: str) -> int:
        return sum(1 for holder in self._holders if holder.user == user)

    def _turn(self) -> list[str]:
        """The users waiting, the one served longest ago (or never) first."""
        return sorted(self._lines, key=lambda user: self._served.get(user, -1))

    def _serve(self) -> None:
        """Grant places while there is room: to the user served longest ago who may hold
        one more."""
        while len(self._holders) < self.capacity:
            user = next((u for u in self._turn() if self._held_by(u) < self.per_user), None)
            if user is None:
                break
            line = self._lines[user]
            ticket = line.popleft()
            if not line:
                del self._lines[user]
            self._grants += 1
            self._served[user] = self._grants
            self._holders.append(ticket)
            if not ticket.granted.done():
                ticket.granted.set_result(None)
        present = set(self._lines) | {holder.user for holder in self._holders}
        for gone in set(self._served) - present:
            del self._served[gone]

    def _order(self) -> list[Ticket]:
        """The waiting requests in the order they would be served: one from each user in
        turn (what ``per_user`` holds back only delays, so it is left out of the count)."""
        lines = [list(self._lines[user]) for user in self._turn()]
        order: list[Ticket] = []
        for depth in range(max((len(line) for line in lines), default=0)):
            order.extend(line[depth] for line in lines if depth < len(line))
        return order

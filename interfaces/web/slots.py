"""How many turns and event streams one user may have going at once over HTTP.

A turn (``/agent/chat``, ``/agent/stream``, deciding an approval) or an ``/events`` stream
takes one of its user's slots for as long as it runs; one more than the limit is refused at
once with 429, the reason and ``Retry-After``, before any work starts. Each user's slots are
their own: one user's many requests never refuse another user's.
"""

from __future__ import annotations

from collections import Counter

from fastapi import HTTPException


class Slot:
    """One taken slot; ``release`` gives it back (twice is harmless)."""

    def __init__(self, slots: UserSlots, user: str) -> None:
        self._slots: UserSlots | None = slots
        self._user = user

    def release(self) -> None:
        """Give the slot back."""
        slots, self._slots = self._slots, None
        if slots is not None:
            slots.give_back(self._user)


class UserSlots:
    """At most ``limit`` slots taken per user at a time.

    Args:
        limit: Slots per user.
        what: What a slot is, in the refusal ("turns running").
        setting: The variable that raises the limit.
        advice: What the user can do.
    """

    def __init__(self, limit: int, *, what: str, setting: str, advice: str) -> None:
        self.limit = limit
        self._what = what
        self._setting = setting
        self._advice = advice
        self._taken: Counter[str] = Counter()

    def take(self, user: str) -> Slot:
        """Take one of ``user``'s slots.

        Raises:
            HTTPException: 429 with the reason and ``Retry-After`` when all are taken.
        """
        if self._taken[user] >= self.limit:
            raise HTTPException(
                429,
                f"you have {self._taken[user]} {self._what} already, the most one person may "
                f"({self._setting}={self.limit}); {self._advice}",
                headers={"Retry-After": "1"},
            )
        self._taken[user] += 1
        return Slot(self, user)

    def give_back(self, user: str) -> None:
        """Return one of ``user``'s slots."""
        self._taken[user] -= 1
        if self._taken[user] <= 0:
            del self._taken[user]

    def taken(self, user: str) -> int:
        """How many of ``user``'s slots are taken."""
        return self._taken[user]

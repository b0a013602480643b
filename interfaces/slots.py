"""How many turns (or event streams) one user may have going at once.

A turn (the web's ``/agent/chat``, ``/agent/stream``, deciding an approval; MCP's ``ask`` and
its decisions over ``/mcp``) or an ``/events`` stream takes one of its user's slots for as
long as it runs; one more than the limit is refused at once with ``SlotsTaken``, which says
why and what to do, before any work starts (the web answers 429, MCP an error result). Each
user's slots are their own: one user's many requests never refuse another user's.
"""

from __future__ import annotations

from collections import Counter


class SlotsTaken(Exception):
    """Every slot of the user is taken; the message says why and what to do."""


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
            SlotsTaken: all are taken.
        """
        if self._taken[user] >= self.limit:
            raise SlotsTaken(
                f"you have {self._taken[user]} {self._what} already, the most one person may "
                f"({self._setting}={self.limit}); {self._advice}"
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


def turn_slots(limit: int) -> UserSlots:
    """The turns one user may have running at once."""
    return UserSlots(
        limit,
        what="turns running",
        setting="ASSISTANT_MAX_TURNS_PER_USER",
        advice="wait until one has answered, then send this again",
    )

"""Which chats' runs a scheduler claims: those it can deliver to.

With SQLite one scheduler fires every task (the data directory's lock sees to it) and sends
what no attached interface serves to a fallback file. With PostgreSQL several schedulers share
one database, and a run belongs with the one that can reach its chat: a process without the
Telegram bot never claims a Telegram chat's reminder, it leaves it to one that has the bot.
The front end says which chats it serves; the PostgreSQL store claims (and reclaims, and wakes
up for) only those.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ChatScope:
    """The chats whose runs a scheduler claims.

    Attributes:
        only: When set, just these chats.
        excluded: Chats never claimed (applied after ``only``).
    """

    only: frozenset[str] | None = None
    excluded: frozenset[str] = frozenset()

    @classmethod
    def every(cls) -> ChatScope:
        """Every chat."""
        return cls()

    @classmethod
    def just(cls, chats: Iterable[str]) -> ChatScope:
        """Only ``chats``."""
        return cls(only=frozenset(chats))

    @classmethod
    def all_but(cls, chats: Iterable[str]) -> ChatScope:
        """Every chat except ``chats``."""
        return cls(excluded=frozenset(chats))

    def covers(self, chat_id: str) -> bool:
        """Whether a run for ``chat_id`` is this scheduler's to claim."""
        if self.only is not None and chat_id not in self.only:
            return False
        return chat_id not in self.excluded

    def __str__(self) -> str:
        if self.only is None and not self.excluded:
            return "every chat"
        shown = "every chat" if self.only is None else "chats " + ", ".join(sorted(self.only))
        if self.excluded:
            shown += " except " + ", ".join(sorted(self.excluded))
        return shown

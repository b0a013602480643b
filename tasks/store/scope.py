"""Which chats' runs a scheduler claims: those it can deliver to.

With SQLite one scheduler fires every task (the data directory's lock sees to it) and sends
what no attached interface serves to a fallback file. With PostgreSQL several schedulers share
one database, and a run belongs with the one that can reach its chat: a process without the
Telegram bot never claims a Telegram chat's reminder, it leaves it to one that has the bot.
The front end says which chats it serves (by id, or by an id's prefix, as web chats have); the
PostgreSQL store claims (and reclaims, and wakes up for) only those.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ChatScope:
    """The chats whose runs a scheduler claims.

    A chat is covered when it is listed in ``only`` or starts with one of ``only_prefixes``
    (any chat when both are empty), and is neither in ``excluded`` nor starts with one of
    ``excluded_prefixes``.
    """

    only: frozenset[str] = frozenset()
    only_prefixes: frozenset[str] = frozenset()
    excluded: frozenset[str] = frozenset()
    excluded_prefixes: frozenset[str] = frozenset()

    @classmethod
    def every(cls) -> ChatScope:
        """Every chat."""
        return cls()

    @classmethod
    def just(cls, chats: Iterable[str] = (), prefixes: Iterable[str] = ()) -> ChatScope:
        """Only ``chats`` and the chats whose ids start with one of ``prefixes``.

        Raises:
            ValueError: when both are empty (a scheduler that claims nothing).
        """
        scope = cls(only=frozenset(chats), only_prefixes=frozenset(prefixes))
        if not scope.only and not scope.only_prefixes:
            raise ValueError("a scope of just no chat at all claims nothing; name some chats")
        return scope

    @classmethod
    def all_but(cls, chats: Iterable[str] = (), prefixes: Iterable[str] = ()) -> ChatScope:
        """Every chat except ``chats`` and those whose ids start with one of ``prefixes``."""
        return cls(excluded=frozenset(chats), excluded_prefixes=frozenset(prefixes))

    @property
    def is_every(self) -> bool:
        """Whether every chat is covered."""
        return not (self.only or self.only_prefixes or self.excluded or self.excluded_prefixes)

    def covers(self, chat_id: str) -> bool:
        """Whether a run for ``chat_id`` is this scheduler's to claim."""
        if (self.only or self.only_prefixes) and not (
            chat_id in self.only or chat_id.startswith(tuple(self.only_prefixes))
        ):
            return False
        return chat_id not in self.excluded and not chat_id.startswith(
            tuple(self.excluded_prefixes)
        )

    def __str__(self) -> str:
        if self.is_every:
            return "every chat"
        named = sorted(self.only) + [f"{p}*" for p in sorted(self.only_prefixes)]
        shown = "chats " + ", ".join(named) if named else "every chat"
        left = sorted(self.excluded) + [f"{p}*" for p in sorted(self.excluded_prefixes)]
        return shown + (" except " + ", ".join(left) if left else "")

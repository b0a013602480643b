"""The turns each chat's last history load returned, kept decoded for the next load.

An agent reloads a chat's history on every message, and almost all of it is what the last
load returned. Stored turns never change and their ids are never reused (``AUTOINCREMENT``),
so a kept turn is always right: the database still decides which turns are in a window,
the cache only saves reading and decoding their messages again.
"""

from __future__ import annotations

from memory.models import StoredMessage

ChatKey = tuple[str, str]
Turns = dict[int, tuple[StoredMessage, ...]]

DEFAULT_MAX_CHATS = 256
"""How many chats' windows are kept; the least recently loaded go first."""


class ChatWindows:
    """Decoded turns per (user, chat), bounded by a number of chats (least recent go).

    Not thread-safe: only the database connection's thread touches it.
    """

    def __init__(self, max_chats: int = DEFAULT_MAX_CHATS) -> None:
        if max_chats < 1:
            raise ValueError(f"max_chats must be 1 or more, got {max_chats!r}")
        self._max_chats = max_chats
        self._chats: dict[ChatKey, Turns] = {}

    def get(self, key: ChatKey) -> Turns:
        """Return the turns last loaded for the chat (empty when none are kept)."""
        return self._chats.get(key, {})

    def put(self, key: ChatKey, turns: Turns) -> None:
        """Keep ``turns`` as the chat's window, replacing what was kept for it."""
        self._chats.pop(key, None)
        self._chats[key] = turns
        while len(self._chats) > self._max_chats:
            del self._chats[next(iter(self._chats))]

    def drop(self, key: ChatKey) -> None:
        """Forget the chat's window (it was archived or deleted)."""
        self._chats.pop(key, None)

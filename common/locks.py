"""``KeyedLocks``: one asyncio lock per key (a chat), kept only while it is in use."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Hashable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)


@dataclass(slots=True)
class _Entry:
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    users: int = 0  # callers holding the lock or waiting for it


class KeyedLocks(Generic[K]):
    """Runs work one at a time per key, in arrival order; different keys never wait.

    A key's lock exists only while a caller holds it or waits for it, so the map holds the
    keys in use at this moment, never every key ever seen.

    Example:
        >>> locks: KeyedLocks[str] = KeyedLocks()
        >>> async with locks.hold("chat-42"):
        ...     ...  # no other holder of "chat-42" runs meanwhile
    """

    def __init__(self) -> None:
        self._entries: dict[K, _Entry] = {}

    @asynccontextmanager
    async def hold(self, key: K) -> AsyncIterator[None]:
        """Wait for ``key``'s lock, hold it for the block, and drop it when nobody needs it."""
        entry = self._entries.get(key)
        if entry is None:
            entry = self._entries[key] = _Entry()
        entry.users += 1
        try:
            async with entry.lock:
                yield
        finally:
            entry.users -= 1
            if entry.users == 0:
                del self._entries[key]

    def __len__(self) -> int:
        """How many keys are in use (held or waited for)."""
        return len(self._entries)

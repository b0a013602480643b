"""``async with`` for the long-lived objects: entering brings one up, leaving takes it down."""

from __future__ import annotations

from abc import ABC, abstractmethod
from types import TracebackType
from typing import Self


class AsyncLifecycle(ABC):
    """An object used as ``async with obj as opened:``.

    Subclasses say what entering and leaving mean (``open``/``close``, ``start``/``stop``)
    by implementing ``_enter`` and ``_exit``; leaving runs however the block ends.
    """

    async def __aenter__(self) -> Self:
        await self._enter()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self._exit()

    @abstractmethod
    async def _enter(self) -> None:
        """Bring the object up (``async with`` entered)."""

    @abstractmethod
    async def _exit(self) -> None:
        """Take the object down (``async with`` left)."""

"""``async with`` for the long-lived objects: entering brings one up, leaving takes it down."""

from __future__ import annotations

import asyncio
import contextlib
from abc import ABC, abstractmethod
from types import TracebackType
from typing import Any, Self


async def cancel_and_wait(task: asyncio.Task[Any] | None) -> None:
    """Cancel a background task (``None``: there is none) and wait until it has ended."""
    if task is not None:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


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

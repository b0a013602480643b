"""A language model made ready when it is first needed.

Loading a local model takes a noticeable time and memory, and a turn the offline planner
completes needs no model at all. ``LazyModel`` builds the backend (and loads it, for a
backend that loads) on the first request that needs it; a long-running front end starts
that in the background (``start``) so the first model turn does not wait, while turns the
planner completes never wait for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from typing import Protocol, runtime_checkable

from agent.llm.base import LLMBackend
from agent.llm.errors import LLMError

logger = logging.getLogger(__name__)


@runtime_checkable
class SupportsLoad(Protocol):
    """A backend that has something to load before it answers (a local model)."""

    async def load(self) -> None:
        """Load now.

        Raises:
            LLMModelError: the model cannot be used; the message says why.
        """
        ...


class LazyModel:
    """A backend built, and loaded, when first needed; see the module docstring.

    Args:
        build: Makes the backend (cheap: a local model is loaded afterwards, by ``load``).
        name: What to call the model in log lines.
    """

    def __init__(
        self, build: Callable[[], LLMBackend], *, name: str = "the language model"
    ) -> None:
        self._build = build
        self._name = name
        self._backend: LLMBackend | None = None
        self._ready: asyncio.Task[LLMBackend] | None = None

    @classmethod
    def of(cls, backend: LLMBackend) -> LazyModel:
        """A backend that is already made (it still loads on first need, if it loads)."""
        return cls(lambda: backend, name=type(backend).__name__)

    @property
    def built(self) -> bool:
        """Whether the backend has been made (``build`` was called)."""
        return self._backend is not None

    @property
    def backend(self) -> LLMBackend | None:
        """The backend, once made."""
        return self._backend

    def start(self) -> None:
        """Start getting ready in the background, unless that has begun; a failure is
        logged here and raised again by ``ready``."""
        if self._ready is None:
            self._ready = asyncio.get_running_loop().create_task(self._prepare())
            self._ready.add_done_callback(self._report)

    async def ready(self) -> LLMBackend:
        """The backend, built and loaded (waiting for a start in progress).

        Raises:
            LLMError: it cannot be made or loaded; the same error every time it is asked.
        """
        self.start()
        assert self._ready is not None
        # Shielded: a turn that is cancelled while it waits leaves the loading running.
        return await asyncio.shield(self._ready)

    async def aclose(self) -> None:
        """Stop a load in progress and close the backend, if one was made."""
        if self._ready is not None and not self._ready.done():
            self._ready.cancel()
            with contextlib.suppress(asyncio.CancelledError, LLMError):
                await self._ready
        if self._backend is not None:
            await self._backend.aclose()

    async def _prepare(self) -> LLMBackend:
        started = time.perf_counter()
        backend = self._backend or self._build()
        self._backend = backend
        if isinstance(backend, SupportsLoad):
            await backend.load()
        logger.info("%s is ready (%.2f s)", self._name, time.perf_counter() - started)
        return backend

    def _report(self, task: asyncio.Task[LLMBackend]) -> None:
        if task.cancelled():
            return
        error = task.exception()
        if isinstance(error, LLMError):
            logger.error("%s cannot be used: %s", self._name, error)
        elif error is not None:
            logger.error("%s failed to load", self._name, exc_info=error)

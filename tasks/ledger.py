"""Group commit for finished runs: many runs finishing at once share one write transaction.

Each run awaits its own outcome's commit, so a run is only reported done once the ledger holds
it; runs that finish while a batch is being written join the next batch. A burst of 10,000
runs costs a handful of transactions instead of 10,000.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from tasks.models import FinishedRun, RunOutcome
from tasks.store import TaskStore

log = logging.getLogger(__name__)

# Small enough that a batch holds the database for a few milliseconds, not tens.
BATCH = 100


class LedgerWriter:
    """Writes run outcomes to the store in batches.

    Args:
        store: Where the ledger lives.
        max_failures: Failures in a row after which a recurring task is disabled.
        before_write: Awaited before each batch; the manager uses it to let claims go
            first, so that a burst is claimed (and delivered) before its ledger is written.
    """

    def __init__(
        self,
        store: TaskStore,
        *,
        max_failures: int,
        before_write: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        self._store = store
        self._before_write = before_write
        self._max_failures = max_failures
        self._pending: list[tuple[RunOutcome, asyncio.Future[FinishedRun]]] = []
        self._flusher: asyncio.Task[None] | None = None

    async def submit(self, outcome: RunOutcome) -> FinishedRun:
        """Queue ``outcome`` and return once the batch holding it is committed.

        Raises:
            Exception: whatever the store raised while writing the batch.
        """
        future: asyncio.Future[FinishedRun] = asyncio.get_running_loop().create_future()
        self._pending.append((outcome, future))
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.create_task(self._flush(), name="task-ledger-writer")
        return await future

    async def flush(self) -> None:
        """Wait until everything queued so far is written."""
        while self._flusher is not None and not self._flusher.done():
            await asyncio.shield(self._flusher)

    async def _flush(self) -> None:
        while self._pending:
            if self._before_write is not None:
                await self._before_write()
            batch, self._pending = self._pending[:BATCH], self._pending[BATCH:]
            outcomes = [outcome for outcome, _ in batch]
            try:
                finished = await self._store.finish_runs(outcomes, max_failures=self._max_failures)
            except Exception as exc:
                log.exception("could not record %d finished runs in the ledger", len(batch))
                for _, future in batch:
                    if not future.done():
                        future.set_exception(exc)
                continue
            for (_, future), result in zip(batch, finished, strict=True):
                if not future.done():
                    future.set_result(result)

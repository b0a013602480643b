"""Group commit for finished runs: many runs finishing at once share one write transaction.

A run that needs what the commit says (did its failure disable the task?) awaits its own
outcome's commit; a run that succeeded just queues its outcome and ends, so a burst does not
park thousands of tasks on futures. Runs that finish while a batch is being written join the
next batch. A burst of 10,000 runs costs a few dozen transactions instead of 10,000.

A batch the store refuses while it still answers holds a value it cannot take: the batch is
halved until that run is alone, and the run is recorded as failed with the store's reason
(``unrecorded``), never left claimed until its lease runs out (which would run it again and
report a scheduler that stopped). A store that does not answer (an outage) leaves the batch's
runs claimed, to be retried once their leases run out.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from datetime import datetime
from typing import NamedTuple, TypeAlias

from tasks.models import FinishedRun, RunOutcome, RunStatus
from tasks.store.base import TaskStore

log = logging.getLogger(__name__)

# Small enough that a batch holds the database for a few milliseconds, not tens; a backlog
# (after a burst) is written in larger ones, for fewer transactions.
BATCH = 100
BACKLOG_BATCH = 1000


class Ended(NamedTuple):
    """A run that ended and needs nothing back from the ledger; its ``RunOutcome`` is built
    when its batch is written, so each run of a burst pays for a tuple on the delivery path."""

    run_id: int
    task_id: str
    status: RunStatus
    started_at: datetime
    finished_at: datetime
    result: str | None
    error: str | None
    extra: bool

    def outcome(self) -> RunOutcome:
        """The outcome to write."""
        return RunOutcome(
            self.run_id,
            self.task_id,
            self.status,
            self.started_at,
            self.finished_at,
            result=self.result,
            error=self.error,
            extra=self.extra,
        )


class LedgerWriter:
    """Writes run outcomes to the store in batches.

    Args:
        store: Where the ledger lives.
        max_failures: Failures in a row after which a recurring task is disabled.
        before_write: Awaited before each batch; the manager uses it to let claims go
            first, so that a burst is claimed (and delivered) before its ledger is written.
        after_write: Called with each batch's outcomes once the batch is committed, or
            failed to be (the manager stops renewing those runs' leases then).
    """

    def __init__(
        self,
        store: TaskStore,
        *,
        max_failures: int,
        before_write: Callable[[], Awaitable[None]] | None = None,
        after_write: Callable[[Sequence[RunOutcome]], None] | None = None,
    ) -> None:
        self._store = store
        self._before_write = before_write
        self._after_write = after_write
        self._max_failures = max_failures
        self._pending: list[_Queued] = []
        self._flusher: asyncio.Task[None] | None = None

    async def submit(self, outcome: RunOutcome) -> FinishedRun:
        """Queue ``outcome`` and return once the batch holding it is committed.

        Raises:
            Exception: whatever the store raised while writing the batch.
        """
        future: asyncio.Future[FinishedRun] = asyncio.get_running_loop().create_future()
        self._queue(outcome, future)
        return await future

    def submit_nowait(self, outcome: RunOutcome | Ended) -> None:
        """Queue ``outcome`` without waiting for it (``flush`` waits for everything queued).

        A batch that cannot be written while the store is down is logged; its runs stay
        claimed and are retried once their leases run out.
        """
        self._queue(outcome, None)

    async def flush(self) -> None:
        """Wait until everything queued so far is written."""
        while self._flusher is not None and not self._flusher.done():
            await asyncio.shield(self._flusher)

    def _queue(
        self, outcome: RunOutcome | Ended, future: asyncio.Future[FinishedRun] | None
    ) -> None:
        self._pending.append((outcome, future))
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.create_task(self._flush(), name="task-ledger-writer")

    async def _flush(self) -> None:
        while self._pending:
            if self._before_write is not None:
                await self._before_write()
            size = BACKLOG_BATCH if len(self._pending) > BACKLOG_BATCH else BATCH
            queued, self._pending = self._pending[:size], self._pending[size:]
            batch = [(_built(outcome), future) for outcome, future in queued]
            try:
                await self._write(batch)
            finally:
                self._written([outcome for outcome, _ in batch])

    async def _write(self, batch: Sequence[_Entry]) -> None:
        """Write ``batch`` in one transaction; if it fails, find what in it failed."""
        try:
            finished = await self._store.finish_runs(
                [outcome for outcome, _ in batch], max_failures=self._max_failures
            )
        except Exception as exc:
            await self._write_apart(batch, exc)
            return
        for (_, future), result in zip(batch, finished, strict=True):
            if future is not None and not future.done():
                future.set_result(result)

    async def _write_apart(self, batch: Sequence[_Entry], exc: Exception) -> None:
        """A batch failed: when the store still answers, a value in it was refused. Halve the
        batch until that run is alone, and record it as failed with the reason: its lease
        must never run out over a value, as if the scheduler had died (it would run again)."""
        if not await self._store_answers():
            log.error("could not record %d finished runs in the ledger: %s", len(batch), exc)
            _fail(batch, exc)
            return
        if len(batch) > 1:
            middle = len(batch) // 2
            await self._write(batch[:middle])
            await self._write(batch[middle:])
            return
        ((outcome, future),) = batch
        replacement = unrecorded(outcome, exc)
        try:
            (finished,) = await self._store.finish_runs(
                [replacement], max_failures=self._max_failures
            )
        except Exception as again:
            log.exception("could not record run %s of task %s", outcome.run_id, outcome.task_id)
            _fail(batch, again)
            return
        log.error(
            "run %s of task %s could not be recorded as it ended (%s): recorded as failed: %s",
            outcome.run_id,
            outcome.task_id,
            outcome.status.value,
            exc,
        )
        if future is not None and not future.done():
            future.set_result(finished)

    async def _store_answers(self) -> bool:
        """Whether the store can be read at all (a refused value, not an outage)."""
        try:
            await self._store.next_wakeup()
        except Exception:
            return False
        return True

    def _written(self, outcomes: Sequence[RunOutcome]) -> None:
        if self._after_write is not None:
            self._after_write(outcomes)


_Entry: TypeAlias = tuple[RunOutcome, "asyncio.Future[FinishedRun] | None"]
_Queued: TypeAlias = tuple[RunOutcome | Ended, "asyncio.Future[FinishedRun] | None"]


def _built(outcome: RunOutcome | Ended) -> RunOutcome:
    return outcome.outcome() if isinstance(outcome, Ended) else outcome


def _fail(batch: Sequence[_Entry], exc: Exception) -> None:
    for _, future in batch:
        if future is not None and not future.done():
            future.set_exception(exc)


def unrecorded(outcome: RunOutcome, exc: Exception) -> RunOutcome:
    """The failure recorded for a run whose own outcome the store refused, with the reason."""
    reason = " ".join(str(exc).split())[:300] or type(exc).__name__
    return replace(
        outcome,
        status=RunStatus.FAILED,
        result=None,
        error=(
            f"the run ended ({outcome.status.value}) but the ledger refused to store how: {reason}"
        ),
        retry_at=None,
    )

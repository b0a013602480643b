"""Keeping the task store small: old ledger rows folded into per-task summaries, and old
finished tasks removed into per-owner summaries, a little at a time.

A task that runs every minute writes 1,440 ledger rows a day. ``LedgerRetention`` folds the
rows older than ``LedgerPolicy.keep_for`` into their task's summary, sparing each task's
newest ``keep_runs`` rows (a daily task keeps its last run in full beside its summary; a
frequent one, a day of runs). Each round costs at most ``rows_per_round`` rows and
``tasks_per_round`` task look-ups, in one short transaction each, and rounds continue from where
the last one stopped: a second later while a pass through the tasks is under way, ``every``
later once it is done. Nothing about which tasks are "frequent" is
built in: the age and the number kept decide, so the same mechanism can keep every task's
ledger bounded. With ``LedgerPolicy.finished_for``, each round also removes up to
``tasks_per_round`` finished tasks (done or cancelled) that finished longer ago than that: their
rows and summary go into their owner's summary (how many tasks and runs, how they ended, the
last outcome and the last failure), so one-time reminders do not pile up for ever; and a
stretch of the task table left sparse by the removals is rewritten at its end
(``TaskStore.repack``), so the pages it held are reused (SQLite keeps a page allocated while
one long-lived task is left on it).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, replace
from datetime import timedelta

from common import Clock, cancel_and_wait
from tasks.models import Compaction
from tasks.store.base import TaskStore

log = logging.getLogger(__name__)

_PARTS = ("fold", "repack")  # the parts that go through the whole table, a pass each


@dataclass(frozen=True, slots=True)
class LedgerPolicy:
    """How much of the run ledger is kept in full.

    Attributes:
        keep_for: Rows claimed within this age are kept in full.
        keep_runs: Each task's newest rows kept in full, however old.
        rows_per_round: The most rows one round folds.
        tasks_per_round: The most tasks one round looks at.
        every: The pause after a round that went through every task.
        between: The pause after a round that stopped part way (its budget was used, or
            more tasks wait): short, but a pause, so claims and deliveries go first.
        finished_for: Finished tasks (done or cancelled) that finished longer ago than this
            (``Task.finished_at``) are removed into their owner's summary; ``None`` keeps
            them.
    """

    keep_for: timedelta = timedelta(days=1)
    keep_runs: int = 1
    rows_per_round: int = 1000
    tasks_per_round: int = 500
    every: timedelta = timedelta(minutes=1)
    between: timedelta = timedelta(seconds=1)
    finished_for: timedelta | None = timedelta(days=3)


class LedgerRetention:
    """Runs ledger compaction rounds (``round``), by itself once started.

    Args:
        store: The task store.
        clock: The source of time (the age is measured from its now).
        policy: What is kept.
    """

    def __init__(self, store: TaskStore, clock: Clock, policy: LedgerPolicy) -> None:
        self._store = store
        self._clock = clock
        self.policy = policy
        self._cursor = ""  # where the next compaction round looks
        self._repacked = 0  # where the next repack round looks
        self._pending = set(_PARTS)  # the parts that have not ended their pass this cycle
        self._task: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()

    async def round(self) -> Compaction:
        """Fold one bounded round's worth of old rows, remove a bounded number of old
        finished tasks, and repack a bounded stretch of the task table (a short transaction
        each), the folding and the repacking until each ended its pass; return what it did.
        A round is ``complete`` once both ended their pass since the last complete one and
        no finished task old enough is left."""
        policy, pending = self.policy, self._pending
        now = self._clock.now()
        done = Compaction(0, 0, self._cursor, complete=True)
        if "fold" in pending:
            done = await self._store.compact_ledger(
                before=now - policy.keep_for,
                keep=policy.keep_runs,
                max_rows=policy.rows_per_round,
                max_tasks=policy.tasks_per_round,
                after_task=self._cursor,
            )
            self._cursor = done.next_task
            if done.complete:
                pending.discard("fold")
        removed_all = True  # every round removes (an index range: cheap when none is old)
        if policy.finished_for is not None:
            removal = await self._store.remove_finished(
                before=now - policy.finished_for,
                max_tasks=policy.tasks_per_round,
                max_rows=policy.rows_per_round,
            )
            done = replace(done, removed=removal.tasks)
            removed_all = removal.complete
        if "repack" in pending:
            repack = await self._store.repack(window=policy.rows_per_round, after=self._repacked)
            self._repacked = repack.next_after
            done = replace(done, repacked=repack.moved)
            if repack.complete:
                pending.discard("repack")
        if pending or not removed_all:
            return replace(done, complete=False)
        self._pending = set(_PARTS)
        return replace(done, complete=True)

    def start(self) -> None:
        """Run rounds in the background until ``stop``."""
        if self._task is None or self._task.done():
            self._stop = asyncio.Event()
            self._task = asyncio.create_task(self._loop(), name="task-ledger-retention")

    async def stop(self) -> None:
        """Stop the rounds (a round in progress is cancelled; its transaction rolls back)."""
        task, self._task = self._task, None
        if task is not None:
            self._stop.set()
        await cancel_and_wait(task)

    async def _loop(self) -> None:
        while not self._stop.is_set():
            pause = self.policy.every
            try:
                done = await self.round()
                if not done.complete:
                    pause = self.policy.between  # part way through: more soon
            except Exception:
                log.exception("could not compact the run ledger; trying again later")
            await self._clock.sleep_until(self._clock.now() + pause, self._stop)

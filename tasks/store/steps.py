"""The task store operations both SQL databases share, written once as steps.

An operation here is a generator: it yields each ``Statement`` it needs and is sent back what
the statement returned, and its return value is the operation's. It does no I/O of its own,
so the same steps run on SQLite's connection thread (synchronously, ``tasks.store.sqlite``)
and on a PostgreSQL connection (awaiting each statement, ``tasks.store.postgres``), inside
the one transaction the store opened. ``SqlTaskStore`` is the store built on them: the task
rows' reads and changes, the ledger's reads and its compaction. Adding tasks, claims, leases
and finished runs stay with each database (their locking differs on purpose).
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Collection, Generator, Sequence
from datetime import datetime
from typing import Any, TypeVar

from common import require_aware
from tasks.models import (
    Compaction,
    LedgerSummary,
    OwnerSummary,
    Removal,
    StoreSizes,
    Task,
    TaskRun,
    TaskStatus,
)
from tasks.store.base import UNSET, TaskChange, TaskStore, not_found
from tasks.store.dialect import Dialect, Statement
from tasks.store.retention import FOLDABLE, FoldedRow, LedgerRow, absorb, fold, take_old
from tasks.store.rows import (
    LEDGER_COLUMNS,
    OWNER_SUMMARY_COLUMNS,
    RUN_COLUMNS,
    SUMMARY_COLUMNS,
    TASK_COLUMNS,
    Row,
    ledger_row,
    owner_summary_from_row,
    owner_summary_values,
    run_from_row,
    summary_from_row,
    summary_values,
    task_from_row,
)
from tasks.store.transitions import changed, given_back

T = TypeVar("T")
Steps = Generator[Statement, Any, T]
"""An operation: yields statements, is sent their results, returns its value."""

_COMPACTION_LOCK = 0x1ED6E2  # "ledger compaction", for databases with several writers
_LIVE = "status NOT IN ('done', 'cancelled')"
_FINISHED = "status IN ('done', 'cancelled')"
_FINISHED_SINCE = "finished_at"
"""When a finished task finished (the index of finished tasks is on it)."""


def single(statement: Statement) -> Steps[Any]:
    """The steps of one statement, returning its result."""
    return (yield statement)


def owned_row(d: Dialect, task_id: str, owner_id: str | None, *, lock: bool = False) -> Statement:
    """The task's row (``TASK_COLUMNS``), or ``None`` when the owner (if given) has no such;
    with ``lock``, locked until the transaction ends."""
    sql = f"SELECT {TASK_COLUMNS} FROM scheduled_tasks WHERE id = ?"
    params: tuple[str, ...] = (task_id,)
    if owner_id is not None:
        sql, params = sql + " AND owner_id = ?", (task_id, owner_id)
    return d.statement(sql + (d.lock_rows if lock else ""), *params, want="one")


def store_state(d: Dialect, task: Task) -> Statement:
    """Write the task's status (and ``enabled``), next run, reason, failure count and finished
    time."""
    return d.statement(
        "UPDATE scheduled_tasks SET status = ?, enabled = ?, next_run = ?, status_reason = ?, "
        "consecutive_failures = ?, finished_at = ? WHERE id = ?",
        task.status.value, task.enabled, d.time_opt(task.next_run), task.status_reason,
        task.consecutive_failures, d.time_opt(task.finished_at), task.id,
    )  # fmt: skip


def list_tasks(
    d: Dialect, owner_id: str, *, include_finished: bool, limit: int | None, offset: int
) -> Steps[list[Task]]:
    """A page of the owner's tasks by next run (unscheduled last), then creation."""
    live = "" if include_finished else f"AND {_LIVE} "
    rows = yield d.statement(
        f"SELECT {TASK_COLUMNS} FROM scheduled_tasks WHERE owner_id = ? {live}"
        "ORDER BY next_run NULLS LAST, created_at, id LIMIT ? OFFSET ?",
        owner_id, d.no_limit if limit is None else limit, offset, want="all",
    )  # fmt: skip
    return [task_from_row(r, d) for r in rows]


def active_task_ids(d: Dialect, owner_id: str, done_since: datetime | None) -> Steps[list[str]]:
    """The owner's live task ids, oldest first (and those done since ``done_since``)."""
    rows = yield d.statement(
        f"SELECT id FROM scheduled_tasks WHERE owner_id = ? AND ({_LIVE} "
        "OR (status = 'done' AND last_run >= ?)) ORDER BY created_at, id",
        owner_id, d.time_opt(done_since), want="all",
    )  # fmt: skip
    return [r[0] for r in rows]


def update_task(
    d: Dialect,
    task_id: str,
    owner_id: str,
    change: TaskChange,
    allowed_from: frozenset[TaskStatus],
    action: str,
    now: datetime,
) -> Steps[Task]:
    """Apply ``change`` at ``now`` if the task's status allows it."""
    row = yield owned_row(d, task_id, owner_id, lock=True)
    if row is None:
        raise not_found(task_id)
    task = task_from_row(row, d)
    updated = changed(task, change, allowed_from=allowed_from, action=action, now=now)
    yield store_state(d, updated)
    if change.schedule is not UNSET:
        yield d.statement(
            "UPDATE scheduled_tasks SET schedule = ? WHERE id = ?",
            updated.schedule.to_json(),
            updated.id,
        )
    yield from _announce(d)
    return updated


def mark_started(d: Dialect, run_id: int, now: datetime) -> Steps[bool]:
    """Record that the claimed run starts at ``now``; whether it is still claimed."""
    started = yield d.statement(
        "UPDATE task_runs SET started_at = ? WHERE id = ? AND status = 'claimed' RETURNING id",
        d.time(now), run_id, want="all",
    )  # fmt: skip
    return bool(started)


def give_back(d: Dialect, run_ids: Sequence[int]) -> Steps[list[int]]:
    """Give back the claimed runs among ``run_ids`` that never started (see the store).

    Locks are taken ledger rows first, then their tasks in id order (as claims take them).
    """
    runs: list[TaskRun] = []
    for chunk in d.chunks(sorted(set(run_ids))):
        ids, params = d.any_of("id", chunk, "bigint[]")
        rows = yield d.statement(
            f"SELECT {RUN_COLUMNS} FROM task_runs WHERE {ids} AND status = 'claimed'"
            f" AND started_at IS NULL{d.lock_rows}",
            *params, want="all",
        )  # fmt: skip
        runs += [run_from_row(row, d) for row in rows]
    if not runs:
        return []
    tasks: dict[str, Task] = {}
    for task_id in sorted({run.task_id for run in runs}):
        row = yield owned_row(d, task_id, None, lock=True)
        assert row is not None, "task_runs.task_id references scheduled_tasks"
        tasks[task_id] = task_from_row(row, d)
    given: list[int] = []
    # A task's latest run first: its next run then steps back through each of them.
    for run in sorted(runs, key=lambda r: (r.scheduled_for, r.id), reverse=True):
        task = tasks[run.task_id]
        back = given_back(task, run)
        if back is None:
            continue
        yield d.statement("DELETE FROM task_runs WHERE id = ?", run.id)
        if back != task:
            yield store_state(d, back)
            tasks[run.task_id] = back
        given.append(run.id)
    if given:
        yield from _announce(d)
    return sorted(given)


def pause_owner(d: Dialect, owner_id: str, reason: str) -> Steps[list[str]]:
    """Pause the owner's active tasks; return their ids."""
    rows = yield d.statement(
        "UPDATE scheduled_tasks SET status = 'paused', enabled = false, status_reason = ? "
        "WHERE owner_id = ? AND status = 'active' RETURNING id",
        reason, owner_id, want="all",
    )  # fmt: skip
    return sorted(r[0] for r in rows)


def history(
    d: Dialect, task_id: str, owner_id: str, limit: int, offset: int
) -> Steps[list[TaskRun]]:
    """The task's ledger rows, newest first (``limit`` of them after ``offset``)."""
    if (yield owned_row(d, task_id, owner_id)) is None:
        raise not_found(task_id)
    rows = yield d.statement(
        f"SELECT {RUN_COLUMNS} FROM task_runs WHERE task_id = ? ORDER BY id DESC"
        " LIMIT ? OFFSET ?",
        task_id, max(limit, 0), max(offset, 0), want="all",
    )  # fmt: skip
    return [run_from_row(r, d) for r in rows]


def ledger_summary(d: Dialect, task_id: str, owner_id: str) -> Steps[LedgerSummary | None]:
    """The summary of the owner's task, or ``None`` when nothing was folded.

    Raises:
        TaskNotFoundError: when the owner has no such task.
    """
    if (yield owned_row(d, task_id, owner_id)) is None:
        raise not_found(task_id)
    return (yield from _summary(d, task_id))


def compact(
    d: Dialect, *, before: datetime, keep: int, max_rows: int, max_tasks: int, after_task: str
) -> Steps[Compaction]:
    """Fold what may be folded of up to ``max_tasks`` tasks after ``after_task``.

    The tasks that have ledger rows are visited in id order from a cursor, found through the
    index on ``(task_id, id)`` (a one-time task not run yet costs nothing: at a million tasks
    a pass visits the third that ran), and each task's rows through the same index: a call
    costs its ``max_tasks`` look-ups and ``max_rows`` rows, however long the ledger has grown.
    Where several writers share the database, only the one that takes the compaction lock
    folds this round (no row is folded twice, nobody waits).
    """
    lock = d.try_lock(_COMPACTION_LOCK)
    if lock is not None and not (yield lock):
        return Compaction(0, 0, after_task, complete=True)  # another scheduler is at it
    rows = yield d.statement(
        "SELECT DISTINCT task_id FROM task_runs WHERE task_id > ? ORDER BY task_id LIMIT ?",
        after_task, max_tasks, want="all",
    )  # fmt: skip
    looked: list[str] = [row[0] for row in rows]
    folded, cursor = 0, after_task
    for position, task_id in enumerate(looked, start=1):
        room = max_rows - folded
        oldest = yield from _oldest(d, task_id, keep=keep, limit=room + 1, before=before)
        taken, more = take_old(oldest, before, room, page=room + 1)
        if taken:
            yield from _fold(d, task_id, taken)
            folded += len(taken)
        if more:
            return Compaction(folded, position, cursor, complete=False)  # this task again
        cursor = task_id
    complete = len(looked) < max_tasks
    return Compaction(folded, len(looked), "" if complete else cursor, complete)


def _oldest(
    d: Dialect, task_id: str, *, keep: int, limit: int, before: datetime
) -> Steps[list[LedgerRow]]:
    """The task's oldest rows but its newest ``keep``, at most ``limit`` of them."""
    newest_kept = yield d.statement(
        "SELECT id FROM task_runs WHERE task_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?",
        task_id, max(keep - 1, 0), want="value",
    )  # fmt: skip
    if newest_kept is None:
        return []
    below = newest_kept if keep > 0 else newest_kept + 1
    # Rows that are never folded (claimed, outcome unknown) are not read: a page of them
    # would hold the compaction on this task for ever. The oldest row first: when it is
    # young, all are (ids grow with claims), and the task costs two index look-ups.
    foldable, statuses = d.any_of("status", FOLDABLE, "text[]")
    first = yield d.statement(
        f"SELECT claimed_at FROM task_runs WHERE task_id = ? AND id < ? AND {foldable}"
        " ORDER BY id LIMIT 1",
        task_id, below, *statuses, want="value",
    )  # fmt: skip
    if first is None or d.read_time(first) >= before:
        return []
    found = yield d.statement(
        f"SELECT {LEDGER_COLUMNS} FROM task_runs WHERE task_id = ? AND id < ? AND {foldable}"
        " ORDER BY id LIMIT ?",
        task_id, below, *statuses, limit, want="all",
    )  # fmt: skip
    return [ledger_row(row, d) for row in found]


def _fold(d: Dialect, task_id: str, rows: Sequence[FoldedRow]) -> Steps[None]:
    merged = fold(task_id, (yield from _summary(d, task_id)), rows)
    updates = ", ".join(f"{c} = excluded.{c}" for c in SUMMARY_COLUMNS.split(", ")[1:])
    yield d.statement(
        f"INSERT INTO task_run_summaries ({SUMMARY_COLUMNS}) VALUES ({_marks(SUMMARY_COLUMNS)})"
        f" ON CONFLICT (task_id) DO UPDATE SET {updates}",
        *summary_values(merged, d),
    )
    for chunk in d.chunks([row.id for row in rows]):
        ids, params = d.any_of("id", chunk, "bigint[]")
        yield d.statement(f"DELETE FROM task_runs WHERE {ids}", *params)


def remove_finished(
    d: Dialect, *, before: datetime, max_tasks: int, max_rows: int
) -> Steps[Removal]:
    """Remove finished tasks past ``before`` into their owners' summaries (bounded).

    The tasks are found through the index of finished tasks by when they finished, oldest
    first; each task's rows through its ``(task_id, id)`` index.
    """
    lock = d.try_lock(_COMPACTION_LOCK)
    if lock is not None and not (yield lock):
        return Removal(0, 0, complete=True)  # another scheduler is at it
    found = yield d.statement(
        f"SELECT id, owner_id, description FROM scheduled_tasks WHERE {_FINISHED} AND"
        f" {_FINISHED_SINCE} < ? AND NOT EXISTS (SELECT 1 FROM task_runs"
        " WHERE task_runs.task_id = scheduled_tasks.id AND task_runs.status = 'claimed')"
        f" ORDER BY {_FINISHED_SINCE}, id LIMIT ?{d.lock_rows}",
        d.time(before), max_tasks, want="all",
    )  # fmt: skip
    removed = rows_read = 0
    for task_id, owner_id, description in found:
        if removed and rows_read >= max_rows:
            return Removal(removed, rows_read, complete=False)
        rows = yield d.statement(
            f"SELECT {LEDGER_COLUMNS} FROM task_runs WHERE task_id = ? ORDER BY id",
            task_id, want="all",
        )  # fmt: skip
        taken = [ledger_row(row, d).folded() for row in rows]
        summary = fold(task_id, (yield from _summary(d, task_id)), taken)
        owner = yield from _owner_summary(d, owner_id)
        yield from _store_owner_summary(d, absorb(owner_id, owner, summary, description))
        yield d.statement("DELETE FROM task_runs WHERE task_id = ?", task_id)
        yield d.statement("DELETE FROM task_run_summaries WHERE task_id = ?", task_id)
        # A monitor's last observation goes with it (its row refers to the task).
        yield d.statement("DELETE FROM monitor_observations WHERE task_id = ?", task_id)
        yield d.statement("DELETE FROM scheduled_tasks WHERE id = ?", task_id)
        removed += 1
        rows_read += len(taken)
    return Removal(removed, rows_read, complete=len(found) < max_tasks)


def owner_summary(d: Dialect, owner_id: str) -> Steps[OwnerSummary | None]:
    """The summary of the owner's removed tasks, or ``None`` when none was removed."""
    return (yield from _owner_summary(d, owner_id))


def sizes(d: Dialect) -> Steps[StoreSizes]:
    """What the store holds, counted."""
    tasks = yield d.statement(
        f"SELECT count(*) FILTER (WHERE NOT ({_FINISHED})), count(*) FILTER (WHERE {_FINISHED})"
        " FROM scheduled_tasks",
        want="one",
    )
    ledger = yield d.statement("SELECT count(*) FROM task_runs", want="value")
    summaries = yield d.statement("SELECT count(*) FROM task_run_summaries", want="value")
    owners = yield d.statement(
        "SELECT count(*), coalesce(sum(tasks), 0) FROM task_owner_summaries", want="one"
    )
    return StoreSizes(
        live_tasks=int(tasks[0]),
        finished_tasks=int(tasks[1]),
        ledger_rows=int(ledger),
        summaries=int(summaries),
        owner_summaries=int(owners[0]),
        removed_tasks=int(owners[1]),
    )


def _owner_summary(d: Dialect, owner_id: str) -> Steps[OwnerSummary | None]:
    row: Row | None = yield d.statement(
        f"SELECT {OWNER_SUMMARY_COLUMNS} FROM task_owner_summaries WHERE owner_id = ?",
        owner_id,
        want="one",
    )
    return None if row is None else owner_summary_from_row(row, d)


def _store_owner_summary(d: Dialect, summary: OwnerSummary) -> Steps[None]:
    columns = OWNER_SUMMARY_COLUMNS
    updates = ", ".join(f"{c} = excluded.{c}" for c in columns.split(", ")[1:])
    yield d.statement(
        f"INSERT INTO task_owner_summaries ({columns}) VALUES ({_marks(columns)})"
        f" ON CONFLICT (owner_id) DO UPDATE SET {updates}",
        *owner_summary_values(summary, d),
    )


def _marks(columns: str) -> str:
    return ", ".join("?" * len(columns.split(", ")))


def _summary(d: Dialect, task_id: str) -> Steps[LedgerSummary | None]:
    row: Row | None = yield d.statement(
        f"SELECT {SUMMARY_COLUMNS} FROM task_run_summaries WHERE task_id = ?",
        task_id,
        want="one",
    )
    return None if row is None else summary_from_row(row, d)


def _announce(d: Dialect) -> Steps[None]:
    announce = d.announce()
    if announce is not None:
        yield announce


class SqlTaskStore(TaskStore):
    """A store whose task reads and changes, ledger reads and compaction are these steps.

    A database's store gives its ``dialect`` and runs steps in a read or a write transaction
    (``_read``, ``_write``); it implements the rest of ``TaskStore`` itself.
    """

    dialect: Dialect

    @abstractmethod
    async def _read(self, steps: Steps[T]) -> T:
        """Run ``steps`` in one read transaction."""

    @abstractmethod
    async def _write(self, steps: Steps[T]) -> T:
        """Run ``steps`` in one write transaction."""

    async def get_task(self, task_id: str, owner_id: str | None = None) -> Task | None:
        """Return the task, or ``None``."""
        row = await self._read(single(owned_row(self.dialect, task_id, owner_id)))
        return None if row is None else task_from_row(row, self.dialect)

    async def list_tasks(
        self,
        owner_id: str,
        *,
        include_finished: bool = False,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[Task]:
        """Return a page of the owner's tasks by next run (unscheduled last), then creation."""
        return await self._read(
            list_tasks(
                self.dialect,
                owner_id,
                include_finished=include_finished,
                limit=limit,
                offset=offset,
            )
        )

    async def active_task_ids(
        self, owner_id: str, *, done_since: datetime | None = None
    ) -> list[str]:
        """Return the owner's live task ids, oldest first (and those done since
        ``done_since``)."""
        since = None if done_since is None else require_aware(done_since, "done_since")
        return await self._read(active_task_ids(self.dialect, owner_id, since))

    async def update_task(
        self,
        task_id: str,
        owner_id: str,
        change: TaskChange,
        *,
        allowed_from: Collection[TaskStatus],
        action: str,
        now: datetime,
    ) -> Task:
        """Apply ``change`` in one transaction if the task's status allows it."""
        allowed = frozenset(allowed_from)
        now = require_aware(now, "now")
        return await self._write(
            update_task(self.dialect, task_id, owner_id, change, allowed, action, now)
        )

    async def mark_started(self, run_id: int, now: datetime) -> bool:
        """Record the run's start in one transaction; whether it is still claimed."""
        now = require_aware(now, "now")
        return await self._write(mark_started(self.dialect, run_id, now))

    async def give_back(self, run_ids: Collection[int]) -> list[int]:
        """Give back the claimed runs that never started, in one transaction."""
        if not run_ids:
            return []
        return await self._write(give_back(self.dialect, list(run_ids)))

    async def pause_owner(self, owner_id: str, reason: str) -> list[str]:
        """Pause the owner's active tasks."""
        return await self._write(pause_owner(self.dialect, owner_id, reason))

    async def history(
        self, task_id: str, owner_id: str, *, limit: int = 20, offset: int = 0
    ) -> list[TaskRun]:
        """Return the task's ledger rows, newest first."""
        return await self._read(history(self.dialect, task_id, owner_id, limit, offset))

    async def ledger_summary(self, task_id: str, owner_id: str) -> LedgerSummary | None:
        """Return the summary of the task's folded rows, if any were folded."""
        return await self._read(ledger_summary(self.dialect, task_id, owner_id))

    async def remove_finished(self, *, before: datetime, max_tasks: int, max_rows: int) -> Removal:
        """Remove old finished tasks into their owners' summaries in one write transaction."""
        before = require_aware(before, "before")
        return await self._write(
            remove_finished(self.dialect, before=before, max_tasks=max_tasks, max_rows=max_rows)
        )

    async def owner_summary(self, owner_id: str) -> OwnerSummary | None:
        """Return the summary of the owner's removed tasks, if any were removed."""
        return await self._read(owner_summary(self.dialect, owner_id))

    async def sizes(self) -> StoreSizes:
        """Count what the store holds, in one read."""
        return await self._read(sizes(self.dialect))

    async def compact_ledger(
        self,
        *,
        before: datetime,
        keep: int,
        max_rows: int,
        max_tasks: int,
        after_task: str = "",
    ) -> Compaction:
        """Fold old ledger rows into summaries in one write transaction (bounded)."""
        steps = compact(
            self.dialect,
            before=before,
            keep=keep,
            max_rows=max_rows,
            max_tasks=max_tasks,
            after_task=after_task,
        )
        return await self._write(steps)

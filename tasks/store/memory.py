"""An in-memory task store with the same contract as the SQLite one (tests, throwaway sessions).

Every method runs without awaiting in the middle, so each one is atomic on the event loop,
which is what the SQLite store gets from its transactions. Like the SQLite store's indexes,
two heaps find what is due without looking at every task: enabled tasks by ``next_run`` and
claimed runs by lease expiry. An entry is checked against the task or run it names when it
is read, so a change never has to find and remove the old entry (it goes stale instead).
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable, Collection, Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import TypeVar

from common import require_aware
from tasks.errors import TaskError
from tasks.limits import TaskLimits, draft_bytes
from tasks.models import (
    Claim,
    Compaction,
    FinishedRun,
    LedgerSummary,
    MisfireAction,
    OwnerSummary,
    Removal,
    RunOutcome,
    RunStatus,
    StoreSizes,
    Task,
    TaskDraft,
    TaskRun,
    TaskStatus,
    new_task_id,
)
from tasks.monitors import Observation
from tasks.protocols import Delivery, DeliveryKind
from tasks.store.base import (
    LEASE_LOST_ERROR,
    UNSET,
    GivenUp,
    HeldDelivery,
    HoldReason,
    RecentRun,
    TaskChange,
    TaskStore,
    WatchedChange,
    not_found,
    release_note,
    zone_of,
)
from tasks.store.planning import Reclaim, plan_claim, plan_reclaim
from tasks.store.retention import FOLDABLE, FoldedRow, absorb, fold
from tasks.store.transitions import (
    after_run,
    after_skipped_retry,
    changed,
    claimed_now,
    claimed_status,
    finish_time,
    given_back,
    lost_outcome,
)

K = TypeVar("K", str, int)
_FAR_FUTURE_KEY = (1, 0.0)
_ID_DRAWS = 64
_END_OF_TIME = datetime.max.replace(tzinfo=UTC)
_COMPACT_AT = 1024  # stale heap entries tolerated before a heap is rebuilt


class MemoryTaskStore(TaskStore):
    """Tasks and runs in dictionaries; gone when the process ends.

    Args:
        new_id: Draws a fresh task id (tests pass one that repeats itself).
    """

    def __init__(self, *, new_id: Callable[[], str] = new_task_id) -> None:
        self._new_id = new_id
        self._tasks: dict[str, Task] = {}
        self._runs: dict[int, TaskRun] = {}
        self._runs_of: dict[str, list[int]] = {}
        self._summaries: dict[str, LedgerSummary] = {}
        self._owners: dict[str, OwnerSummary] = {}
        self._run_ids = itertools.count(1)
        self._due: list[tuple[datetime, str]] = []  # (next_run, task id) of enabled tasks
        self._leases: list[tuple[datetime, int]] = []  # (lease_until, run id) of claimed runs
        self._observations: dict[str, Observation] = {}
        self._held: dict[int, tuple[HeldDelivery, datetime | None]] = {}  # with its lease
        self._held_ids = itertools.count(1)

    async def open(self) -> None:
        """Nothing to open."""

    async def close(self) -> None:
        """Nothing to close; the data stays until the object is dropped."""

    async def add_task(self, draft: TaskDraft, *, limits: TaskLimits | None = None) -> Task:
        """Store ``draft`` under a fresh id, if it fits its owner's ``limits``."""
        if limits is not None:
            held = [t for t in self._tasks.values() if t.owner_id == draft.owner_id]
            live = [t for t in held if t.status.is_live]
            used = sum(draft_bytes(t) for t in live)
            limits.check_room(live=len(live), used=used, draft=draft)
        return self._insert(draft)

    async def add_tasks(self, drafts: Sequence[TaskDraft]) -> list[str]:
        """Store many drafts."""
        return [self._insert(draft).id for draft in drafts]

    async def get_task(self, task_id: str, owner_id: str | None = None) -> Task | None:
        """Return the task if it exists (and belongs to ``owner_id`` when given)."""
        task = self._tasks.get(task_id)
        if task is None or (owner_id is not None and task.owner_id != owner_id):
            return None
        return task

    async def list_tasks(
        self,
        owner_id: str,
        *,
        include_finished: bool = False,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[Task]:
        """Return a page of the owner's tasks by next run, then creation."""
        tasks = [
            t
            for t in self._tasks.values()
            if t.owner_id == owner_id and (include_finished or t.status.is_live)
        ]
        ordered = sorted(tasks, key=_listing_key)[offset:]
        return ordered if limit is None else ordered[:limit]

    async def active_task_ids(
        self, owner_id: str, *, done_since: datetime | None = None
    ) -> list[str]:
        """Return the owner's live task ids, oldest first (and those done since
        ``done_since``)."""
        since = None if done_since is None else require_aware(done_since, "done_since")

        def wanted(task: Task) -> bool:
            if task.status.is_live:
                return True
            recent = since is not None and task.last_run is not None and task.last_run >= since
            return task.status is TaskStatus.DONE and recent

        found = [t for t in self._tasks.values() if t.owner_id == owner_id and wanted(t)]
        return [t.id for t in sorted(found, key=lambda t: (t.created_at, t.id))]

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
        """Apply ``change`` when the task's status allows it."""
        task = self._owned(task_id, owner_id)
        now = require_aware(now, "now")
        return self._put(changed(task, change, allowed_from=allowed_from, action=action, now=now))

    async def claim_due(
        self, now: datetime, *, limit: int, lease: timedelta, ahead: timedelta = timedelta(0)
    ) -> list[Claim]:
        """Claim due tasks, earliest first, applying each one's misfire plan."""
        now = require_aware(now, "now")
        due = [self._tasks[i] for i in _pop_due(self._due, self._is_due, now + ahead, limit)]
        claims: list[Claim] = []
        for task in due:
            claim = self._claim_one(task, now, lease)
            if claim is not None:
                claims.append(claim)
        return claims

    async def reclaim_expired(
        self, now: datetime, *, limit: int, lease: timedelta, orphaned: bool = False
    ) -> tuple[list[Claim], list[GivenUp]]:
        """Retry or give up runs whose lease ran out (every claimed run, when ``orphaned``)."""
        now = require_aware(now, "now")
        until = _END_OF_TIME if orphaned else now
        expired = [self._runs[i] for i in _pop_due(self._leases, self._is_leased, until, limit)]
        claims: list[Claim] = []
        given_up: list[GivenUp] = []
        for run in expired:
            task = self._tasks[run.task_id]
            plan = plan_reclaim(task, run, now)
            if plan.action in (Reclaim.GIVE_UP, Reclaim.UNKNOWN):
                self._finish(lost_outcome(plan.action, run, now), max_failures=None)
                given_up.append(GivenUp(self._tasks[task.id], self._runs[run.id]))
                continue
            self._runs[run.id] = replace(
                run, status=RunStatus.ABANDONED, lease_until=None, error=LEASE_LOST_ERROR
            )
            if plan.action is Reclaim.SKIP:
                self._skip_retry(task, run, now, plan.late_by)
                continue
            retry = TaskRun.new(
                next(self._run_ids), task.id, run.scheduled_for, now,
                misfire=MisfireAction.RETRY, lease_until=now + lease, attempt=2,
                late_by=plan.late_by,
            )  # fmt: skip
            claims.append(Claim(task, self._record(retry)))
        return claims, given_up

    async def renew_leases(
        self, run_ids: Collection[int], now: datetime, *, lease: timedelta
    ) -> set[int]:
        """Extend the leases of those runs that are still claimed."""
        until = require_aware(now, "now") + lease
        renewed: set[int] = set()
        for run_id in set(run_ids):
            run = self._runs.get(run_id)
            if run is None or run.status is not RunStatus.CLAIMED or run.lease_until is None:
                continue
            if run.lease_until < until:
                self._runs[run_id] = replace(run, lease_until=until)
                heapq.heappush(self._leases, (until, run_id))
            renewed.add(run_id)
        return renewed

    async def mark_started(self, run_id: int, now: datetime) -> bool:
        """Record that the claimed run starts; whether it is still claimed."""
        now = require_aware(now, "now")
        run = self._runs.get(run_id)
        if run is None or run.status is not RunStatus.CLAIMED:
            return False
        self._runs[run_id] = replace(run, started_at=now)
        return True

    async def give_back(self, run_ids: Collection[int]) -> list[int]:
        """Give back the claimed runs that never started (a task's latest first)."""
        runs = [
            run
            for run in (self._runs.get(i) for i in set(run_ids))
            if run is not None and run.status is RunStatus.CLAIMED and run.started_at is None
        ]
        given: list[int] = []
        for run in sorted(runs, key=lambda r: (r.scheduled_for, r.id), reverse=True):
            task = self._tasks[run.task_id]
            back = given_back(task, run)
            if back is None:
                continue
            del self._runs[run.id]
            self._runs_of[run.task_id].remove(run.id)
            if back != task:
                self._put(back)
            given.append(run.id)
        return sorted(given)

    async def claim_now(
        self, task_id: str, owner_id: str, now: datetime, *, lease: timedelta
    ) -> Claim:
        """Claim an extra run of the task now."""
        now = require_aware(now, "now")
        task = self._put(claimed_now(self._owned(task_id, owner_id)))
        run = TaskRun.new(
            next(self._run_ids), task.id, now, now,
            misfire=MisfireAction.MANUAL, lease_until=now + lease,
        )  # fmt: skip
        return Claim(task, self._record(run))

    async def next_wakeup(self) -> datetime | None:
        """Return the earliest enabled next run or lease expiry."""
        due = _peek(self._due, self._is_due)
        leased = _peek(self._leases, self._is_leased)
        return min((t for t in (due, leased) if t is not None), default=None)

    async def count_due(self, until: datetime, *, limit: int) -> int:
        """Count the enabled tasks due by ``until`` (walking only the heap entries that are)."""
        until = require_aware(until, "until")
        return self._count_due(lambda when: when <= until, limit)

    async def count_overdue(self, before: datetime) -> int:
        """Count the enabled tasks due before ``before``."""
        before = require_aware(before, "before")
        return self._count_due(lambda when: when < before, len(self._tasks))

    def _count_due(self, due: Callable[[datetime], bool], limit: int) -> int:
        """Count the live entries of the due heap whose time is ``due``, at most ``limit``.

        A heap entry is never later than the entries below it, so the walk stops at the
        first entry that is not due on each path: it costs the count, not the heap's size.
        """
        heap, count, seen = self._due, 0, set()
        stack = [0] if heap else []
        while stack and count < limit:
            at = stack.pop()
            entry = heap[at]
            if not due(entry[0]):
                continue
            if entry[1] not in seen and self._is_due(entry):
                seen.add(entry[1])
                count += 1
            stack.extend(child for child in (2 * at + 1, 2 * at + 2) if child < len(heap))
        return count

    async def finish_runs(
        self, outcomes: Sequence[RunOutcome], *, max_failures: int
    ) -> list[FinishedRun]:
        """Record outcomes and update their tasks."""
        return [self._finish(outcome, max_failures=max_failures) for outcome in outcomes]

    async def compact_ledger(
        self,
        *,
        before: datetime,
        keep: int,
        max_rows: int,
        max_tasks: int,
        after_task: str = "",
    ) -> Compaction:
        """Fold old runs into their tasks' summaries (see ``TaskStore.compact_ledger``)."""
        looked = sorted(t for t, runs in self._runs_of.items() if runs and t > after_task)
        looked = looked[:max_tasks]
        folded, cursor = 0, after_task
        for task_id in looked:
            ids = self._runs_of.get(task_id, [])
            candidates = [
                self._runs[i]
                for i in ids[: max(len(ids) - keep, 0)]
                if self._runs[i].status.value in FOLDABLE and self._runs[i].claimed_at < before
            ]
            room = max_rows - folded
            taken, rest = candidates[:room], candidates[room:]
            if taken:
                rows = [_folded(r) for r in taken]
                self._summaries[task_id] = fold(task_id, self._summaries.get(task_id), rows)
                gone = {r.id for r in taken}
                self._runs_of[task_id] = [i for i in ids if i not in gone]
                for run_id in gone:
                    del self._runs[run_id]
                folded += len(taken)
            if rest:
                return Compaction(folded, looked.index(task_id) + 1, cursor, complete=False)
            cursor = task_id
        complete = len(looked) < max_tasks
        return Compaction(folded, len(looked), "" if complete else cursor, complete)

    async def remove_finished(self, *, before: datetime, max_tasks: int, max_rows: int) -> Removal:
        """Remove old finished tasks into their owners' summaries (see the store)."""
        before = require_aware(before, "before")
        # A finished task has its finished_at; a live one has none.
        found = sorted(
            (finished_at, task.id)
            for task in self._tasks.values()
            if (finished_at := task.finished_at) is not None
            and finished_at < before
            and not any(
                self._runs[i].status is RunStatus.CLAIMED for i in self._runs_of.get(task.id, [])
            )
        )[:max_tasks]
        removed = rows = 0
        for _, task_id in found:
            if removed and rows >= max_rows:
                return Removal(removed, rows, complete=False)
            task = self._tasks.pop(task_id)
            self._observations.pop(task_id, None)
            runs = [self._runs.pop(i) for i in self._runs_of.pop(task_id, [])]
            summary = fold(task_id, self._summaries.pop(task_id, None), map(_folded, runs))
            owner = self._owners.get(task.owner_id)
            self._owners[task.owner_id] = absorb(task.owner_id, owner, summary, task.description)
            removed += 1
            rows += len(runs)
        return Removal(removed, rows, complete=len(found) < max_tasks)

    async def owner_summary(self, owner_id: str) -> OwnerSummary | None:
        """Return the summary of the owner's removed tasks, if any were removed."""
        return self._owners.get(owner_id)

    async def sizes(self) -> StoreSizes:
        """Count what the store holds."""
        live = sum(1 for task in self._tasks.values() if task.status.is_live)
        return StoreSizes(
            live_tasks=live,
            finished_tasks=len(self._tasks) - live,
            ledger_rows=len(self._runs),
            summaries=len(self._summaries),
            owner_summaries=len(self._owners),
            removed_tasks=sum(owner.tasks for owner in self._owners.values()),
        )

    async def ledger_summary(self, task_id: str, owner_id: str) -> LedgerSummary | None:
        """Return the summary of the task's folded runs, if any were folded."""
        self._owned(task_id, owner_id)
        return self._summaries.get(task_id)

    async def pause_owner(self, owner_id: str, reason: str) -> list[str]:
        """Pause the owner's active tasks."""
        paused: list[str] = []
        for task in list(self._tasks.values()):
            if task.owner_id == owner_id and task.status is TaskStatus.ACTIVE:
                self._put(replace(task, status=TaskStatus.PAUSED, status_reason=reason))
                paused.append(task.id)
        return paused

    async def history(
        self, task_id: str, owner_id: str, *, limit: int = 20, offset: int = 0
    ) -> list[TaskRun]:
        """Return the task's runs, newest first."""
        self._owned(task_id, owner_id)
        newest = list(reversed(self._runs_of.get(task_id, [])))
        page = newest[max(offset, 0) : max(offset, 0) + max(limit, 0)]
        return [self._runs[run_id] for run_id in page]

    async def observation(self, task_id: str) -> Observation | None:
        """Return the monitor's last observation."""
        return self._observations.get(task_id)

    async def save_observation(self, task_id: str, observation: Observation) -> None:
        """Keep the monitor's observation."""
        self._observations[task_id] = observation

    async def hold(
        self, delivery: Delivery, *, reason: HoldReason, now: datetime, release_at: datetime
    ) -> HeldDelivery:
        """Keep ``delivery`` until ``release_at`` (a message snoozed again moves its waiting
        snooze; a repeated reminder replaces its own)."""
        zone = zone_of(release_at)
        now, release_at = require_aware(now, "now"), require_aware(release_at, "release_at")
        waiting = sorted(self._held.values(), key=lambda entry: entry[0].id)
        if reason is HoldReason.SNOOZED:
            for held, lease in waiting:
                if lease is None and _same_snooze(held, delivery):
                    moved = replace(held, held_at=now, release_at=release_at, zone=zone)
                    self._held[held.id] = (moved, None)
                    return replace(moved, moved_from=held.release_at)
        if delivery.nags and delivery.kind is DeliveryKind.REMINDER:
            for held, lease in waiting:
                same = held.delivery.task_id == delivery.task_id and held.reason is reason
                if same and held.delivery.kind is DeliveryKind.REMINDER:
                    again = replace(held, delivery=delivery, repeats=held.repeats + 1)
                    self._held[held.id] = (again, lease)
                    return again
        held = HeldDelivery(next(self._held_ids), delivery, reason, now, release_at, zone=zone)
        self._held[held.id] = (held, None)
        return held

    async def claim_held(
        self, now: datetime, *, limit: int, lease: timedelta
    ) -> list[HeldDelivery]:
        """Take the due held deliveries under a lease."""
        now = require_aware(now, "now")
        due = [
            held
            for held, until in self._held.values()
            if held.release_at <= now and (until is None or until <= now)
        ]
        taken = sorted(due, key=lambda held: (held.release_at, held.id))[:limit]
        for held in taken:
            self._held[held.id] = (held, now + lease)
        return taken

    async def release_held(self, released: Sequence[HeldDelivery], now: datetime) -> None:
        """Forget what went out and note it on the runs' rows."""
        for held in released:
            self._held.pop(held.id, None)
            run = self._runs.get(held.delivery.run_id or 0)
            if run is not None:
                note = release_note(held, now)
                self._runs[run.id] = replace(run, result=(run.result or "") + note)

    async def next_release(self) -> datetime | None:
        """Return when the earliest held delivery is due."""
        times = [
            max(held.release_at, until) if until is not None else held.release_at
            for held, until in self._held.values()
        ]
        return min(times, default=None)

    async def held(self, owner_id: str) -> list[HeldDelivery]:
        """Return the owner's held deliveries, oldest first."""
        found = [held for held, _ in self._held.values() if held.delivery.owner_id == owner_id]
        return sorted(found, key=lambda held: held.id)

    async def release_owner(self, owner_id: str, now: datetime, *, reason: HoldReason) -> int:
        """Make the owner's deliveries held for ``reason`` due now."""
        now = require_aware(now, "now")
        count = 0
        for held, lease in list(self._held.values()):
            mine = held.delivery.owner_id == owner_id and held.reason is reason
            if mine and held.release_at > now:
                self._held[held.id] = (replace(held, release_at=now), lease)
                count += 1
        return count

    async def acknowledge(
        self,
        task_id: str,
        owner_id: str,
        now: datetime,
        *,
        note: str,
        change: TaskChange | None,
        allowed_from: Collection[TaskStatus],
    ) -> Task:
        """Record the acknowledgement as a ledger row and apply ``change``."""
        now = require_aware(now, "now")
        task = self._owned(task_id, owner_id)
        if change is not None:
            task = self._put(
                changed(task, change, allowed_from=allowed_from, action="acknowledge", now=now)
            )
        row = TaskRun(
            id=next(self._run_ids), task_id=task.id, scheduled_for=now, claimed_at=now,
            status=RunStatus.ACKNOWLEDGED, misfire=MisfireAction.MANUAL, started_at=now,
            finished_at=now, result=note,
        )  # fmt: skip
        self._record(row)
        return task

    async def acknowledged_since(self, task_id: str, since: datetime) -> bool:
        """Whether the task was acknowledged at ``since`` or later."""
        last = await self.last_acknowledged(task_id)
        return last is not None and last >= since

    async def last_acknowledged(self, task_id: str) -> datetime | None:
        """When the task was last acknowledged."""
        for run_id in reversed(self._runs_of.get(task_id, [])):
            run = self._runs[run_id]
            if run.status is RunStatus.ACKNOWLEDGED:
                return run.claimed_at
        return None

    async def runs_since(self, owner_id: str, since: datetime, *, limit: int) -> list[RecentRun]:
        """Return the owner's runs finished since ``since``, newest first."""
        since = require_aware(since, "since")
        found = [
            RecentRun(self._tasks[run.task_id], run)
            for run in self._runs.values()
            if run.finished_at is not None
            and run.finished_at >= since
            and self._tasks[run.task_id].owner_id == owner_id
        ]
        found.sort(key=lambda recent: (recent.run.finished_at, recent.run.id), reverse=True)
        return found[: max(limit, 0)]

    async def changes_since(self, owner_id: str, since: datetime) -> list[WatchedChange]:
        """Return the owner's monitors that changed since ``since``."""
        since = require_aware(since, "since")
        found = [
            WatchedChange(self._tasks[task_id], seen)
            for task_id, seen in self._observations.items()
            if self._tasks[task_id].owner_id == owner_id
            and seen.changed_at >= since
            and seen.changes > 0
        ]
        return sorted(
            found, key=lambda change: (-change.observation.changed_at.timestamp(), change.task.id)
        )

    def _insert(self, draft: TaskDraft) -> Task:
        task_id = self._new_id()
        for _ in range(_ID_DRAWS):
            if task_id not in self._tasks:
                break
            task_id = self._new_id()
        else:
            raise TaskError(f"could not find a free task id after {_ID_DRAWS} draws")
        return self._put(draft.to_task(task_id))

    def _put(self, task: Task) -> Task:
        """Store ``task``'s new state; an enabled one goes into the due heap."""
        self._tasks[task.id] = task
        if task.enabled and task.next_run is not None:
            heapq.heappush(self._due, (task.next_run, task.id))
            if len(self._due) > 2 * len(self._tasks) + _COMPACT_AT:
                self._due = [e for e in self._due if self._is_due(e)]
                heapq.heapify(self._due)
        return task

    def _is_due(self, entry: tuple[datetime, str]) -> bool:
        """Whether a due-heap entry still names an enabled task at that next run."""
        task = self._tasks.get(entry[1])
        return task is not None and task.enabled and task.next_run == entry[0]

    def _is_leased(self, entry: tuple[datetime, int]) -> bool:
        """Whether a lease-heap entry still names a claimed run with that lease."""
        run = self._runs.get(entry[1])
        return run is not None and run.status is RunStatus.CLAIMED and run.lease_until == entry[0]

    def _owned(self, task_id: str, owner_id: str) -> Task:
        task = self._tasks.get(task_id)
        if task is None or task.owner_id != owner_id:
            raise not_found(task_id)
        return task

    def _claim_one(self, task: Task, now: datetime, lease: timedelta) -> Claim | None:
        assert task.next_run is not None
        plan = plan_claim(task.schedule, task.next_run, task.misfire, now)
        status = claimed_status(task.schedule, plan)
        finished_at = now if status is TaskStatus.DONE else None
        claimed = self._put(
            replace(task, status=status, next_run=plan.next_run, finished_at=finished_at)
        )
        if plan.skipped_from is not None:
            skip = TaskRun.new(
                next(self._run_ids), task.id, plan.skipped_from, now,
                misfire=MisfireAction.SKIPPED, late_by=now - plan.skipped_from,
                missed=plan.skipped - 1,
            )  # fmt: skip
            self._record(skip)
        if plan.run_for is None:
            return None
        run = TaskRun.new(
            next(self._run_ids), task.id, plan.run_for, now, misfire=plan.action,
            lease_until=now + lease, missed=plan.missed, late_by=plan.late_by,
        )  # fmt: skip
        return Claim(claimed, self._record(run))

    def _skip_retry(
        self, task: Task, run: TaskRun, now: datetime, late_by: timedelta | None
    ) -> None:
        """Record the retry as skipped (misfire policy); a one-time task ends DONE."""
        skip = TaskRun.new(
            next(self._run_ids), task.id, run.scheduled_for, now,
            misfire=MisfireAction.SKIPPED, late_by=late_by, attempt=2,
        )  # fmt: skip
        self._record(skip)
        self._put(after_skipped_retry(task, now))

    def _record(self, run: TaskRun) -> TaskRun:
        """Add a new ledger row."""
        self._runs[run.id] = run
        self._runs_of.setdefault(run.task_id, []).append(run.id)
        if run.status is RunStatus.CLAIMED and run.lease_until is not None:
            heapq.heappush(self._leases, (run.lease_until, run.id))
        return run

    def _finish(self, outcome: RunOutcome, *, max_failures: int | None) -> FinishedRun:
        run = self._runs.get(outcome.run_id)
        if run is not None:
            self._runs[run.id] = run.ended(outcome)
        task = self._tasks.get(outcome.task_id)
        if task is None:
            return FinishedRun(outcome.run_id, outcome.task_id, None, 0)
        after = after_run(
            task.status, task.consecutive_failures, outcome, max_failures=max_failures
        )
        task = replace(
            task,
            status=after.status,
            next_run=after.next_after(task.next_run),
            status_reason=(
                task.status_reason if after.status_reason is UNSET else after.status_reason
            ),
            last_run=outcome.finished_at,
            run_count=task.run_count + 1,
            consecutive_failures=after.consecutive_failures,
            finished_at=finish_time(
                task.status, task.finished_at, after.status, outcome.finished_at
            ),
        )
        self._put(task)
        return after.finished(outcome)


def _folded(run: TaskRun) -> FoldedRow:
    return FoldedRow(run.id, run.status, run.scheduled_for, run.late_by, run.error)


def _pop_due(
    heap: list[tuple[datetime, K]],
    valid: Callable[[tuple[datetime, K]], bool],
    until: datetime,
    limit: int,
) -> list[K]:
    """Take the first ``limit`` live entries due by ``until`` off ``heap``, earliest first
    (ties by key); stale entries are dropped on the way."""
    keys: list[K] = []
    seen: set[K] = set()
    while heap and len(keys) < limit and heap[0][0] <= until:
        entry = heapq.heappop(heap)
        if entry[1] not in seen and valid(entry):
            seen.add(entry[1])
            keys.append(entry[1])
    return keys


def _peek(
    heap: list[tuple[datetime, K]], valid: Callable[[tuple[datetime, K]], bool]
) -> datetime | None:
    """The earliest live entry's time (stale entries on top are dropped), or ``None``."""
    while heap and not valid(heap[0]):
        heapq.heappop(heap)
    return heap[0][0] if heap else None


def _listing_key(task: Task) -> tuple[tuple[int, float], datetime, str]:
    when = (0, task.next_run.timestamp()) if task.next_run is not None else _FAR_FUTURE_KEY
    return when, task.created_at, task.id


def _same_snooze(held: HeldDelivery, delivery: Delivery) -> bool:
    """Whether ``held`` is a snooze of the message ``delivery`` is (its task, run and text)."""
    was, now = held.delivery, delivery
    same = (was.task_id, was.run_id, was.text) == (now.task_id, now.run_id, now.text)
    return held.reason is HoldReason.SNOOZED and same

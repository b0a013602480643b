"""The task store interface: the single source of truth for tasks and their run ledger.

Three implementations keep the same contract (one test suite runs against all):
``SqliteTaskStore`` (the embedded default, one database file shared with other packages),
``PostgresTaskStore`` (one database shared by several schedulers) and ``MemoryTaskStore``
(tests, throwaway sessions). Every method that takes an ``owner_id`` treats
a task of another owner exactly like a missing one.

All instants are timezone-aware; the stores return them in UTC.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import Enum, StrEnum
from typing import Final, Literal, TypeAlias
from zoneinfo import ZoneInfo

from common import AsyncLifecycle, clean_text
from tasks.errors import TaskNotFoundError, TaskStateError
from tasks.limits import TaskLimits
from tasks.models import (
    Claim,
    Compaction,
    FinishedRun,
    LedgerSummary,
    OwnerSummary,
    Removal,
    Repack,
    RunOutcome,
    StoreSizes,
    Task,
    TaskDraft,
    TaskRun,
    TaskStatus,
)
from tasks.monitors import Observation
from tasks.protocols import Delivery
from tasks.schedule.model import Schedule, format_local


class _Unset(Enum):
    UNSET = "unset"


UNSET: Final = _Unset.UNSET
"""Marks a ``TaskChange`` field that stays as it is."""
Unset: TypeAlias = Literal[_Unset.UNSET]


@dataclass(frozen=True, slots=True)
class TaskChange:
    """A change to a task's state, applied only if the task is in an allowed status.

    Attributes:
        status: The new status, or ``UNSET``.
        next_run: The new next run (``None`` clears it), or ``UNSET``.
        status_reason: The new reason text (``None`` clears it), or ``UNSET``.
        reset_failures: Whether to set the consecutive failure count back to zero.
        schedule: The new schedule, or ``UNSET``.
    """

    status: TaskStatus | Unset = UNSET
    next_run: datetime | Unset | None = UNSET
    status_reason: str | Unset | None = UNSET
    reset_failures: bool = False
    schedule: Schedule | Literal[_Unset.UNSET] = UNSET

    def __post_init__(self) -> None:
        if isinstance(self.status_reason, str):
            object.__setattr__(self, "status_reason", clean_text(self.status_reason))


@dataclass(frozen=True, slots=True)
class GivenUp:
    """A run whose lease ran out and that is not run again; its owner is told.

    ``run.status`` says which: FAILED (a second attempt, or a cancelled task's run), or
    OUTCOME_UNKNOWN (a run that may have acted and is never repeated automatically).
    """

    task: Task
    run: TaskRun


class HoldReason(StrEnum):
    """Why a delivery is held."""

    QUIET = "quiet"  # its owner's quiet hours: released when they end
    SNOOZED = "snoozed"  # its owner asked to see it again later


@dataclass(frozen=True, slots=True)
class HeldDelivery:
    """A delivery kept in the store until ``release_at`` (it survives restarts).

    Attributes:
        id: Its row.
        delivery: What is delivered then.
        reason: Why it waits.
        held_at: When it was held.
        release_at: When it is delivered.
        repeats: How many more times it came while held (a reminder repeated until
            acknowledged is held once, counted).
        zone: The IANA zone its release time is said in (its owner's, when it was held).
        moved_from: When it would have come before a second snooze of the same message moved
            it (what ``hold`` returns then); ``None`` for a message held once.
    """

    id: int
    delivery: Delivery
    reason: HoldReason
    held_at: datetime
    release_at: datetime
    repeats: int = 0
    zone: str = "UTC"
    moved_from: datetime | None = None


def zone_of(instant: datetime) -> str:
    """The IANA name of ``instant``'s zone (``"UTC"`` when it has none by that name)."""
    zone = instant.tzinfo
    return zone.key if isinstance(zone, ZoneInfo) else "UTC"


def release_note(held: HeldDelivery, now: datetime) -> str:
    """What a released delivery adds to its run's row in the ledger."""
    zone = ZoneInfo(held.zone)
    when = f"{format_local(now, zone)} ({zone.key})"
    if held.reason is HoldReason.QUIET:
        return f"; delivered at {when}"
    return f"; shown again at {when} (snoozed)"


@dataclass(frozen=True, slots=True)
class RecentRun:
    """A run of one of an owner's tasks, with its task (what a briefing reports)."""

    task: Task
    run: TaskRun


@dataclass(frozen=True, slots=True)
class WatchedChange:
    """A monitor's observation, with its task (what a briefing reports)."""

    task: Task
    observation: Observation


LEASE_LOST_ERROR = "the run did not finish before its lease ran out (the process stopped)"
OUTCOME_UNKNOWN_ERROR = (
    "the assistant stopped during this run, after its request may have been sent; whether "
    "it acted is unknown, so it was not repeated"
)


class TaskStore(AsyncLifecycle):
    """Where tasks and their runs are kept (``async with`` opens and closes the store)."""

    async def _enter(self) -> None:
        await self.open()

    async def _exit(self) -> None:
        await self.close()

    @abstractmethod
    async def open(self) -> None:
        """Make the store ready (connect, create or migrate tables); calling it again is a no-op."""

    @abstractmethod
    async def close(self) -> None:
        """Release the store's resources; calling it again is a no-op."""

    async def watch(self, changed: Callable[[], None]) -> bool:
        """Ask to have ``changed`` called whenever any process adds or changes a task.

        Returns whether this store can tell. The PostgreSQL store LISTENs for the
        notifications its writes send; the others cannot, and a manager re-reads them every
        ``recheck_every`` instead.
        """
        return False

    @abstractmethod
    async def add_task(self, draft: TaskDraft, *, limits: TaskLimits | None = None) -> Task:
        """Store ``draft`` under a fresh short id and return the task.

        With ``limits``, the owner's live tasks (not done, not cancelled) and their bytes
        (``tasks.limits.draft_bytes``) are counted in the same transaction as the insert, so
        that two drafts arriving together cannot both take the last place.

        Raises:
            TaskLimitError: when the draft does not fit its owner's ``limits``.
        """

    @abstractmethod
    async def add_tasks(self, drafts: Sequence[TaskDraft]) -> list[str]:
        """Store many drafts in one transaction and return their ids, in order."""

    @abstractmethod
    async def get_task(self, task_id: str, owner_id: str | None = None) -> Task | None:
        """Return the task, or ``None`` if there is none (of that owner, when given)."""

    @abstractmethod
    async def list_tasks(
        self,
        owner_id: str,
        *,
        include_finished: bool = False,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[Task]:
        """Return the owner's tasks by next run (unscheduled last), then creation and id
        (live ones only, unless ``include_finished``): at most ``limit`` of them, after
        skipping ``offset`` (one page of a listing, the same order on every store)."""

    @abstractmethod
    async def active_task_ids(
        self, owner_id: str, *, done_since: datetime | None = None
    ) -> list[str]:
        """Return the ids of the owner's live tasks (not done, not cancelled), oldest first;
        with ``done_since``, also those of its done tasks whose last run finished then or
        later (a reminder that has just gone off)."""

    @abstractmethod
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
        """Apply ``change`` at ``now`` if the task's status is in ``allowed_from``; return the
        new task. A change that finishes the task (done, cancelled) records ``now`` as its
        ``finished_at``.

        Raises:
            TaskNotFoundError: when the owner has no such task.
            TaskStateError: when its status is not in ``allowed_from``.
        """

    @abstractmethod
    async def claim_due(
        self, now: datetime, *, limit: int, lease: timedelta, ahead: timedelta = timedelta(0)
    ) -> list[Claim]:
        """Atomically claim up to ``limit`` tasks due by ``now + ahead``, earliest first.

        ``ahead`` lets a caller claim runs a moment before they are due and start each one
        at its exact time; misfire decisions are still made for ``now``.

        In the same transaction for each task: apply the misfire plan, advance a recurring
        task's ``next_run`` (or mark a one-time task RUNNING), and insert the ledger rows (the
        claimed run under a lease until ``now + lease``, and a skipped row when runs are
        skipped). Tasks whose plan runs nothing are not returned.
        """

    @abstractmethod
    async def reclaim_expired(
        self, now: datetime, *, limit: int, lease: timedelta, orphaned: bool = False
    ) -> tuple[list[Claim], list[GivenUp]]:
        """Handle claimed runs whose lease ran out before ``now``.

        With ``orphaned`` every claimed run counts, however long its lease still runs: the
        caller knows that whoever claimed them is gone (a scheduler that holds the data
        directory's lock, as it starts). Either way each run is decided as follows.

        A run that is not safe to repeat (an api_call whose method is POST or PATCH:
        ``tasks.execution.repeat_is_safe``) and that started (``mark_started``) is never
        claimed again: whatever its attempt, it is recorded as OUTCOME_UNKNOWN with
        ``OUTCOME_UNKNOWN_ERROR`` (it counts as a failure, without disabling the task; a
        one-time task becomes DONE, a recurring one keeps its schedule) and returned as
        given up, so that its owner decides. One that never started is decided like any
        other run, as follows.

        Any other first attempt is marked ABANDONED and claimed again as attempt 2 (returned
        as a claim) unless its task was cancelled meanwhile, or its misfire policy is SKIP and
        the retry would start beyond the grace period: the retry is then recorded as SKIPPED
        (attempt 2), a one-time task becomes DONE and a recurring one keeps its schedule,
        and it is not returned. A second attempt is recorded as FAILED
        (it counts as a failure, and a one-time task becomes DONE) and returned as given up.
        These decisions are ``tasks.store.planning.plan_reclaim``'s.
        """

    @abstractmethod
    async def renew_leases(
        self, run_ids: Collection[int], now: datetime, *, lease: timedelta
    ) -> set[int]:
        """Extend the leases of the runs that are still claimed to ``now + lease``.

        This is the heartbeat of a manager's runs in flight, one write for all of them. A
        run id stands for one claim: a run whose lease ran out is retried under a new id and
        its old row is ABANDONED, so a manager renewing the ids it claimed can never extend
        a run that another manager took over. A lease is never shortened.

        Returns:
            The ids whose lease now runs until at least ``now + lease``; an id missing from
            it is a run that is no longer claimed (finished, or given up and retried).
        """

    @abstractmethod
    async def mark_started(self, run_id: int, now: datetime) -> bool:
        """Record in the ledger that the claimed run starts at ``now``, and return whether it
        is still claimed (one given back, or taken over by another scheduler after its lease
        ran out, must not start).

        A manager records it before the first attempt of a run that is not safe to repeat
        (``tasks.execution.repeat_is_safe``), before its request can go out, so that a lost
        run that started is of unknown outcome and one that never started runs
        (``reclaim_expired``). One write per such run; other runs do not record it.
        """

    @abstractmethod
    async def give_back(self, run_ids: Collection[int]) -> list[int]:
        """Give back the claimed runs among ``run_ids`` that never started, in one
        transaction: a manager that stops gives back the runs it claimed ahead of their time.

        Each such run is deleted from the ledger, as if it had never been claimed, and its
        task is due at the run's time again, or stays as it is, as
        ``tasks.store.transitions.given_back`` decides (a task's runs are taken latest
        first). A run it cannot give back (the task's next run moved on since its claim) is
        left claimed, to be retried once its lease runs out (it never started, so it runs).
        Runs that finished, started, or are no longer claimed are left alone.

        Returns:
            The ids of the runs given back.
        """

    @abstractmethod
    async def claim_now(
        self, task_id: str, owner_id: str, now: datetime, *, lease: timedelta
    ) -> Claim:
        """Claim a run of the task outside its schedule ("run now").

        A one-time task is consumed (RUNNING, then DONE); a recurring task keeps its schedule.

        Raises:
            TaskNotFoundError: when the owner has no such task.
            TaskStateError: when it is cancelled or already running.
        """

    @abstractmethod
    async def next_wakeup(self) -> datetime | None:
        """Return the earliest enabled ``next_run`` or lease expiry, or ``None``."""

    @abstractmethod
    async def count_due(self, until: datetime, *, limit: int) -> int:
        """Return how many enabled tasks have a ``next_run`` by ``until``, at most ``limit``.

        The timer asks this before it sleeps, to start claiming a burst early enough; it
        must cost in proportion to the count (an index range), never to all tasks stored.
        """

    @abstractmethod
    async def count_overdue(self, before: datetime) -> int:
        """Return how many enabled tasks have a ``next_run`` earlier than ``before`` (due,
        and not yet claimed: the health check's measure of a scheduler falling behind)."""

    @abstractmethod
    async def finish_runs(
        self, outcomes: Sequence[RunOutcome], *, max_failures: int
    ) -> list[FinishedRun]:
        """Record how runs ended, in one transaction, and update their tasks.

        A success resets the task's consecutive failures, a failure adds one; a one-time
        task that was RUNNING becomes DONE, or ACTIVE again due at the outcome's
        ``retry_at`` when it has one; an ACTIVE task that reaches ``max_failures`` failures
        in a row becomes DISABLED (``tasks.store.transitions``). Outcomes are applied in
        order; each of the returned entries says what its outcome did.
        """

    @abstractmethod
    async def compact_ledger(
        self,
        *,
        before: datetime,
        keep: int,
        max_rows: int,
        max_tasks: int,
        after_task: str = "",
    ) -> Compaction:
        """Fold old ledger rows into their tasks' summaries, a bounded amount per call.

        Looks at up to ``max_tasks`` tasks that have ledger rows, in id order after
        ``after_task``, and, for each,
        folds its rows that ``tasks.store.retention`` allows (final, not outcome_unknown,
        claimed before ``before``, not among its newest ``keep``) into its
        ``LedgerSummary`` and deletes them, in one transaction, at most ``max_rows`` rows in
        all. The returned ``next_task`` is where the next call continues (``""`` once the
        last task was looked at). Two schedulers compacting at once never fold a row twice.
        """

    @abstractmethod
    async def remove_finished(self, *, before: datetime, max_tasks: int, max_rows: int) -> Removal:
        """Remove finished tasks whose time is past, a bounded amount per call.

        Takes up to ``max_tasks`` tasks that are done or cancelled, that finished
        (``Task.finished_at``) before ``before``, and that have no run claimed, oldest first,
        stopping once ``max_rows`` ledger rows were read (at least one task is taken). Each
        task's remaining ledger rows are folded into its summary, that summary into its
        owner's ``OwnerSummary``, and the task, its rows and its summary are deleted, all in
        one transaction. Two schedulers removing at once never take a task twice.
        """

    async def repack(self, *, window: int, after: int = 0) -> Repack:
        """Move the live tasks out of a sparse stretch of the task table, a bounded amount.

        Looks at the next ``window`` tasks in the table's storage order after ``after``; when
        a quarter or more of the places they are spread over are empty (the tasks between
        them were removed), they are written anew at the table's end, in one transaction, so
        the pages they held become free for new tasks (or go back to the file system). A
        database whose tables reuse freed space by themselves (PostgreSQL's vacuum, the
        in-memory store) has nothing to do here, which is this default.
        """
        return Repack(0, 0, complete=True)

    @abstractmethod
    async def owner_summary(self, owner_id: str) -> OwnerSummary | None:
        """Return the summary of the owner's removed tasks (``None``: none removed yet)."""

    @abstractmethod
    async def sizes(self) -> StoreSizes:
        """Count what the store holds: tasks live and finished, ledger rows, summaries."""

    @abstractmethod
    async def ledger_summary(self, task_id: str, owner_id: str) -> LedgerSummary | None:
        """Return the summary of the task's folded rows (``None``: none folded yet).

        Raises:
            TaskNotFoundError: when the owner has no such task.
        """

    @abstractmethod
    async def pause_owner(self, owner_id: str, reason: str) -> list[str]:
        """Pause every ACTIVE task of the owner with ``reason``; return their ids."""

    @abstractmethod
    async def history(
        self, task_id: str, owner_id: str, *, limit: int = 20, offset: int = 0
    ) -> list[TaskRun]:
        """Return the task's ledger rows, newest first: ``limit`` of them after ``offset``.

        Raises:
            TaskNotFoundError: when the owner has no such task.
        """

    # What the proactive features keep (issue 28): monitors' last observations, deliveries held
    # for quiet hours or snoozed, acknowledgements (ledger rows), and what briefings read.

    @abstractmethod
    async def observation(self, task_id: str) -> Observation | None:
        """Return the monitor's last observation (``None``: it has not looked yet)."""

    @abstractmethod
    async def save_observation(self, task_id: str, observation: Observation) -> None:
        """Keep ``observation`` as the monitor's last one (one per task)."""

    @abstractmethod
    async def hold(
        self, delivery: Delivery, *, reason: HoldReason, now: datetime, release_at: datetime
    ) -> HeldDelivery:
        """Keep ``delivery`` until ``release_at`` (an instant in the owner's zone, which is
        kept to say the release time in the ledger).

        A reminder that repeats until acknowledged, held again for the same reason while an
        earlier one of its task still waits, replaces that one (its ``repeats`` counts up),
        so the owner gets it once when the wait ends. A message snoozed again while its
        earlier snooze waits (the same task, run and text) moves that one to ``release_at``
        (``moved_from`` says when it would have come), so it comes once.
        """

    @abstractmethod
    async def claim_held(
        self, now: datetime, *, limit: int, lease: timedelta
    ) -> list[HeldDelivery]:
        """Atomically take up to ``limit`` held deliveries due by ``now`` (of the chats the
        store claims for), oldest first, under a lease until ``now + lease``; a delivery
        whose lease ran out (its releaser died) is taken again."""

    @abstractmethod
    async def release_held(self, released: Sequence[HeldDelivery], now: datetime) -> None:
        """Forget ``released`` (they went out) and note on their runs' ledger rows when."""

    @abstractmethod
    async def next_release(self) -> datetime | None:
        """Return when the earliest held delivery is due (or its lease runs out)."""

    @abstractmethod
    async def held(self, owner_id: str) -> list[HeldDelivery]:
        """Return the owner's held deliveries, oldest first."""

    @abstractmethod
    async def release_owner(self, owner_id: str, now: datetime, *, reason: HoldReason) -> int:
        """Make the owner's deliveries held for ``reason`` due at ``now`` (their quiet hours
        were ended); return how many."""

    @abstractmethod
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
        """Record that the owner acknowledged the task (a ledger row of status
        ``acknowledged`` saying ``note``) and apply ``change``, if any, in one transaction.

        Raises:
            TaskNotFoundError: when the owner has no such task.
            TaskStateError: when a change is given and the status is not in ``allowed_from``.
        """

    @abstractmethod
    async def acknowledged_since(self, task_id: str, since: datetime) -> bool:
        """Whether the task was acknowledged at ``since`` or later."""

    @abstractmethod
    async def last_acknowledged(self, task_id: str) -> datetime | None:
        """When the task was last acknowledged (``None``: never)."""

    @abstractmethod
    async def runs_since(self, owner_id: str, since: datetime, *, limit: int) -> list[RecentRun]:
        """The owner's runs that finished at ``since`` or later, newest first (``limit``)."""

    @abstractmethod
    async def changes_since(self, owner_id: str, since: datetime) -> list[WatchedChange]:
        """The owner's monitors whose observation changed at ``since`` or later (not their
        first look), latest change first."""


def not_found(task_id: str) -> TaskNotFoundError:
    """The error for a task id the owner does not have."""
    return TaskNotFoundError(
        f"there is no task {task_id!r}; list your tasks to see their ids (six letters and digits)"
    )


def wrong_state(task: Task, action: str) -> TaskStateError:
    """The error for an operation that does not apply to the task's status."""
    status = task.status
    if action.startswith(("pause", "resume")) and status in (TaskStatus.PAUSED, TaskStatus.ACTIVE):
        hint = f"it is already {status.value}"
    else:
        hint = {
            TaskStatus.CANCELLED: "it was cancelled; create a new task instead",
            TaskStatus.DONE: "it already ran and has no further run; create a new task instead",
            TaskStatus.RUNNING: "it is running right now; try again when it has finished",
            TaskStatus.PAUSED: "it is paused; resume it first",
            TaskStatus.DISABLED: "it was disabled after failing; resume it first",
            TaskStatus.ACTIVE: "it is active",
        }[status]
    return TaskStateError(f"cannot {action} task {task.id!r}: {hint}")

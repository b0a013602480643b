"""The scheduler's data: tasks, their runs in the ledger, and the enums that name their states.

A task's life::

    ACTIVE --claim (one-time)--> RUNNING --finish--> DONE
    ACTIVE <--pause/resume--> PAUSED
    ACTIVE --too many failures--> DISABLED --resume--> ACTIVE
    any live state --cancel--> CANCELLED

``enabled`` in the table is true exactly when the status is ACTIVE, and then ``next_run`` is set.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from enum import StrEnum
from types import MappingProxyType

from common import clean_text, require_aware
from tasks.execution import ExecutionData, TaskType
from tasks.schedule.model import Schedule

# No 0/o, 1/l/i: ids are typed by people from a phone screen.
ID_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"
ID_LENGTH = 6


def new_task_id() -> str:
    """Return a fresh short task id such as ``"k3m9xa"``."""
    return "".join(secrets.choice(ID_ALPHABET) for _ in range(ID_LENGTH))


class TaskStatus(StrEnum):
    """Where a task stands."""

    ACTIVE = "active"  # waiting for its next run
    RUNNING = "running"  # a one-time task whose run is claimed and not finished
    PAUSED = "paused"  # kept, not fired, until resumed
    DISABLED = "disabled"  # stopped after failing too often, until resumed
    DONE = "done"  # a one-time task that ran, or a schedule that has no further run
    CANCELLED = "cancelled"

    @property
    def is_live(self) -> bool:
        """Whether the task can still run (it is not done or cancelled)."""
        return self not in (TaskStatus.DONE, TaskStatus.CANCELLED)


class MisfirePolicy(StrEnum):
    """What to do with a run that was missed by more than the grace period (downtime)."""

    RUN_LATE = "run_late"  # run every missed run, marked late (recurring: catch up one by one)
    COALESCE = "coalesce"  # run once for all missed runs, marked late, then continue
    SKIP = "skip"  # record the missed runs as skipped and wait for the next one


class MisfireAction(StrEnum):
    """What the scheduler decided for one ledger row."""

    ON_TIME = "on_time"
    LATE = "late"  # ran later than the grace period allows
    COALESCED = "coalesced"  # one run stands for several missed runs
    SKIPPED = "skipped"  # missed runs not run at all
    RETRY = "retry"  # a second attempt after the first one's process died
    MANUAL = "manual"  # "run now"


class RunStatus(StrEnum):
    """How a run in the ledger stands or ended."""

    CLAIMED = "claimed"  # claimed under a lease and not finished yet
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    UNDELIVERED = "undelivered"  # ran, but the chat could not be reached at all
    SKIPPED = "skipped"  # a misfire decision: not run
    ABANDONED = "abandoned"  # its lease ran out (the process died); retried as attempt 2
    # It may or may not have acted (a POST sent, no answer; or the process died during it):
    # never repeated automatically, the owner is offered to run it again.
    OUTCOME_UNKNOWN = "outcome_unknown"
    # Not a run: its owner acknowledged the reminder (Done, "done", /done), recorded where
    # its runs are so that the task's history shows it.
    ACKNOWLEDGED = "acknowledged"

    @property
    def is_failure(self) -> bool:
        """Whether this outcome counts towards disabling the task (it did not succeed)."""
        return self in (RunStatus.FAILED, RunStatus.OUTCOME_UNKNOWN)


@dataclass(frozen=True, slots=True)
class MisfireRule:
    """A misfire policy and how late a run may start before the policy applies."""

    policy: MisfirePolicy
    grace: timedelta = timedelta(minutes=1)


# The per-type defaults (read-only); a task may carry its own rule.
DEFAULT_MISFIRE_RULES: Mapping[TaskType, MisfireRule] = MappingProxyType(
    {
        TaskType.REMINDER: MisfireRule(MisfirePolicy.COALESCE),
        TaskType.AGENT_TASK: MisfireRule(MisfirePolicy.COALESCE),
        TaskType.WEB_SEARCH: MisfireRule(MisfirePolicy.COALESCE),
        # "turn the lights off at 1am" must not happen at 9am after an outage.
        TaskType.API_CALL: MisfireRule(MisfirePolicy.SKIP, grace=timedelta(minutes=10)),
        # A check missed during downtime is one check when the scheduler is back.
        TaskType.MONITOR: MisfireRule(MisfirePolicy.COALESCE),
        TaskType.BRIEFING: MisfireRule(MisfirePolicy.COALESCE),
    }
)


@dataclass(frozen=True, slots=True)
class TaskSpec:
    """What a task is, as its owner asked for it: the part a draft and a stored task share.

    Attributes:
        owner_id: The user who owns it.
        chat_id: Where its messages go.
        task_type: What it does.
        description: A short text for listings (a reminder's text).
        schedule: When it fires.
        execution: What it needs to run, validated for ``task_type``.
        misfire: What to do when a run was missed.
    """

    owner_id: str
    chat_id: str
    task_type: TaskType
    description: str
    schedule: Schedule
    execution: ExecutionData
    misfire: MisfireRule

    def __post_init__(self) -> None:
        # Text as both databases keep it (PostgreSQL refuses a NUL anywhere).
        object.__setattr__(self, "description", clean_text(self.description))


@dataclass(frozen=True, slots=True)
class TaskDraft(TaskSpec):
    """A task to be stored; the store gives it its id (and ``TaskSpec``'s attributes).

    Attributes:
        created_at: When it was created (UTC).
        next_run: Its first run (UTC).
    """

    created_at: datetime
    next_run: datetime

    def to_task(self, task_id: str) -> Task:
        """Return the ACTIVE task this draft becomes when stored under ``task_id``.

        Raises:
            ValueError: when ``created_at`` or ``next_run`` has no time zone.
        """
        return Task(
            id=task_id,
            owner_id=self.owner_id,
            chat_id=self.chat_id,
            task_type=self.task_type,
            description=self.description,
            schedule=self.schedule,
            execution=self.execution,
            misfire=self.misfire,
            status=TaskStatus.ACTIVE,
            created_at=require_aware(self.created_at, "created_at"),
            next_run=require_aware(self.next_run, "next_run"),
        )


@dataclass(frozen=True, slots=True)
class Task(TaskSpec):
    """A stored task, as read from the store (and ``TaskSpec``'s attributes).

    Attributes:
        id: Short id a person can type.
        status: Where it stands.
        created_at: When it was created (UTC).
        next_run: Its next run (UTC), or ``None`` when nothing is scheduled.
        last_run: When a run of it last finished (UTC).
        run_count: How many runs finished.
        consecutive_failures: Failed runs in a row since the last success.
        status_reason: Why it is paused or disabled, in plain words.
        finished_at: When it finished (became done or cancelled; UTC), ``None`` while it is
            live: retention counts a finished task's age from it.
    """

    id: str
    status: TaskStatus
    created_at: datetime
    next_run: datetime | None = None
    last_run: datetime | None = None
    run_count: int = 0
    consecutive_failures: int = 0
    status_reason: str | None = None
    finished_at: datetime | None = None

    @property
    def enabled(self) -> bool:
        """Whether the timer will fire it."""
        return self.status is TaskStatus.ACTIVE


@dataclass(frozen=True, slots=True)
class TaskRun:
    """One row of the run ledger.

    Attributes:
        id: The ledger row id.
        task_id: The task it belongs to.
        scheduled_for: The scheduled instant this run stands for (UTC).
        claimed_at: When it was claimed.
        status: How it stands or ended.
        misfire: What the scheduler decided (on time, late, coalesced, skipped, ...).
        attempt: 1, or 2 for the retry after a lease ran out.
        missed: How many scheduled runs this row covers beyond itself (coalesced or skipped).
        late_by: How late it started, when later than the grace period.
        lease_until: Until when the claim holds while it runs.
        started_at: When its runner started.
        finished_at: When it finished.
        result: A short account of what it did.
        error: Why it failed.
    """

    id: int
    task_id: str
    scheduled_for: datetime
    claimed_at: datetime
    status: RunStatus
    misfire: MisfireAction = MisfireAction.ON_TIME
    attempt: int = 1
    missed: int = 0
    late_by: timedelta | None = None
    lease_until: datetime | None = None
    started_at: datetime | None = None
    finished_at: datetime | None = None
    result: str | None = None
    error: str | None = None

    @classmethod
    def new(
        cls,
        run_id: int,
        task_id: str,
        scheduled_for: datetime,
        now: datetime,
        *,
        misfire: MisfireAction,
        lease_until: datetime | None = None,
        attempt: int = 1,
        missed: int = 0,
        late_by: timedelta | None = None,
    ) -> TaskRun:
        """A ledger row made at ``now``: claimed and held until ``lease_until``, or, when the
        misfire decision is SKIPPED, the record of runs not made (``missed`` more with it)."""
        skipped = misfire is MisfireAction.SKIPPED
        return cls(
            id=run_id,
            task_id=task_id,
            scheduled_for=scheduled_for,
            claimed_at=now,
            status=RunStatus.SKIPPED if skipped else RunStatus.CLAIMED,
            misfire=misfire,
            attempt=attempt,
            missed=missed,
            late_by=late_by,
            lease_until=None if skipped else lease_until,
            finished_at=now if skipped else None,
        )

    def ended(self, outcome: RunOutcome) -> TaskRun:
        """This run as the ledger holds it once ``outcome`` is recorded."""
        return replace(
            self,
            status=outcome.status,
            started_at=outcome.started_at,
            finished_at=outcome.finished_at,
            result=outcome.result,
            error=outcome.error,
            lease_until=None,
        )


@dataclass(frozen=True, slots=True)
class Claim:
    """A run the caller now holds and must execute and finish."""

    task: Task
    run: TaskRun


@dataclass(frozen=True, slots=True)
class RunOutcome:
    """How an executed run ended, to be written to the ledger.

    ``retry_at`` puts a one-time task that was RUNNING back to ACTIVE with this ``next_run``
    instead of finishing it (a failed run worth another try, such as an undelivered
    reminder; or a reminder that repeats until it is acknowledged); a failure still counts,
    so the task is disabled after too many. A recurring task runs at ``retry_at`` too when
    that comes before its next scheduled run (the repeat of a reminder not acknowledged).
    ``extra`` marks a run made outside the schedule ("run now"): it counts like any run but
    never finishes its task nor moves its next run (``retry_at`` is ignored).
    """

    run_id: int
    task_id: str
    status: RunStatus
    started_at: datetime
    finished_at: datetime
    result: str | None = None
    error: str | None = None
    retry_at: datetime | None = None
    extra: bool = False

    def __post_init__(self) -> None:
        # An answer, a page or a server's error may hold what no database stores (a NUL):
        # the ledger keeps the text without it, so the run is recorded once, as it ended.
        # (Set only when cleaning changed it: every run of a burst makes one of these.)
        result, error = self.result, self.error
        if result is not None and (cleaned := clean_text(result)) is not result:
            object.__setattr__(self, "result", cleaned)
        if error is not None and (cleaned := clean_text(error)) is not error:
            object.__setattr__(self, "error", cleaned)


@dataclass(frozen=True, slots=True)
class FinishedRun:
    """What finishing a run did to its task.

    Attributes:
        run_id: The run.
        task_id: Its task.
        task_status: The task's status now (``None``: the task is gone).
        consecutive_failures: The task's failed runs in a row now.
        disabled: Whether this run's failure disabled the task.
        previous_failures: The failed runs in a row before this one (a success after
            several is a recovery its owner is told of).
    """

    run_id: int
    task_id: str
    task_status: TaskStatus | None
    consecutive_failures: int
    disabled: bool = False
    previous_failures: int = 0


@dataclass(frozen=True, slots=True)
class Acknowledgement:
    """What acknowledging a task (Done, "done", ``/done``) did.

    Attributes:
        task: The task as it is now.
        stopped: Whether it stopped a reminder that was repeating until acknowledged.
        note: What its ledger row says.
        already: When it had already been acknowledged since it last went off (nothing
            was recorded this time), or ``None``.
    """

    task: Task
    stopped: bool
    note: str
    already: datetime | None = None


@dataclass(frozen=True, slots=True)
class LedgerSummary:
    """What a task's compacted runs were, in sum: the ledger rows folded into it are gone.

    Attributes:
        task_id: The task.
        runs: How many rows were folded.
        counts: How many of them ended in each status.
        first_scheduled: The earliest of their scheduled times.
        last_scheduled: The latest of them.
        late_runs: How many started late (a lateness was recorded).
        max_late_by: The largest lateness among them.
        last_run_id: The newest folded row (every row up to it that could be folded was).
        last_status: How the newest folded row ended (``None``: folded before this was kept).
        last_failure: The error of the newest folded run that failed (``None``: none failed).
        last_failure_at: When that run was scheduled.
    """

    task_id: str
    runs: int
    counts: Mapping[RunStatus, int]
    first_scheduled: datetime | None
    last_scheduled: datetime | None
    late_runs: int
    max_late_by: timedelta | None
    last_run_id: int
    last_status: RunStatus | None = None
    last_failure: str | None = None
    last_failure_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class OwnerSummary:
    """What an owner's removed tasks were, in sum: finished tasks past the retention age are
    removed with their ledger, and only this stays of them (one row per owner).

    Attributes:
        owner_id: The owner.
        tasks: How many of the owner's tasks were removed.
        runs: How many runs they had.
        counts: How many of those runs ended in each status.
        last_scheduled: The latest scheduled time among those runs.
        last_status: How the latest of them ended.
        last_failure: The error of the latest failed run among them (``None``: none failed).
        last_failure_at: When that run was scheduled.
        last_failure_task: What that task was (its description).
    """

    owner_id: str
    tasks: int
    runs: int
    counts: Mapping[RunStatus, int]
    last_scheduled: datetime | None
    last_status: RunStatus | None
    last_failure: str | None
    last_failure_at: datetime | None
    last_failure_task: str | None


@dataclass(frozen=True, slots=True)
class Compaction:
    """What one round of retention did.

    Attributes:
        folded: Ledger rows folded into summaries (and deleted).
        tasks: Tasks looked at.
        next_task: Where the next round starts (after this task id; ``""``: from the first).
        complete: Whether this round ended a pass through every task (the next one starts
            over) and removed every finished task old enough; otherwise it stopped part way,
            at its budget of rows or tasks.
        removed: Finished tasks removed into their owner's summary.
        repacked: Live tasks moved out of a sparse stretch of the task table.
    """

    folded: int
    tasks: int
    next_task: str
    complete: bool
    removed: int = 0
    repacked: int = 0


@dataclass(frozen=True, slots=True)
class Removal:
    """What one round of removing finished tasks did.

    Attributes:
        tasks: Tasks removed (with their ledger rows and summary).
        rows: Their ledger rows folded into the owners' summaries.
        complete: Whether no finished task old enough is left.
    """

    tasks: int
    rows: int
    complete: bool


@dataclass(frozen=True, slots=True)
class Repack:
    """What one round of repacking the task table did (see ``TaskStore.repack``).

    Attributes:
        moved: Live tasks moved out of a sparse stretch of the table.
        next_after: Where the next round looks (after this position; 0: from the start).
        complete: Whether this round ended a pass through the table.
        freed: Free pages given back to the file system.
    """

    moved: int
    next_after: int
    complete: bool
    freed: int = 0


@dataclass(frozen=True, slots=True)
class StoreSizes:
    """How much the task store holds (what ``assistant doctor`` reports).

    Attributes:
        live_tasks: Tasks not finished (active, running, paused, disabled).
        finished_tasks: Done and cancelled tasks still kept.
        ledger_rows: Run ledger rows kept in full.
        summaries: Per-task summaries of folded ledger rows.
        owner_summaries: Per-owner summaries of removed tasks.
        removed_tasks: Tasks removed so far, summed over the owners' summaries.
    """

    live_tasks: int
    finished_tasks: int
    ledger_rows: int
    summaries: int
    owner_summaries: int
    removed_tasks: int


@dataclass(frozen=True, slots=True)
class SchedulerHealth:
    """How the scheduler is doing, for a health check.

    Attributes:
        running: Whether the timer runs.
        last_tick: When the timer last woke up to claim due runs (``None``: not yet).
        overdue: Enabled tasks whose next run is more than the grace period in the past
            (due but not claimed: a scheduler falling behind, or not running).
        late: How late on-time runs start now: the most of those started in the last
            minute, and of those due but still waiting (for a worker or a claim).
    """

    running: bool
    last_tick: datetime | None
    overdue: int
    late: timedelta = timedelta(0)


def format_lateness(late_by: timedelta) -> str:
    """Say a lateness briefly: ``"2 h"``, ``"2 h 5 min"``, ``"45 min"``, ``"30 s"``."""
    seconds = int(late_by.total_seconds())
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [(days, "d"), (hours, "h"), (minutes, "min")]
    if not (days or hours):
        parts.append((secs, "s"))
    shown = [f"{value} {unit}" for value, unit in parts if value][:2]
    return " ".join(shown) or "0 s"

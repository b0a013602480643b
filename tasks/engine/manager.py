"""The TaskManager: the one object the rest of the program uses to schedule and fire tasks.

It offers the operations on tasks, owner-scoped: a task of another owner is treated exactly
like a missing one (``TaskNotFoundError`` with the same message), so ids cannot be probed;
every change wakes the timer. It builds the engine's parts (see ``tasks.engine``) and
starts and stops them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from common import AsyncLifecycle, Clock, SystemClock, redact_url
from tasks.describe import task_label
from tasks.engine import changes
from tasks.engine.ahead import ClaimedAhead
from tasks.engine.drafts import new_draft, normalize_id
from tasks.engine.executor import DELIVERY_BACKOFF, RunExecutor, delivery_backoff
from tasks.engine.holding import HeldReleaser, HoldingNotifier
from tasks.engine.leases import LeaseKeeper
from tasks.engine.ledger import LedgerWriter
from tasks.engine.notices import FollowUps
from tasks.engine.retention import LedgerPolicy, LedgerRetention
from tasks.engine.timer import ClaimsFirst, Timer
from tasks.errors import TaskDataError, TaskError, TaskNotFoundError, TaskStateError
from tasks.execution import ExecutionData, MonitorData, TaskType
from tasks.limits import TaskLimits, check_interval
from tasks.models import (
    DEFAULT_MISFIRE_RULES,
    Acknowledgement,
    LedgerSummary,
    MisfirePolicy,
    MisfireRule,
    SchedulerHealth,
    Task,
    TaskRun,
    TaskStatus,
)
from tasks.monitors import Observation
from tasks.protocols import (
    AgentRunner,
    BriefingSource,
    DeliveredMessages,
    Delivery,
    HttpSender,
    Notifier,
    QuietHours,
    Searcher,
    SecretSource,
    ToolRunner,
)
from tasks.runners import (
    AgentTaskRunner,
    ApiCallRunner,
    BriefingRunner,
    Deliverer,
    MonitorRunner,
    ReminderRunner,
    TaskRunner,
    WebSearchRunner,
)
from tasks.schedule.model import Schedule
from tasks.store.base import HeldDelivery, HoldReason, TaskStore, not_found

__all__ = ["DEFAULT_LEASE", "DELIVERY_BACKOFF", "TaskManager", "delivery_backoff"]

DEFAULT_LEASE = timedelta(seconds=10)
"""Short, because leases are renewed: a run held by a process that died waits this long."""
RECENTLY_DELIVERED = timedelta(hours=1)
"""A snooze of a task that is not a reminder means its message delivered this recently."""


@dataclass(frozen=True, slots=True)
class Snoozed:
    """What a snooze of a task did (``TaskManager.snooze_task``).

    Attributes:
        task: The task as it is now.
        held: Its message shown again later (the task keeps its schedule), or ``None``:
            the task's next run was put off.
    """

    task: Task
    held: HeldDelivery | None = None


LEDGER_DEFER = timedelta(milliseconds=100)
"""The longest a ledger batch waits while the due runs of a burst are being started."""


class TaskManager(AsyncLifecycle):
    """Fires due tasks on time and offers the owner-scoped operations on tasks.

    Use ``async with TaskManager(...) as manager:`` or ``start`` ... ``stop``.

    Args:
        store: The task store; ``start`` opens it and ``stop`` closes it.
        notifier: Delivers reminders, results and notices.
        clock: The source of time (``SystemClock`` by default; tests pass a ``ManualClock``).
        agent: Runs agent tasks; without it they fail with a clear error.
        searcher: Runs web searches; without it web_search tasks fail with a clear error.
        summarizer: When given, summarises web search hits instead of listing them.
        http: The guarded HTTP client api_call tasks and monitors are sent through (the
            tools' own); without it their runs fail saying that none is configured. A
            monitor of an address it would always refuse is refused when it is added.
        secrets: The values of ``${NAME}`` references in api_call requests.
        runners: Runners per task type, replacing the built-in ones.
        misfire_rules: Per-type misfire defaults, merged over ``DEFAULT_MISFIRE_RULES``.
        max_failures: Failed runs in a row after which a recurring task is disabled.
        max_concurrent_runs: How many runs execute at the same time.
        claim_batch: How many runs one claim transaction takes.
        run_timeout: How long one run may take before it counts as failed.
        lease: How long a claim holds without renewal. While this manager lives it renews
            the leases of its runs in flight every third of ``lease`` (however long they
            take); the runs of a manager that died are retried once this long after its
            last renewal. At least one second.
        recheck_every: The longest the timer sleeps without re-reading the store.
        drain_timeout: How long ``stop`` waits for queued and running runs. Then the runs
            still queued (claimed ahead, never started) are given back to the store, due
            again at their time, and the running ones are cancelled (they stay claimed and
            are retried, or given up when they may have acted, when a manager starts again or
            once their lease runs out).
        prefetch: How far ahead the timer claims runs; each then starts at its exact time,
            so one database round trip serves every run due in that window (the timer
            wakes when the next run is half of it away). Before a burst
            (more runs due in the window than can be claimed within it) the timer starts
            as much earlier as the claims take. A run cancelled or paused between
            its claim and its time is recorded as skipped instead of running.
        exclusive: Whether this manager is the only one firing the store's tasks, and the
            previous one is known to be gone (the composition root holds the data
            directory's scheduler lock): the runs still claimed when the timer starts were
            the previous process's, so they are retried (or given up, by the same rules as
            after a lease runs out) at once instead of when their leases run out.
        limits: What one owner may schedule (live tasks, their bytes, the shortest interval
            per type); ``None`` (the default) limits nothing. The composition root passes the
            configured ones.
        ledger: What of the run ledger is kept in full; with a policy, a started timer also
            folds older rows into per-task summaries, a bounded round at a time
            (``tasks.engine.retention``). ``None`` (the default) keeps every row.
        quiet: Each owner's quiet hours: a delivery that falls in them (unless urgent) is
            held in the store and delivered when they end (``tasks.engine.holding``);
            ``None``: nothing is held for quiet hours.
        tools: Runs a tool unattended, for monitors of a tool's output (without it they fail
            saying so).
        briefing: What a morning briefing shows beside the tasks (notes tagged for the day,
            the calendar); ``None``: the tasks alone.
        alert_after: Failed runs in a row after which a repeating task's owner is told once
            (the failure alert), and after which its next success is told as a recovery.
        delivered: What the owners were shown lately (the chats' conversations), so that a
            snooze of a task that is not a reminder shows its message again
            (``snooze_task``); ``None``: such a snooze puts the task's next run off.
    """

    def __init__(
        self,
        *,
        store: TaskStore,
        notifier: Notifier,
        clock: Clock | None = None,
        agent: AgentRunner | None = None,
        searcher: Searcher | None = None,
        summarizer: AgentRunner | None = None,
        http: HttpSender | None = None,
        secrets: SecretSource | None = None,
        runners: Mapping[TaskType, TaskRunner] | None = None,
        misfire_rules: Mapping[TaskType, MisfireRule] | None = None,
        max_failures: int = 5,
        max_concurrent_runs: int = 256,
        claim_batch: int = 1000,
        run_timeout: timedelta = timedelta(minutes=2),
        lease: timedelta = DEFAULT_LEASE,
        recheck_every: timedelta = timedelta(seconds=30),
        drain_timeout: timedelta = timedelta(seconds=10),
        prefetch: timedelta = timedelta(milliseconds=50),
        exclusive: bool = False,
        limits: TaskLimits | None = None,
        ledger: LedgerPolicy | None = None,
        quiet: QuietHours | None = None,
        tools: ToolRunner | None = None,
        briefing: BriefingSource | None = None,
        alert_after: int = 3,
        delivered: DeliveredMessages | None = None,
    ) -> None:
        if min(max_failures, max_concurrent_runs, claim_batch, alert_after) < 1:
            raise TaskError(
                f"max_failures ({max_failures!r}), max_concurrent_runs "
                f"({max_concurrent_runs!r}), claim_batch ({claim_batch!r}) and alert_after "
                f"({alert_after!r}) must be at least 1"
            )
        self._clock = clock = clock or SystemClock()
        self._store = store
        self._http = http
        self._limits = limits
        self._delivered = delivered
        self._retention = LedgerRetention(store, clock, ledger or LedgerPolicy())
        self._compacting = ledger is not None
        self._rules = {**DEFAULT_MISFIRE_RULES, **(misfire_rules or {})}
        self.max_failures = max_failures
        self._drain_timeout = drain_timeout
        self._wake = asyncio.Event()
        held = asyncio.Event()
        # Every delivery passes here: what falls in its owner's quiet hours is held.
        passing: Notifier = notifier
        if quiet is not None:
            passing = HoldingNotifier(notifier, store=store, quiet=quiet, clock=clock, held=held)
        self._releaser = HeldReleaser(store=store, notifier=notifier, clock=clock, wake=held)
        self._held = held
        deliverer = Deliverer(passing, sleep=clock.sleep)
        api_runner = ApiCallRunner(deliverer, http, secrets=secrets, sleep=clock.sleep)
        builtin: dict[TaskType, TaskRunner] = {
            TaskType.REMINDER: ReminderRunner(deliverer, acks=store, clock=clock),
            TaskType.AGENT_TASK: AgentTaskRunner(deliverer, agent),
            TaskType.WEB_SEARCH: WebSearchRunner(deliverer, searcher, summarizer=summarizer),
            TaskType.API_CALL: api_runner,
            TaskType.MONITOR: MonitorRunner(
                deliverer,
                observations=store,
                clock=clock,
                http=http,
                searcher=searcher,
                tools=tools,
            ),
            TaskType.BRIEFING: BriefingRunner(
                deliverer, store=store, clock=clock, source=briefing, summarizer=summarizer
            ),
        }
        self._leases = LeaseKeeper(store, clock, lease)
        self._ahead = ClaimedAhead()
        gate = ClaimsFirst()
        self._ledger = LedgerWriter(
            store,
            max_failures=max_failures,
            before_write=lambda: self._ledger_turn(gate),
            after_write=self._leases.written,
        )
        follow_ups = FollowUps(
            store, deliverer, max_failures=max_failures, wake=self._wake, alert_after=alert_after
        )
        self._executor = RunExecutor(
            store=store,
            clock=clock,
            runners={**builtin, **(runners or {})},
            ledger=self._ledger,
            leases=self._leases,
            ahead=self._ahead,
            follow_ups=follow_ups,
            wake=self._wake,
            max_concurrent_runs=max_concurrent_runs,
            run_timeout=run_timeout,
        )
        self._timer = Timer(
            store=store,
            clock=clock,
            executor=self._executor,
            leases=self._leases,
            follow_ups=follow_ups,
            gate=gate,
            wake=self._wake,
            claim_batch=claim_batch,
            recheck_every=recheck_every,
            prefetch=prefetch,
            orphans_at_start=exclusive,
        )

    async def _ledger_turn(self, gate: ClaimsFirst) -> None:
        """Before each ledger batch: claims go first, then the deliveries of a burst
        (for at most ``LEDGER_DEFER``, so the ledger never waits for long)."""
        await gate.wait()
        await self._executor.caught_up(LEDGER_DEFER.total_seconds())

    @property
    def clock(self) -> Clock:
        """The clock this manager runs on."""
        return self._clock

    @property
    def running(self) -> bool:
        """Whether the timer is running."""
        return self._timer.running

    async def health(self, *, grace: timedelta = timedelta(minutes=1)) -> SchedulerHealth:
        """Whether the timer runs, when it last woke up, how many tasks are more than
        ``grace`` overdue, and how late on-time runs start (``SchedulerHealth.late``): the
        most in the last minute, of runs waiting for a worker, and of due runs not claimed
        yet."""
        now = self._clock.now()
        overdue = await self._store.count_overdue(now - grace)
        late = self._executor.late_now()
        earliest = await self._store.next_wakeup()
        if earliest is not None and earliest < now:
            late = max(late, now - earliest)
        return SchedulerHealth(
            running=self.running, last_tick=self._timer.last_tick, overdue=overdue, late=late
        )

    def misfire_rule(self, task_type: TaskType) -> MisfireRule:
        """The default misfire rule for ``task_type``."""
        return self._rules[task_type]

    # Lifecycle

    async def start(self, *, timer: bool = True) -> None:
        """Open the store and start the timer (``timer=False``: operations only, no firing).

        The timer is woken by this manager's own changes and, where the store can tell (see
        ``TaskStore.watch``), by other processes' changes as they commit.
        """
        await self._store.open()
        if timer:
            await self._store.watch(self._wake.set)
            self._timer.start()
            self._releaser.start()
            if self._compacting:
                self._retention.start()

    async def stop(self) -> None:
        """Stop the timer, let running runs finish (up to ``drain_timeout``), close the store."""
        await self._retention.stop()
        await self._releaser.stop()
        await self._timer.stop()
        await self._executor.drain(self._drain_timeout)
        await self._leases.close()
        await self._store.close()

    async def _enter(self) -> None:
        await self.start()

    async def _exit(self) -> None:
        await self.stop()

    async def wait_idle(self) -> None:
        """Wait until every run started so far has finished and is in the ledger."""
        await self._executor.wait_idle()

    async def run_due(self, *, wait: bool = True) -> int:
        """Claim and start every run due at the clock's current time; return how many.

        With ``wait`` (the default) return once those runs finished and are in the ledger;
        the timer passes ``wait=False`` so a slow run never delays the next due one.
        """
        return await self._timer.run_due(wait=wait)

    # Operations

    async def add_task(
        self,
        *,
        owner_id: str,
        chat_id: str,
        task_type: TaskType | str,
        schedule: Schedule,
        execution_data: Mapping[str, Any] | ExecutionData | None = None,
        description: str | None = None,
        misfire: MisfireRule | MisfirePolicy | str | None = None,
    ) -> Task:
        """Validate and store a new task, and wake the timer.

        ``execution_data`` may be left out for reminder, agent_task and web_search tasks:
        the description then serves as the message, prompt or query.

        Raises:
            TaskDataError: for a bad owner, chat, type, data, description or misfire policy.
            ScheduleError: when the schedule has no run after now.
            TaskLimitError: when the owner may not schedule it (``limits``).
        """
        draft = new_draft(
            owner_id=owner_id,
            chat_id=chat_id,
            task_type=task_type,
            schedule=schedule,
            execution_data=execution_data,
            description=description,
            misfire=misfire,
            rules=self._rules,
            now=self._clock.now(),
        )
        self._check_reachable(draft.execution)
        if self._limits is not None:
            check_interval(schedule, draft.task_type, draft.created_at, self._limits)
        task = await self._store.add_task(draft, limits=self._limits)
        self._wake.set()
        return task

    def _check_reachable(self, data: ExecutionData) -> None:
        """Refuse a monitor whose every look the guarded HTTP path would refuse (a private
        address written out, not allowed): it could only fail, and say so hours later."""
        if not isinstance(data, MonitorData) or data.url is None or self._http is None:
            return
        refused = self._http.refusal(data.url)
        if refused is not None:
            raise TaskDataError(f"a monitor of {redact_url(data.url)} could only fail: {refused}")

    async def find_monitor(self, owner_id: str, data: MonitorData) -> Task | None:
        """The owner's live monitor that watches what ``data`` names, with its condition."""
        for task in await self._store.list_tasks(owner_id):
            if task.task_type is TaskType.MONITOR and task.execution == data:
                return task
        return None

    async def get_task(self, task_id: str, owner_id: str) -> Task:
        """Return the owner's task.

        Raises:
            TaskNotFoundError: when the owner has no such task.
        """
        task = await self._store.get_task(normalize_id(task_id), owner_id)
        if task is None:
            raise not_found(task_id)
        return task

    async def list_tasks(
        self,
        owner_id: str,
        *,
        include_finished: bool = False,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[Task]:
        """Return the owner's tasks, soonest next run first (a page: ``limit`` after
        ``offset``)."""
        return await self._store.list_tasks(
            owner_id, include_finished=include_finished, limit=limit, offset=offset
        )

    async def active_task_ids(self, owner_id: str) -> list[str]:
        """Return the ids of the owner's live tasks (for a dynamic enum of task ids)."""
        return await self._store.active_task_ids(owner_id)

    async def snoozable_task_ids(self, owner_id: str) -> list[str]:
        """Return the ids of the tasks a snooze may name: the live ones, and those that
        finished within ``changes.JUST_WENT_OFF`` (a one-time reminder that has just gone
        off comes back; see ``snooze``)."""
        since = self._clock.now() - changes.JUST_WENT_OFF
        return await self._store.active_task_ids(owner_id, done_since=since)

    async def ledger_summary(self, task_id: str, owner_id: str) -> LedgerSummary | None:
        """Return the summary of the task's folded ledger rows (``None``: none folded).

        Raises:
            TaskNotFoundError: when the owner has no such task.
        """
        return await self._store.ledger_summary(normalize_id(task_id), owner_id)

    async def history(
        self, task_id: str, owner_id: str, *, limit: int = 20, offset: int = 0
    ) -> list[TaskRun]:
        """Return the task's ledger rows, newest first (a page: ``limit`` after ``offset``)."""
        return await self._store.history(
            normalize_id(task_id), owner_id, limit=limit, offset=offset
        )

    async def cancel(self, task_id: str, owner_id: str) -> Task:
        """Cancel the task; a run in progress finishes and is recorded, nothing fires again."""
        task = await self._apply(task_id, owner_id, changes.CANCEL)
        self._ahead.retract(task.id)
        return task

    async def pause(self, task_id: str, owner_id: str) -> Task:
        """Pause an active task until it is resumed."""
        task = await self._apply(task_id, owner_id, changes.PAUSE)
        self._ahead.retract(task.id)
        return task

    async def resume(self, task_id: str, owner_id: str) -> Task:
        """Resume a paused or disabled task.

        A one-time task keeps its time (fires at once, marked late, if that has passed); a
        recurring task continues with its next run after now; the failure count restarts.
        """
        task = await self.get_task(task_id, owner_id)
        return await self._apply(task.id, owner_id, changes.resume(task, self._clock.now()))

    async def snooze(self, task_id: str, owner_id: str, until: timedelta | datetime) -> Task:
        """Put the next run off by a delay, or until an instant.

        Whatever its type, a task's pending next run moves by the delay, or to the instant,
        which may not be before it: a recurring task that has not fired yet never fires
        early, and only that one run moves (the schedule goes on after it). Snoozing what was
        just delivered brings it back after the delay from now, or at the instant: a one-time
        reminder that already ran comes back once, a recurring reminder that went off within
        ``changes.JUST_WENT_OFF`` comes back once and then continues on its schedule.

        Raises:
            TaskDataError: when the snooze does not end between one second and a year from
                now, or the instant is before the run it would put off.
            TaskStateError: when it would bring back a reminder marked done since it went
                off.
        """
        now = self._clock.now()
        task = await self.get_task(task_id, owner_id)
        until = changes.checked_snooze(until, now, task.schedule.tz)
        done_at = await self._store.last_acknowledged(task.id)
        # Its next run may have been claimed a moment ahead (the stored next run is already
        # the one after): that claimed run is the one put off, and it does not run at its time.
        claimed = self._ahead.queued(task.id)
        pending = task if claimed is None else replace(task, next_run=claimed.run.scheduled_for)
        change = changes.snooze(pending, now, until, done_at=done_at)
        snoozed = await self._apply(task.id, owner_id, change)
        if claimed is not None:
            self._ahead.retract(task.id)
        return snoozed

    async def snooze_task(
        self, task_id: str, owner_id: str, until: datetime | timedelta
    ) -> Snoozed:
        """Snooze a task as its owner means it ("snooze that", ``/snooze``, a Snooze button).

        A reminder is put off itself (``snooze``). A task of another type (a monitor, a
        search, an agent task, the briefing) that delivered a message within
        ``RECENTLY_DELIVERED`` shows that message again at ``until`` (``snooze_delivery``)
        and keeps its schedule; one that delivered nothing lately has its next run put off.
        ``until`` is an instant (in the owner's zone) or a delay from now, said in the task's
        zone: a delay keeps its length exactly (made into an instant by the caller's clock and
        back by this one's, "5 minutes" lost the milliseconds, or a model turn's seconds,
        between them).

        Raises:
            TaskNotFoundError: when the owner has no such task.
            TaskDataError: as ``snooze`` says.
            TaskStateError: as ``snooze`` and ``snooze_delivery`` say.
        """
        now = self._clock.now()
        task = await self.get_task(task_id, owner_id)
        if task.task_type is not TaskType.REMINDER and self._delivered is not None:
            shown = await self._delivered.last_delivered(
                task_id=task.id,
                owner_id=task.owner_id,
                chat_id=task.chat_id,
                since=now - RECENTLY_DELIVERED,
            )
            if shown is not None:
                if isinstance(until, timedelta):
                    until = (now + until).astimezone(task.schedule.tz)
                return Snoozed(task, await self.snooze_delivery(owner_id, shown, until))
        return Snoozed(await self.snooze(task.id, owner_id, until))

    async def reschedule(self, task_id: str, owner_id: str, schedule: Schedule) -> Task:
        """Give the task a new schedule, keeping its id; its next run is the schedule's first.

        An active or paused task may be rescheduled (a paused one stays paused until it is
        resumed); a run claimed just before for the old time is skipped.

        Raises:
            ScheduleError: when the new schedule has no run after now.
            TaskNotFoundError: when the owner has no such task.
            TaskStateError: when the task is running, finished or cancelled.
        """
        now = self._clock.now()
        change = changes.reschedule(schedule, now)
        if self._limits is not None:
            current = await self.get_task(task_id, owner_id)
            check_interval(schedule, current.task_type, now, self._limits)
        task = await self._apply(task_id, owner_id, change)
        self._ahead.retract(task.id)
        return task

    async def rezone(self, owner_id: str, *, made_in: ZoneInfo, to: ZoneInfo) -> list[Task]:
        """Move the owner's tasks made in ``made_in`` to ``to``, at the same wall-clock times
        (``changes.rezoned``): what a user's first choice of a zone does to the tasks made
        under the default zone before. A task running right now keeps its zone.

        Returns:
            The tasks moved.
        """
        now = self._clock.now()
        moved: list[Task] = []
        for task in await self._store.list_tasks(owner_id):
            if task.schedule.tz.key != made_in.key or task.status is TaskStatus.RUNNING:
                continue
            try:
                moved.append(await self._apply(task.id, owner_id, changes.rezone(task, to, now)))
            except TaskStateError:
                continue  # a run started or finished it meanwhile: it keeps its zone
            self._ahead.retract(task.id)
        return moved

    async def run_now(self, task_id: str, owner_id: str) -> TaskRun:
        """Run the task once now, outside its schedule, and return the finished ledger row."""
        claim = await self._store.claim_now(
            normalize_id(task_id), owner_id, self._clock.now(), lease=self._leases.lease
        )
        return await self._executor.run_claimed(claim)

    async def release_due(self) -> int:
        """Deliver the held deliveries due at the clock's current time (the end of quiet
        hours, a snooze); return how many went out. A started manager does it by itself."""
        return await self._releaser.release_due()

    async def acknowledge(self, task_id: str, owner_id: str, *, via: str) -> Acknowledgement:
        """Record that the owner acknowledged the task (Done, "done", ``/done``: ``via`` says
        which, and where) in its ledger, and stop it if it repeats until acknowledged.
        Acknowledged again before it goes off again, nothing is recorded: the answer says
        when it was (``Acknowledgement.already``).

        Raises:
            TaskNotFoundError: when the owner has no such task.
            TaskStateError: when the task is no reminder (only a reminder is done; a
                monitor or a search is cancelled or paused), or has not gone off yet (a
                reminder marked done before it came would still come: cancelling it is what
                was meant).
        """
        now = self._clock.now()
        task = await self.get_task(task_id, owner_id)
        if task.task_type is not TaskType.REMINDER:
            kind = task.task_type.value.replace("_", " ")
            raise TaskStateError(
                f"{task_label(task)} is a {kind} task, not a reminder, so nothing was marked "
                f"done (only a reminder is done); cancel or pause it instead, e.g. "
                f"'cancel {task.id}'"
            )
        if task.last_run is None:
            raise TaskStateError(
                f"task {task.id} ('{task.description}') has not gone off yet, so nothing was "
                "marked done; cancel it if you no longer need it"
            )
        done_at = await self._store.last_acknowledged(task.id)
        if changes.acknowledged_since_it_went_off(task, done_at):
            # Done twice is done once: no second row, and the answer says when it was.
            return Acknowledgement(task, stopped=False, note="", already=done_at)
        change = changes.acknowledge(task, now)
        note = f"acknowledged: {via}"
        allowed = change.allowed_from if change is not None else frozenset()
        try:
            done = await self._store.acknowledge(
                task.id, owner_id, now, note=note,
                change=None if change is None else change.change, allowed_from=allowed,
            )  # fmt: skip
        except TaskStateError:
            # A run finished it meanwhile: the acknowledgement is recorded all the same.
            done = await self._store.acknowledge(
                task.id, owner_id, now, note=note, change=None, allowed_from=()
            )
            change = None
        if change is not None:
            self._ahead.retract(task.id)
            self._wake.set()
        return Acknowledgement(done, stopped=change is not None, note=note)

    async def acknowledge_latest(self, owner_id: str, *, via: str) -> Acknowledgement:
        """Acknowledge the reminder "done" means when no task is named: the one nagging now
        (it went off and repeats until acknowledged; one snoozed since does not count), else
        the reminder that went off last.

        Raises:
            TaskNotFoundError: when no reminder of the owner has gone off.
            TaskStateError: when several are nagging now (naming them).
        """
        now = self._clock.now()
        live = await self._store.list_tasks(owner_id)
        # The one nagging now; a reminder that nags but was snoozed is not (yet) asked about.
        waiting = [t for t in live if changes.nagging_now(t, now)]
        if len(waiting) > 1:
            named = ", ".join(f"{t.id} ('{t.description}')" for t in waiting)
            raise TaskStateError(f"several reminders are nagging now: {named}; say which")
        if not waiting:
            every = await self._store.list_tasks(owner_id, include_finished=True)
            waiting = sorted(
                (t for t in every if t.task_type is TaskType.REMINDER and t.last_run),
                key=lambda t: (t.last_run or t.created_at, t.id),
            )[-1:]
        if not waiting:
            raise TaskNotFoundError(
                "no reminder has gone off that could be done; nothing was marked"
            )
        return await self.acknowledge(waiting[0].id, owner_id, via=via)

    async def briefing(self, owner_id: str) -> Task | None:
        """The owner's morning briefing (one live ``briefing`` task), or ``None``."""
        tasks = await self._store.list_tasks(owner_id)
        return next((t for t in tasks if t.task_type is TaskType.BRIEFING), None)

    async def set_briefing(self, owner_id: str, chat_id: str, schedule: Schedule) -> Task:
        """Start the owner's morning briefing on ``schedule``, or move the one they have (an
        owner has one: its id stays).

        Raises:
            ScheduleError: when the schedule has no run after now.
            TaskLimitError: when the owner may not schedule it.
        """
        current = await self.briefing(owner_id)
        if current is not None:
            return await self.reschedule(current.id, owner_id, schedule)
        return await self.add_task(
            owner_id=owner_id,
            chat_id=chat_id,
            task_type=TaskType.BRIEFING,
            schedule=schedule,
            description="morning briefing",
        )

    async def snooze_delivery(
        self, owner_id: str, delivery: Delivery, until: datetime
    ) -> HeldDelivery:
        """Deliver ``delivery`` (one the owner received) again at ``until`` (in their zone),
        marked as snoozed; it waits in the store.

        Raises:
            TaskNotFoundError: when the delivery is not about a task of the owner.
            TaskDataError: when ``until`` is not between a second and a year from now.
            TaskStateError: when it is a nagging reminder's, marked done since it went off.
        """
        now = self._clock.now()
        task = await self.get_task(delivery.task_id, owner_id)
        changes.checked_snooze(until, now, task.schedule.tz)
        if delivery.nags:
            # A nag's message shown again after Done would nag about what is done.
            done_at = await self._store.last_acknowledged(task.id)
            if done_at is not None and changes.acknowledged_since_it_went_off(task, done_at):
                raise changes.marked_done(task, done_at)
        mine = replace(delivery, task_id=task.id, owner_id=owner_id, urgent=False)
        held = await self._store.hold(mine, reason=HoldReason.SNOOZED, now=now, release_at=until)
        self._held.set()
        return held

    async def release_quiet(self, owner_id: str) -> int:
        """Deliver now what the owner's quiet hours hold (they ended them); return how many."""
        count = await self._store.release_owner(
            owner_id, self._clock.now(), reason=HoldReason.QUIET
        )
        self._held.set()
        return count

    async def held(self, owner_id: str) -> list[HeldDelivery]:
        """The owner's held deliveries (quiet hours, snoozed), oldest first."""
        return await self._store.held(owner_id)

    async def observation(self, task_id: str, owner_id: str) -> Observation | None:
        """The monitor's last observation (``None``: it has not looked yet).

        Raises:
            TaskNotFoundError: when the owner has no such task.
        """
        task = await self.get_task(task_id, owner_id)
        return await self._store.observation(task.id)

    async def _apply(self, task_id: str, owner_id: str, change: changes.OwnerChange) -> Task:
        task = await self._store.update_task(
            normalize_id(task_id),
            owner_id,
            change.change,
            allowed_from=change.allowed_from,
            action=change.action,
            now=self._clock.now(),
        )
        self._wake.set()
        return task

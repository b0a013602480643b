"""The operations on tasks, owner-scoped: add, cancel, pause, resume, snooze, reschedule, run
now, read.

A task of another owner is treated exactly like a missing one (``TaskNotFoundError`` with the
same message), so ids cannot be probed. Every change wakes the timer.
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from common.clock import Clock
from common.redaction import redact_url
from tasks.errors import ScheduleError, TaskDataError
from tasks.execution import (
    AgentTaskData,
    ApiCallData,
    ExecutionData,
    ReminderData,
    TaskType,
    WebSearchData,
    parse_execution_data,
    parse_task_type,
)
from tasks.models import (
    Claim,
    MisfirePolicy,
    MisfireRule,
    Task,
    TaskDraft,
    TaskRun,
    TaskStatus,
)
from tasks.schedule.model import Schedule, format_local
from tasks.store.base import TaskChange, TaskStore, not_found, wrong_state

# A one-time schedule a few seconds in the past (parsed a moment ago) still fires, at once.
PAST_TOLERANCE = timedelta(minutes=1)
MAX_SNOOZE = timedelta(days=366)
DEFAULT_SNOOZE = "10m"
"""How long a snooze puts a task off when no delay is given, in the words people type."""
_DESCRIPTION_LIMIT = 200
_LIVE = frozenset(s for s in TaskStatus if s.is_live)
_FILLED_FROM_DESCRIPTION = {
    TaskType.REMINDER: "message",
    TaskType.AGENT_TASK: "prompt",
    TaskType.WEB_SEARCH: "query",
}


class TaskOperations(ABC):
    """Owner-scoped operations over a task store (the TaskManager adds the timer)."""

    def __init__(
        self, *, store: TaskStore, clock: Clock, misfire_rules: Mapping[TaskType, MisfireRule]
    ) -> None:
        self._store = store
        self._clock = clock
        self._rules = dict(misfire_rules)
        self._wake = asyncio.Event()

    @property
    def clock(self) -> Clock:
        """The clock this manager runs on."""
        return self._clock

    def misfire_rule(self, task_type: TaskType) -> MisfireRule:
        """The default misfire rule for ``task_type``."""
        return self._rules[task_type]

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
        """
        kind = parse_task_type(task_type)
        data = parse_execution_data(kind, _with_description(kind, execution_data, description))
        now = self._clock.now()
        draft = TaskDraft(
            owner_id=_identifier(owner_id, "owner_id"),
            chat_id=_identifier(chat_id, "chat_id"),
            task_type=kind,
            description=_description(description, data),
            schedule=schedule,
            execution=data,
            misfire=self._rule(kind, misfire),
            created_at=now,
            next_run=first_run(schedule, now),
        )
        task = await self._store.add_task(draft)
        self._wake.set()
        return task

    async def get_task(self, task_id: str, owner_id: str) -> Task:
        """Return the owner's task.

        Raises:
            TaskNotFoundError: when the owner has no such task.
        """
        task = await self._store.get_task(normalize_id(task_id), owner_id)
        if task is None:
            raise not_found(task_id)
        return task

    async def list_tasks(self, owner_id: str, *, include_finished: bool = False) -> list[Task]:
        """Return the owner's tasks, soonest next run first."""
        return await self._store.list_tasks(owner_id, include_finished=include_finished)

    async def active_task_ids(self, owner_id: str) -> list[str]:
        """Return the ids of the owner's live tasks (for a dynamic enum of task ids)."""
        return await self._store.active_task_ids(owner_id)

    async def history(self, task_id: str, owner_id: str, *, limit: int = 20) -> list[TaskRun]:
        """Return the task's ledger rows, newest first."""
        return await self._store.history(normalize_id(task_id), owner_id, limit=limit)

    async def cancel(self, task_id: str, owner_id: str) -> Task:
        """Cancel the task; a run in progress finishes and is recorded, nothing fires again."""
        change = TaskChange(
            status=TaskStatus.CANCELLED, next_run=None, status_reason="cancelled by its owner"
        )
        task = await self._change(task_id, owner_id, change, _LIVE, "cancel")
        self._retract(task.id)
        return task

    async def pause(self, task_id: str, owner_id: str) -> Task:
        """Pause an active task until it is resumed."""
        change = TaskChange(status=TaskStatus.PAUSED, status_reason="paused by its owner")
        task = await self._change(task_id, owner_id, change, {TaskStatus.ACTIVE}, "pause")
        self._retract(task.id)
        return task

    async def resume(self, task_id: str, owner_id: str) -> Task:
        """Resume a paused or disabled task.

        A one-time task keeps its time (fires at once, marked late, if that has passed); a
        recurring task continues with its next run after now; the failure count restarts.
        """
        task = await self.get_task(task_id, owner_id)
        if task.status not in (TaskStatus.PAUSED, TaskStatus.DISABLED):
            raise wrong_state(task, "resume")
        if task.schedule.kind == "once":
            next_run = task.next_run
        else:
            next_run = task.schedule.next_after(self._clock.now())
        if next_run is None:
            raise wrong_state(replace(task, status=TaskStatus.DONE), "resume")
        change = TaskChange(
            status=TaskStatus.ACTIVE, next_run=next_run, status_reason=None, reset_failures=True
        )
        return await self._change(task.id, owner_id, change, {task.status}, "resume")

    async def snooze(self, task_id: str, owner_id: str, delay: timedelta) -> Task:
        """Put the next run off by ``delay``.

        A pending one-time task moves by ``delay``; one that already ran comes back once,
        ``delay`` from now; a recurring task runs next at now + ``delay``, then continues on
        its schedule.

        Raises:
            TaskDataError: when ``delay`` is not between one second and a year.
        """
        if not timedelta(seconds=1) <= delay <= MAX_SNOOZE:
            raise TaskDataError(
                f"cannot snooze by {delay!r}: the delay must be between 1 second and 366 days, "
                "e.g. '10m' or '1h'"
            )
        task = await self.get_task(task_id, owner_id)
        now = self._clock.now()
        if task.schedule.kind == "once" and task.status is TaskStatus.DONE:
            change = TaskChange(status=TaskStatus.ACTIVE, next_run=now + delay, status_reason=None)
            allowed = {TaskStatus.DONE}
        elif task.schedule.kind == "once" and task.next_run is not None:
            change = TaskChange(next_run=max(task.next_run, now) + delay)
            allowed = {TaskStatus.ACTIVE, TaskStatus.PAUSED}
        else:
            change = TaskChange(next_run=now + delay)
            allowed = {TaskStatus.ACTIVE}
        return await self._change(task.id, owner_id, change, allowed, "snooze")

    async def reschedule(self, task_id: str, owner_id: str, schedule: Schedule) -> Task:
        """Give the task a new schedule, keeping its id; its next run is the schedule's first.

        An active or paused task may be rescheduled (a paused one stays paused until it is
        resumed); a run claimed just before for the old time is skipped.

        Raises:
            ScheduleError: when the new schedule has no run after now.
            TaskNotFoundError: when the owner has no such task.
            TaskStateError: when the task is running, finished or cancelled.
        """
        change = TaskChange(schedule=schedule, next_run=first_run(schedule, self._clock.now()))
        allowed = {TaskStatus.ACTIVE, TaskStatus.PAUSED}
        task = await self._change(task_id, owner_id, change, allowed, "reschedule")
        self._retract(task.id)
        return task

    async def run_now(self, task_id: str, owner_id: str) -> TaskRun:
        """Run the task once now, outside its schedule, and return the finished ledger row."""
        claim = await self._store.claim_now(
            normalize_id(task_id), owner_id, self._clock.now(), lease=self._run_now_lease()
        )
        return await self._run_now_claimed(claim)

    @abstractmethod
    async def _run_now_claimed(self, claim: Claim) -> TaskRun:
        """Execute a claimed run and return its finished ledger row."""

    @abstractmethod
    def _run_now_lease(self) -> timedelta:
        """The lease for a "run now" claim."""

    @abstractmethod
    def _retract(self, task_id: str) -> None:
        """Keep a run claimed ahead of time for ``task_id`` from running (cancel, pause)."""

    async def _change(
        self,
        task_id: str,
        owner_id: str,
        change: TaskChange,
        allowed: frozenset[TaskStatus] | set[TaskStatus],
        action: str,
    ) -> Task:
        task = await self._store.update_task(
            normalize_id(task_id), owner_id, change, allowed_from=allowed, action=action
        )
        self._wake.set()
        return task

    def _rule(
        self, kind: TaskType, misfire: MisfireRule | MisfirePolicy | str | None
    ) -> MisfireRule:
        default = self._rules[kind]
        if misfire is None:
            return default
        if isinstance(misfire, MisfireRule):
            return misfire
        try:
            policy = MisfirePolicy(misfire.strip().lower() if isinstance(misfire, str) else misfire)
        except ValueError:
            known = ", ".join(repr(p.value) for p in MisfirePolicy)
            raise TaskDataError(f"unknown misfire policy {misfire!r}; use one of {known}") from None
        return MisfireRule(policy, default.grace)


def normalize_id(task_id: str) -> str:
    """Return ``task_id`` as stored: trimmed and lower case (ids are typed by people)."""
    return task_id.strip().lower() if isinstance(task_id, str) else str(task_id)


def first_run(schedule: Schedule, now: datetime) -> datetime:
    """Return a new task's first run: a one-time schedule may lie up to a minute in the past.

    Raises:
        ScheduleError: when the schedule has no run after now.
    """
    since = now - PAST_TOLERANCE if schedule.kind == "once" else now
    first = schedule.next_after(since)
    if first is None:
        local_now = format_local(now, schedule.tz)
        raise ScheduleError(
            f"{schedule.describe()} has no run after now ({local_now} {schedule.tz.key}); "
            "pick a later time, e.g. 'in 5 minutes' or 'tomorrow at 9am'"
        )
    return max(first, now) if schedule.kind == "once" else first


def _identifier(value: str, name: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise TaskDataError(f"{name} must be a non-empty string, got {value!r}")
    return value.strip()


def _with_description(
    kind: TaskType,
    data: Mapping[str, Any] | ExecutionData | None,
    description: str | None,
) -> Mapping[str, Any] | ExecutionData | None:
    field = _FILLED_FROM_DESCRIPTION.get(kind)
    if data is None and field is not None and description and description.strip():
        return {field: description}
    return data


def _description(description: str | None, data: ExecutionData) -> str:
    if description is not None and not isinstance(description, str):
        raise TaskDataError(f"description must be text, got {description!r}")
    text = " ".join((description or _default_description(data)).split())
    if len(text) > _DESCRIPTION_LIMIT:
        text = text[: _DESCRIPTION_LIMIT - 1] + "…"
    return text


def _default_description(data: ExecutionData) -> str:
    if isinstance(data, ReminderData):
        return data.message
    if isinstance(data, AgentTaskData):
        return data.prompt
    if isinstance(data, WebSearchData):
        return f"web search: {data.query}"
    assert isinstance(data, ApiCallData)
    return f"{data.method} {redact_url(data.url)}"

"""Task tools: reminders and scheduled tasks, with the time arithmetic done by code.

``when`` and ``schedule`` take the user's own words ("in 5 minutes", "weekdays 6pm",
"0 9 * * 1-5"); ``tasks`` resolves them in the caller's zone, and every reply states the
resolved schedule and the exact next run with its zone, so the model can echo it ("I'll remind
you at 14:35 (Europe/Berlin) to call mom."). Everything is scoped to the calling user. An
``api_call`` task needs a person's approval when it is created, and the task keeps exactly the
request that was approved.
"""

from __future__ import annotations

from collections.abc import Awaitable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal
from zoneinfo import ZoneInfo

from tasks import (
    Schedule,
    Task,
    TaskError,
    TaskManager,
    TaskNotFoundError,
    TaskStatus,
    parse_schedule,
    read_duration,
)
from tools import ToolContext, ToolError, tool

TaskTypeName = Literal["reminder", "agent_task", "web_search", "api_call"]
_TYPE_WORDS = {
    "reminder": "reminder",
    "agent_task": "task",
    "web_search": "web search",
    "api_call": "HTTP call",
}
_LISTED_IDS = 10


@dataclass(frozen=True, slots=True)
class TaskSummary:
    """One task as the tools show it.

    Attributes:
        id: The short id to cancel, pause or snooze it by.
        task_type: What it does.
        description: What it is about (a reminder's text).
        schedule: The schedule in plain words, with its zone.
        next_run: The next run as ISO 8601 with the user's offset, or ``None``.
        next_run_text: The next run for people: ``today at 14:35 (Europe/Berlin)``.
        status: ``active``, ``paused``, ``running``, ``disabled``, ``done`` or ``cancelled``.
    """

    id: str
    task_type: str
    description: str
    schedule: str
    next_run: str | None
    next_run_text: str
    status: str

    def line(self) -> str:
        """One line for a listing: ``- a1b2c3: call mom (today at 14:35 (Europe/Berlin))``;
        a recurring task also says its schedule: ``(every day at 09:00 ...; next ...)``."""
        state = "" if self.status == "active" else f" [{self.status}]"
        if self.schedule.startswith("once") and self.next_run:
            return f"- {self.id}: {self.description} ({self.next_run_text}){state}"
        when = f"; next {self.next_run_text}" if self.next_run else ""
        return f"- {self.id}: {self.description} ({self.schedule}{when}){state}"


@dataclass(frozen=True, slots=True)
class TaskReply:
    """What a task tool did, in one sentence, and the task it did it to."""

    text: str
    task: TaskSummary


def _reply_text(reply: TaskReply) -> str:
    return reply.text


def _listing(tasks: Sequence[TaskSummary]) -> str:
    if not tasks:
        return "The user has no scheduled tasks."
    return "\n".join(task.line() for task in tasks)


def _known_fields(data: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    """Drop ``summarize`` (as in web_search ``{"query", "limit", "summarize"}``, the way other
    assistants write it): search results are summarised whenever a model is configured."""
    if data is None or "summarize" not in data:
        return data
    return {key: value for key, value in data.items() if key != "summarize"}


def _approval_needed(arguments: Mapping[str, Any], ctx: ToolContext) -> bool:
    """An api_call task is an HTTP request that will run unattended: a person approves it."""
    return str(arguments.get("task_type", "")).strip().lower() == "api_call"


def when_text(instant: datetime | None, tz: ZoneInfo, now: datetime) -> str:
    """Say an instant for the user: ``at 14:35 (Europe/Berlin)``, ``tomorrow at 09:00 (...)``."""
    if instant is None:
        return "never (nothing is scheduled)"
    local = instant.astimezone(tz)
    today = now.astimezone(tz).date()
    clock = local.strftime("%H:%M:%S" if local.second else "%H:%M")
    if local.date() == today:
        day = "today "
    elif local.date() == today + timedelta(days=1):
        day = "tomorrow "
    else:
        day = f"on {local.strftime('%a')} {local.date().isoformat()} "
    return f"{day}at {clock} ({tz.key})"


class TaskTools:
    """The reminder and task tools, bound to one task manager.

    Args:
        manager: Where tasks are kept and fired.
    """

    def __init__(self, manager: TaskManager) -> None:
        self._manager = manager

    async def active_ids(self, ctx: ToolContext) -> list[str]:
        """The caller's live task ids (the dynamic enum of ``task_id``)."""
        return await self._manager.active_task_ids(ctx.user_id)

    # The tools that act on one of the caller's tasks share one set of options, and the
    # description of ``task_id``.
    _on_one_task = tool(
        params={
            "task_id": {"description": "The task's id, as list_tasks shows it.", "enum": active_ids}
        },
        llm_format=_reply_text,
        gui_format=_reply_text,
        timeout=15,
    )

    # Other assistants teach models add_reminder(delay="5m", message=...).
    @tool(
        llm_format=_reply_text,
        gui_format=_reply_text,
        timeout=15,
        argument_aliases={"when": ["delay"]},
    )
    async def add_reminder(self, ctx: ToolContext, when: str, message: str) -> TaskReply:
        """Remind the user of something at a time; the time is worked out from their words.

        Args:
            when: When, in the user's own words: 'in 5 minutes', 'tomorrow at 9am',
                'on friday at 5pm', 'every weekday at 8am', '0 9 * * 1-5'.
            message: What to remind them of, e.g. 'call mom'.
        """
        schedule = self._parse(when, ctx, recurring=None)
        task = await self._add(ctx, "reminder", schedule, message, {"message": message})
        summary = self._summary(task, ctx)
        about = message.strip()
        about = f"to {about}" if about[:1].islower() else f'of "{about}"'
        if schedule.kind == "once":
            text = f"I'll remind you {summary.next_run_text} {about} (task {task.id})."
        else:
            text = (
                f"I'll remind you {summary.schedule} {about}; the first time "
                f"{summary.next_run_text} (task {task.id})."
            )
        return TaskReply(text, summary)

    @tool(
        requires_approval=_approval_needed,
        risk_level="medium",
        llm_format=_reply_text,
        gui_format=_reply_text,
        timeout=15,
    )
    async def add_recurring_task(
        self,
        ctx: ToolContext,
        schedule: str,
        task_type: TaskTypeName,
        description: str,
        execution_data: dict[str, Any] | None = None,
    ) -> TaskReply:
        """Schedule a repeating task: a reminder, an agent prompt, a web search or an HTTP call.

        Args:
            schedule: How often, in the user's words: 'every weekday at 9am', 'daily 7pm',
                'every 2 hours', 'every monday at 10am', '0 9 * * 1-5'.
            task_type: 'reminder' (send a text), 'agent_task' (answer a prompt),
                'web_search' (send the top results) or 'api_call' (make an HTTP request).
            description: A short title, e.g. 'morning news'.
            execution_data: reminder {"message"}, agent_task {"prompt"}, web_search
                {"query", "limit"}, api_call {"method", "url", "headers", "body"}; for the first
                three the description is used when it is left out.
        """
        parsed = self._parse(schedule, ctx, recurring=True)
        task = await self._add(ctx, task_type, parsed, description, _known_fields(execution_data))
        summary = self._summary(task, ctx)
        kind = _TYPE_WORDS.get(task.task_type.value, task.task_type.value)
        text = (
            f"Scheduled the {kind} '{task.description}' {summary.schedule}; next run "
            f"{summary.next_run_text} (task {task.id})."
        )
        return TaskReply(text, summary)

    @tool(llm_format=_listing, gui_format=_listing, timeout=15, parallel=True)
    async def list_tasks(self, ctx: ToolContext) -> list[TaskSummary]:
        """List the user's scheduled tasks and reminders with their ids and next runs."""
        tasks = await self._manager.list_tasks(ctx.user_id)
        return [self._summary(task, ctx) for task in tasks]

    @_on_one_task
    async def cancel_task(self, ctx: ToolContext, task_id: str) -> TaskReply:
        """Cancel one of the user's tasks or reminders for good."""
        before = await self._call(ctx, self._manager.get_task(task_id, ctx.user_id))
        task = await self._call(ctx, self._manager.cancel(task_id, ctx.user_id))
        note = (
            " Its current run finishes; it will not run again."
            if before.status is TaskStatus.RUNNING
            else ""
        )
        text = f"Cancelled task {task.id} ('{task.description}').{note}"
        return TaskReply(text, self._summary(task, ctx))

    @_on_one_task
    async def pause_task(self, ctx: ToolContext, task_id: str) -> TaskReply:
        """Pause one of the user's tasks until it is resumed."""
        return await self._done(
            ctx,
            self._manager.pause(task_id, ctx.user_id),
            "Paused task {id} ('{description}'); resume it to continue.",
        )

    @_on_one_task
    async def resume_task(self, ctx: ToolContext, task_id: str) -> TaskReply:
        """Resume a paused (or disabled) task."""
        return await self._done(
            ctx,
            self._manager.resume(task_id, ctx.user_id),
            "Resumed task {id} ('{description}'); next run {next_run}.",
        )

    @_on_one_task
    async def snooze_task(self, ctx: ToolContext, task_id: str, delay: str) -> TaskReply:
        """Put a task's next run off by a delay (a reminder that already went off comes back).

        Args:
            delay: How long, e.g. '10m', '1h', 'in 30 minutes'.
        """
        return await self._done(
            ctx,
            self._manager.snooze(task_id, ctx.user_id, self._delay(delay, ctx)),
            "Snoozed task {id} ('{description}'); next run {next_run}.",
        )

    async def _done(self, ctx: ToolContext, operation: Awaitable[Task], said: str) -> TaskReply:
        """Carry out ``operation`` on one task and say so: ``said`` may name the task's
        ``{id}``, ``{description}`` and ``{next_run}``."""
        task = await self._call(ctx, operation)
        summary = self._summary(task, ctx)
        text = said.format(id=task.id, description=task.description, next_run=summary.next_run_text)
        return TaskReply(text, summary)

    async def _add(
        self,
        ctx: ToolContext,
        task_type: str,
        schedule: Schedule,
        description: str,
        execution_data: Mapping[str, Any] | None,
    ) -> Task:
        return await self._call(
            ctx,
            self._manager.add_task(
                owner_id=ctx.user_id,
                chat_id=ctx.chat_id,
                task_type=task_type,
                schedule=schedule,
                execution_data=execution_data,
                description=description,
            ),
        )

    def _parse(self, words: str, ctx: ToolContext, *, recurring: bool | None) -> Schedule:
        try:
            return parse_schedule(words, now=ctx.now, tz=ctx.timezone, recurring=recurring)
        except TaskError as exc:
            raise ToolError(str(exc)) from None

    def _delay(self, words: str, ctx: ToolContext) -> timedelta:
        try:
            span = read_duration(words)
        except TaskError as exc:
            raise ToolError(str(exc)) from None
        if span is None:
            raise ToolError(f"cannot snooze by {words!r}; give a delay such as '10m' or '2h'")
        return span.total

    async def _call(self, ctx: ToolContext, operation: Awaitable[Task]) -> Task:
        try:
            result = await operation
        except TaskNotFoundError as exc:
            raise ToolError(f"{exc}; {await self._known_ids(ctx)}") from None
        except TaskError as exc:
            raise ToolError(str(exc)) from None
        return result

    async def _known_ids(self, ctx: ToolContext) -> str:
        tasks = await self._manager.list_tasks(ctx.user_id)
        if not tasks:
            return "the user has no tasks"
        shown = ", ".join(f"{t.id} ('{t.description}')" for t in tasks[:_LISTED_IDS])
        more = f" and {len(tasks) - _LISTED_IDS} more" if len(tasks) > _LISTED_IDS else ""
        return f"the user's tasks are {shown}{more}"

    def _summary(self, task: Task, ctx: ToolContext) -> TaskSummary:
        tz = ctx.timezone
        return TaskSummary(
            id=task.id,
            task_type=task.task_type.value,
            description=task.description,
            schedule=task.schedule.describe(),
            next_run=None if task.next_run is None else task.next_run.astimezone(tz).isoformat(),
            next_run_text=when_text(task.next_run, tz, ctx.now),
            status=task.status.value,
        )

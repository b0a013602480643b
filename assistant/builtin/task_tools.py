"""Task tools: reminders and scheduled tasks, with the time arithmetic done by code.

``when``, ``schedule`` and ``day`` take the user's own words ("in 5 minutes", "weekdays 6pm",
"0 9 * * 1-5", "tomorrow"); ``tasks`` resolves them in the caller's zone, and every reply
states the resolved schedule and the exact next run with its zone, so the model can echo it
("I'll remind you at 14:35 (Europe/Berlin) to call mom."). Everything is scoped to the calling
user. An ``api_call`` task needs a person's approval when it is created, and the task keeps
exactly the request that was approved. A web search is not scheduled when no search service is
configured: it could never run.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any, Literal, TypeVar

from calendars import NOT_IN_THE_DAY, CalendarError, Calendars
from tasks import (
    AgentTaskData,
    DateOrder,
    Reading,
    Schedule,
    ScheduleError,
    Task,
    TaskError,
    TaskManager,
    TaskNotFoundError,
    TaskStatus,
    TaskType,
    format_lateness,
    keep_time_of_day,
    next_run_words,
    read_nag,
    read_period,
    read_schedule,
    read_snooze,
    read_time_of_day,
    retime,
    run_line,
    run_time_of_day,
    schedule_words,
    task_data,
    task_line,
    time_of_day,
    when_text,
)
from tools import Effect, ToolContext, ToolError, tool

_T = TypeVar("_T")
TaskTypeName = Literal["reminder", "agent_task", "web_search", "api_call"]
_TYPE_WORDS = {
    "reminder": "reminder",
    "agent_task": "task",
    "web_search": "web search",
    "api_call": "HTTP call",
}
_LISTED_IDS = 10
MAX_HISTORY = 50
"""The most runs ``task_history`` shows at once."""
NO_TASKS = "You have no tasks."
# A message that starts like a noun phrase reads "about ...", not "to ...": "about the dentist".
_NOUN_LEAD = frozenset(
    {"the", "a", "an", "my", "your", "our", "his", "her", "their", "this", "that", "it", "its"}
)
SEARCH_NOT_CONFIGURED = (
    "web search is not configured (SERPAPI_API_KEY is not set), so a scheduled search could "
    "never run and nothing was scheduled; set SERPAPI_API_KEY, or schedule a reminder to search "
    "yourself instead"
)


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
        line: The task as every listing shows it (``tasks.task_line``).
    """

    id: str
    task_type: str
    description: str
    schedule: str
    next_run: str | None
    next_run_text: str
    status: str
    line: str


@dataclass(frozen=True, slots=True)
class TaskReply:
    """What a task tool did, in one sentence, and the task it did it to."""

    text: str
    task: TaskSummary


@dataclass(frozen=True, slots=True)
class TaskListing:
    """The user's tasks, all of them or those that run in one day or period.

    Attributes:
        tasks: The tasks, soonest first.
        period: The day or period asked about, said for people ("tomorrow (Wed
            2026-03-11)", "this week (Mon 2026-03-09 to Sun 2026-03-15)"), or ``None``.
    """

    tasks: list[TaskSummary] = field(default_factory=list)
    period: str | None = None
    events: list[str] = field(default_factory=list)
    """The events of the user's calendars in the period (or the coming week), one line each."""
    calendar_span: str | None = None
    """The span the events are of, for people ("tomorrow (Tue 2026-03-10)"); ``None`` when no
    calendar is read for the user."""
    calendar_notes: list[str] = field(default_factory=list)
    """Calendars that could not be read now (their last copy is shown)."""

    def for_model(self) -> str:
        """The listing as the model reads it."""
        if not self.tasks:
            on = f" for {self.period}" if self.period else ""
            said = f"The user has no scheduled tasks{on}."
        else:
            head = f"Tasks for {self.period}:\n" if self.period else ""
            said = head + "\n".join(f"- {task.line}" for task in self.tasks)
        return said + self._calendar("The user's calendar")

    def for_person(self) -> str:
        """The listing as a person reads it."""
        if not self.tasks:
            said = (
                f"Nothing is scheduled for {self.period}." if self.period else "You have no tasks."
            )
        else:
            head = f"Your tasks for {self.period}:" if self.period else "Your tasks:"
            said = head + "\n" + "\n".join(f"- {task.line}" for task in self.tasks)
        return said + self._calendar("On your calendar")

    def _calendar(self, lead: str) -> str:
        if self.calendar_span is None:
            return ""
        if self.events:
            lines = "\n".join(f"- {event}" for event in self.events)
            said = f"\n{lead} for {self.calendar_span}:\n{lines}"
        else:
            said = f"\n{lead} has nothing for {self.calendar_span}."
        return said + "".join(f"\n({note})" for note in self.calendar_notes)


@dataclass(frozen=True, slots=True)
class RunSummary:
    """One run of a task, as ``task_history`` shows it.

    Attributes:
        scheduled_for: When it was due, ISO 8601 with the user's offset.
        status: How it stands or ended: ``succeeded``, ``failed``, ``running``...
        misfire: What the scheduler decided: ``on_time``, ``late``, ``coalesced``...
        late_by: How late it started, in words ("2 h"), when later than the grace period.
        result: What it did, when it says.
        error: Why it failed.
        line: The run on one line, as ``/runs`` shows it.
    """

    scheduled_for: str
    status: str
    misfire: str
    late_by: str | None
    result: str | None
    error: str | None
    line: str


@dataclass(frozen=True, slots=True)
class TaskHistory:
    """A task and its latest runs, newest first."""

    task: TaskSummary
    runs: list[RunSummary]

    def for_model(self) -> str:
        """The history as the model and a person read it."""
        name = f"task {self.task.id} ('{self.task.description}')"
        if not self.runs:
            return f"The {name} has not run yet; {self.task.line}."
        lines = [f"Runs of the {name}, newest first:"]
        lines.extend(f"- {run.line}" for run in self.runs)
        return "\n".join(lines)


def _reply_text(reply: TaskReply) -> str:
    return reply.text


def _known_fields(data: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    """Drop ``summarize`` (as in web_search ``{"query", "limit", "summarize"}``, the way other
    assistants write it): search results are summarised whenever a model is configured."""
    if data is None or "summarize" not in data:
        return data
    return {key: value for key, value in data.items() if key != "summarize"}


def _approval_needed(arguments: Mapping[str, Any], ctx: ToolContext) -> bool:
    """An api_call task is an HTTP request, and an agent task a prompt, that will run
    unattended: a person approves it first, seeing the request or the whole prompt."""
    return str(arguments.get("task_type", "")).strip().lower() in {"api_call", "agent_task"}


def _no_model_for(prompt: str) -> str:
    return (
        f"no language model is configured, and the offline planner could not answer {prompt!r} "
        "when the task runs, so it could never run and nothing was scheduled; connect a model "
        "(ASSISTANT_LLM_BASE_URL, e.g. http://localhost:11434/v1 for Ollama, or "
        "ASSISTANT_LLM_MODEL_PATH), or schedule a reminder instead"
    )


class TaskTools:
    """The reminder and task tools, bound to one task manager.

    Args:
        manager: Where tasks are kept and fired.
        search_configured: Whether web searches can run (a search service is configured);
            without one, web_search tasks are refused instead of failing at every run.
        offline_prompts: Without a language model, which agent-task prompts the offline
            planner answers; the others are refused, since they could never run. ``None``
            when a model answers every prompt.
        date_order: How a date like 4/5 is read.
        calendars: The user's calendars (synced or subscribed), whose events ``list_tasks``
            shows beside the tasks; ``None``: none are read.
    """

    def __init__(
        self,
        manager: TaskManager,
        *,
        search_configured: bool = True,
        offline_prompts: Callable[[str], bool] | None = None,
        date_order: DateOrder = "mdy",
        calendars: Calendars | None = None,
    ) -> None:
        self._manager = manager
        self._search_configured = search_configured
        self._offline_prompts = offline_prompts
        self._date_order: DateOrder = date_order
        self._calendars = calendars

    def _runnable_then_approved(self, arguments: Mapping[str, Any], ctx: ToolContext) -> bool:
        """Refuse a recurring task that could never run, before anyone is asked to approve
        it (a bad schedule, data that does not fit its type, a service that is not
        configured); then say whether it needs approval (``_approval_needed``).

        Raises:
            ToolError: saying why it could never run and what would.
        """
        kind = str(arguments.get("task_type", "")).strip().lower()
        if kind == "web_search" and not self._search_configured:
            raise ToolError(SEARCH_NOT_CONFIGURED)
        data = arguments.get("execution_data")
        described = arguments.get("description")
        try:
            checked = task_data(
                kind,
                _known_fields(data if isinstance(data, Mapping) else None),
                described if isinstance(described, str) else None,
            )
        except TaskError as exc:
            raise ToolError(str(exc)) from None
        offline = self._offline_prompts
        if isinstance(checked, AgentTaskData) and offline and not offline(checked.prompt):
            raise ToolError(_no_model_for(checked.prompt))
        self._read(str(arguments.get("schedule", "")), ctx, recurring=True)
        return _approval_needed(arguments, ctx)

    async def active_ids(self, ctx: ToolContext) -> list[str]:
        """The caller's live task ids (the dynamic enum of ``task_id``)."""
        return await self._manager.active_task_ids(ctx.user_id)

    async def snoozable_ids(self, ctx: ToolContext) -> list[str]:
        """The ids a snooze may name: the live ones and a reminder that has just gone off."""
        return await self._manager.snoozable_task_ids(ctx.user_id)

    # The tools that act on one of the caller's tasks share one set of options, and the
    # description of ``task_id``.
    _on_one_task = tool(
        params={
            "task_id": {"description": "The task's id, as list_tasks shows it.", "enum": active_ids}
        },
        llm_format=_reply_text,
        gui_format=_reply_text,
        timeout=15,
        # The answer names the task in its own words: private data read.
        effects=[Effect.CHANGES, Effect.READS_PRIVATE],
    )
    _removes_one_task = tool(
        params={
            "task_id": {"description": "The task's id, as list_tasks shows it.", "enum": active_ids}
        },
        llm_format=_reply_text,
        gui_format=_reply_text,
        timeout=15,
        effects=[Effect.CHANGES, Effect.REMOVES, Effect.READS_PRIVATE],
    )

    # Other assistants teach models add_reminder(delay="5m", message=...).
    @tool(
        llm_format=_reply_text,
        gui_format=_reply_text,
        timeout=15,
        argument_aliases={"when": ["delay"]},
        effects=[Effect.CHANGES],
    )
    async def add_reminder(
        self,
        ctx: ToolContext,
        when: str,
        message: str,
        urgent: bool = False,
        nag: str | None = None,
    ) -> TaskReply:
        """Remind the user of something at a time; the time is worked out from their words.

        Args:
            when: When, in the user's own words: 'in 5 minutes', 'tomorrow at 9am',
                'on friday at 5pm', 'every weekday at 8am', '0 9 * * 1-5'.
            message: What to remind them of, e.g. 'call mom'.
            urgent: Whether it comes even during the user's quiet hours (they said it is
                urgent, or it is an alarm).
            nag: Repeat it this often until the user says done, e.g. '10 minutes'; leave it
                out for a reminder that comes once.
        """
        reading = self._read(when, ctx, recurring=None)
        schedule = reading.schedule
        data: dict[str, Any] = {"message": message}
        if urgent:
            data["urgent"] = True
        if nag is not None and nag.strip():
            data["nag_minutes"] = _nag_minutes(nag)
        task = await self._add(ctx, "reminder", schedule, message, data)
        summary = self._summary(task, ctx)
        about = _about(message)
        if schedule.kind == "once":
            text = f"I'll remind you {summary.next_run_text} {about} (task {task.id})."
        else:
            text = (
                f"I'll remind you {summary.schedule} {about}; the first time "
                f"{summary.next_run_text} (task {task.id})."
            )
        return TaskReply(text + _options(data) + _noted(reading), summary)

    @tool(
        requires_approval=_runnable_then_approved,
        risk_level="medium",
        llm_format=_reply_text,
        gui_format=_reply_text,
        timeout=15,
        effects=[Effect.CHANGES],
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
        reading = self._read(schedule, ctx, recurring=True)
        parsed = reading.schedule
        task = await self._add(ctx, task_type, parsed, description, _known_fields(execution_data))
        summary = self._summary(task, ctx)
        kind = _TYPE_WORDS.get(task.task_type.value, task.task_type.value)
        text = (
            f"Scheduled the {kind} '{task.description}' {summary.schedule}; next run "
            f"{summary.next_run_text} (task {task.id})."
        )
        return TaskReply(text + _noted(reading), summary)

    @tool(
        llm_format=TaskListing.for_model,
        gui_format=TaskListing.for_person,
        timeout=15,
        parallel=True,
        argument_aliases={"period": ["day"]},
        effects=[Effect.READS_PRIVATE],
    )
    async def list_tasks(self, ctx: ToolContext, period: str | None = None) -> TaskListing:
        """List the user's scheduled tasks and reminders with their ids and next runs.

        Args:
            period: Only the tasks that run in this day or period, in the user's words:
                'today', 'tomorrow', 'friday', 'March 3', 'this week', 'next month',
                'in december'. Leave it out for all tasks.
        """
        tasks = await self._manager.list_tasks(ctx.user_id)
        if period is None or not period.strip():
            listing = TaskListing([self._summary(task, ctx) for task in tasks])
            week = (ctx.now, ctx.now + timedelta(days=7), "the next 7 days")
            return await self._with_events(listing, ctx, *week)
        try:
            span = read_period(period, now=ctx.now, tz=ctx.timezone)
        except TaskError as exc:
            raise ToolError(str(exc)) from None
        # A day's tasks are what is in it; monitors are checks (``/tasks`` lists them).
        in_the_day = [task for task in tasks if task.task_type not in NOT_IN_THE_DAY]
        fires = [
            (_fire_between(task, max(span.start, ctx.now), span.end), task) for task in in_the_day
        ]
        shown = sorted(
            ((fire, task) for fire, task in fires if fire is not None),
            key=lambda pair: (pair[0], pair[1].id),
        )
        listed = [self._summary(task, ctx, next_run=fire) for fire, task in shown]
        listing = TaskListing(listed, period=span.label)
        return await self._with_events(listing, ctx, span.start, span.end, span.label)

    async def _with_events(
        self, listing: TaskListing, ctx: ToolContext, start: datetime, end: datetime, said: str
    ) -> TaskListing:
        """The listing with the events of the user's calendars from ``start`` to ``end``."""
        if self._calendars is None:
            return listing
        try:
            found = await self._calendars.events(ctx.user_id, start, end)
        except CalendarError as exc:
            return replace(listing, calendar_span=said, calendar_notes=[str(exc)])
        if not found.read:
            return listing
        return replace(
            listing,
            events=[event.line(ctx.timezone) for event in found.events],
            calendar_span=said,
            calendar_notes=list(found.problems),
        )

    @_removes_one_task
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

    @tool(
        params={
            "task_id": {
                "description": "The task's id, as list_tasks shows it, or that of a reminder "
                "that has just gone off.",
                "enum": snoozable_ids,
            }
        },
        llm_format=_reply_text,
        gui_format=_reply_text,
        timeout=15,
        effects=[Effect.CHANGES, Effect.READS_PRIVATE],
    )
    async def snooze_task(self, ctx: ToolContext, task_id: str, delay: str) -> TaskReply:
        """Snooze a task by a delay or until a time: a reminder is put off (one that already
        went off comes back), and a repeating one then keeps its schedule; the message
        another task (a monitor, a search, a result, the briefing) delivered within the last
        hour comes again then, and that task keeps its schedule; one that delivered nothing
        lately has its next run put off. To change when a task runs from now on, use
        reschedule_task instead.

        Args:
            delay: How long, or until when: '10m', '1h', 'in 30 minutes', 'half an hour',
                'until 5pm', 'tomorrow at 9am', 'friday' (the task's time of day, that day).
        """
        task = await self._call(ctx, self._manager.get_task(task_id, ctx.user_id))
        until = self._snooze_end(delay, task, ctx)
        snoozed = await self._call(ctx, self._manager.snooze_task(task.id, ctx.user_id, until))
        summary = self._summary(snoozed.task, ctx)
        label = f"task {summary.id} ('{summary.description}')"
        if snoozed.held is not None:
            moved = snoozed.held.moved_from
            instead = (
                "" if moved is None else f" instead of {when_text(moved, ctx.timezone, ctx.now)}"
            )
            return TaskReply(
                f"I'll show the message from task {summary.id} again "
                f"{when_text(snoozed.held.release_at, ctx.timezone, ctx.now)}{instead}; the "
                f"task keeps its schedule (next run {summary.next_run_text}).",
                summary,
            )
        said = ": it showed nothing in the last hour, so this puts off its next run"
        if snoozed.task.task_type is TaskType.REMINDER:
            said = ""
        then = "" if summary.schedule.startswith("once") else f", then {summary.schedule}"
        return TaskReply(f"Snoozed {label}{said}; next run {summary.next_run_text}{then}.", summary)

    async def _done(self, ctx: ToolContext, operation: Awaitable[Task], said: str) -> TaskReply:
        """Carry out ``operation`` on one task and say so: ``said`` may name the task's
        ``{id}``, ``{description}`` and ``{next_run}``."""
        task = await self._call(ctx, operation)
        summary = self._summary(task, ctx)
        text = said.format(id=task.id, description=task.description, next_run=summary.next_run_text)
        return TaskReply(text, summary)

    @_on_one_task
    async def reschedule_task(self, ctx: ToolContext, task_id: str, when: str) -> TaskReply:
        """Move one of the user's tasks to a new time, keeping its id.

        A time of day alone keeps the day ('6pm': the same day at 18:00) or, for a repeating
        task, its days ('7pm': every Monday at 19:00 instead of 18:00); a day alone keeps the
        time of day ('friday': every Friday at 08:30 instead of every weekday at 08:30).

        Args:
            when: The new time in the user's words: '6pm', 'tomorrow at 9am', 'every monday
                at 8am'.
        """
        task = await self._call(ctx, self._manager.get_task(task_id, ctx.user_id))
        before = self._summary(task, ctx)
        schedule = self._moved(task, when, ctx)
        moved = await self._call(ctx, self._manager.reschedule(task.id, ctx.user_id, schedule))
        after = self._summary(moved, ctx)
        if task.schedule.kind == "once" and moved.schedule.kind == "once":
            change = f"now {after.next_run_text}, was {before.next_run_text}"
        else:
            change = f"now {after.schedule}, was {before.schedule}; next run {after.next_run_text}"
        return TaskReply(f"Moved task {moved.id} ('{moved.description}'): {change}.", after)

    @tool(
        params={
            "task_id": {
                "description": "The task's id, as list_tasks shows it (a finished "
                "task's id works too)."
            },
            "limit": {"minimum": 1, "maximum": MAX_HISTORY},
        },
        llm_format=TaskHistory.for_model,
        gui_format=TaskHistory.for_model,
        timeout=15,
        parallel=True,
        effects=[Effect.READS_PRIVATE],
    )
    async def task_history(self, ctx: ToolContext, task_id: str, limit: int = 10) -> TaskHistory:
        """Show how one of the user's tasks ran: when each run was due, how it went, and
        what it did or why it failed, newest first.

        Args:
            limit: How many of the latest runs to show (1 to 50).
        """
        task = await self._call(ctx, self._manager.get_task(task_id, ctx.user_id))
        try:
            runs = await self._manager.history(task.id, ctx.user_id, limit=limit)
        except TaskError as exc:
            raise ToolError(str(exc)) from None
        zone = ctx.timezone
        shown = [
            RunSummary(
                scheduled_for=run.scheduled_for.astimezone(zone).isoformat(),
                status=run.status.value,
                misfire=run.misfire.value,
                late_by=format_lateness(run.late_by) if run.late_by else None,
                result=run.result,
                error=run.error,
                line=run_line(run, zone),
            )
            for run in runs
        ]
        return TaskHistory(self._summary(task, ctx), shown)

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

    def _parse(
        self,
        words: str,
        ctx: ToolContext,
        *,
        recurring: bool | None,
        now: datetime | None = None,
    ) -> Schedule:
        return self._read(words, ctx, recurring=recurring, now=now).schedule

    def _read(
        self,
        words: str,
        ctx: ToolContext,
        *,
        recurring: bool | None,
        now: datetime | None = None,
    ) -> Reading:
        """The user's words read in their zone and date order, or a ``ToolError`` saying why."""
        moment = ctx.now if now is None else now
        order = ctx.profile.get("date_order", self._date_order)
        try:
            return read_schedule(
                words,
                now=moment,
                tz=ctx.timezone,
                recurring=recurring,
                date_order="dmy" if order == "dmy" else "mdy",
            )
        except TaskError as exc:
            raise ToolError(str(exc)) from None

    def _moved(self, task: Task, when: str, ctx: ToolContext) -> Schedule:
        """The schedule ``when`` gives ``task``: a time of day alone keeps its day(s), a day
        alone keeps its time of day."""
        try:
            at = read_time_of_day(when)
            if at is None:
                return self._on_other_days(task, when, ctx)
            if task.schedule.kind == "recurring":
                return retime(task.schedule, at)
            moved = retime(task.schedule, at)
            if moved.next_after(ctx.now) is not None:
                return moved
            return self._parse(when, ctx, recurring=False)  # that day's time passed: the next
        except ScheduleError as exc:
            raise ToolError(str(exc)) from None

    def _on_other_days(self, task: Task, when: str, ctx: ToolContext) -> Schedule:
        """The schedule ``when`` gives, at the task's time of day when it names only days."""
        parsed = self._parse(when, ctx, recurring=task.schedule.kind == "recurring")
        moved = keep_time_of_day(parsed, task.schedule, when)
        if moved.next_after(ctx.now) is not None:
            return moved
        at = time_of_day(moved)
        clock = at.strftime("%H:%M") if at is not None else "that time"
        raise ToolError(
            f"{when!r} at {clock}, the task's time of day, has already passed; say a time "
            f"too, e.g. '{when} at 6pm', or another day"
        )

    def _snooze_end(self, words: str, task: Task, ctx: ToolContext) -> timedelta | datetime:
        """When a snooze of ``task`` by the user's ``words`` ends (``read_snooze``), or a
        ``ToolError`` saying why the words are neither a delay nor a time."""
        order = ctx.profile.get("date_order", self._date_order)
        try:
            return read_snooze(
                words,
                ctx.now,
                ctx.timezone,
                date_order="dmy" if order == "dmy" else "mdy",
                keep=run_time_of_day(task),
            )
        except TaskError as exc:
            raise ToolError(str(exc)) from None

    async def _call(self, ctx: ToolContext, operation: Awaitable[_T]) -> _T:
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
            return "there are no tasks"
        shown = ", ".join(f"{t.id} ('{t.description}')" for t in tasks[:_LISTED_IDS])
        more = f" and {len(tasks) - _LISTED_IDS} more" if len(tasks) > _LISTED_IDS else ""
        return f"the tasks are {shown}{more}"

    def _summary(
        self, task: Task, ctx: ToolContext, *, next_run: datetime | None = None
    ) -> TaskSummary:
        tz = ctx.timezone
        run = next_run or task.next_run
        return TaskSummary(
            id=task.id,
            task_type=task.task_type.value,
            description=task.description,
            schedule=schedule_words(task, tz),
            next_run=None if run is None else run.astimezone(tz).isoformat(),
            next_run_text=next_run_words(task, tz, ctx.now, run=run),
            status=task.status.value,
            line=task_line(task, tz, ctx.now, next_run=run),
        )

    # What the other groups of task tools share (``ProactiveTools``): not tools themselves.

    def summary(self, task: Task, ctx: ToolContext) -> TaskSummary:
        """``task`` as the tools show it to ``ctx``'s user."""
        return self._summary(task, ctx)

    def read(self, words: str, ctx: ToolContext, *, recurring: bool | None) -> Reading:
        """``words`` read as a schedule in the caller's zone, or a ``ToolError`` saying why."""
        return self._read(words, ctx, recurring=recurring)

    async def checked(self, ctx: ToolContext, operation: Awaitable[_T]) -> _T:
        """What ``operation`` returns; its refusal as a ``ToolError`` (naming the
        caller's task ids when the task is not theirs)."""
        return await self._call(ctx, operation)


def _nag_minutes(words: str) -> int:
    """How many minutes "10 minutes" (or "every minute", "an hour") is, for a reminder that
    nags (``tasks.read_nag``)."""
    try:
        return read_nag(words)
    except TaskError as exc:
        raise ToolError(str(exc)) from None


def _options(data: Mapping[str, Any]) -> str:
    """What a reminder's options add to its confirmation."""
    said = ""
    if data.get("nag_minutes"):
        said += f" It repeats every {data['nag_minutes']} min until you say done (or press Done)."
    if data.get("urgent"):
        said += " It is urgent: it comes even in your quiet hours."
    return said


def _noted(reading: Reading) -> str:
    """ " I read 'tmrw' as 'tomorrow'." when words were read as others, else nothing."""
    note = reading.note()
    return f" I {note}." if note else ""


def _about(message: str) -> str:
    """How a reply names what a reminder is about: "to call mom", 'about "the dentist"'."""
    text = message.strip()
    first = text.split(maxsplit=1)[0].lower() if text else ""
    if first == "to":  # "to call mom" already says it
        return text
    if text[:1].islower() and first not in _NOUN_LEAD:
        return f"to {text}"
    return f'about "{text}"'


def _fire_between(task: Task, start: datetime, end: datetime) -> datetime | None:
    """When an active task runs in ``[start, end)``, if it does: its next run (which a
    snooze may have put off onto no fire of its schedule), else a fire after that."""
    if task.status is not TaskStatus.ACTIVE or task.next_run is None:
        return None
    if start <= task.next_run < end or task.schedule.kind == "once":
        return task.next_run if start <= task.next_run < end else None
    fire = task.schedule.next_after(max(start, task.next_run) - timedelta(microseconds=1))
    return fire if fire is not None and fire < end else None

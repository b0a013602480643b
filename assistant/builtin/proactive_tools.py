"""Tools that let the assistant decide when to speak (issue 28): monitors that tell only of a
change, quiet hours, the morning briefing, and acknowledging a reminder that nags.

``add_monitor`` schedules a ``monitor`` task: a page (or what a CSS selector picks on it), a
JSON field, a web search's top results or a tool's output, checked on a schedule, with a
condition in words or as an expression. A monitor of a tool runs it unattended, so only a
tool that neither changes anything nor waits for approval may be watched. ``quiet_hours``
sets, shows or ends the caller's quiet hours (``interfaces.QuietHoursBook``).
``morning_briefing`` keeps one daily ``briefing`` task per user. ``acknowledge_task``
records "done" for a reminder, and stops it if it repeats until acknowledged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from assistant.builtin.task_tools import TaskReply, TaskSummary, TaskTools
from interfaces import QuietHoursBook, acknowledged_text, front_end_of, watch_reply
from tasks import (
    MonitorData,
    ScheduleError,
    Task,
    TaskError,
    TaskManager,
    TaskType,
    daily_at,
    how_often_problem,
    monitor_of,
    parse_quiet_hours,
)
from tools import Effect, ToolContext, ToolError, ToolRegistry, tool

DEFAULT_EVERY = "every hour"
"""How often a monitor looks when nobody says."""


@dataclass(frozen=True, slots=True)
class Said:
    """What a tool did, in one sentence for the user."""

    text: str


def _said(reply: Said | TaskReply) -> str:
    return reply.text


class ProactiveTools:
    """Monitors, quiet hours, the morning briefing and acknowledgements, for one app.

    Args:
        tasks: The task tools (their shared reading of schedules and tasks).
        manager: Where the tasks are kept and fired.
        quiet: The users' quiet hours.
        registry: The tools a monitor may watch (checked when it is made).
        search_configured: Whether web searches can run (search monitors need them).
    """

    def __init__(
        self,
        tasks: TaskTools,
        manager: TaskManager,
        *,
        quiet: QuietHoursBook,
        registry: ToolRegistry | None = None,
        search_configured: bool = False,
    ) -> None:
        self._tasks = tasks
        self._manager = manager
        self._quiet = quiet
        self._registry = registry
        self._search_configured = search_configured

    def watch(self, registry: ToolRegistry) -> None:
        """Check tool monitors against ``registry`` (the composition root's, once built)."""
        self._registry = registry

    @tool(
        llm_format=_said,
        gui_format=_said,
        timeout=15,
        argument_aliases={"url": ["page", "address"], "every": ["schedule", "how_often"]},
        # The monitor will send a request to the URL unattended: a host the user did not
        # name asks first, and after outside content so does the change (a new task).
        effects=[Effect.CHANGES, Effect.SENDS_OUT],
        reaches="url",
    )
    async def add_monitor(
        self,
        ctx: ToolContext,
        url: str | None = None,
        selector: str | None = None,
        field: str | None = None,
        query: str | None = None,
        tool: str | None = None,
        arguments: dict[str, Any] | None = None,
        condition: str | None = None,
        every: str = DEFAULT_EVERY,
        description: str | None = None,
    ) -> TaskReply:
        """Watch something on a schedule and tell the user only when it changes, or when a
        condition comes to hold: a web page (or what a CSS selector picks on it), a field of
        a JSON API, a web search's top results, or a read-only tool's output.

        Args:
            url: The page or JSON address, e.g. 'https://shop.example/kettle'.
            selector: A CSS selector: only what it picks on the page counts, e.g. '#price'.
            field: A JSON field's path, e.g. 'data.price' (the URL answers JSON).
            query: What to search the web for (watch its top results instead of a page).
            tool: A tool whose output to watch, e.g. 'files.list_directory'.
            arguments: The tool's arguments.
            condition: When to speak, in words or as an expression: "contains 'in stock'",
                "price < 300", "no longer says sold out". Leave it out for any change.
            every: How often to look, e.g. 'every hour', 'every 30 minutes', 'daily at 9am'.
            description: A short title; by default what it watches.
        """
        data = self._data(ctx, url, selector, field, query, tool, arguments, condition)
        try:
            reading = self._tasks.read(every, ctx, recurring=True)  # "tomorrow" is refused
        except ToolError as exc:
            raise ToolError(how_often_problem(str(exc))) from None
        task = await self._manager.find_monitor(ctx.user_id, data)
        existing = task is not None
        if task is None:
            task = await self._tasks.checked(
                ctx,
                self._manager.add_task(
                    owner_id=ctx.user_id,
                    chat_id=ctx.chat_id,
                    task_type=TaskType.MONITOR,
                    schedule=reading.schedule,
                    execution_data=data,
                    description=description,
                ),
            )
        summary = self._tasks.summary(task, ctx)
        text = watch_reply(data, summary.schedule, task.id, existing=existing)
        return TaskReply(text, summary)

    def _data(
        self,
        ctx: ToolContext,
        url: str | None,
        selector: str | None,
        field: str | None,
        query: str | None,
        tool: str | None,
        arguments: dict[str, Any] | None,
        condition: str | None,
    ) -> MonitorData:
        if query is not None and url is None and tool is None and not self._search_configured:
            raise ToolError(
                "web search is not configured (SERPAPI_API_KEY is not set), so its results "
                "cannot be watched; watch a page instead"
            )
        if tool is not None and url is None and query is None:
            self._check_tool(tool, arguments or {}, ctx)
        try:
            return monitor_of(
                url=url, selector=selector, field=field, query=query, tool=tool,
                arguments=arguments, condition=condition,
            )  # fmt: skip
        except TaskError as exc:
            raise ToolError(str(exc)) from None

    def _check_tool(self, name: str, arguments: dict[str, Any], ctx: ToolContext) -> None:
        found = self._registry.find(name) if self._registry is not None else None
        if found is None:
            raise ToolError(f"there is no tool {name!r} to watch; the tools list their names")
        if {Effect.CHANGES, Effect.REMOVES} & found.effects:
            raise ToolError(f"{name!r} changes things; a monitor only looks, so it cannot run it")
        if found.requires_approval and found.needs_approval(arguments, ctx):
            raise ToolError(
                f"{name!r} waits for your approval, and a monitor runs without you, so it "
                "cannot run it; mark the tool read-only (readOnly in mcp.json) if it is one"
            )

    @tool(llm_format=_said, gui_format=_said, timeout=15, effects=[Effect.CHANGES])
    async def quiet_hours(self, ctx: ToolContext, hours: str | None = None) -> Said:
        """Set, show or end the user's quiet hours: messages due then wait and arrive
        together when they end (reminders marked urgent still come).

        Args:
            hours: '22:00-07:00', 'from 10pm to 7am', or 'off' to end them; leave it out to
                show them.
        """
        if hours is None or not hours.strip():
            window = await self._quiet.get(ctx.user_id)
            if window is None:
                return Said("You have no quiet hours; say e.g. 'quiet from 22:00 to 07:00'.")
            return Said(f"Your quiet hours: {window.words()} ({ctx.timezone.key}).")
        try:
            window = parse_quiet_hours(hours)
        except ScheduleError as exc:
            raise ToolError(str(exc)) from None
        change = await self._quiet.set(ctx.user_id, window, tasks=self._manager, zone=ctx.timezone)
        return Said(change.said())

    @tool(llm_format=_said, gui_format=_said, timeout=15, effects=[Effect.CHANGES])
    async def morning_briefing(self, ctx: ToolContext, at: str | None = None) -> Said | TaskReply:
        """Start, move, show or stop the user's morning briefing: one message a day with
        their day's tasks and reminders, what ran overnight (failures first), monitors that
        changed and notes tagged for the day.

        Args:
            at: The time of day, e.g. '7:30' or '7am'; 'off' stops it; leave it out to show it.
        """
        current = await self._manager.briefing(ctx.user_id)
        if at is None or not at.strip():
            if current is None:
                return Said("You get no morning briefing; say e.g. 'morning briefing at 7:30'.")
            return Said(f"Your morning briefing: {self._tasks.summary(current, ctx).line}.")
        if at.strip().lower() in ("off", "stop", "none", "no", "cancel"):
            if current is None:
                return Said("You get no morning briefing, so there is nothing to stop.")
            await self._tasks.checked(ctx, self._manager.cancel(current.id, ctx.user_id))
            return Said(f"Stopped your morning briefing (task {current.id}).")
        try:
            schedule = daily_at(at, ctx.now, ctx.timezone)
        except ScheduleError as exc:
            raise ToolError(str(exc)) from None
        task = await self._tasks.checked(
            ctx, self._manager.set_briefing(ctx.user_id, ctx.chat_id, schedule)
        )
        summary = self._tasks.summary(task, ctx)
        return TaskReply(briefing_text(task, summary, moved=current is not None), summary)

    @tool(
        params={
            "task_id": {
                "description": "The reminder's id; leave it out for the one that keeps "
                "repeating (or that went off last)."
            }
        },
        llm_format=_said,
        gui_format=_said,
        timeout=15,
        effects=[Effect.CHANGES, Effect.READS_PRIVATE],
    )
    async def acknowledge_task(self, ctx: ToolContext, task_id: str | None = None) -> Said:
        """Mark a reminder as done (the user says 'done'): one that repeats until
        acknowledged stops; the acknowledgement is kept in the task's history."""
        via = f"'done' in {front_end_of(ctx.chat_id)}"
        if task_id:
            done = await self._tasks.checked(
                ctx, self._manager.acknowledge(task_id, ctx.user_id, via=via)
            )
        else:
            try:
                done = await self._manager.acknowledge_latest(ctx.user_id, via=via)
            except TaskError as exc:
                raise ToolError(str(exc)) from None
        return Said(acknowledged_text(done))


def briefing_text(task: Task, summary: TaskSummary, *, moved: bool) -> str:
    """What starting (or moving) the morning briefing says."""
    verb = "Moved" if moved else "Started"
    return (
        f"{verb} your morning briefing: {summary.schedule}, the first on "
        f"{summary.next_run_text} (task {task.id}). It lists the day's tasks, what ran "
        "overnight (failures first), monitors that changed and notes tagged for the day."
    )

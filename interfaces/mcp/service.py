"""``McpAssistant``: the assistant's tools and tasks for MCP callers, over the objects the
composition root built.

Chat's own tools run through chat's executor, with the caller's context (their zone, their
settings, their chat), so the checks, the approval gate and every message are chat's; the
tools only MCP has (``interfaces.mcp.turns``) run through an executor of their own. The
caller is a ``Caller``: the user a token or ``--user`` names, and the chat their deliveries
and conversation belong to.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from mcp_types import CallToolResult, ToolAnnotations
from mcp_types import Tool as McpTool

from common import Clock, SystemClock
from interfaces.mcp.replies import call_result, error_result, listed, scheduled_by
from interfaces.mcp.turns import HINTS, ApprovalNotices, McpAgent, McpTools
from interfaces.slots import UserSlots
from interfaces.task_json import task_out
from tasks import Notifier, TaskManager
from tools import Effect, Tool, ToolCall, ToolContext, ToolExecutor, ToolRegistry, ToolStatus

logger = logging.getLogger(__name__)

CHAT_TOOLS = (
    "add_reminder",
    "add_recurring_task",
    "list_tasks",
    "cancel_task",
    "snooze_task",
    "reschedule_task",
    "pause_task",
    "resume_task",
    "task_history",
    "acknowledge_task",
    "quiet_hours",
    "morning_briefing",
    "save_note",
    "search_memory",
    "get_current_time",
)
"""Chat's tools an MCP caller gets, by name: the scheduler (with Done, quiet hours and the
briefing), the notes and the time. The web, HTTP and code tools, and ``add_monitor`` (which
reads a page), are left to ``ask``, where the turn's provenance is checked as in chat."""
SCHEDULES = frozenset(
    {
        "add_reminder",
        "add_recurring_task",
        "snooze_task",
        "reschedule_task",
        "resume_task",
        "morning_briefing",
        "add_monitor",  # made by ask
    }
)
"""The tools whose success means a task will fire."""


@dataclass(frozen=True, slots=True)
class Caller:
    """Who calls over MCP: a user, and the chat their deliveries and conversation go to."""

    user_id: str
    chat_id: str


class McpAssistant:
    """What the MCP server offers: the tools, their calls, and the caller's upcoming tasks.

    Args:
        agent: Answers ``ask`` and decides approvals; knows each user's zone.
        executor: Chat's executor; its registry holds chat's tools.
        tasks: The task manager (the upcoming tasks).
        clock: The current time (tests inject a manual one).
        tool_names: Which of chat's tools are offered.
        scheduler_note: Said with every call that scheduled something, when this process
            does not fire tasks (``assistant mcp``); ``None`` when it does.
        notifier: Tells the caller's chat when a call waits for their approval (``None``:
            the result alone says so).
        max_message_chars: The longest message ``ask`` takes.
        turns: The turns each user may have running at once, shared with the front end
            served beside it (the web's); ``None``: no limit (one client on stdio).
    """

    def __init__(
        self,
        *,
        agent: McpAgent,
        executor: ToolExecutor,
        tasks: TaskManager,
        clock: Clock | None = None,
        tool_names: Iterable[str] = CHAT_TOOLS,
        scheduler_note: str | None = None,
        notifier: Notifier | None = None,
        max_message_chars: int = 4000,
        turns: UserSlots | None = None,
    ) -> None:
        self._agent = agent
        self._executor = executor
        self._tasks = tasks
        self._clock = clock or SystemClock()
        self.scheduler_note = scheduler_note
        self._notices = ApprovalNotices(notifier)
        own = McpTools(
            agent=agent,
            notices=self._notices,
            schedules=SCHEDULES,
            scheduler_note=scheduler_note,
            max_message_chars=max_message_chars,
            turns=turns,
        )
        self._own = ToolExecutor(ToolRegistry([own]), clock=self._clock)
        chat_tools = [executor.registry[name] for name in tool_names]
        self._chat_names = frozenset(each.name for each in chat_tools)
        self._offered = [*chat_tools, *self._own.registry]

    def tools(self) -> list[McpTool]:
        """The tools as MCP lists them: chat's names, descriptions and JSON Schemas (the
        allowed values computed per user are left to the call's check), with hints."""
        return [
            McpTool(
                name=each.name,
                description=each.description,
                input_schema=each.schema(None),
                annotations=HINTS.get(each.name) or hints(each),
            )
            for each in self._offered
        ]

    async def call(
        self, name: str, arguments: Mapping[str, Any] | None, caller: Caller
    ) -> CallToolResult:
        """Run one call for ``caller`` and say how it went; never raises for a bad call."""
        ctx = await self.context(caller)
        chat_tool = self._executor.registry.find(name)
        call = ToolCall(name, dict(arguments or {}))
        if name in self._own.registry:
            result = await self._own.execute(call, ctx)
        elif chat_tool is not None and chat_tool.name in self._chat_names:
            result = await self._executor.execute(call, ctx)
            if result.status is ToolStatus.PENDING_APPROVAL and result.approval is not None:
                await self._notices.tell([result.approval], ctx.timezone)
        else:
            names = [each.name for each in self._offered]
            return error_result(
                f"there is no tool {name!r} here; the tools are {listed(names)}",
                status=ToolStatus.INVALID.value,
            )
        scheduled = scheduled_by(result, SCHEDULES)
        return call_result(result, ctx.timezone, note=self.scheduler_note if scheduled else None)

    async def upcoming(self, caller: Caller) -> str:
        """The caller's tasks that have not finished, soonest first, as JSON: the shape of
        ``GET /tasks`` (``interfaces.TaskOut``), times in the caller's zone."""
        zone = await self._agent.user_zone(caller.user_id)
        now = self._clock.now()
        found = await self._tasks.list_tasks(caller.user_id)
        rows = [task_out(task, zone, now).model_dump(mode="json") for task in found]
        return json.dumps(rows, ensure_ascii=False, indent=2)

    async def context(self, caller: Caller) -> ToolContext:
        """The context of the caller's calls, as chat makes it: their zone and settings."""
        return await self._agent.tool_context(caller.user_id, caller.chat_id)


def hints(tool: Tool) -> ToolAnnotations:
    """What a client may show about a tool, from its effects: read-only, or destructive
    (it removes something), or reaching outside (it sends a request out)."""
    effects = tool.effects
    writes = bool(effects & {Effect.CHANGES, Effect.REMOVES, Effect.SENDS_OUT})
    return ToolAnnotations(
        read_only_hint=not writes,
        destructive_hint=Effect.REMOVES in effects,
        open_world_hint=Effect.SENDS_OUT in effects,
    )

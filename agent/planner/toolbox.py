"""The tools the offline planner calls, as typed references to the real ones.

The composition root hands the planner the bound tool functions (``PlannerTools``); mypy checks
there that each one has the signature the planner's protocol names, argument names included.
The planner writes a call by naming the function and its keyword arguments::

    toolbox.call(tools.add_reminder, when="tomorrow at 9am", message="call mom")

``ParamSpec`` lets mypy check those keywords against the tool's own signature, and the tool's
name is read from the registry entry of that very function. No tool or argument name is
spelled as a string, so renaming a tool or an argument breaks the type check, not the users.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, fields
from typing import Any, Concatenate, ParamSpec, Protocol

from tools import ToolContext, ToolRegistry

P = ParamSpec("P")
JsonValue = str | int | float | bool | None | list["JsonValue"] | dict[str, "JsonValue"]


class AddReminder(Protocol):
    def __call__(
        self,
        ctx: ToolContext,
        when: str,
        message: str,
        urgent: bool = False,
        nag: str | None = None,
    ) -> Awaitable[object]: ...


class AddMonitor(Protocol):
    def __call__(
        self,
        ctx: ToolContext,
        url: str | None = None,
        selector: str | None = None,
        field: str | None = None,
        query: str | None = None,
        tool: str | None = None,
        arguments: dict[str, Any] | None = None,
        condition: str | None = None,
        every: str = ...,
        description: str | None = None,
    ) -> Awaitable[object]: ...


class QuietHoursTool(Protocol):
    def __call__(self, ctx: ToolContext, hours: str | None = None) -> Awaitable[object]: ...


class MorningBriefing(Protocol):
    def __call__(self, ctx: ToolContext, at: str | None = None) -> Awaitable[object]: ...


class Acknowledge(Protocol):
    def __call__(self, ctx: ToolContext, task_id: str | None = None) -> Awaitable[object]: ...


class AddRecurringTask(Protocol):
    def __call__(
        self,
        ctx: ToolContext,
        schedule: str,
        task_type: Any,
        description: str,
        execution_data: dict[str, Any] | None = None,
    ) -> Awaitable[object]: ...


class ListTasks(Protocol):
    def __call__(self, ctx: ToolContext, period: str | None = None) -> Awaitable[object]: ...


class OnOneTask(Protocol):
    def __call__(self, ctx: ToolContext, task_id: str) -> Awaitable[object]: ...


class SnoozeTask(Protocol):
    def __call__(self, ctx: ToolContext, task_id: str, delay: str) -> Awaitable[object]: ...


class RescheduleTask(Protocol):
    def __call__(self, ctx: ToolContext, task_id: str, when: str) -> Awaitable[object]: ...


class SaveNote(Protocol):
    def __call__(
        self, ctx: ToolContext, content: str, tags: list[str] | None = None
    ) -> Awaitable[object]: ...


class SearchMemory(Protocol):
    def __call__(
        self, ctx: ToolContext, query: str, limit: int = 5, notes_only: bool = False
    ) -> Awaitable[object]: ...


class GetCurrentTime(Protocol):
    def __call__(self, ctx: ToolContext, tz: str | None = None) -> object: ...


class SearchWeb(Protocol):
    def __call__(self, query: str, limit: int = 5) -> Awaitable[object]: ...


class FetchUrl(Protocol):
    def __call__(self, url: str, max_chars: int = 4000) -> Awaitable[object]: ...


class ApiCall(Protocol):
    def __call__(
        self,
        url: str,
        method: str = "GET",
        headers: dict[str, str] | None = None,
        body: str | None = None,
        timeout: float = 15,
    ) -> Awaitable[object]: ...


class ExecuteCode(Protocol):
    def __call__(self, code: str, timeout: float = 10) -> Awaitable[object]: ...


@dataclass(frozen=True, slots=True)
class PlannerTools:
    """The tools the planner calls, bound to their services (the builtin ones)."""

    add_reminder: AddReminder
    add_recurring_task: AddRecurringTask
    list_tasks: ListTasks
    cancel_task: OnOneTask
    pause_task: OnOneTask
    resume_task: OnOneTask
    snooze_task: SnoozeTask
    reschedule_task: RescheduleTask
    save_note: SaveNote
    search_memory: SearchMemory
    get_current_time: GetCurrentTime
    search_web: SearchWeb
    fetch_url: FetchUrl
    api_call: ApiCall
    execute_code: ExecuteCode
    add_monitor: AddMonitor
    quiet_hours: QuietHoursTool
    morning_briefing: MorningBriefing
    acknowledge_task: Acknowledge


@dataclass(frozen=True, slots=True)
class PlannedCall:
    """One tool call the planner will write as a fenced JSON block.

    Attributes:
        tool: The tool's name, as the registry knows it.
        arguments: JSON-ready arguments, named as the tool's parameters are.
        lead: The sentence written before the block (what a person sees if the turn pauses).
    """

    tool: str
    arguments: dict[str, JsonValue]
    lead: str


class ToolboxError(ValueError):
    """The planner was given a tool that the registry does not hold."""


class Toolbox:
    """Writes calls of ``tools`` with the names the registry knows them by.

    Args:
        tools: The tool functions the planner calls.
        registry: The registry they are registered in.

    Raises:
        ToolboxError: when one of ``tools`` is not registered.
    """

    def __init__(self, tools: PlannerTools, registry: ToolRegistry) -> None:
        self.tools = tools
        self._names: dict[tuple[int, int], str] = {}
        for field in fields(tools):
            function = getattr(tools, field.name)
            name = _registered_name(function, registry)
            if name is None:
                raise ToolboxError(
                    f"the offline planner calls {field.name!r}, but the registry has no tool "
                    "made from that function; register it (assistant/app.py builds both)"
                )
            self._names[_identity(function)] = name

    def name_of(self, function: Callable[..., object]) -> str:
        """The registry's name of one of the planner's tools."""
        return self._names[_identity(function)]

    def call(
        self,
        function: Callable[Concatenate[ToolContext, P], object],
        lead: str,
        /,
        *args: P.args,
        **kwargs: P.kwargs,
    ) -> PlannedCall:
        """A call of a tool that receives the caller's context, with these arguments."""
        return self._planned(function, lead, kwargs, skip_context=True)

    def call_plain(
        self, function: Callable[P, object], lead: str, /, *args: P.args, **kwargs: P.kwargs
    ) -> PlannedCall:
        """A call of a tool that takes no context, with these arguments."""
        return self._planned(function, lead, kwargs, skip_context=False)

    def _planned(
        self,
        function: Callable[..., object],
        lead: str,
        arguments: dict[str, Any],
        *,
        skip_context: bool,
    ) -> PlannedCall:
        # The keywords were checked by mypy; binding checks them once more at run time.
        signature = inspect.signature(function)
        shown = dict(arguments)
        if skip_context:
            first = next(iter(signature.parameters))
            signature.bind_partial(**{first: None}, **shown)
        else:
            signature.bind_partial(**shown)
        ready = {name: value for name, value in shown.items() if value is not None}
        return PlannedCall(self.name_of(function), ready, lead)


def _identity(function: Callable[..., object]) -> tuple[int, int]:
    owner = getattr(function, "__self__", None)
    return id(getattr(function, "__func__", function)), id(owner)


def _registered_name(function: Callable[..., object], registry: ToolRegistry) -> str | None:
    wanted = getattr(function, "__func__", function)
    owner = getattr(function, "__self__", None)
    for tool in registry:
        if tool.spec.func is wanted and tool.instance is owner:
            return tool.name
    return None

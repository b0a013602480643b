"""What a caller asks for, checked and made into a ``TaskDraft``: pure functions of their inputs.

Ids are typed by people, so they are trimmed and lower-cased; owner and chat ids must be
non-empty; a description is filled in from the execution data when missing, and shortened;
a misfire policy may be named in words; a one-time schedule parsed a moment ago may lie up
to a minute in the past and then fires at once.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from common import redact_url
from tasks.errors import ScheduleError, TaskDataError
from tasks.execution import (
    AgentTaskData,
    ApiCallData,
    BriefingData,
    ExecutionData,
    MonitorData,
    ReminderData,
    TaskType,
    WebSearchData,
    parse_execution_data,
    parse_task_type,
)
from tasks.models import MisfirePolicy, MisfireRule, TaskDraft
from tasks.schedule.model import Schedule, format_local

# A one-time schedule a few seconds in the past (parsed a moment ago) still fires, at once.
PAST_TOLERANCE = timedelta(minutes=1)
DEFAULT_SNOOZE = "10m"
"""How long a snooze puts a task off when no delay is given, in the words people type."""
_DESCRIPTION_LIMIT = 200
_FILLED_FROM_DESCRIPTION = {
    TaskType.REMINDER: "message",
    TaskType.AGENT_TASK: "prompt",
    TaskType.WEB_SEARCH: "query",
}


def new_draft(
    *,
    owner_id: str,
    chat_id: str,
    task_type: TaskType | str,
    schedule: Schedule,
    execution_data: Mapping[str, Any] | ExecutionData | None,
    description: str | None,
    misfire: MisfireRule | MisfirePolicy | str | None,
    rules: Mapping[TaskType, MisfireRule],
    now: datetime,
) -> TaskDraft:
    """Check a new task's parts and return its draft (see ``TaskManager.add_task``).

    Raises:
        TaskDataError: for a bad owner, chat, type, data, description or misfire policy.
        ScheduleError: when the schedule has no run after now.
    """
    kind = parse_task_type(task_type)
    data = task_data(kind, execution_data, description)
    return TaskDraft(
        owner_id=_identifier(owner_id, "owner_id"),
        chat_id=_identifier(chat_id, "chat_id"),
        task_type=kind,
        description=_description(description, data),
        schedule=schedule,
        execution=data,
        misfire=misfire_rule(misfire, rules[kind]),
        created_at=now,
        # A monitor takes its first look (silent: what later ones are compared with) at
        # once, so a change within the first interval is seen, and a wrong address or
        # selector shows at once in its history.
        next_run=now if kind is TaskType.MONITOR else first_run(schedule, now),
    )


def task_data(
    task_type: TaskType | str,
    execution_data: Mapping[str, Any] | ExecutionData | None,
    description: str | None = None,
) -> ExecutionData:
    """What a task of ``task_type`` would run, checked as ``add_task`` checks it (the
    description serving as the message, prompt or query left out): a caller may refuse a
    task that could never run before anyone is asked to approve it.

    Raises:
        TaskDataError: for a bad type or data, or a misplaced ``${NAME}`` reference.
    """
    kind = parse_task_type(task_type)
    data = parse_execution_data(kind, _with_description(kind, execution_data, description))
    if isinstance(data, ApiCallData):
        data.check_references()
    return data


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


def misfire_rule(
    misfire: MisfireRule | MisfirePolicy | str | None, default: MisfireRule
) -> MisfireRule:
    """Return the rule ``misfire`` names; a bare policy keeps ``default``'s grace.

    Raises:
        TaskDataError: for an unknown policy name.
    """
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
    if isinstance(data, MonitorData):
        said = data.parsed_condition()
        return f"watch {data.subject()}" + (f" for {said.canonical()}" if said else "")
    if isinstance(data, BriefingData):
        return "morning briefing"
    assert isinstance(data, ApiCallData)
    return f"{data.method} {redact_url(data.url)}"

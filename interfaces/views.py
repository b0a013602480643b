"""How tasks, runs, notes and approval requests read to a person: interface-neutral text.

Every view is plain text plus buttons as data (``interfaces.replies``); no markup, so any
interface can show it as it is.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from agent import AgentReply
from common import LazyPattern
from interfaces.messages import Action, ActionKind, Button, ButtonRows, Reply
from memory import Note
from tasks import (
    Task,
    TaskRun,
    TaskStatus,
    format_local,
    run_line,
    schedule_words,
    task_line,
)
from tools import ApprovalRequest

MAX_LISTED_TASKS = 20  # 3 buttons each: well under Telegram's 100 buttons per keyboard
NO_TASKS = (
    "You have no scheduled tasks. Try 'remind me in 10 minutes to stretch' or "
    "'every weekday at 8:30 remind me to check the mail'."
)
TASK_COMMANDS = "Commands: /cancel ID, /pause ID, /resume ID, /run ID, /snooze ID 10m, /runs ID"
"""What the terminal says once under its task list (where Telegram has buttons)."""


def task_list(tasks: Sequence[Task], zone: ZoneInfo, now: datetime) -> Reply:
    """The /tasks view: each task with its schedule and next run, and its buttons; without
    buttons, one line per task and the commands once below."""
    if not tasks:
        return Reply(NO_TASKS)
    shown = tasks[:MAX_LISTED_TASKS]
    head = f"Your tasks (times in {zone.key}):"
    lines, plain = [head], [head]
    rows: list[tuple[Button, ...]] = []
    for number, task in enumerate(shown, start=1):
        lines.append("")
        lines.extend(_task_lines(number, task, zone))
        plain.append(task_line(task, zone, now))
        rows.append(_task_buttons(task))
    if len(tasks) > len(shown):
        more = f"…and {len(tasks) - len(shown)} more; cancel some to see the rest."
        lines.append(f"\n{more}")
        plain.append(more)
    plain.append(TASK_COMMANDS)
    return Reply("\n".join(lines), tuple(rows), plain="\n".join(plain))


def _task_lines(number: int, task: Task, zone: ZoneInfo) -> list[str]:
    kind = task.task_type.value.replace("_", " ")
    lines = [f"{number}. [{task.id}] {kind}: {task.description}"]
    lines.append(f"   {schedule_words(task, zone)}")
    if task.status is TaskStatus.ACTIVE and task.next_run is not None:
        lines.append(f"   next run: {format_local(task.next_run, zone)}")
    else:
        reason = f" ({task.status_reason})" if task.status_reason else ""
        lines.append(f"   {task.status.value}{reason}")
    return lines


def _task_buttons(task: Task) -> tuple[Button, ...]:
    toggle = (
        Button(f"Resume {task.id}", Action(ActionKind.RESUME, task.id))
        if task.status in (TaskStatus.PAUSED, TaskStatus.DISABLED)
        else Button(f"Pause {task.id}", Action(ActionKind.PAUSE, task.id))
    )
    return (
        Button(f"Cancel {task.id}", Action(ActionKind.CANCEL, task.id)),
        toggle,
        Button(f"Run now {task.id}", Action(ActionKind.RUN_NOW, task.id)),
    )


def run_history(task: Task, runs: Sequence[TaskRun], zone: ZoneInfo) -> str:
    """The /runs view: a task's recent runs, newest first."""
    title = f"Runs of [{task.id}] {task.description} (times in {zone.key}):"
    if not runs:
        return f"[{task.id}] {task.description} has not run yet."
    return "\n".join([title, *(f"- {run_line(run, zone)}" for run in runs)])


def note_list(notes: Sequence[Note], zone: ZoneInfo) -> str:
    """The /notes view."""
    if not notes:
        return "You have no notes yet. Say 'note: the wifi password is on the fridge'."
    lines = ["Your notes, newest first:"]
    for note in notes:
        tags = f" [{', '.join(note.tags)}]" if note.tags else ""
        when = note.created_at.astimezone(zone).strftime("%Y-%m-%d")
        lines.append(f"- {_one_line(note.content, 300)}{tags} ({when})")
    return "\n".join(lines)


def approval_card(request: ApprovalRequest, zone: ZoneInfo) -> Reply:
    """A pending request: the tool, every argument in full, why it asks, [Approve] [Deny]."""
    expires = format_local(request.expires_at, zone)
    why = [f"Why I ask: {request.reason}."] if request.reason else []
    text = "\n".join(
        [
            "Approval needed",
            f"Tool: {request.tool_name}",
            *why,
            "Arguments:",
            format_arguments(request.arguments),
            f"Risk: {request.risk_level.value}. Expires at {expires} ({zone.key}).",
        ]
    )
    buttons: ButtonRows = (
        (
            Button("Approve", Action(ActionKind.APPROVE, request.id)),
            Button("Deny", Action(ActionKind.DENY, request.id)),
        ),
    )
    return Reply(text, buttons)


def request_line(request: ApprovalRequest, zone: ZoneInfo) -> str:
    """A pending request for the terminal's y/n question: the tool, why it asks, and every
    argument in full, one per line."""
    expires = request.expires_at.astimezone(zone)
    why = f"\n  why I ask: {request.reason}" if request.reason else ""
    return (
        f"{request.tool_name} ({request.risk_level.value} risk; request {request.id}, expires "
        f"at {expires:%H:%M}){why}\n{format_arguments(request.arguments)}\n"
    )


def agent_replies(reply: AgentReply, zone: ZoneInfo) -> tuple[Reply, ...]:
    """The agent's answer as messages: its text, or one card per pending approval with the
    text above the first card (a pause is one message, not a text and then a card)."""
    text = reply.text.strip()
    cards = [approval_card(request, zone) for request in reply.approvals]
    if not cards:
        return (Reply(text),) if text else ()
    if text:
        cards[0] = Reply(f"{text}\n\n{cards[0].text}", cards[0].buttons)
    return tuple(cards)


def argument_rows(arguments: Mapping[str, Any]) -> list[tuple[str, str]]:
    """A call's arguments as a person reads them: one (label, value) per row, in full.

    What the call will send is shown as it is, whoever chose it (a header value the model
    wrote included): the person approving sees what leaves. A ``${NAME}`` reference stays a
    reference, named as the user's stored secret (its value is filled in when it is sent).
    Labels are words, not field names ("task_type" is "kind", "max_chars" is "max chars"),
    a task's ``execution_data`` shows its own fields (the request's method, url, headers;
    a reminder's message) instead of one "execution data" row, and a task type reads as
    what it is ("HTTP request").
    """
    rows: list[tuple[str, str]] = []
    for name, value in dict(arguments).items():
        if name in _GROUPED and isinstance(value, Mapping):
            rows.extend(argument_rows(value))
        elif name == "task_type":
            rows.append(("kind", _TASK_KINDS.get(str(value), plain_value(value))))
        else:
            label = _LABELS.get(name, name.replace("_", " "))
            rows.append((label, _naming_secrets(plain_value(value))))
    return rows


_REFERENCE = LazyPattern(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def _naming_secrets(text: str) -> str:
    """The value, with each ``${NAME}`` said to be the user's stored secret."""
    names = list(dict.fromkeys(_REFERENCE.findall(text)))
    if not names:
        return text
    said = ", ".join(f"${{{name}}}" for name in names)
    return f"{text} [{said}: your stored secret, filled in when sent, not shown]"


_GROUPED = frozenset({"execution_data"})
_LABELS = {"tz": "time zone"}
_TASK_KINDS = {
    "reminder": "reminder",
    "agent_task": "a prompt I answer",
    "web_search": "web search",
    "api_call": "HTTP request",
}


def format_arguments(arguments: dict[str, Any]) -> str:
    """Show arguments one per line as plain values, every one in full."""
    rows = argument_rows(arguments)
    if not rows:
        return "  (none)"
    return "\n".join(f"  {label}: {value}" for label, value in rows)


def plain_value(value: object) -> str:
    """A value as a person reads it: text as it is, ``method POST, url http://...`` for a
    mapping, items joined by commas for a list; never JSON."""
    if value is None:
        return "(none)"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, Mapping):
        parts = [f"{key} {plain_value(item)}" for key, item in value.items()]
        return ", ".join(parts) if parts else "(none)"
    if isinstance(value, list | tuple):
        return ", ".join(plain_value(item) for item in value) if value else "(none)"
    return " ".join(str(value).split())


def format_moment(instant: datetime, zone: ZoneInfo) -> str:
    """Say an instant in the user's zone, with the zone."""
    return f"{format_local(instant, zone)} ({zone.key})"


def _one_line(text: str, limit: int) -> str:
    return _truncate(" ".join(text.split()), limit)


def _truncate(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[: limit - 1].rstrip() + f"… ({len(text)} characters in all)"


def as_sentence(error: Exception | str) -> str:
    """An error's message as a sentence for a person: capitalised (unless it starts with an
    address, which keeps its case: ``http://...``), with a full stop."""
    text = str(error).strip() or type(error).__name__
    if "://" not in text.split(" ", 1)[0]:
        text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."

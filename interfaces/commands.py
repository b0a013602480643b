"""The slash commands and button actions shared by the Telegram bot and the terminal chat.

``SlashCommands.handle("/snooze k3m9xa 10m", user_id=..., chat_id=...)`` answers with a
``CommandReply`` (text and buttons as data); ``SlashCommands.press(action, ...)`` carries out
a button press and answers with an ``ActionOutcome``. Every operation is scoped to the user
who asked: another user's task or request reads exactly like a missing one.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Protocol
from zoneinfo import ZoneInfo

from interfaces.replies import Action, ActionKind, ActionOutcome, CommandReply, Reply
from interfaces.views import (
    approval_card,
    format_moment,
    note_list,
    run_history,
    task_list,
)
from memory import MemoryInputError, Note, UserProfile
from tasks import ScheduleError, Task, TaskError, TaskRun, read_duration
from tools import ApprovalRequest, ApprovalStatus

logger = logging.getLogger(__name__)

DEFAULT_SNOOZE = "10m"


@dataclass(frozen=True, slots=True)
class CommandSpec:
    """One slash command: its name, its arguments and what it does (for menus and /help)."""

    name: str
    arguments: str
    description: str

    @property
    def usage(self) -> str:
        """How to type it, e.g. ``/snooze ID 10m``."""
        return f"/{self.name} {self.arguments}".rstrip()


COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec("start", "", "Say hello and set up"),
    CommandSpec("help", "", "What I can do"),
    CommandSpec("tasks", "", "Your scheduled tasks, with buttons"),
    CommandSpec("cancel", "ID", "Cancel a task"),
    CommandSpec("snooze", "ID 10m", "Put a task's next run off"),
    CommandSpec("runs", "ID", "A task's recent runs"),
    CommandSpec("notes", "", "Your notes"),
    CommandSpec("tz", "ZONE", "Set your time zone, e.g. /tz Europe/Berlin"),
    CommandSpec("approvals", "", "Requests waiting for your approval"),
    CommandSpec("new", "", "Start a fresh conversation"),
)
_BY_NAME = {spec.name: spec for spec in COMMANDS}


class TaskService(Protocol):
    """What the commands need from the task manager (``tasks.manager.TaskManager``)."""

    async def list_tasks(self, owner_id: str, *, include_finished: bool = False) -> list[Task]: ...
    async def get_task(self, task_id: str, owner_id: str) -> Task: ...
    async def history(self, task_id: str, owner_id: str, *, limit: int = 20) -> list[TaskRun]: ...
    async def cancel(self, task_id: str, owner_id: str) -> Task: ...
    async def pause(self, task_id: str, owner_id: str) -> Task: ...
    async def resume(self, task_id: str, owner_id: str) -> Task: ...
    async def snooze(self, task_id: str, owner_id: str, delay: timedelta) -> Task: ...
    async def run_now(self, task_id: str, owner_id: str) -> TaskRun: ...


class MemoryService(Protocol):
    """What the commands need from memory (``memory.MemoryStore``)."""

    async def list_notes(self, user_id: str, limit: int = 20) -> list[Note]: ...
    async def get_user(self, user_id: str) -> UserProfile | None: ...
    async def set_timezone(self, user_id: str, timezone: str) -> UserProfile: ...
    async def get_approval(self, request_id: str) -> ApprovalRequest | None: ...
    async def list_approvals(
        self, user_id: str, *, status: ApprovalStatus | None = ApprovalStatus.PENDING
    ) -> list[ApprovalRequest]: ...


class AgentReplyLike(Protocol):
    """The parts of the agent's reply the commands show."""

    @property
    def text(self) -> str: ...
    @property
    def approvals(self) -> tuple[ApprovalRequest, ...]: ...


class AgentService(Protocol):
    """What the commands need from the agent (``assistant.agent.DialogAgent``)."""

    async def reset(self, *, user_id: str, chat_id: str) -> None: ...
    async def resolve_approval(
        self, request_id: str, *, approved: bool, by: str
    ) -> AgentReplyLike: ...
    async def user_zone(self, user_id: str) -> ZoneInfo: ...


@dataclass(frozen=True, slots=True)
class _Call:
    """One command line, parsed: its arguments, who typed it where, and their zone."""

    args: str
    user_id: str
    chat_id: str
    zone: ZoneInfo


def agent_replies(reply: AgentReplyLike, zone: ZoneInfo) -> tuple[Reply, ...]:
    """The agent's answer as messages: its text, then one card per pending approval."""
    cards = tuple(approval_card(request, zone) for request in reply.approvals)
    text = reply.text.strip()
    return ((Reply(text),) if text else ()) + cards


MAX_ARGUMENT_CHARS = 200
"""Longer command arguments are refused without being quoted back."""


class SlashCommands:
    """Answers slash commands and button presses over the task manager, memory and agent.

    Args:
        tasks: The task manager.
        memory: The memory store.
        agent: The dialog agent (fresh conversations, approvals, the user's zone).
        clock: The current instant (aware); tests inject a fixed one.
    """

    def __init__(
        self,
        *,
        tasks: TaskService,
        memory: MemoryService,
        agent: AgentService,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        self._tasks = tasks
        self._memory = memory
        self._agent = agent
        self._clock = clock or (lambda: datetime.now(UTC))

    @staticmethod
    def is_command(text: str) -> bool:
        """Whether ``text`` is one of these slash commands (``/tasks@bot`` counts)."""
        name, _ = _split(text)
        return name in _BY_NAME

    async def handle(self, text: str, *, user_id: str, chat_id: str) -> CommandReply | None:
        """Answer a ``/command`` line; ``None`` when it is not one of these commands."""
        name, args = _split(text)
        if name not in _BY_NAME:
            return None
        if len(args) > MAX_ARGUMENT_CHARS:
            # Ids, zones and delays are short; quoting a huge argument back would flood the chat.
            return CommandReply.of(
                f"That is {len(args)} characters after /{name}; its arguments are short, "
                f"e.g. {_BY_NAME[name].usage}."
            )
        zone = await self._agent.user_zone(user_id)
        handler = getattr(self, f"_cmd_{name}")
        reply: CommandReply = await handler(_Call(args, user_id, chat_id, zone))
        return reply

    def help(self, unknown: str | None = None) -> CommandReply:
        """The help text; with ``unknown``, it opens by saying that command is not known."""
        lines = [f"I don't know the command {unknown!r}.", ""] if unknown else []
        lines.append("Talk to me in plain words, for example:")
        lines.extend(
            [
                "- remind me in 10 minutes to check the oven",
                "- every weekday at 8:30 remind me to check the mail",
                "- note: the spare key is under the blue pot",
                "- what are my tasks?",
                "",
                "Commands:",
            ]
        )
        lines.extend(f"{spec.usage} - {spec.description}" for spec in COMMANDS)
        return CommandReply.of("\n".join(lines))

    # --- commands ----------------------------------------------------------------------------

    async def _cmd_start(self, call: _Call) -> CommandReply:
        profile = await self._memory.get_user(call.user_id)
        greeting = (
            "Hi! I'm your assistant. I keep reminders and scheduled tasks, take notes, and "
            "answer questions. Say things like 'remind me in 10 minutes to stretch'; /help "
            "lists the commands."
        )
        if profile is None or profile.timezone is None:
            ask = (
                f"Which time zone are you in? I'm using {call.zone.key} until you tell me: "
                "send /tz followed by your zone, e.g. /tz Europe/Berlin or /tz America/New_York."
            )
        else:
            ask = f"Your time zone is {call.zone.key} (change it with /tz ZONE)."
        return CommandReply.of(f"{greeting}\n\n{ask}")

    async def _cmd_help(self, call: _Call) -> CommandReply:
        return self.help()

    async def _cmd_tasks(self, call: _Call) -> CommandReply:
        reply = task_list(await self._tasks.list_tasks(call.user_id), call.zone)
        return CommandReply((reply,))

    async def _cmd_cancel(self, call: _Call) -> CommandReply:
        task_id = call.args.split()[0] if call.args.split() else ""
        if not task_id:
            return CommandReply.of("Say which task: /cancel ID (/tasks shows the ids).")
        try:
            task = await self._tasks.cancel(task_id, call.user_id)
        except TaskError as error:
            return CommandReply.of(_sentence(error))
        return CommandReply.of(f"Cancelled [{task.id}] {task.description}.")

    async def _cmd_snooze(self, call: _Call) -> CommandReply:
        task_id, _, words = call.args.strip().partition(" ")
        if not task_id:
            return CommandReply.of("Say which task and for how long: /snooze ID 10m.")
        text, _ = await self._snooze(
            task_id, words.strip() or DEFAULT_SNOOZE, call.user_id, call.zone
        )
        return CommandReply.of(text)

    async def _cmd_runs(self, call: _Call) -> CommandReply:
        task_id = call.args.split()[0] if call.args.split() else ""
        if not task_id:
            return CommandReply.of("Say which task: /runs ID (/tasks shows the ids).")
        try:
            task = await self._tasks.get_task(task_id, call.user_id)
            runs = await self._tasks.history(task.id, call.user_id, limit=10)
        except TaskError as error:
            return CommandReply.of(_sentence(error))
        return CommandReply.of(run_history(task, runs, call.zone))

    async def _cmd_notes(self, call: _Call) -> CommandReply:
        return CommandReply.of(
            note_list(await self._memory.list_notes(call.user_id, 20), call.zone)
        )

    async def _cmd_tz(self, call: _Call) -> CommandReply:
        name = call.args.strip()
        if not name:
            return CommandReply.of(
                f"Your time zone is {call.zone.key}. "
                "To change it: /tz Europe/Berlin (any IANA name)."
            )
        try:
            profile = await self._memory.set_timezone(call.user_id, name)
        except MemoryInputError as error:
            return CommandReply.of(_sentence(error))
        chosen = ZoneInfo(profile.timezone or name)
        local = self._clock().astimezone(chosen).strftime("%H:%M")
        return CommandReply.of(f"Your time zone is now {chosen.key} (it is {local} there).")

    async def _cmd_approvals(self, call: _Call) -> CommandReply:
        now = self._clock()
        pending = [
            r for r in await self._memory.list_approvals(call.user_id) if not r.is_expired(now)
        ]
        if not pending:
            return CommandReply.of("Nothing is waiting for your approval.")
        return CommandReply(tuple(approval_card(request, call.zone) for request in pending))

    async def _cmd_new(self, call: _Call) -> CommandReply:
        await self._agent.reset(user_id=call.user_id, chat_id=call.chat_id)
        return CommandReply.of("Started a fresh conversation. Your tasks and notes are kept.")

    # --- buttons -----------------------------------------------------------------------------

    async def press(self, action: Action, *, user_id: str, chat_id: str) -> ActionOutcome:
        """Carry out a button press by ``user_id``; never raises for the user's mistakes."""
        zone = await self._agent.user_zone(user_id)
        if action.kind in (ActionKind.APPROVE, ActionKind.DENY):
            return await self._decide(action, user_id, zone)
        if action.kind is ActionKind.DONE:
            # Only the reminder's owner may mark it: in a group, anyone sees the button.
            try:
                await self._tasks.get_task(action.target, user_id)
            except TaskError as error:
                return ActionOutcome(notice=_sentence(error), alert=True)
            return ActionOutcome(notice="Marked as done.", mark="✅ Done")
        if action.kind is ActionKind.SNOOZE:
            text, ok = await self._snooze(
                action.target, action.arg or DEFAULT_SNOOZE, user_id, zone
            )
            return ActionOutcome(notice=text, alert=not ok, mark=f"💤 {text}" if ok else None)
        return await self._task_action(action, user_id, zone)

    async def _task_action(self, action: Action, user_id: str, zone: ZoneInfo) -> ActionOutcome:
        operations = {
            ActionKind.CANCEL: (self._tasks.cancel, "Cancelled"),
            ActionKind.PAUSE: (self._tasks.pause, "Paused"),
            ActionKind.RESUME: (self._tasks.resume, "Resumed"),
        }
        try:
            if action.kind is ActionKind.RUN_NOW:
                run = await self._tasks.run_now(action.target, user_id)
                notice, alert = f"Ran {action.target}: {run.status.value}.", False
            else:
                operation, verb = operations[action.kind]
                task = await operation(action.target, user_id)
                notice, alert = f"{verb} {task.id}.", False
        except TaskError as error:
            # Not the presser's task (or gone): answer them only, and leave the message as it is
            # (in a group it shows the owner's list).
            return ActionOutcome(notice=_sentence(error), alert=True)
        refreshed = task_list(await self._tasks.list_tasks(user_id), zone)
        return ActionOutcome(notice=notice, alert=alert, update=refreshed)

    async def _snooze(
        self, task_id: str, words: str, user_id: str, zone: ZoneInfo
    ) -> tuple[str, bool]:
        try:
            span = read_duration(words)
        except ScheduleError as error:
            return _sentence(error), False
        if span is None:
            return (
                f"I could not read {words!r} as a delay; try 10m, 1h or '1 hour 30 minutes'.",
                False,
            )
        try:
            task = await self._tasks.snooze(task_id, user_id, span.total)
        except TaskError as error:
            return _sentence(error), False
        when = format_moment(task.next_run, zone) if task.next_run else "later"
        return f"Snoozed [{task.id}] until {when}.", True

    async def _decide(self, action: Action, user_id: str, zone: ZoneInfo) -> ActionOutcome:
        request = await self._memory.get_approval(action.target)
        if request is None or request.user_id != user_id:
            return ActionOutcome(
                notice="Only the person who asked can approve or deny this.", alert=True
            )
        approved = action.kind is ActionKind.APPROVE
        reply = await self._agent.resolve_approval(request.id, approved=approved, by=user_id)
        decided = await self._memory.get_approval(request.id)
        status = decided.status if decided is not None else request.status
        if request.status is ApprovalStatus.PENDING and status in _DECIDED:
            notice, mark = _DECIDED[status]
            return ActionOutcome(notice=notice, mark=mark, follow_ups=agent_replies(reply, zone))
        if status is ApprovalStatus.EXPIRED:
            return ActionOutcome(
                notice="This request expired; ask again to get a new one.",
                alert=True,
                mark="⌛ Expired: ask again to get a new one",
            )
        if status in _DECIDED:
            return ActionOutcome(
                notice=f"This request was already {status.value}.",
                alert=True,
                mark=_DECIDED[status][1],
            )
        return ActionOutcome(notice=_sentence(reply.text), alert=True)


_DECIDED = {
    ApprovalStatus.APPROVED: ("Approved.", "✅ Approved"),
    ApprovalStatus.DENIED: ("Denied.", "❌ Denied"),
}


def _split(text: str) -> tuple[str, str]:
    """Split ``/name@bot args`` into (``name``, ``args``); name is "" when not a command."""
    stripped = text.strip()
    if not stripped.startswith("/"):
        return "", stripped
    head, _, args = stripped.partition(" ")
    name = head[1:].split("@", 1)[0].lower()
    return name, args.strip()


def _sentence(error: Exception | str) -> str:
    """An error's message as a sentence for a person: capitalised, with a full stop."""
    text = str(error).strip() or type(error).__name__
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


__all__ = [
    "COMMANDS",
    "AgentService",
    "CommandSpec",
    "MemoryService",
    "SlashCommands",
    "TaskService",
    "agent_replies",
]

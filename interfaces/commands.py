"""The slash commands and button actions shared by the Telegram bot and the terminal chat.

``SlashCommands.handle("/snooze k3m9xa 10m", user_id=..., chat_id=...)`` answers with a
``CommandReply`` (text and buttons as data); ``SlashCommands.press(action, ...)`` carries out
a button press and answers with an ``ActionOutcome``. Every operation is scoped to the user
who asked: another user's task or request reads exactly like a missing one.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import assert_never
from zoneinfo import ZoneInfo

from agent import Decided
from calendars import Calendars
from common import Clock, LazyPattern
from interfaces.calendar_commands import CalendarCommands
from interfaces.deliveries import (
    acknowledged_text,
    again_words,
    snooze_until,
    snoozed_text,
    until_words,
)
from interfaces.messages import Action, ActionKind, ActionOutcome, CommandReply
from interfaces.notifiers import front_end_of
from interfaces.protocols import ChatAgent
from interfaces.quiet import QuietHoursBook
from interfaces.views import (
    agent_replies,
    approval_card,
    as_sentence,
    note_list,
    run_history,
    task_list,
)
from interfaces.zones import ZoneGuide
from interfaces.zones import ask as ask_zone
from memory import MemoryInputError, MemoryStore
from tasks import (
    DEFAULT_SNOOZE,
    DateOrder,
    Delivery,
    RunStatus,
    ScheduleError,
    Task,
    TaskError,
    TaskManager,
    TaskRun,
    TaskType,
    daily_at,
    parse_quiet_hours,
    read_snooze,
    run_time_of_day,
    still_scheduled,
    task_label,
    task_line,
)
from tools import ApprovalStatus, people_catalog

logger = logging.getLogger(__name__)


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


WATCH_EXAMPLE = "/watch https://shop.example/kettle for 'in stock' every 30 minutes"
_SEARCHED = LazyPattern(r"\bresults?\s+(?:for|of|on)\b", re.IGNORECASE)
_DATE_ORDERS = {"mdy": "April 5 (month first)", "dmy": "4 May (day first)"}


@dataclass(frozen=True, slots=True)
class _Call:
    """One command line, parsed: its arguments, who typed it where, and their zone."""

    args: str
    user_id: str
    chat_id: str
    zone: ZoneInfo


_Handler = Callable[[_Call], Awaitable[CommandReply]]

MAX_ARGUMENT_CHARS = 200
"""Longer command arguments are refused without being quoted back."""
MAX_QUOTED_COMMAND = 40
"""An unknown command is quoted back to this many characters."""


class SlashCommands:
    """Answers slash commands and button presses over the task manager, memory and agent.

    Args:
        tasks: The task manager.
        memory: The memory store.
        agent: The dialog agent (fresh conversations, approvals, the user's zone).
        clock: The source of the current instant (the task manager's by default).
        buttons: Whether the interface shows buttons (Telegram does, the terminal does not);
            the help text says so only where it does.
        quiet: The users' quiet hours (the scheduler's book, so that ``/quiet`` counts at
            once); one of its own over ``memory`` when not given.
        calendars: The calendars (``/calendar``); without them the command is not offered.
        local_files: Whether ``/calendar import`` may read a file of this machine (the
            terminal only).
        date_order: How a date like 4/5 is read for a user who chose no order
            (``ASSISTANT_DATE_ORDER``; ``/dateorder`` chooses one).
    """

    def __init__(
        self,
        *,
        tasks: TaskManager,
        memory: MemoryStore,
        agent: ChatAgent,
        clock: Clock | None = None,
        buttons: bool = True,
        quiet: QuietHoursBook | None = None,
        calendars: Calendars | None = None,
        local_files: bool = False,
        date_order: DateOrder = "mdy",
    ) -> None:
        self._tasks = tasks
        self._default_order: DateOrder = date_order
        self._memory = memory
        self._agent = agent
        self._clock = clock or tasks.clock
        self.quiet = quiet or QuietHoursBook(
            memory=memory, default_zone=ZoneInfo("UTC"), clock=self._clock
        )
        self.calendar = (
            None
            if calendars is None
            else CalendarCommands(calendars=calendars, clock=self._clock, local_files=local_files)
        )
        """``/calendar`` and the previews of calendar files (``None`` without calendars)."""
        self.zones = ZoneGuide(memory=memory, tasks=tasks, zone_of=agent.user_zone)
        """Asks a user's zone once, says how to set it, sets it (``/tz``, the page)."""
        # The one table: what /help and the Telegram menu list is what ``handle`` runs.
        commands: tuple[tuple[CommandSpec, _Handler], ...] = (
            (CommandSpec("start", "", "Say hello and set up"), self._start),
            (CommandSpec("help", "", "What I can do"), self._help),
            (
                CommandSpec(
                    "tasks", "", "Your scheduled tasks" + (", with buttons" if buttons else "")
                ),
                self._list_tasks,
            ),
            (CommandSpec("cancel", "ID", "Cancel a task"), self._cancel),
            (
                CommandSpec(
                    "snooze",
                    f"ID {DEFAULT_SNOOZE}",
                    "Put a task's next run off (10m, 1h, until 5pm)",
                ),
                self._snooze_command,
            ),
            (CommandSpec("runs", "ID", "A task's recent runs"), self._runs),
            (
                CommandSpec("done", "[ID]", "Mark a reminder done (one that repeats stops)"),
                self._done,
            ),
            (
                CommandSpec(
                    "watch",
                    "URL [for 'text'] [every 30 minutes]",
                    "Tell me only when a page changes",
                ),
                self._watch,
            ),
            (
                CommandSpec(
                    "quiet", "22:00-07:00|off", "Quiet hours: messages wait until they end"
                ),
                self._quiet,
            ),
            (
                CommandSpec("briefing", "7:30|off", "A morning briefing: your day in one message"),
                self._briefing,
            ),
            (CommandSpec("notes", "", "Your notes"), self._notes),
            (
                CommandSpec("tz", "ZONE", "Set your time zone, e.g. /tz Europe/Berlin"),
                self._time_zone,
            ),
            (
                CommandSpec(
                    "dateorder", "mdy|dmy", "How to read 4/5: mdy (April 5) or dmy (4 May)"
                ),
                self._date_order,
            ),
            *(
                ()
                if self.calendar is None
                else (
                    (
                        CommandSpec(
                            "calendar",
                            "[new|off|import|sync]",
                            "Your tasks in your calendar app, and your calendar here",
                        ),
                        self._calendar,
                    ),
                )
            ),
            (CommandSpec("approvals", "", "Requests waiting for your approval"), self._approvals),
            (CommandSpec("tools", "", "The tools I can use for you"), self._tools_list),
            (CommandSpec("new", "", "Start a fresh conversation"), self._new),
        )
        self._table = {spec.name: (spec, handler) for spec, handler in commands}

    @property
    def specs(self) -> tuple[CommandSpec, ...]:
        """The commands, in the order menus and /help list them."""
        return tuple(spec for spec, _ in self._table.values())

    async def handle(self, text: str, *, user_id: str, chat_id: str) -> CommandReply | None:
        """Answer a ``/command`` line; ``None`` when it is not one of these commands."""
        name, args = _split(text)
        if name not in self._table:
            return None
        spec, handler = self._table[name]
        if len(args) > MAX_ARGUMENT_CHARS:
            # Ids, zones and delays are short; quoting a huge argument back would flood the chat.
            return CommandReply.of(
                f"That is {len(args)} characters after /{name}; its arguments are short, "
                f"e.g. {spec.usage}."
            )
        zone = await self._agent.user_zone(user_id)
        return await handler(_Call(args, user_id, chat_id, zone))

    def help(self, unknown: str | None = None) -> CommandReply:
        """The help text; with ``unknown``, it opens by saying that command is not known
        (quoting at most ``MAX_QUOTED_COMMAND`` characters of it: ``/a/a/a...`` of 10,000
        characters is one "word", and a reply beyond Telegram's limit is never sent)."""
        if unknown and len(unknown) > MAX_QUOTED_COMMAND:
            unknown = unknown[:MAX_QUOTED_COMMAND] + "…"
        lines = [f"I don't know the command {unknown!r}.", ""] if unknown else []
        lines.append("Talk to me in plain words, for example:")
        lines.extend(
            [
                "- remind me in 10 minutes to check the oven",
                "- every weekday at 8:30 remind me to check the mail",
                "- tell me when https://shop.example/kettle says 'in stock'",
                "- quiet from 22:00 to 07:00 / morning briefing at 7:30",
                "- note: the spare key is under the blue pot",
                "- what are my tasks?",
                "",
                "Commands:",
            ]
        )
        lines.extend(f"{spec.usage} - {spec.description}" for spec in self.specs)
        return CommandReply.of("\n".join(lines))

    # --- commands ----------------------------------------------------------------------------

    async def _start(self, call: _Call) -> CommandReply:
        profile = await self._memory.get_user(call.user_id)
        greeting = (
            "Hi! I'm your assistant. I keep reminders and scheduled tasks, take notes, and "
            "answer questions. Say things like 'remind me in 10 minutes to stretch'; /help "
            "lists the commands."
        )
        if profile is None or profile.timezone is None:
            await self.zones.question(call.user_id)  # asked here: not again on first contact
            about_zone = ask_zone(call.zone)
        else:
            about_zone = f"Your time zone is {call.zone.key} (change it with /tz ZONE)."
        return CommandReply.of(f"{greeting}\n\n{about_zone}")

    async def _help(self, call: _Call) -> CommandReply:
        return self.help()

    async def _list_tasks(self, call: _Call) -> CommandReply:
        reply = task_list(await self._tasks.list_tasks(call.user_id), call.zone, self._clock.now())
        return CommandReply((reply,))

    async def _cancel(self, call: _Call) -> CommandReply:
        task_id = call.args.split()[0] if call.args.split() else ""
        if not task_id:
            return CommandReply.of("Say which task: /cancel ID (/tasks shows the ids).")
        try:
            task = await self._tasks.cancel(task_id, call.user_id)
        except TaskError as error:
            return CommandReply.of(_sentence(error))
        return CommandReply.of(f"Cancelled [{task.id}] {task.description}.")

    async def _snooze_command(self, call: _Call) -> CommandReply:
        task_id, _, words = call.args.strip().partition(" ")
        if not task_id:
            return CommandReply.of(
                "Say which task and for how long or until when: /snooze ID 10m, "
                "/snooze ID until 5pm."
            )
        text, _ = await self._snooze(
            task_id, words.strip() or DEFAULT_SNOOZE, call.user_id, call.zone
        )
        return CommandReply.of(text)

    async def _runs(self, call: _Call) -> CommandReply:
        task_id = call.args.split()[0] if call.args.split() else ""
        if not task_id:
            return CommandReply.of("Say which task: /runs ID (/tasks shows the ids).")
        try:
            task = await self._tasks.get_task(task_id, call.user_id)
            runs = await self._tasks.history(task.id, call.user_id, limit=10)
        except TaskError as error:
            return CommandReply.of(_sentence(error))
        return CommandReply.of(run_history(task, runs, call.zone))

    async def _done(self, call: _Call) -> CommandReply:
        task_id = call.args.split()[0] if call.args.split() else ""
        via = f"/done in {front_end_of(call.chat_id)}"
        try:
            if task_id:
                done = await self._tasks.acknowledge(task_id, call.user_id, via=via)
            else:
                done = await self._tasks.acknowledge_latest(call.user_id, via=via)
        except TaskError as error:
            return CommandReply.of(_sentence(error))
        return CommandReply.of(acknowledged_text(done))

    async def _watch(self, call: _Call) -> CommandReply:
        if not call.args:
            tasks = await self._tasks.list_tasks(call.user_id)
            watching = [t for t in tasks if t.task_type is TaskType.MONITOR]
            if not watching:
                return CommandReply.of(f"You watch nothing yet. Say e.g. {WATCH_EXAMPLE}.")
            now = self._clock.now()
            lines = [f"- {task_line(task, call.zone, now)}" for task in watching]
            return CommandReply.of("What you watch:\n" + "\n".join(lines))
        if "://" not in call.args and not _SEARCHED.search(call.args):
            return CommandReply.of(
                f"I can't watch {call.args!r}: /watch takes an address. Usage: /watch URL "
                f"[for 'text'] [every 30 minutes], e.g. {WATCH_EXAMPLE}; or /watch the search "
                "results for 'python 3.14'."
            )
        # The words are the offline planner's to read, as if said: "watch https://... for X".
        reply = await self._agent.handle_message(
            f"watch {call.args}", user_id=call.user_id, chat_id=call.chat_id
        )
        return CommandReply(agent_replies(reply, call.zone))

    async def _quiet(self, call: _Call) -> CommandReply:
        if not call.args:
            window = await self.quiet.get(call.user_id)
            if window is None:
                return CommandReply.of("You have no quiet hours; set them with /quiet 22:00-07:00.")
            return CommandReply.of(
                f"Your quiet hours: {window.words()} ({call.zone.key}); /quiet off ends them."
            )
        try:
            window = parse_quiet_hours(call.args)
        except ScheduleError as error:
            return CommandReply.of(_sentence(error))
        change = await self.quiet.set(call.user_id, window, tasks=self._tasks, zone=call.zone)
        return CommandReply.of(change.said())

    async def _briefing(self, call: _Call) -> CommandReply:
        current = await self._tasks.briefing(call.user_id)
        now = self._clock.now()
        if not call.args:
            if current is None:
                return CommandReply.of(
                    "You get no morning briefing; start one with /briefing 7:30."
                )
            return CommandReply.of(f"Your morning briefing: {task_line(current, call.zone, now)}.")
        try:
            if call.args.lower() in ("off", "stop", "none", "cancel"):
                if current is None:
                    return CommandReply.of(
                        "You get no morning briefing, so there is nothing to stop."
                    )
                await self._tasks.cancel(current.id, call.user_id)
                return CommandReply.of(f"Stopped your morning briefing (task {current.id}).")
            schedule = daily_at(call.args, now, call.zone)
            task = await self._tasks.set_briefing(call.user_id, call.chat_id, schedule)
        except TaskError as error:
            return CommandReply.of(_sentence(error))
        verb = "Moved" if current is not None else "Started"
        return CommandReply.of(f"{verb} your morning briefing: {task_line(task, call.zone, now)}.")

    async def _notes(self, call: _Call) -> CommandReply:
        return CommandReply.of(
            note_list(await self._memory.list_notes(call.user_id, 20), call.zone)
        )

    async def _time_zone(self, call: _Call) -> CommandReply:
        name = call.args.strip()
        if not name:
            return CommandReply.of(
                f"Your time zone is {call.zone.key}. "
                "To change it: /tz Europe/Berlin (any IANA name)."
            )
        try:
            choice = await self.zones.choose(call.user_id, name)
        except MemoryInputError as error:
            return CommandReply.of(_sentence(error))
        return CommandReply.of(choice.said(self._clock.now()))

    async def date_order(self, user_id: str) -> DateOrder:
        """How dates like 4/5 are read for ``user_id``: their choice, else the default."""
        profile = await self._memory.get_user(user_id)
        chosen = (profile.settings if profile is not None else {}).get("date_order")
        if chosen == "dmy":
            return "dmy"
        return "mdy" if chosen == "mdy" else self._default_order

    async def _date_order(self, call: _Call) -> CommandReply:
        said = call.args.strip().lower()
        profile = await self._memory.get_user(call.user_id)
        current = (profile.settings if profile is not None else {}).get("date_order", "")
        if not said:
            now = current or "the default (ASSISTANT_DATE_ORDER)"
            return CommandReply.of(
                f"Dates like 4/5 are read with {now}. To change it: /dateorder mdy (4/5 is "
                "April 5) or /dateorder dmy (4/5 is 4 May); a number above 12 always decides."
            )
        if said not in _DATE_ORDERS:
            return CommandReply.of(
                f"{said!r} is not a date order; say /dateorder mdy (4/5 is April 5) or "
                "/dateorder dmy (4/5 is 4 May)."
            )
        await self._memory.set_setting(call.user_id, "date_order", said)
        return CommandReply.of(f"From now on 4/5 is {_DATE_ORDERS[said]}.")

    async def _calendar(self, call: _Call) -> CommandReply:
        assert self.calendar is not None  # offered only with calendars
        return await self.calendar.handle(
            call.args, user_id=call.user_id, chat_id=call.chat_id, zone=call.zone
        )

    async def _approvals(self, call: _Call) -> CommandReply:
        now = self._clock.now()
        pending = [
            r for r in await self._memory.list_approvals(call.user_id) if not r.is_expired(now)
        ]
        if not pending:
            return CommandReply.of("Nothing is waiting for your approval.")
        return CommandReply(tuple(approval_card(request, call.zone) for request in pending))

    async def _tools_list(self, call: _Call) -> CommandReply:
        return CommandReply.of(people_catalog(self._agent.available_tools()))

    async def _new(self, call: _Call) -> CommandReply:
        await self._agent.reset(user_id=call.user_id, chat_id=call.chat_id)
        return CommandReply.of("Started a fresh conversation. Your tasks and notes are kept.")

    # --- buttons -----------------------------------------------------------------------------

    async def press(
        self,
        action: Action,
        *,
        user_id: str,
        chat_id: str,
        shown: Delivery | None = None,
    ) -> ActionOutcome:
        """Carry out a button press by ``user_id``; never raises for the user's mistakes.

        ``shown`` is the delivered message the button is under (what ``LATER`` shows again).
        """
        zone = await self._agent.user_zone(user_id)
        if action.kind in (ActionKind.APPROVE, ActionKind.DENY):
            return await self._decide(action, user_id, zone)
        if action.kind is ActionKind.DONE:
            # Only the reminder's owner may mark it (a task of another reads as missing): in
            # a group, anyone sees the button.
            via = f"Done in {front_end_of(chat_id)}"
            try:
                done = await self._tasks.acknowledge(action.target, user_id, via=via)
            except TaskError as error:
                return ActionOutcome(notice=_sentence(error), alert=True)
            return ActionOutcome(notice=acknowledged_text(done), mark="✅ Done")
        if action.kind is ActionKind.LATER:
            return await self._later(action, user_id, zone, shown)
        if action.kind is ActionKind.RUN_AGAIN:
            return await self._run_again(action, user_id)
        if action.kind in (ActionKind.IMPORT, ActionKind.DROP_IMPORT):
            if self.calendar is None:
                return ActionOutcome(notice="Calendars are not set up here.", alert=True)
            return await self.calendar.press(action, user_id=user_id)
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
                task = await self._tasks.get_task(action.target, user_id)
                still = still_scheduled(task, zone, self._clock.now())
                notice, alert = _ran(task, run, still), False
            else:
                operation, verb = operations[action.kind]
                task = await operation(action.target, user_id)
                notice, alert = f"{verb} {task_label(task)}.", False
        except TaskError as error:
            # Not the presser's task (or gone): answer them only, and leave the message as it is
            # (in a group it shows the owner's list).
            return ActionOutcome(notice=_sentence(error), alert=True)
        refreshed = task_list(await self._tasks.list_tasks(user_id), zone, self._clock.now())
        return ActionOutcome(notice=notice, alert=alert, update=refreshed)

    async def _run_again(self, action: Action, user_id: str) -> ActionOutcome:
        """Run the task once more after a run whose outcome was unknown.

        The button names that run (``arg``): once the task has run since, pressing it again
        (a double tap, an old message) runs nothing, so one tap never becomes two requests.
        """
        try:
            if action.arg:
                newest = await self._tasks.history(action.target, user_id, limit=1)
                if newest and str(newest[0].id) != action.arg:
                    status = _status_words(newest[0].status)
                    text = f"{action.target} has run since (latest run: {status}); not run again."
                    return ActionOutcome(notice=text, alert=True, mark=f"▶️ {text}")
            run = await self._tasks.run_now(action.target, user_id)
            task = await self._tasks.get_task(action.target, user_id)
        except TaskError as error:
            return ActionOutcome(notice=_sentence(error), alert=True)
        text = f"Ran {task_label(task)} again: {_status_words(run.status)}."
        return ActionOutcome(notice=text, mark=f"▶️ {text}")

    async def _later(
        self, action: Action, user_id: str, zone: ZoneInfo, shown: Delivery | None
    ) -> ActionOutcome:
        """Show the delivered message again after the button's delay (snoozed)."""
        if shown is None:
            return ActionOutcome(notice="This message cannot be shown again from here.", alert=True)
        now = self._clock.now()
        try:
            order = await self.date_order(user_id)
            until = snooze_until(action.arg or DEFAULT_SNOOZE, now, zone, date_order=order)
            held = await self._tasks.snooze_delivery(user_id, shown, until)
        except TaskError as error:
            return ActionOutcome(notice=_sentence(error), alert=True)
        text = f"I'll show it again {again_words(until, now, held.moved_from)}."
        return ActionOutcome(notice=text, mark=f"💤 Again {until_words(until, now)}")

    async def _snooze(
        self, task_id: str, words: str, user_id: str, zone: ZoneInfo
    ) -> tuple[str, bool]:
        now = self._clock.now()
        try:
            task = await self._tasks.get_task(task_id, user_id)
            until = read_snooze(
                words,
                now,
                zone,
                date_order=await self.date_order(user_id),
                keep=run_time_of_day(task),
            )
            snoozed = await self._tasks.snooze_task(task.id, user_id, until)
        except TaskError as error:
            return _sentence(error), False
        if isinstance(until, timedelta):
            until = (now + until).astimezone(zone)
        return snoozed_text(snoozed, until, now, zone), True

    async def _decide(self, action: Action, user_id: str, zone: ZoneInfo) -> ActionOutcome:
        approved = action.kind is ActionKind.APPROVE
        reply = await self._agent.resolve_approval(action.target, approved=approved, by=user_id)
        match reply.decided:
            case Decided.MISSING:
                return ActionOutcome(
                    notice="Only the person who asked can approve or deny this.", alert=True
                )
            case Decided.APPROVED | Decided.DENIED:
                notice, mark = _DECIDED[reply.decided]
                return ActionOutcome(
                    notice=notice, mark=mark, follow_ups=agent_replies(reply, zone)
                )
            case Decided.EXPIRED:
                return ActionOutcome(
                    notice="This request expired; ask again to get a new one.",
                    alert=True,
                    mark="⌛ Expired: ask again to get a new one",
                )
            case Decided.ALREADY:
                status = reply.request.status if reply.request is not None else None
                return ActionOutcome(
                    notice=f"This request was already {status or 'decided'}.",
                    alert=True,
                    mark=_MARKS.get(status),
                )
            case _:
                assert_never(reply.decided)


_MARKS: dict[ApprovalStatus | None, str] = {
    ApprovalStatus.APPROVED: "✅ Approved",
    ApprovalStatus.DENIED: "❌ Denied",
}
"""What an approval card says once the request is decided."""
_DECIDED = {
    Decided.APPROVED: ("Approved.", _MARKS[ApprovalStatus.APPROVED]),
    Decided.DENIED: ("Denied.", _MARKS[ApprovalStatus.DENIED]),
}


def _status_words(status: RunStatus) -> str:
    """A run status as words (``outcome unknown``)."""
    return status.value.replace("_", " ")


def _ran(task: Task, run: TaskRun, still: str) -> str:
    """What a run now did and what it left (``still_scheduled``): ``Ran task k3m9xa ("call
    mom") now: succeeded (reminder delivered); it still fires tomorrow at 07:00
    (Europe/Berlin).``."""
    detail = " ".join((run.error or run.result or "").split())
    detail = detail if len(detail) <= 200 else detail[:199] + "…"
    said = f" ({detail})" if detail else ""
    return f"Ran {task_label(task)} now: {_status_words(run.status)}{said}; {still}."


def _split(text: str) -> tuple[str, str]:
    """Split ``/name@bot args`` into (``name``, ``args``); name is "" when not a command."""
    stripped = text.strip()
    if not stripped.startswith("/"):
        return "", stripped
    head, _, args = stripped.partition(" ")
    name = head[1:].split("@", 1)[0].lower()
    return name, args.strip()


_sentence = as_sentence


__all__ = ["CommandSpec", "SlashCommands"]

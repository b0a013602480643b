"""The terminal chat (``assistant chat``): a thin adapter over the agent.

Reminders and task results print while you type, above the prompt (``Console`` writes
through prompt_toolkit's ``run_in_terminal`` while the prompt is shown). Slash commands go to
the shared handlers of ``interfaces.commands``. Where Telegram has buttons, the terminal has
commands that press them (``/pause ID``, ``/resume ID``, ``/run ID``) and prints each button
as the command that does the same; ``/approve ID``, ``/deny ID`` and ``/quit`` are its own
too. Approvals are asked inline (y/n); any other line leaves the request waiting and is
answered as the next message. When stdin is not a terminal (piped input, CI) it reads plain
lines. Replies appear as the model writes them (``LiveReply``).
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import logging
import re
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol, TextIO, assert_never

from agent import AgentEvent, AgentEventKind, AgentReply
from common import LazyPattern, clean_text
from interfaces.deliveries import SNOOZES
from interfaces.messages import Action, ActionKind, ActionOutcome, CommandReply, Reply
from interfaces.protocols import ChatAgent
from interfaces.views import request_line
from tasks import DEFAULT_SNOOZE, Delivery, DeliveryKind, DeliveryStatus
from tools import ApprovalRequest

logger = logging.getLogger(__name__)

QUIT = frozenset({"/quit", "/exit"})
TERMINAL_HELP = (
    "In this terminal also: /approve ID, /deny ID (a pending request), /pause ID, "
    "/resume ID, /run ID (a task), /later N 10m|1h|morning (message N again later), /quit."
)
RECENT = 50
"""How many delivered messages the terminal numbers for ``/later``."""
# Terminal commands that press the button of the same name.
_PRESSES = {"/pause": ActionKind.PAUSE, "/resume": ActionKind.RESUME, "/run": ActionKind.RUN_NOW}


class CommandHandler(Protocol):
    """The shared slash commands (``interfaces.commands.SlashCommands``)."""

    async def handle(self, text: str, *, user_id: str, chat_id: str) -> CommandReply | None:
        """Answer a ``/command`` line, or return ``None`` when it is not one of theirs."""
        ...

    def help(self, unknown: str | None = None) -> CommandReply:
        """The help text; with ``unknown``, it opens by saying that command is not known."""
        ...

    async def press(
        self,
        action: Action,
        *,
        user_id: str,
        chat_id: str,
        shown: Delivery | None = None,
    ) -> ActionOutcome:
        """Carry out a button press (``shown``: the message it is under)."""
        ...


_CHAT_ONLY = {
    "/approve": "decides a request waiting at the chat's prompt",
    "/deny": "decides a request waiting at the chat's prompt",
    "/later": "names a message the chat printed",
    "/run": "prints what the run delivers as it arrives",
    "/quit": "ends a chat",
    "/exit": "ends a chat",
}
"""The terminal chat's own commands that one ``assistant ask`` cannot carry out, and why."""


async def one_command(commands: CommandHandler, text: str, *, user_id: str, chat_id: str) -> str:
    """Answer one slash command outside a chat (``assistant ask "/quiet 22:00-07:00"``) as
    the terminal chat does: the shared commands, ``/pause`` and ``/resume``; a command only
    the chat can carry out is refused with a sentence naming ``assistant chat``, and an
    unknown one gets the help. Never passed to the planner: "/quiet" is no reminder."""
    name, _, rest = text.strip().partition(" ")
    name = name.lower()
    if name in _CHAT_ONLY:
        return (
            f"{name} {_CHAT_ONLY[name]}, so it works in `assistant chat`, not in one "
            "`assistant ask`; run `assistant chat` and type it there."
        )
    if name in _PRESSES:
        task_id = rest.split()[0] if rest.split() else ""
        if not task_id:
            return f"Say which task, e.g. '{name} k3m9xa'; /tasks lists them."
        outcome = await commands.press(
            Action(_PRESSES[name], task_id), user_id=user_id, chat_id=chat_id
        )
        return outcome.notice
    answer = await commands.handle(text, user_id=user_id, chat_id=chat_id)
    if answer is None:
        return render_command_reply(commands.help(name)) + "\n" + TERMINAL_HELP
    shown = render_command_reply(answer)
    return shown + ("\n" + TERMINAL_HELP if name == "/help" else "")


class ZoneNotes(Protocol):
    """What to say under a reply about the user's zone (``interfaces.zones.ZoneGuide``)."""

    async def note(self, user_id: str, shown: str) -> str | None:
        """The question which zone on first contact, or how to set one, or ``None``."""
        ...


class Console:
    """Where the chat writes.

    With an injected stream it writes there. Without one it writes to the terminal, in
    order and at once, on the event loop's thread: while no prompt is shown (a reply being
    written), straight to the terminal, so a reply's last line is complete before the next
    prompt is drawn; while the prompt is shown (a reminder arriving as you type), above it,
    through prompt_toolkit's ``run_in_terminal``, which hides the prompt, writes, and draws
    it again. (Writing through ``patch_stdout``'s proxy instead hands the text to a thread
    that writes it later, in pieces: the next prompt could be drawn over the end of a reply
    whose last newline had not been written yet, cutting "... and restart." to "... and
    restar".)

    Everything it shows passes ``terminal_safe``: model replies, tool output, task
    descriptions and delivered messages come from outside and may carry escape sequences
    (a fetched page's ``ESC ] 0;...BEL``, a clear screen, hidden text); the chat's own text
    has none, so stripping them from everything loses nothing.
    """

    def __init__(self, output: TextIO | None = None) -> None:
        self._output = output
        self._above_prompt: set[asyncio.Future[None]] = set()

    def show(self, text: str) -> None:
        """Write ``text``, without control sequences, and a newline."""
        self.write(text.rstrip("\n") + "\n")

    def write(self, text: str) -> None:
        """Write ``text`` (a piece of a reply being written), without control sequences,
        and flush it."""
        safe = terminal_safe(text)
        if self._output is not None:
            _put(self._output, safe)
            return
        from prompt_toolkit.application import get_app_or_none, run_in_terminal
        from prompt_toolkit.patch_stdout import StdoutProxy

        stream = sys.stdout
        if isinstance(stream, StdoutProxy):
            stream = stream.original_stdout or sys.__stdout__
        app = get_app_or_none()
        if app is None or not app.is_running:
            _put(stream, safe)
            return
        shown = asyncio.ensure_future(
            run_in_terminal(functools.partial(_put, stream, safe), in_executor=False)
        )
        # Keep the write alive until it is done (the loop holds only a weak reference).
        self._above_prompt.add(shown)
        shown.add_done_callback(self._above_prompt.discard)


def _put(stream: TextIO | None, text: str) -> None:
    if stream is None:
        raise ValueError("there is no terminal to write to (sys.stdout is None)")
    stream.write(text)
    stream.flush()


class LiveReply:
    """Shows one turn as it happens: the reply as the model writes it, and tool progress.

    Pass it as the turn's ``on_event``; once the turn is over, ``finish`` ends the line and
    shows the reply's text when it is not what was written out (a reply that did not stream,
    such as a refusal or an error). Each model call's text starts on a line of its own.

    One line says what a step does: the sentence the model wrote before its calls ("Checking
    your tasks."), or, when it wrote none, a line per tool started ("  ... list tasks").

    Args:
        console: Where to write.
        progress: Also show a line per tool started that no sentence announced (the
            interactive chat does).
    """

    def __init__(self, console: Console, *, progress: bool = False) -> None:
        self._console = console
        self._progress = progress
        self._open = False  # a line of streamed text waits for its end
        self._round: int | None = None
        self._written = ""  # the latest model call's text, as written out
        self._announced = False  # the calls about to start were announced by that text

    def __call__(self, event: AgentEvent) -> None:
        match event.kind:
            case AgentEventKind.TEXT_DELTA:
                if not event.text:
                    return
                if self._round != event.round:
                    self.end_line()
                    self._round, self._written = event.round, ""
                self._console.write(event.text)
                self._open = True
                self._written += event.text
                self._announced = bool(self._written.strip())
            case AgentEventKind.WAITING:
                self.end_line()
                self._console.show(f"  ... {event.text}")
            case AgentEventKind.TOOL_STARTED:
                if event.call is None or not self._progress:
                    return
                self.end_line()
                if not self._announced:
                    self._console.show(f"  ... {event.call.tool_name.replace('_', ' ')}")
            case AgentEventKind.TOOL_FINISHED:
                self._announced = False  # the next round's calls need their own line
            case AgentEventKind.APPROVAL_REQUESTED | AgentEventKind.REPLY_READY:
                pass  # the reply shows them once the turn ends (``finish``)
            case _:
                assert_never(event.kind)

    def end_line(self) -> None:
        """End the line of streamed text, if one is open."""
        if self._open:
            self._console.write("\n")
            self._open = False

    def finish(self, text: str) -> None:
        """End the turn's output: show ``text`` (the whole reply) unless it was written out."""
        self.end_line()
        if text.strip() and text.strip() != self._written.strip():
            self._console.show(text)


# ESC sequences: CSI (colours, cursor moves, clear screen, hidden text), OSC (window titles,
# hyperlinks, clipboard writes) and DCS/SOS/PM/APC strings, then any other two-byte escape.
_ESCAPE = LazyPattern(
    r"\x1b\[[0-?]*[ -/]*[@-~]?"
    r"|\x1b[\]PX^_].*?(?:\x07|\x1b\\|\x9c|$)"
    r"|\x1b[ -/]*[0-~]?",
    re.DOTALL,
)
# The C1 forms of the same (one code point each) and every other control character but the
# line break and the tab; a carriage return would let text overwrite the line before it.
_C1_STRING = LazyPattern(
    r"\x9b[0-?]*[ -/]*[@-~]?|[\x90\x98\x9d\x9e\x9f].*?(?:\x07|\x9c|$)", re.DOTALL
)
_CONTROL = LazyPattern(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def terminal_safe(text: str) -> str:
    """Return ``text`` as the terminal may show it: no escape sequences, no control
    characters but line breaks and tabs, no bidirectional overrides, no lone surrogates."""
    text = clean_text(text).replace("\r\n", "\n")
    text = _ESCAPE.sub("", text)
    text = _C1_STRING.sub("", text)
    return _CONTROL.sub("", text)


class TerminalNotifier:
    """Delivers scheduler messages by printing them (``tasks.Notifier``), each numbered, so
    that ``/later N 1h`` can show message N again later."""

    def __init__(self, console: Console) -> None:
        self._console = console
        self._numbers = itertools.count(1)
        self.recent: dict[int, Delivery] = {}
        """The latest deliveries printed, by their number."""

    async def deliver(self, delivery: Delivery) -> DeliveryStatus:
        """Print ``delivery``; a broken stream reports ``FAILED`` instead of raising."""
        number = next(self._numbers)
        try:
            self._console.show(render_delivery(delivery, number))
        except (OSError, ValueError) as exc:
            logger.warning("could not print task %s's message: %s", delivery.task_id, exc)
            return DeliveryStatus.FAILED
        self.recent[number] = delivery
        for old in [n for n in self.recent if n <= number - RECENT]:
            del self.recent[old]
        return DeliveryStatus.DELIVERED


def render_delivery(delivery: Delivery, number: int | None = None) -> str:
    """Return a delivery as terminal text, its buttons as the commands that do the same
    (``number`` is what ``/later`` calls it)."""
    hints = _delivery_hints(delivery, number)
    under = f"\n  {hints}" if hints else ""
    if delivery.kind is DeliveryKind.REMINDER:
        return f"\n[reminder] {delivery.text}{under}"
    if delivery.kind is DeliveryKind.RESULT:
        return f"\n[task {delivery.task_id}]\n{delivery.text}{under}"
    return f"\n[notice about task {delivery.task_id}] {delivery.text}{under}"


def _delivery_hints(delivery: Delivery, number: int | None) -> str:
    later = " | ".join(delay for _, delay in SNOOZES)
    hints = []
    if delivery.kind is DeliveryKind.REMINDER:
        hints.append(f"[Snooze: /snooze {delivery.task_id} {later}]")
        hints.append(f"[Done: /done {delivery.task_id}]")
    else:
        if delivery.run_again:
            hints.append(f"[Run again: /run {delivery.task_id}]")
        if number is not None:
            hints.append(f"[Later: /later {number} {later}]")
    return " ".join(hints)


def render_command_reply(reply: CommandReply) -> str:
    """Return a command's reply as text; buttons become the commands that do the same."""
    return "\n\n".join(render_message(message) for message in reply.replies)


def render_message(message: Reply) -> str:
    """Return one message with its buttons written as commands (or its own text for an
    interface without buttons, which already says the commands)."""
    if message.plain:
        return message.plain
    hints = [
        f"[{button.label}: {command}]"
        for row in message.buttons
        for button in row
        if (command := action_command(button.action)) is not None
    ]
    return message.text + ("\n" + " ".join(hints) if hints else "")


def action_command(action: Action) -> str | None:
    """Return the slash command that does what a button does, or ``None``."""
    commands = {
        ActionKind.CANCEL: f"/cancel {action.target}",
        ActionKind.SNOOZE: f"/snooze {action.target} {action.arg or DEFAULT_SNOOZE}",
        ActionKind.DONE: f"/done {action.target}",
        ActionKind.APPROVE: f"/approve {action.target}",
        ActionKind.DENY: f"/deny {action.target}",
        ActionKind.PAUSE: f"/pause {action.target}",
        ActionKind.RESUME: f"/resume {action.target}",
        ActionKind.RUN_NOW: f"/run {action.target}",
        ActionKind.RUN_AGAIN: f"/run {action.target}",
    }
    return commands.get(action.kind)


class LineSource(Protocol):
    """Where typed lines come from."""

    async def read(self, prompt: str) -> str | None:
        """Return the next line without its newline, or ``None`` at the end of input."""
        ...


class StreamLines:
    """Plain lines from a stream (piped stdin, tests), read without blocking the loop.

    Each read runs in a daemon thread, so a read still waiting at exit never holds the
    process open.
    """

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    async def read(self, prompt: str) -> str | None:
        loop = asyncio.get_running_loop()
        done: asyncio.Future[str] = loop.create_future()

        def work() -> None:
            try:
                line = self._stream.readline()
            except (OSError, ValueError):
                line = ""
            loop.call_soon_threadsafe(_settle, done, line)

        threading.Thread(target=work, name="terminal-input", daemon=True).start()
        line = await done
        return None if line == "" else line.rstrip("\r\n")


def _settle(future: asyncio.Future[str], line: str) -> None:
    if not future.done():
        future.set_result(line)


class PromptLines:
    """Lines typed at a prompt_toolkit prompt, with history and line editing."""

    def __init__(self) -> None:
        from prompt_toolkit import PromptSession

        self._session: PromptSession[str] = PromptSession()

    async def read(self, prompt: str) -> str | None:
        while True:
            try:
                return await self._session.prompt_async(prompt)
            except EOFError:
                return None
            except KeyboardInterrupt:
                continue  # Ctrl-C clears the line, as in a shell; Ctrl-D quits.


class TerminalChat:
    """The chat loop: read a line, answer it, repeat until ``/quit`` or the end of input."""

    def __init__(
        self,
        *,
        agent: ChatAgent,
        commands: CommandHandler | None = None,
        user_id: str = "local",
        chat_id: str = "local",
        input: TextIO | None = None,
        output: TextIO | None = None,
        interactive: bool | None = None,
        zones: ZoneNotes | None = None,
        deliveries: TerminalNotifier | None = None,
    ) -> None:
        """Create a chat.

        Args:
            agent: Answers messages and decides approvals.
            commands: The shared slash-command handlers.
            zones: What to say about the user's zone under a reply (the question on
                first contact, then how to set it while no zone is chosen).
            deliveries: The terminal's notifier: the messages it printed, for ``/later``.
            user_id: Who is typing.
            chat_id: This chat's id (where reminders created here are delivered).
            input: Where lines come from (default stdin).
            output: Where the chat writes (default stdout).
            interactive: Use prompt_toolkit; by default when stdin and stdout are terminals
                and no stream was injected.
        """
        self.agent = agent
        self.commands = commands
        self.user_id = user_id
        self.chat_id = chat_id
        if interactive is None:
            interactive = (
                input is None and output is None and sys.stdin.isatty() and sys.stdout.isatty()
            )
        self.interactive = interactive
        self.console = Console(output)
        self._zones = zones
        self._deliveries = deliveries
        self._lines: LineSource = PromptLines() if interactive else StreamLines(input or sys.stdin)

    async def run(self) -> None:
        """Chat until ``/quit`` or the end of input."""
        with self._patched_stdout():
            if self.interactive:
                self.console.show("Type a message, /help for commands, /quit to leave.")
            while True:
                line = await self._lines.read("you> ")
                if line is None or not await self.handle_line(line):
                    return

    async def handle_line(self, line: str) -> bool:
        """Answer one line; return ``False`` when the chat should end. Never raises.

        A line typed at a y/n approval prompt that is not an answer leaves the request
        waiting and is answered here as the next line, so nothing typed is lost.
        """
        next_line: str | None = line
        while next_line is not None:
            text = next_line.strip()
            if not text:
                return True
            if text.lower() in QUIT:
                return False
            next_line = await self._answer(text)
        return True

    async def _answer(self, text: str) -> str | None:
        """Answer ``text``; return a line read at an approval prompt that still needs an answer."""
        try:
            if text.startswith("/"):
                return await self._command(text)
            live = self._live()
            try:
                reply = await self.agent.handle_message(
                    text, user_id=self.user_id, chat_id=self.chat_id, on_event=live
                )
            finally:
                live.end_line()
            return await self._show_reply(reply, live)
        except Exception as exc:
            # One bad line must not end the chat; the traceback goes to the log.
            # The line itself is not logged: people type secrets into chats.
            logger.exception("the terminal chat failed on a line of %d characters", len(text))
            self.console.show(f"Something went wrong: {exc}")
        return None

    def _live(self) -> LiveReply:
        return LiveReply(self.console, progress=self.interactive)

    # -- commands -------------------------------------------------------------------------

    async def _command(self, text: str) -> str | None:
        name, _, rest = text.partition(" ")
        name = name.lower()
        if name in ("/approve", "/deny"):
            return await self._decide_command(name, rest.strip())
        if name == "/later" and self.commands is not None:
            await self._later(self.commands, rest.split())
            return None
        if name in _PRESSES and self.commands is not None:
            await self._press(self.commands, name, rest.strip())
        else:
            await self._shared_command(name, text)
        return None

    async def _press(self, commands: CommandHandler, name: str, task_id: str) -> None:
        if not task_id:
            self.console.show(f"Say which task, e.g. '{name} k3m9xa'; /tasks lists them.")
            return
        action = Action(_PRESSES[name], task_id)
        outcome = await commands.press(action, user_id=self.user_id, chat_id=self.chat_id)
        self.console.show(outcome.notice)
        # /run shows that run's outcome (and its delivery, printed as it arrives), not the list.
        update = (
            () if action.kind is ActionKind.RUN_NOW or outcome.update is None else (outcome.update,)
        )
        for message in (*update, *outcome.follow_ups):
            self.console.show(render_message(message))

    async def _later(self, commands: CommandHandler, args: list[str]) -> None:
        """``/later N 1h``: message N comes again later (``LATER``, as its button does)."""
        printed = self._deliveries.recent if self._deliveries is not None else {}
        if not args or not args[0].isdigit():
            self.console.show(
                "Say which message and when: /later 3 1h (messages show their number)."
            )
            return
        shown = printed.get(int(args[0]))
        if shown is None:
            self.console.show(f"There is no message {args[0]} here any more; /tasks lists tasks.")
            return
        delay = " ".join(args[1:]) or DEFAULT_SNOOZE
        action = Action(ActionKind.LATER, shown.task_id, delay)
        outcome = await commands.press(
            action, user_id=self.user_id, chat_id=self.chat_id, shown=shown
        )
        self.console.show(outcome.notice)

    async def _shared_command(self, name: str, text: str) -> None:
        answer = None
        if self.commands is not None:
            answer = await self.commands.handle(text, user_id=self.user_id, chat_id=self.chat_id)
        if answer is not None:
            shown = render_command_reply(answer)
            self.console.show(shown + ("\n" + TERMINAL_HELP if name == "/help" else ""))
            await self._note_zone(shown)
        elif name == "/help":
            self.console.show(TERMINAL_HELP)
        elif self.commands is not None:
            # Like Telegram: an unknown command gets the help, opening with what was not known.
            self.console.show(render_command_reply(self.commands.help(name)) + "\n" + TERMINAL_HELP)
        else:
            self.console.show(f"Unknown command {name!r}; /help lists the commands.")

    async def _decide_command(self, name: str, request_id: str) -> str | None:
        if not request_id:
            self.console.show(f"Say which request, e.g. '{name} ap1b2c3d4'.")
            return None
        live = self._live()
        try:
            reply = await self.agent.resolve_approval(
                request_id, approved=name == "/approve", by=self.user_id, on_event=live
            )
        finally:
            live.end_line()
        return await self._show_reply(reply, live)

    # -- replies and approvals ------------------------------------------------------------

    async def _show_reply(self, reply: AgentReply, live: LiveReply) -> str | None:
        """Finish showing a reply, then ask about each approval it carries (and any that
        follow). Return a line typed at a prompt that was not y/n: the requests stay waiting
        and the line is the next message."""
        live.finish(reply.text)
        await self._note_zone(reply.text)
        waiting = list(reply.approvals)
        while waiting:
            request = waiting.pop(0)
            answer = await self._ask(request)
            if not isinstance(answer, bool):
                for left in (request, *waiting):
                    self.console.show(
                        f"Request {left.id} is still waiting: /approve {left.id} "
                        f"or /deny {left.id}."
                    )
                return answer
            live = self._live()
            try:
                follow = await self.agent.resolve_approval(
                    request.id, approved=answer, by=self.user_id, on_event=live
                )
            finally:
                live.end_line()
            live.finish(follow.text)
            waiting.extend(follow.approvals)
        return None

    async def _note_zone(self, shown: str) -> None:
        """Say what there is to say about the user's zone under ``shown``."""
        if self._zones is not None and (note := await self._zones.note(self.user_id, shown)):
            self.console.show(note)

    async def _ask(self, request: ApprovalRequest) -> bool | str | None:
        """Ask y/n about ``request``: the decision, the line typed instead of one, or ``None``
        when input ended."""
        zone = await self.agent.user_zone(self.user_id)
        self.console.show(f"Approve {request_line(request, zone)}? [y/n]")
        answer = await self._lines.read("approve? [y/n] ")
        if answer is None:
            return None
        word = answer.strip().lower()
        if word in ("y", "yes"):
            return True
        if word in ("n", "no"):
            return False
        return answer if word else None

    @contextmanager
    def _patched_stdout(self) -> Iterator[None]:
        if not self.interactive:
            yield
            return
        from prompt_toolkit.patch_stdout import patch_stdout

        with patch_stdout(raw=True):
            yield

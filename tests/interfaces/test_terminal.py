"""The terminal chat driven through injected streams, as when stdin is piped."""

from __future__ import annotations

import asyncio
import io
import re
import sys
from collections.abc import Sequence
from datetime import timedelta

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output.vt100 import Vt100_Output

from agent import AgentEvent, AgentEventKind
from agent.llm import ChatMessage, LLMResponse, ScriptedBackend, ToolMode, Waiting
from interfaces import (
    Action,
    ActionKind,
    ActionOutcome,
    Button,
    CommandHandler,
    CommandReply,
    Console,
    Reply,
    TerminalChat,
    TerminalNotifier,
    render_delivery,
    render_message,
)
from tasks import Delivery, DeliveryKind, DeliveryStatus
from tests.agent.agent_world import World, fence


def chat_over(
    world: World, typed: str, commands: CommandHandler | None = None
) -> tuple[TerminalChat, io.StringIO]:
    output = io.StringIO()
    chat = TerminalChat(
        agent=world.agent,
        commands=commands,
        user_id="alice",
        chat_id="chat-alice",
        input=io.StringIO(typed),
        output=output,
    )
    return chat, output


def scripted(replies: Sequence[str | LLMResponse]) -> World:
    return World(ScriptedBackend(replies, mode=ToolMode.CONTRACT))


class Commands:
    """Shared slash commands as a test double: answers /tasks and /help, records presses."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str]] = []
        self.pressed: list[Action] = []

    async def press(
        self, action: Action, *, user_id: str, chat_id: str, shown: Delivery | None = None
    ) -> ActionOutcome:
        self.pressed.append(action)
        update = Reply(
            "a1b2c3  paused", ((Button("Resume", Action(ActionKind.RESUME, "a1b2c3")),),)
        )
        return ActionOutcome(notice=f"Paused {action.target}.", update=update)

    async def handle(self, text: str, *, user_id: str, chat_id: str) -> CommandReply | None:
        self.seen.append((text, user_id))
        if text.startswith("/tasks"):
            cancel = Button("Cancel", Action(ActionKind.CANCEL, "a1b2c3"))
            snooze = Button("Snooze", Action(ActionKind.SNOOZE, "a1b2c3", "10m"))
            return CommandReply((Reply("a1b2c3  reminder at 18:00", ((cancel, snooze),)),))
        if text.startswith("/help"):
            return CommandReply.of("/tasks lists your tasks.")
        return None

    def help(self, unknown: str | None = None) -> CommandReply:
        opening = f"I don't know the command {unknown!r}. " if unknown else ""
        return CommandReply.of(opening + "/tasks lists your tasks.")


async def test_piped_lines_are_answered_until_the_end_of_input() -> None:
    world = scripted(["Hello Alice.", "Bye."])
    chat, output = chat_over(world, "hi\n\nthanks\n")

    await chat.run()

    assert output.getvalue() == "Hello Alice.\nBye.\n"
    assert not chat.interactive


class Writes(io.StringIO):
    """An output stream that also records each write, to see a reply arrive in pieces."""

    def __init__(self) -> None:
        super().__init__()
        self.pieces: list[str] = []

    def write(self, text: str) -> int:
        self.pieces.append(text)
        return super().write(text)


async def test_a_reply_is_written_as_the_model_writes_it() -> None:
    world = scripted(["Hello Alice, how are you?"])
    output = Writes()
    chat = TerminalChat(
        agent=world.agent, user_id="alice", input=io.StringIO("hi\n"), output=output
    )

    await chat.run()

    assert output.getvalue() == "Hello Alice, how are you?\n"
    assert output.pieces[:4] == ["Hello", " Alice,", " how", " are"]


async def test_a_busy_model_s_notice_is_a_line_before_the_reply() -> None:
    backend = ScriptedBackend(["Hello Alice."], waiting=[Waiting(ahead=2, waited=3.0)])
    chat, output = chat_over(World(backend), "hi\n")

    await chat.run()

    assert output.getvalue() == (
        "  ... The model is busy: 2 requests ahead of yours. Your answer follows.\nHello Alice.\n"
    )


async def test_the_sentence_before_a_tool_call_is_a_line_of_its_own() -> None:
    lead = "Setting it up. " + fence("add_reminder", when="in 5 minutes", message="tea")
    world = scripted([lead, "Done: tea in 5 minutes."])
    chat, output = chat_over(world, "remind me in 5 minutes about tea\n")

    await chat.run()

    assert output.getvalue() == "Setting it up.\nDone: tea in 5 minutes.\n"
    assert world.home.reminders == [("in 5 minutes", "tea")]


async def test_a_reply_that_did_not_stream_is_shown_whole() -> None:
    world = scripted([])  # the model fails at once: the agent's own reply says so
    chat, output = chat_over(world, "hi\n")

    await chat.run()

    shown = output.getvalue()
    assert shown.count("\n") == 1 and shown.strip()


async def test_quit_stops_reading() -> None:
    world = scripted(["Hello."])
    chat, output = chat_over(world, "hi\n/quit\nnever read\n")

    await chat.run()

    assert output.getvalue() == "Hello.\n"


async def test_approval_is_asked_inline_and_runs_on_yes() -> None:
    world = scripted([fence("post", url="http://home.lan/off"), "The lights are off."])
    chat, output = chat_over(world, "lights off\ny\n")

    await chat.run()

    shown = output.getvalue()
    assert shown.startswith("Approve post (high risk; request ")
    assert "\n  url: http://home.lan/off\n? [y/n]" in shown
    assert shown.endswith("The lights are off.\n")
    assert world.home.posts == ["http://home.lan/off"]


async def test_no_denies_the_request() -> None:
    world = scripted([fence("post", url="http://x.lan"), "Left alone."])
    chat, output = chat_over(world, "post\nno\n")

    await chat.run()

    assert output.getvalue().endswith("Left alone.\n")
    assert world.home.posts == []


async def test_unanswered_request_can_be_approved_later() -> None:
    world = scripted([fence("post", url="http://x.lan"), "Posted."])
    chat, output = chat_over(world, "post\n\n")
    await chat.run()
    (request,) = await world.executor.approvals.list_approvals("alice")
    assert "is still waiting" in output.getvalue()
    assert f"/approve {request.id}" in output.getvalue()
    assert await chat.handle_line(f"/approve {request.id}")
    assert output.getvalue().endswith("Posted.\n")
    assert world.home.posts == ["http://x.lan"]


async def test_a_message_typed_at_the_approval_prompt_is_answered_as_the_next_one() -> None:
    world = scripted([fence("post", url="http://x.lan"), "Nothing is scheduled.", "Bye."])
    chat, output = chat_over(world, "post\nwhat's on my schedule?\nthanks\n")

    await chat.run()

    (request,) = await world.executor.approvals.list_approvals("alice")
    shown = output.getvalue()
    assert f"Request {request.id} is still waiting" in shown
    assert shown.endswith("Nothing is scheduled.\nBye.\n")
    assert world.sent(1)[-1].content == "what's on my schedule?"
    assert world.home.posts == []


async def test_shared_commands_render_buttons_as_commands() -> None:
    commands = Commands()
    world = scripted([])
    chat, output = chat_over(world, "/tasks\n/help\n/nope\n", commands)

    await chat.run()

    shown = output.getvalue()
    assert (
        "a1b2c3  reminder at 18:00\n[Cancel: /cancel a1b2c3] [Snooze: /snooze a1b2c3 10m]" in shown
    )
    assert "/tasks lists your tasks.\nIn this terminal also: /approve ID" in shown
    assert "I don't know the command '/nope'. /tasks lists your tasks." in shown
    assert commands.seen == [("/tasks", "alice"), ("/help", "alice"), ("/nope", "alice")]


async def test_a_message_with_its_own_plain_text_is_shown_without_hints() -> None:
    listing = Reply(
        "1. [a1b2c3] reminder: stretch\n   next run: 18:00",
        ((Button("Cancel", Action(ActionKind.CANCEL, "a1b2c3")),),),
        plain="[a1b2c3] reminder: stretch · next 18:00\nCommands: /cancel ID",
    )
    assert (
        render_message(listing) == "[a1b2c3] reminder: stretch · next 18:00\nCommands: /cancel ID"
    )


async def test_run_shows_the_outcome_of_that_run_not_the_list() -> None:
    commands = Commands()
    chat, output = chat_over(scripted([]), "/run a1b2c3\n", commands)

    await chat.run()

    assert commands.pressed == [Action(ActionKind.RUN_NOW, "a1b2c3")]
    assert output.getvalue() == "Paused a1b2c3.\n"  # the double's notice; no list after it


async def test_a_failing_line_does_not_end_the_chat() -> None:
    def broken(messages: Sequence[ChatMessage]) -> str:
        raise RuntimeError("model exploded")

    world = World(ScriptedBackend(broken))
    chat, output = chat_over(world, "one\ntwo\n")

    await chat.run()

    assert output.getvalue().count("Something went wrong: model exploded") == 2


async def test_terminal_commands_press_the_buttons() -> None:
    commands = Commands()
    world = scripted([])
    chat, output = chat_over(world, "/pause a1b2c3\n/pause\n", commands)

    await chat.run()

    assert commands.pressed == [Action(ActionKind.PAUSE, "a1b2c3")]
    assert output.getvalue() == (
        "Paused a1b2c3.\n"
        "a1b2c3  paused\n[Resume: /resume a1b2c3]\n"
        "Say which task, e.g. '/pause k3m9xa'; /tasks lists them.\n"
    )


async def test_notifier_prints_deliveries() -> None:
    output = io.StringIO()
    notifier = TerminalNotifier(Console(output))
    reminder = Delivery(
        task_id="a1b2c3",
        run_id=7,
        owner_id="alice",
        chat_id="chat-alice",
        kind=DeliveryKind.REMINDER,
        text="check the oven",
        late_by=timedelta(hours=2, minutes=5),
    )

    status = await notifier.deliver(reminder)

    assert status is DeliveryStatus.DELIVERED
    assert output.getvalue() == (
        "\n[reminder] check the oven\n  [Snooze: /snooze a1b2c3 10m | 1h | morning] "
        "[Done: /done a1b2c3]\n"
    )


async def test_notifier_reports_a_closed_stream_as_failed() -> None:
    output = io.StringIO()
    output.close()
    delivery = Delivery("t1", None, "alice", "c", DeliveryKind.NOTICE, "disabled")

    assert await TerminalNotifier(Console(output)).deliver(delivery) is DeliveryStatus.FAILED


def test_results_and_notices_are_labelled() -> None:
    result = Delivery("t1", 3, "alice", "c", DeliveryKind.RESULT, "Top 3 news: ...")
    notice = Delivery("t1", None, "alice", "c", DeliveryKind.NOTICE, "disabled after 5 failures")

    assert render_delivery(result) == "\n[task t1]\nTop 3 news: ..."
    assert render_delivery(result, 4) == (
        "\n[task t1]\nTop 3 news: ...\n  [Later: /later 4 10m | 1h | morning]"
    )
    assert render_delivery(notice) == "\n[notice about task t1] disabled after 5 failures"
    unknown = Delivery("t1", 3, "alice", "c", DeliveryKind.NOTICE, "may or may not", run_again=True)
    assert render_delivery(unknown, 5) == (
        "\n[notice about task t1] may or may not\n  [Run again: /run t1] "
        "[Later: /later 5 10m | 1h | morning]"
    )


async def test_interactive_chat_prints_deliveries_above_the_prompt() -> None:
    screen = io.StringIO()
    terminal = Vt100_Output(screen, lambda: Size(rows=24, columns=80))
    reminder = Delivery("a1", 1, "alice", "chat-alice", DeliveryKind.REMINDER, "stretch")
    replied = asyncio.Event()

    def on_event(event: AgentEvent) -> None:
        if event.kind is AgentEventKind.REPLY_READY:
            replied.set()

    with create_pipe_input() as typed, create_app_session(input=typed, output=terminal):
        world = World(ScriptedBackend(["Hello."]), on_event=on_event)
        chat = TerminalChat(
            agent=world.agent, user_id="alice", chat_id="chat-alice", interactive=True
        )

        async def user_and_scheduler() -> None:
            typed.send_text("hi\r")
            await replied.wait()
            notifier = TerminalNotifier(chat.console)
            assert await notifier.deliver(reminder) is DeliveryStatus.DELIVERED
            typed.send_text("/quit\r")

        await asyncio.wait_for(asyncio.gather(chat.run(), user_and_scheduler()), 10)

    shown = screen.getvalue()
    assert "you> " in shown
    assert "Hello." in shown
    assert "[reminder] stretch" in shown


HOSTILE = [
    ("window title", "\x1b]0;you have been pwned\x07Hello", "Hello"),
    ("clear screen", "before\x1b[2J\x1b[Hafter", "beforeafter"),
    ("hidden text", "pay \x1b[8mto attacker\x1b[0m now", "pay to attacker now"),
    ("hyperlink", "\x1b]8;;https://evil.test\x1b\\click\x1b]8;;\x1b\\", "click"),
    ("carriage return", "rm -rf /tmp/x\rls -l", "rm -rf /tmp/xls -l"),
    ("C1 controls", "a\x9b2Jb\x9d0;title\x9cc", "abc"),
    ("bidi override", "invoice \u202egpj.exe", "invoice gpj.exe"),
    ("bell and backspace", "x\x07\x08y", "xy"),
    ("a lone surrogate", "half \ud83d", "half \ufffd"),
]


@pytest.mark.parametrize(("text", "shown"), [h[1:] for h in HOSTILE], ids=[h[0] for h in HOSTILE])
def test_the_terminal_shows_no_control_sequence_it_did_not_write(text: str, shown: str) -> None:
    output = io.StringIO()
    Console(output).show(text)
    assert output.getvalue() == shown + "\n"


async def test_model_replies_deliveries_and_listings_reach_the_screen_stripped() -> None:
    fetched = "Top story\x1b]0;owned\x07\x1b[2J\x1b[8m secret\x1b[0m"
    world = scripted([fetched])
    chat, output = chat_over(world, "summarise the page\n/tasks\n", commands=TitleCommands())

    await chat.run()
    await TerminalNotifier(chat.console).deliver(
        Delivery("t1", 1, "alice", "chat-alice", DeliveryKind.RESULT, fetched)
    )

    shown = output.getvalue()
    assert "Top story secret" in shown and "a1b2c3  reminder: red" in shown
    for control in ("\x1b", "\x07", "\x9b", "\r"):
        assert control not in shown


class TitleCommands(Commands):
    """Answers /tasks with a task whose description carries an escape sequence."""

    async def handle(self, text: str, *, user_id: str, chat_id: str) -> CommandReply | None:
        return CommandReply.of("a1b2c3  reminder: \x1b[31mred\x1b[0m \x1b]0;t\x07")


LONG_REPLY = (
    "To answer anything else, connect a model: set ASSISTANT_LLM_BASE_URL to an "
    "OpenAI-compatible server (e.g. http://localhost:11434/v1 for Ollama) and restart."
)
_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]")


async def test_every_reply_reaches_the_terminal_whole_and_ends_its_line() -> None:
    """200 long replies at the interactive prompt of an 80-column terminal, the next line
    typed ahead: every one is shown, whole, and its last line ends before the next prompt.

    Written through ``patch_stdout``'s proxy, a reply went to the terminal from another
    thread while the prompt was being drawn on this one, into the same output buffer: now
    and then a reply was lost whole, or the prompt was drawn over a reply's last line
    before its newline ("... and restar"). Threads switch as often as the interpreter
    allows here, so such a race shows in a few hundred replies instead of now and then.
    """
    screen = io.StringIO()
    terminal = Vt100_Output(screen, lambda: Size(rows=24, columns=80))
    rounds = 200
    switching = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        with create_pipe_input() as typed, create_app_session(input=typed, output=terminal):
            world = World(ScriptedBackend([LONG_REPLY] * rounds))
            chat = TerminalChat(
                agent=world.agent, user_id="alice", chat_id="chat-alice", interactive=True
            )
            typed.send_text("".join(f"question {n}\r" for n in range(rounds)) + "/quit\r")
            await asyncio.wait_for(chat.run(), 120)
    finally:
        sys.setswitchinterval(switching)

    shown = _ESCAPES.sub("", screen.getvalue())
    ends = [shown[m.end() : m.end() + 1] for m in re.finditer(re.escape(LONG_REPLY), shown)]
    assert len(ends) == rounds
    assert ends == ["\n"] * rounds


async def test_one_line_says_what_a_step_does() -> None:
    """The sentence a model writes before its call is the step's line; a call that no
    sentence announced gets a line of its own."""
    screen = io.StringIO()
    terminal = Vt100_Output(screen, lambda: Size(rows=24, columns=80))
    world = World(
        ScriptedBackend(
            [
                "Checking the time.\n\n" + fence("get_current_time"),
                fence("add_reminder", when="in 5 minutes", message="tea"),
                "Done.",
            ]
        )
    )
    with create_pipe_input() as typed, create_app_session(input=typed, output=terminal):
        chat = TerminalChat(
            agent=world.agent, user_id="alice", chat_id="chat-alice", interactive=True
        )
        typed.send_text("tea in 5 minutes\r/quit\r")
        await asyncio.wait_for(chat.run(), 10)

    shown = _ESCAPES.sub("", screen.getvalue())
    assert "Checking the time.\n" in shown
    assert "... get current time" not in shown
    assert "  ... add reminder\n" in shown
    assert "Done." in shown

"""A turn followed as it happens: the model's text streams as events, its tool calls never."""

from __future__ import annotations

import pytest

from agent import AgentEvent, AgentEventKind, VisibleText
from agent.llm import LLMResponse, ScriptedBackend, ToolMode
from tests.agent.agent_world import World, fence, native


def test_text_is_shown_up_to_what_may_open_a_call() -> None:
    visible = VisibleText()
    assert visible.feed("  Sure, ") == "Sure,"  # blank space waits for the text after it
    assert visible.feed("turning it off. ```json") == " turning it off."
    assert visible.feed('{"tool": "post"}```') == ""
    assert visible.finish("Sure, turning it off.") == ""  # nothing left but the call


def test_what_was_held_back_is_shown_once_it_proves_to_be_prose() -> None:
    visible = VisibleText()
    assert visible.feed("Use [brackets] ") == "Use"
    assert visible.feed("freely.") == ""
    assert visible.finish("Use [brackets] freely.") == " [brackets] freely."


def test_a_final_text_that_does_not_continue_what_was_shown_adds_nothing() -> None:
    visible = VisibleText()
    visible.feed("Hello")
    assert visible.finish("Goodbye") == ""


class Followed:
    """A turn's events, as one caller of ``handle_message`` receives them."""

    def __init__(self) -> None:
        self.events: list[AgentEvent] = []

    def __call__(self, event: AgentEvent) -> None:
        self.events.append(event)

    def texts(self) -> dict[int, str]:
        """The streamed text per round."""
        rounds: dict[int, str] = {}
        for event in self.events:
            if event.kind is AgentEventKind.TEXT_DELTA:
                rounds[event.round] = rounds.get(event.round, "") + event.text
        return rounds

    def kinds(self) -> list[str]:
        """The kinds in order, runs of text deltas as one."""
        kinds: list[str] = []
        for event in self.events:
            if not (kinds and kinds[-1] == event.kind == AgentEventKind.TEXT_DELTA):
                kinds.append(event.kind)
        return kinds


@pytest.mark.parametrize("mode", [ToolMode.CONTRACT, ToolMode.NATIVE])
async def test_a_followed_turn_streams_its_text_but_never_its_calls(mode: ToolMode) -> None:
    first = (
        "Let me check the time. " + fence("current_time")
        if mode is ToolMode.CONTRACT
        else LLMResponse(
            text="Let me check the time.", tool_calls=native("current_time").tool_calls
        )
    )
    world = World(ScriptedBackend([first, "It is noon in Berlin."], mode=mode))
    followed = Followed()

    reply = await world.agent.handle_message(
        "what time is it?", user_id="alice", chat_id="chat-alice", on_event=followed
    )

    assert reply.text == "It is noon in Berlin."
    assert followed.texts() == {1: "Let me check the time.", 2: "It is noon in Berlin."}
    assert followed.kinds() == [
        "text_delta",
        "tool_started",
        "tool_finished",
        "text_delta",
        "reply_ready",
    ]
    streamed = "".join(e.text for e in followed.events if e.kind is AgentEventKind.TEXT_DELTA)
    assert "```" not in streamed and "current_time" not in streamed
    # The agent-wide listener sees the same events.
    assert [e.kind for e in world.events] == [e.kind for e in followed.events]


async def test_a_turn_nobody_follows_is_not_streamed() -> None:
    world = World(ScriptedBackend(["Hello there."]))

    reply = await world.say("hi")

    assert reply.text == "Hello there."
    assert [e.kind for e in world.events] == ["reply_ready"]


async def test_a_pause_for_approval_streams_only_what_was_said() -> None:
    world = World(ScriptedBackend(["One moment. " + fence("post", url="http://x.lan")]))
    followed = Followed()

    reply = await world.agent.handle_message(
        "post it", user_id="alice", chat_id="chat-alice", on_event=followed
    )

    assert reply.text == "One moment."
    assert followed.texts() == {1: "One moment."}
    assert AgentEventKind.APPROVAL_REQUESTED in followed.kinds()

"""The DialogAgent: its loop, approvals, history and failures, with a scripted model."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from agent import AgentEvent, AgentEventKind, Decided, DialogAgent, compat
from agent.llm import (
    ChatMessage,
    LLMResponse,
    Role,
    ScriptedBackend,
    ScriptedCall,
    ToolMode,
)
from common import ManualClock
from memory import MemoryStore
from tests.agent.agent_world import NOW, World, fence, native
from tools import ApprovalStatus, Tool, ToolCall, ToolContext, ToolStatus, tool


def scripted(
    replies: Sequence[str | LLMResponse],
    *,
    mode: ToolMode = ToolMode.CONTRACT,
    memory: MemoryStore | None = None,
    **options: Any,
) -> World:
    """A world whose model answers ``replies`` in order."""
    return World(ScriptedBackend(replies, mode=mode), memory=memory, **options)


async def test_contract_turn_runs_calls_and_strips_them() -> None:
    world = scripted(
        [
            "Sure.\n" + fence("add_reminder", when="in 10 minutes", message="check the oven"),
            "I'll remind you in 10 minutes to check the oven.",
        ]
    )

    reply = await world.say("remind me in 10 minutes to check the oven")

    assert reply.text == "I'll remind you in 10 minutes to check the oven."
    assert reply.rounds == 2
    assert [r.status for r in reply.results] == [ToolStatus.OK]
    assert world.home.reminders == [("in 10 minutes", "check the oven")]
    results_message = world.sent(1)[-1]
    assert results_message.role is Role.TOOL
    assert "reminder set in 10 minutes: check the oven" in results_message.content
    assert backend_calls(world)[0].tools is None


@pytest.mark.parametrize(
    "answer",
    [
        '{"type": "final", "content": "It is sunny in Lisbon."}',
        '```json\n{"type": "final", "content": "It is sunny in Lisbon."}\n```',
        '{"action": "Final Answer", "action_input": "It is sunny in Lisbon."}',
    ],
)
async def test_an_answer_written_as_json_shows_its_content(answer: str) -> None:
    world = scripted([fence("get_current_time"), answer, "Yes."])

    reply = await world.say("weather in Lisbon?")
    await world.say("sure?")

    assert reply.text == "It is sunny in Lisbon."
    assert world.sent(2)[-2] == ChatMessage(Role.ASSISTANT, "It is sunny in Lisbon.")


async def test_a_reply_that_no_tool_is_needed_is_followed_by_the_answer() -> None:
    world = scripted(
        [
            '{"tool": "none", "reason": "a greeting needs no tool", "arguments": {}}',
            "Hello! How can I help?",
            "Fine.",
        ]
    )

    reply = await world.say("hello")
    await world.say("how are you?")

    assert reply.text == "Hello! How can I help?"
    assert reply.rounds == 2
    asked = world.sent(1)
    assert asked[-2].content.startswith('{"tool": "none"')
    assert asked[-1].role is Role.USER and "without JSON" in asked[-1].content
    # Only the answer is kept: the next turn's history has the question and the answer.
    assert [m.content for m in world.sent(2)[1:]] == [
        "hello",
        "Hello! How can I help?",
        "how are you?",
    ]


async def test_a_model_that_only_ever_says_no_tool_is_asked_once_more() -> None:
    none = '{"tool": "none", "reason": "nothing to do", "arguments": {}}'
    world = scripted([none, none])

    reply = await world.say("hello")

    assert reply.text == "The model gave no answer; please rephrase your request."
    assert len(backend_calls(world)) == 2


async def test_system_prompt_has_catalog_enums_and_local_time() -> None:
    world = scripted(["Hello."])

    await world.say("hi")

    system = world.sent(0)[0]
    assert system.role is Role.SYSTEM
    assert "add_reminder(" in system.content
    assert "t1" in system.content and "t9" not in system.content
    assert "2025-03-14 13:00" in system.content
    assert "Europe/Berlin" in system.content
    assert '"tool": "add_reminder"' in system.content
    assert "Never invent tool results" in system.content


async def test_native_mode_sends_tools_and_tool_messages() -> None:
    world = scripted(
        [native("get_current_time", call_id="call_7"), "It is 13:00 in Berlin."],
        mode=ToolMode.NATIVE,
    )

    reply = await world.say("what time is it?")

    assert reply.text == "It is 13:00 in Berlin."
    tools = backend_calls(world)[0].tools
    assert tools is not None
    assert {t.name for t in tools} >= {"add_reminder", "post"}
    assert "add_reminder(" not in world.sent(0)[0].content
    answer = world.sent(1)[-1]
    assert (answer.role, answer.tool_call_id, answer.content) == (
        Role.TOOL,
        "call_7",
        "13:00 Europe/Berlin",
    )


async def test_history_is_committed_when_the_turn_completes() -> None:
    world = scripted([fence("get_current_time"), "It is 13:00.", "You asked for the time."])

    await world.say("time?")
    await world.say("what did I ask?")

    second = world.sent(2)
    assert [m.role for m in second[1:]] == [
        Role.USER,
        Role.ASSISTANT,
        Role.TOOL,
        Role.ASSISTANT,
        Role.USER,
    ]
    assert second[1].content == "time?"
    assert second[-1].content == "what did I ask?"


async def test_validation_error_goes_back_and_the_model_fixes_it() -> None:
    world = scripted(
        [
            fence("add_reminder", when="at 6pm"),
            fence("add_reminder", when="at 6pm", message="call mom"),
            "Done: at 6pm, call mom.",
        ]
    )

    reply = await world.say("remind me at 6pm to call mom")

    assert reply.text == "Done: at 6pm, call mom."
    assert [r.status for r in reply.results] == [ToolStatus.INVALID, ToolStatus.OK]
    assert "message" in world.sent(1)[-1].content
    assert world.home.reminders == [("at 6pm", "call mom")]


async def test_retry_budget_stops_a_tool_that_keeps_failing() -> None:
    world = scripted(
        [fence("add_reminder", when="x")] * 4 + ["I could not set it."], tool_retries=1
    )

    reply = await world.say("remind me")

    assert reply.text == "I could not set it."
    assert [r.status for r in reply.results] == [ToolStatus.INVALID] * 4
    assert "already failed 2 times" in reply.results[2].text
    assert "Do not call it again" in world.sent(3)[-1].content
    # A person reads what happened, never the instruction to the model.
    assert reply.results[2].display == "it failed 2 times in a row, so I stopped trying"


async def test_max_rounds_is_reported_honestly() -> None:
    world = scripted([fence("get_current_time")] * 3, max_rounds=3)

    reply = await world.say("loop")

    assert reply.rounds == 3
    assert reply.text.startswith("I stopped after 3 rounds of tool calls")
    assert "get_current_time: 13:00 Europe/Berlin" in reply.text
    assert len(backend_calls(world)) == 3


@pytest.mark.parametrize("mode", [ToolMode.CONTRACT, ToolMode.NATIVE])
async def test_approval_pauses_and_resumes_exactly_that_call(mode: ToolMode) -> None:
    ask = (
        native("post", url="http://home.lan/off")
        if mode is ToolMode.NATIVE
        else ("Turning it off.\n" + fence("post", url="http://home.lan/off"))
    )
    world = scripted([ask, "The lights are off."], mode=mode)

    paused = await world.say("turn off the lights")

    assert world.home.posts == []
    (request,) = paused.approvals
    assert request.arguments == {"url": "http://home.lan/off"}
    # The reply keeps what the model said; the interface shows the request itself.
    assert paused.text == ("Turning it off." if mode is ToolMode.CONTRACT else "")

    stranger = await world.agent.resolve_approval(request.id, approved=True, by="bob")
    assert "no approval request" in stranger.text
    assert (stranger.decided, stranger.request) == (Decided.MISSING, None)
    assert world.home.posts == []

    done = await world.agent.resolve_approval(request.id, approved=True, by="alice")

    assert done.text == "The lights are off."
    assert done.decided is Decided.APPROVED
    assert done.request is not None and done.request.status is ApprovalStatus.APPROVED
    assert world.home.posts == ["http://home.lan/off"]
    outcome = world.sent(1)[-1]
    assert outcome.role is Role.TOOL
    assert f"approved approval request {request.id}" in outcome.content
    assert "POST http://home.lan/off -> 200" in outcome.content
    again = await world.agent.resolve_approval(request.id, approved=True, by="alice")
    assert "already approved" in again.text
    assert again.decided is Decided.ALREADY
    assert again.request is not None and again.request.status is ApprovalStatus.APPROVED
    assert world.home.posts == ["http://home.lan/off"]


async def test_denied_request_is_not_run() -> None:
    world = scripted([fence("post", url="http://x.lan"), "OK, I left it alone."])
    paused = await world.say("post it")

    reply = await world.agent.resolve_approval(paused.approvals[0].id, approved=False, by="alice")

    assert reply.text == "OK, I left it alone."
    assert reply.decided is Decided.DENIED
    assert reply.request is not None and reply.request.status is ApprovalStatus.DENIED
    assert world.home.posts == []
    assert reply.results[0].status is ToolStatus.DENIED


async def test_expired_request_is_refused() -> None:
    world = scripted([fence("post", url="http://x.lan")])
    paused = await world.say("post it")
    world.clock.advance(timedelta(minutes=31))

    reply = await world.agent.resolve_approval(paused.approvals[0].id, approved=True, by="alice")

    assert "expired" in reply.text
    assert reply.decided is Decided.EXPIRED
    assert reply.request is not None and reply.request.status is ApprovalStatus.EXPIRED
    assert world.home.posts == []


async def test_approval_survives_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "assistant.db"
    async with MemoryStore(db, clock=ManualClock(NOW)) as memory:
        first = scripted([fence("post", url="http://x.lan")], memory=memory)
        paused = await first.say("post it")
    async with MemoryStore(db, clock=ManualClock(NOW)) as memory:
        second = scripted(["Posted."], memory=memory)
        reply = await second.agent.resolve_approval(
            paused.approvals[0].id, approved=True, by="alice"
        )
        stored = await memory.get_approval(paused.approvals[0].id)

    assert reply.text == "Posted."
    assert second.home.posts == ["http://x.lan"]
    assert stored is not None and stored.status is ApprovalStatus.APPROVED
    resumed = second.sent(0)
    assert resumed[1].content == "post it"
    assert "needs the user's approval" in resumed[-2].content


async def test_broken_native_arguments_are_reported_to_the_model() -> None:
    broken = LLMResponse(
        tool_calls=(ToolCall("add_reminder", {}, raw_json='{"when": "at 6', id="c1"),)
    )
    fixed = native("add_reminder", call_id="c2", when="at 6pm", message="tea")
    world = scripted([broken, fixed, "Set."], mode=ToolMode.NATIVE)

    reply = await world.say("tea at 6pm")

    assert reply.results[0].status is ToolStatus.INVALID
    assert "not a JSON object" in reply.results[0].text
    assert reply.results[0].display == "the request's details could not be read"
    assert world.home.reminders == [("at 6pm", "tea")]


async def test_run_task_uses_a_fresh_context_and_stores_nothing() -> None:
    world = scripted(["first answer", fence("get_current_time"), "It is 13:00."])
    await world.say("hello")

    answer = await world.agent.run_task("what time is it?", owner_id="alice", chat_id="chat-alice")

    assert answer == "It is 13:00."
    assert [m.role for m in world.sent(1)] == [Role.SYSTEM, Role.USER]
    stored = await world.conversations.load_conversation("alice", "chat-alice")
    assert len(stored) == 2


async def test_model_failure_is_a_reply_and_nothing_is_stored() -> None:
    world = scripted([fence("get_current_time")])

    reply = await world.say("time?")

    assert "could not get an answer from the language model" in reply.text
    assert "ran out of replies" in reply.text
    assert "get_current_time" in reply.text
    assert await world.conversations.load_conversation("alice", "chat-alice") == []


async def test_events_report_progress_and_a_broken_listener_is_harmless() -> None:
    world = scripted([fence("get_current_time"), "13:00"])

    await world.say("time?")

    assert [e.kind for e in world.events] == [
        AgentEventKind.TOOL_STARTED,
        AgentEventKind.TOOL_FINISHED,
        AgentEventKind.REPLY_READY,
    ]
    assert world.events[-1].text == "13:00"

    def explode(event: AgentEvent) -> None:
        raise RuntimeError("listener bug")

    quiet = scripted(["fine"], on_event=explode)
    assert (await quiet.say("hi")).text == "fine"


async def test_empty_message_gets_help_without_the_model() -> None:
    world = scripted([])

    reply = await world.say("   ")

    assert "empty" in reply.text
    assert backend_calls(world) == []


async def test_hooks_can_be_overridden() -> None:
    class Loud(DialogAgent):
        async def system_messages(self, ctx: ToolContext, mode: ToolMode) -> list[ChatMessage]:
            return [*await super().system_messages(ctx, mode), ChatMessage(Role.SYSTEM, "Shout.")]

        def finalize_response(self, text: str) -> str:
            return text.upper()

    world = scripted(["hello there"])
    agent = Loud(
        backend=world.backend,
        registry=world.registry,
        executor=world.executor,
        memory=world.conversations,
    )

    reply = await agent.handle_message("hi", user_id="alice", chat_id="c")

    assert reply.text == "HELLO THERE"
    assert world.sent(0)[1].content == "Shout."


async def test_a_subclass_brings_its_own_tools_and_hooks_in_other_spellings() -> None:
    class Librarian(compat.DialogAgent):
        shelves = ("poetry", "history")

        async def _system_messages(self) -> list[dict[str, str]]:
            return [{"role": "system", "content": "The library closes at 18:00."}]

        def _finalize_response(self, text: str) -> str:
            return f"{text} (library)"

        @tool(params={"shelf": {"enum": lambda self: list(self.shelves)}})
        def count_books(self, shelf: str) -> int:
            """Count the books on a shelf."""
            return len(shelf)

    backend = ScriptedBackend([fence("count_books", shelf="poetry"), "Six books."])
    agent = Librarian(backend=backend)

    assert await agent.chat("how many poetry books?") == "Six books. (library)"
    system = backend.calls[0].messages[:2]
    assert 'shelf: one of "poetry", "history"' in system[0].content
    assert system[1] == ChatMessage(Role.SYSTEM, "The library closes at 18:00.")
    assert "count_books" in agent.registry and agent.executor.registry is agent.registry


async def test_tools_see_the_users_settings_and_what_the_interface_knows() -> None:
    seen: list[dict[str, Any]] = []

    def whoami(arguments: dict[str, Any], user_context: dict[str, Any]) -> str:
        seen.append(user_context)
        return "noted"

    world = scripted([fence("whoami"), "Done."])
    world.registry.add(Tool.from_mapping("whoami", whoami, description="Say who is asking"))

    await world.agent.handle_message(
        "who am I?", user_id="alice", chat_id="c", profile={"first_name": "Alice"}
    )

    assert seen[0]["user_id"] == "alice" and seen[0]["first_name"] == "Alice"
    assert seen[0]["timezone"] == "Europe/Berlin"


async def test_reset_starts_a_fresh_conversation() -> None:
    world = scripted(["one", "two"])
    await world.say("first")

    await world.agent.reset(user_id="alice", chat_id="chat-alice")
    await world.say("second")

    assert [m.content for m in world.sent(1)[1:]] == ["second"]


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="max_rounds"):
        scripted([], max_rounds=0)


def backend_calls(world: World) -> list[ScriptedCall]:
    assert isinstance(world.backend, ScriptedBackend)
    return list(world.backend.calls)


async def test_the_sqlite_store_gives_the_users_zone_and_history(tmp_path: Path) -> None:
    async with MemoryStore(tmp_path / "assistant.db", clock=ManualClock(NOW)) as memory:
        await memory.set_timezone("alice", "Asia/Tokyo")
        world = scripted(["Hello.", "Hello again."], memory=memory)

        await world.say("hi")
        await world.say("hi again")

    system, *history, last = world.sent(1)
    assert "Asia/Tokyo" in system.content
    assert "2025-03-14 21:00" in system.content
    assert [(m.role, m.content) for m in history] == [
        (Role.USER, "hi"),
        (Role.ASSISTANT, "Hello."),
    ]
    assert last.content == "hi again"


async def test_a_zone_lookup_overrides_the_stored_zone(tmp_path: Path) -> None:
    async def lookup(user_id: str) -> ZoneInfo:
        return ZoneInfo("America/New_York")

    async with MemoryStore(tmp_path / "assistant.db", clock=ManualClock(NOW)) as memory:
        await memory.set_timezone("alice", "Asia/Tokyo")
        world = scripted(["Hello."], memory=memory, zone_lookup=lookup)
        await world.say("hi")

    assert "America/New_York" in world.sent(0)[0].content


BROKEN = [
    ("a lone surrogate from the model", "hi", "here \ud83d you go"),
    ("invalid UTF-8 from the user", "caf\udcff au lait", "a fine drink"),  # surrogateescape'd bytes
    ("a pair split in two halves", "hi", "smile \ud83d\ude00"),
]


@pytest.mark.parametrize(("said", "reply"), [b[1:] for b in BROKEN], ids=[b[0] for b in BROKEN])
async def test_text_that_is_not_utf8_never_loses_the_turn(
    tmp_path: Path, said: str, reply: str
) -> None:
    events: list[AgentEvent] = []
    async with MemoryStore(tmp_path / "assistant.db", clock=ManualClock(NOW)) as memory:
        world = scripted(
            [
                reply,
                LLMResponse(
                    tool_calls=(ToolCall("add_reminder", {"when": "now", "message": reply}),)
                ),
                "ok",
            ],
            memory=memory,
        )
        first = await world.agent.handle_message(
            said, user_id="alice", chat_id="chat-alice", on_event=events.append
        )
        await world.say("remind me")
        stored = await memory.load_conversation("alice", "chat-alice")

    expected = reply.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    assert first.text == expected
    assert [m.content for m in stored][:2] == [
        said.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace"),
        expected,
    ]
    for text in [first.text, *(m.content for m in stored), *(e.text or "" for e in events)]:
        text.encode("utf-8")  # would raise for a lone surrogate
    assert world.home.reminders == [("now", expected)]

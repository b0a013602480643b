"""Understanding as a pipeline: the planner reads every message first, the model gets the rest.

The whole application (real planner, tools, SQLite) with a scripted model that records what
it is asked, so each test sees which turns reached the model, with what, and what came of it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import pytest

from agent import OFF_TOPIC, DialogAgent
from agent.llm import ChatMessage, LazyModel, LLMBackend, Order, Role, ScriptedBackend
from assistant.app import LOCAL_CHAT, LOCAL_USER, App, open_app
from assistant.config import ConfigError, Settings, load_settings
from common import ManualClock
from tasks import AgentTaskData, TaskType
from tools import ToolDefinition

NOW = datetime(2026, 3, 10, 13, 30, tzinfo=UTC)
"""Tuesday 14:30 in Berlin."""

PLANNED = [
    "remind me in 10 minutes to check the oven",
    "every weekday at 9am remind me to stand up",
    "what are my tasks?",
    "note: the wifi password is hunter2",
    "what is my wifi password?",
    "what time is it?",
    "cancel the oven reminder",
    "what is 12 times 12?",
    "help",
]


def settings_for(tmp_path: Path, order: Order = Order.PLANNER_FIRST) -> Settings:
    return load_settings(
        data_dir=tmp_path / "data", timezone="Europe/Berlin", llm_base_url=None, llm_order=order
    )


async def say(app: App, text: str) -> str:
    reply = await app.agent.handle_message(text, user_id=LOCAL_USER, chat_id=LOCAL_CHAT)
    return reply.text


async def say_and_approve(app: App, text: str) -> tuple[str, dict[str, object]]:
    """Say ``text``; the agent task it creates asks first (its whole prompt shown): approve.

    Returns the reply after the approval, and the arguments the user approved.
    """
    reply = await app.agent.handle_message(text, user_id=LOCAL_USER, chat_id=LOCAL_CHAT)
    [request] = reply.approvals
    done = await app.agent.resolve_approval(request.id, approved=True, by=LOCAL_USER)
    return done.text, dict(request.arguments)


def user_texts(messages: Sequence[ChatMessage]) -> list[str]:
    return [m.content for m in messages if m.role is Role.USER]


# -- the order ------------------------------------------------------------------------------


async def test_what_the_planner_completes_never_reaches_the_model(tmp_path: Path) -> None:
    model = ScriptedBackend([])  # any request would fail the turn: it has no replies
    async with open_app(settings_for(tmp_path), backend=model, clock=ManualClock(NOW)) as app:
        replies = [await say(app, text) for text in PLANNED]
        tasks = await app.tasks.list_tasks(LOCAL_USER)

    assert model.calls == []
    assert "I'll remind you today at 14:40 (Europe/Berlin) to check the oven" in replies[0]
    assert "every weekday at 09:00" in replies[1]
    assert "check the oven" in replies[2] and "stand up" in replies[2]
    assert "From your notes: the wifi password is hunter2" in replies[4]
    assert "Cancelled task" in replies[6]
    assert replies[7] == "12 × 12 = 144"
    assert "Everything else goes to the language model" in replies[8]
    assert [t.description for t in tasks] == ["stand up"]


async def test_model_first_hands_every_message_to_the_model(tmp_path: Path) -> None:
    model = ScriptedBackend(["Sure thing."])
    settings = settings_for(tmp_path, Order.MODEL_FIRST)
    async with open_app(settings, backend=model, clock=ManualClock(NOW)) as app:
        reply = await say(app, "what time is it?")

    assert reply == "Sure thing."
    assert user_texts(model.calls[0].messages) == ["what time is it?"]


def test_the_order_setting_takes_two_values_and_says_which(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ASSISTANT_LLM_ORDER", " Model-First ")
    assert load_settings().llm_order is Order.MODEL_FIRST
    monkeypatch.setenv("ASSISTANT_LLM_ORDER", "model-last")
    with pytest.raises(ConfigError) as caught:
        load_settings()
    message = str(caught.value)
    assert "ASSISTANT_LLM_ORDER: must be planner-first" in message
    assert "or model-first" in message and "(got 'model-last')" in message


# -- what the planner understands in part ---------------------------------------------------


async def test_a_schedule_read_by_the_planner_gets_the_prompt_the_model_writes(
    tmp_path: Path,
) -> None:
    model = ScriptedBackend(["Give me a short summary of today's top news."])
    async with open_app(settings_for(tmp_path), backend=model, clock=ManualClock(NOW)) as app:
        reply, approved = await say_and_approve(app, "every morning at 7 summarize the news")
        [task] = await app.tasks.list_tasks(LOCAL_USER)

    data = approved["execution_data"]
    assert isinstance(data, dict)
    assert data["prompt"] == "Give me a short summary of today's top news."
    [asked] = model.calls
    assert asked.tools is None  # the model fills one part; it chooses no tool
    assert asked.messages[-1].content == "every morning at 7: summarize the news"
    assert task.task_type is TaskType.AGENT_TASK
    assert task.schedule.describe() == "every day at 07:00 (Europe/Berlin)"
    assert task.next_run == datetime(2026, 3, 11, 6, 0, tzinfo=UTC)
    assert task.execution == AgentTaskData(prompt="Give me a short summary of today's top news.")
    assert task.description == "summarize the news"
    assert "every day at 07:00 (Europe/Berlin)" in reply
    assert "Each time it runs I'll answer: \"Give me a short summary of today's top news.\"" in (
        reply
    )


@pytest.mark.parametrize(
    "proposal",
    [
        "The user wants to know the news every morning.",  # about the chat, not a prompt
        "Summarize the news every day at 9pm.",  # a schedule of its own
        "Bake a chocolate cake.",  # off the subject
        "",
    ],
)
async def test_a_proposal_that_fails_the_checks_leaves_the_user_s_own_words(
    tmp_path: Path, proposal: str
) -> None:
    model = ScriptedBackend([proposal])
    async with open_app(settings_for(tmp_path), backend=model, clock=ManualClock(NOW)) as app:
        await say_and_approve(app, "every morning at 7 summarize the news")
        [task] = await app.tasks.list_tasks(LOCAL_USER)

    assert task.execution == AgentTaskData(prompt="summarize the news")
    assert task.schedule.describe() == "every day at 07:00 (Europe/Berlin)"


async def test_without_a_model_the_planner_says_what_it_understood(tmp_path: Path) -> None:
    async with open_app(settings_for(tmp_path), clock=ManualClock(NOW)) as app:
        reply = await say(app, "every morning at 7 summarize the news")
        tasks = await app.tasks.list_tasks(LOCAL_USER)

    assert "I understood the schedule 'every morning at 7', but not what to do then" in reply
    assert tasks == []


async def test_a_question_the_notes_cannot_answer_is_answered_in_words(tmp_path: Path) -> None:
    model = ScriptedBackend(["The capital of France is Paris."])
    async with open_app(settings_for(tmp_path), backend=model, clock=ManualClock(NOW)) as app:
        await say(app, "remind me in 10 minutes to check the oven")
        reply = await app.agent.handle_message(
            "what is the capital of France?", user_id=LOCAL_USER, chat_id=LOCAL_CHAT
        )
        tasks = await app.tasks.list_tasks(LOCAL_USER)

    [asked] = model.calls
    assert reply.text == "The capital of France is Paris."
    assert asked.tools is None
    assert [r.call.tool_name for r in reply.results] == ["search_memory"]  # the notes first
    # The earlier turn is there as it was said and answered, never the planner's calls.
    assert [m.role for m in asked.messages] == [
        Role.SYSTEM,
        *[Role.USER, Role.ASSISTANT],
        Role.USER,
    ]
    assert not any("add_reminder" in m.content or m.results for m in asked.messages)
    assert len(tasks) == 1


class SmallModel(ScriptedBackend):
    """A scripted model with a small window (it counts a token per four characters)."""

    context_tokens = 2048
    answer_tokens = 256

    async def count_tokens(
        self, messages: Sequence[ChatMessage], *, tools: Sequence[ToolDefinition] | None = None
    ) -> int:
        return sum(len(m.content) for m in messages) // 4 + 50 * len(tools or ())


async def test_a_small_model_answers_with_examples_and_without_the_conversation(
    tmp_path: Path,
) -> None:
    model = SmallModel(["The capital of France is Paris. Lyon is big too. Nice is nice. So?"])
    async with open_app(settings_for(tmp_path), backend=model, clock=ManualClock(NOW)) as app:
        await say(app, "remind me in 10 minutes to check the oven")
        reply = await say(app, "what is the capital of France?")

    [asked] = model.calls
    sent = " ".join(m.content for m in asked.messages)
    assert "oven" not in sent  # the earlier turn would only lead a small model astray
    assert user_texts(asked.messages) == [
        "what is the capital of Italy?",
        "who wrote Hamlet?",
        "what is the capital of France?",
    ]
    assert reply == "The capital of France is Paris. Lyon is big too. Nice is nice."  # capped


async def test_a_call_written_in_an_answer_in_words_is_no_answer(tmp_path: Path) -> None:
    call = (
        '```json\n{"tool": "add_reminder", "args": {"when": "in 5 minutes", "message": "x"}}\n```'
    )
    model = ScriptedBackend([call])
    async with open_app(settings_for(tmp_path), backend=model, clock=ManualClock(NOW)) as app:
        reply = await say(app, "what is the capital of France?")
        tasks = await app.tasks.list_tasks(LOCAL_USER)

    assert reply == OFF_TOPIC
    assert tasks == []


async def test_a_question_the_notes_answer_never_reaches_the_model(tmp_path: Path) -> None:
    model = ScriptedBackend([])
    async with open_app(settings_for(tmp_path), backend=model, clock=ManualClock(NOW)) as app:
        await say(app, "note: the door code is 4711")
        reply = await say(app, "what's the door code?")

    assert reply == "From your notes: the door code is 4711"
    assert model.calls == []


@pytest.mark.parametrize(
    ("answer", "shown"),
    [
        (
            "The capital of France is Paris.\nWhat are the main cities in France? Lyon.",
            "The capital of France is Paris.",
        ),
        ("The capital of France is Paris.\nUser: and Spain?", "The capital of France is Paris."),
        ("The user asked you to tell them about the bake-off.", OFF_TOPIC),
        ("what is the capital of France?", OFF_TOPIC),
    ],
)
async def test_an_answer_that_drifts_is_cut_or_said_to_be_off_the_subject(
    tmp_path: Path, answer: str, shown: str
) -> None:
    model = ScriptedBackend([answer])
    async with open_app(settings_for(tmp_path), backend=model, clock=ManualClock(NOW)) as app:
        reply = await say(app, "what is the capital of France?")

    assert reply == shown


# -- what the planner does not understand ---------------------------------------------------


async def test_a_message_the_planner_cannot_read_goes_to_the_model_with_its_tools(
    tmp_path: Path,
) -> None:
    model = ScriptedBackend(["The sea, grey and wide / ..."])
    async with open_app(settings_for(tmp_path), backend=model, clock=ManualClock(NOW)) as app:
        await say(app, "remind me in 10 minutes to check the oven")
        reply = await say(app, "write a haiku about the sea")

    [asked] = model.calls
    assert reply == "The sea, grey and wide / ..."
    catalog = asked.messages[0].content
    assert "add_reminder" in catalog  # the tools are offered (contract mode: in the prompt)
    # The earlier turn is there as it was said and answered, without the planner's call.
    earlier = asked.messages[1:-1]
    assert [m.role for m in earlier] == [Role.USER, Role.ASSISTANT]
    assert earlier[1].content.startswith("I'll remind you today at 14:40")
    assert not any("```" in m.content or m.results or m.tool_calls for m in asked.messages[1:])


async def test_the_model_s_call_passes_the_same_checks(tmp_path: Path) -> None:
    wrong = '```json\n{"tool": "add_reminder", "args": {"when": "blorp", "message": "x"}}\n```'
    model = ScriptedBackend([wrong, "Done, I set it."])
    async with open_app(settings_for(tmp_path), backend=model, clock=ManualClock(NOW)) as app:
        reply = await say(app, "book a table for two at Luigi's")
        tasks = await app.tasks.list_tasks(LOCAL_USER)

    assert tasks == []
    assert "could not read 'blorp' as a time" in model.calls[1].messages[-1].content
    assert "I did not schedule anything" in reply  # the claim check, as for any model


async def test_planner_rounds_do_not_count_against_the_model_s(tmp_path: Path) -> None:
    settings = settings_for(tmp_path).model_copy(update={"max_rounds": 1})
    model = ScriptedBackend([])
    async with open_app(settings, backend=model, clock=ManualClock(NOW)) as app:
        await say(app, "remind me in 10 minutes to check the oven")
        reply = await say(app, "move the oven reminder to 6pm")

    assert "now today at 18:00 (Europe/Berlin)" in reply  # a listing, the move, the report


# -- loading the model when it is first needed ----------------------------------------------


class Factory:
    """Builds a scripted model and records that it did."""

    def __init__(self, replies: list[str]) -> None:
        self.replies = replies
        self.built = 0

    def __call__(self) -> LLMBackend:
        self.built += 1
        return ScriptedBackend(self.replies)


async def test_the_model_is_built_only_when_a_turn_needs_it(tmp_path: Path) -> None:
    factory = Factory(["A haiku."])
    lazy = LazyModel(factory)
    async with open_app(settings_for(tmp_path), clock=ManualClock(NOW)) as app:
        agent = DialogAgent(
            backend=lazy,
            planner=app.planner,
            registry=app.registry,
            executor=app.executor,
            memory=app.memory,
            clock=app.clock,
        )
        for text in PLANNED:
            await agent.handle_message(text, user_id=LOCAL_USER, chat_id=LOCAL_CHAT)
        before = (factory.built, lazy.built)
        haiku = await agent.handle_message(
            "write a haiku about the sea", user_id=LOCAL_USER, chat_id=LOCAL_CHAT
        )
        await lazy.aclose()

    assert before == (0, False)
    assert haiku.text == "A haiku."
    assert factory.built == 1


async def test_a_start_in_the_background_builds_it_once(tmp_path: Path) -> None:
    factory = Factory(["A haiku."])
    lazy = LazyModel(factory)
    lazy.start()
    lazy.start()
    first, second = await lazy.ready(), await lazy.ready()
    await lazy.aclose()

    assert first is second and factory.built == 1

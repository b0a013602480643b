"""The offline planner: phrasings -> tool calls, results -> answers, multi-step flows."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import pytest

from assistant.agent.dialog import DialogAgent
from assistant.llm.base import ChatMessage, LLMBackend, Role, ToolMode
from assistant.planner.offline import OfflinePlanner
from common import ManualClock
from memory.models import HitKind, MemoryHit, MessageRole
from tools import ToolCall, ToolExecutor, ToolRegistry, ToolResult, ToolStatus, tool
from tools.parser import ToolParser

Call = tuple[str, dict[str, Any]]
PARSER = ToolParser()


async def ask(text: str, planner: OfflinePlanner | None = None) -> str:
    response = await (planner or OfflinePlanner()).complete([ChatMessage(Role.USER, text)])
    assert response.tool_calls == ()
    return response.text


def calls_in(text: str) -> list[Call]:
    return [(c.tool_name, c.arguments) for c in PARSER.extract_calls(text)]


def remind(when: str, message: str) -> Call:
    return ("add_reminder", {"when": when, "message": message})


def recurring(schedule: str, task_type: str, description: str, data: dict[str, Any]) -> Call:
    arguments = {
        "schedule": schedule,
        "task_type": task_type,
        "description": description,
        "execution_data": data,
    }
    return ("add_recurring_task", arguments)


PHRASES: list[tuple[str, list[Call]]] = [
    # one-time reminders: the time phrase first, last, or before "remind me"
    ("remind me in 10 minutes to check the oven", [remind("in 10 minutes", "check the oven")]),
    ("remind me to call mom tomorrow at 6pm", [remind("tomorrow at 6pm", "call mom")]),
    ("at 9am remind me to take my pills", [remind("at 9am", "take my pills")]),
    ("remind me at 17:45 to leave for the train", [remind("at 17:45", "leave for the train")]),
    ("remind me on friday at 5pm that the rent is due", [remind("on friday at 5pm", "the rent is due")]),
    ("remind me to check the oven in 10 min", [remind("in 10 minutes", "check the oven")]),
    ("in 10 minutes remind me to check the oven", [remind("in 10 minutes", "check the oven")]),
    ("Pls remind me to stretch in 1 hour and 15 minutes please", [remind("in 1 hour and 15 minutes", "stretch")]),
    ('remind me, in 5 minutes, to "feed the cat"!', [remind("in 5 minutes", "feed the cat")]),
    ("  REMIND   ME in 2 hours TO water the plants.  ", [remind("in 2 hours", "water the plants")]),
    ("Can you remind me about the dentist tomorrow?", [remind("tomorrow", "the dentist")]),
    ("set a reminder for tomorrow at 9am to email Bob", [remind("tomorrow at 9am", "email Bob")]),
    ("reminder: call the bank tomorrow at 10am", [remind("tomorrow at 10am", "call the bank")]),
    ("remind me to read chapter 5 at 9pm", [remind("at 9pm", "read chapter 5")]),
    ("remind me to take the 8:15 train at 7:30", [remind("at 7:30", "take the 8:15 train")]),
    ("remember to call mom at 5pm", [remind("at 5pm", "call mom")]),
    ("tomorrow at 6pm, remind me to call mom", [remind("tomorrow at 6pm", "call mom")]),
    ("remind me to pay the rent on March 3 at 8:15", [remind("on March 3 at 8:15", "pay the rent")]),
    ("remind me in half an hour to stir the soup", [remind("in half an hour", "stir the soup")]),
    ("remind me on 2026-04-01T09:00 to tell a joke", [remind("2026-04-01T09:00", "tell a joke")]),
    ("remind me the day after tomorrow at 10am to pay", [remind("the day after tomorrow at 10am", "pay")]),
    # recurring tasks of each type
    ("every weekday at 8:30 remind me to check the mail", [recurring("every weekday at 8:30", "reminder", "check the mail", {"message": "check the mail"})]),
    ("remind me every day at 9am to take vitamins", [recurring("every day at 9am", "reminder", "take vitamins", {"message": "take vitamins"})]),
    ("remind me to water the plants every tuesday and thursday at 7am", [recurring("every tuesday and thursday at 7am", "reminder", "water the plants", {"message": "water the plants"})]),
    ("every day at 8am search the web for python news and send me the top 3", [recurring("every day at 8am", "web_search", "python news", {"query": "python news", "limit": 3})]),
    ("every weekday at 9am search the top US news and send me the top 3", [recurring("every weekday at 9am", "web_search", "the top US news", {"query": "the top US news", "limit": 3})]),
    ("every monday at 10am ask: summarise my week", [recurring("every monday at 10am", "agent_task", "summarise my week", {"prompt": "summarise my week"})]),
    ("at 1am daily POST http://home.lan/lights/off", [recurring("every day at 1am", "api_call", "POST http://home.lan/lights/off", {"method": "POST", "url": "http://home.lan/lights/off"})]),
    ("every 15 minutes GET https://example.com/health", [recurring("every 15 minutes", "api_call", "GET https://example.com/health", {"method": "GET", "url": "https://example.com/health"})]),
    ("every day remind me to stretch at 9am", [recurring("every day at 9am", "reminder", "stretch", {"message": "stretch"})]),
    ("every 2 hours remind me to drink water", [recurring("every 2 hours", "reminder", "drink water", {"message": "drink water"})]),
    ("weekdays 6pm remind me to stop working", [recurring("every weekday at 6pm", "reminder", "stop working", {"message": "stop working"})]),
    # listing
    ("what are my tasks?", [("list_tasks", {})]),
    ("list my reminders", [("list_tasks", {})]),
    ("show tasks", [("list_tasks", {})]),
    ("What's scheduled?", [("list_tasks", {})]),
    # task commands by id
    ("cancel a1b2c3", [("cancel_task", {"task_id": "a1b2c3"})]),
    ("Cancel task #a1b2c3 please", [("cancel_task", {"task_id": "a1b2c3"})]),
    ("cancel a1b2c3 and d4e5f6", [("cancel_task", {"task_id": "a1b2c3"}), ("cancel_task", {"task_id": "d4e5f6"})]),
    ("pause a1b2c3", [("pause_task", {"task_id": "a1b2c3"})]),
    ("resume task a1b2c3", [("resume_task", {"task_id": "a1b2c3"})]),
    ("snooze a1b2c3 for 15 minutes", [("snooze_task", {"task_id": "a1b2c3", "delay": "15m"})]),
    ("snooze a1b2c3", [("snooze_task", {"task_id": "a1b2c3", "delay": "10m"})]),
    # by description: the first step lists the tasks
    ("cancel the oven reminder", [("list_tasks", {})]),
    # notes
    ("note: the wifi password is hunter2 #home #wifi", [("save_note", {"content": "the wifi password is hunter2", "tags": ["home", "wifi"]})]),
    ("remember that the car is parked on level 3", [("save_note", {"content": "the car is parked on level 3"})]),
    ("save a note my #locker code is 4521", [("save_note", {"content": "my locker code is 4521", "tags": ["locker"]})]),
    ("note: remind me is just a phrase", [("save_note", {"content": "remind me is just a phrase"})]),
    # questions answered from notes
    ("what is my wifi password?", [("search_memory", {"query": "wifi password"})]),
    ("what is the wifi password?", [("search_memory", {"query": "wifi password"})]),
    ("where are our spare keys?", [("search_memory", {"query": "spare keys"})]),
    ("what is the capital of France", [("search_memory", {"query": "capital France"})]),
    ("what did I say about the car?", [("search_memory", {"query": "car"})]),
    ("search my notes for locker", [("search_memory", {"query": "locker"})]),
    # the time
    ("what time is it", [("get_current_time", {})]),
    ("time in Tokyo", [("get_current_time", {"tz": "Asia/Tokyo"})]),
    ("what time is it in New York?", [("get_current_time", {"tz": "America/New_York"})]),
    ("what's the time in Europe/Lisbon", [("get_current_time", {"tz": "Europe/Lisbon"})]),
    # web search and pages
    ("search for python asyncio tutorial", [("search_web", {"query": "python asyncio tutorial"})]),
    ("google 'best pizza in berlin'", [("search_web", {"query": "best pizza in berlin"})]),
    ("look up the weather in paris and show me the top 2", [("search_web", {"query": "the weather in paris", "limit": 2})]),
    ("summarize https://example.com/article", [("fetch_url", {"url": "https://example.com/article"})]),
    ("what's on https://news.ycombinator.com?", [("fetch_url", {"url": "https://news.ycombinator.com"})]),
    # a one-time HTTP call
    ("POST http://home.lan/lights/on", [("api_call", {"url": "http://home.lan/lights/on", "method": "POST"})]),
]  # fmt: skip


@pytest.mark.parametrize(("text", "expected"), PHRASES, ids=[p[0] for p in PHRASES])
async def test_phrasing_becomes_the_expected_tool_calls(text: str, expected: list[Call]) -> None:
    assert calls_in(await ask(text)) == expected


NO_CALL: list[tuple[str, str]] = [
    ("help", "remind me in 10 minutes"),
    ("what can you do?", "search the web"),
    ("hi", "Hello"),
    ("thanks!", "welcome"),
    ("", "remind me"),
    ("blorp fizzle wobble", "didn't understand"),
    ("how tall is mount everest", "didn't understand"),
    ("remind me to buy milk", "When should I remind you"),
    (
        "remind me yesterday to call bob",
        "Yesterday is in the past, so I can't remind you then. When should I remind you? For example: 'remind me in 10 minutes to call bob'",
    ),
    ("remind me in 10 minutes", "What should I remind you about in 10 minutes"),
    ("turn off the lights at 1am daily", "need the URL"),
    ("every day at 8am tell me a joke", "not what to do"),
    ("what's the time in Atlantis", "'Atlantis'"),
    ("remind me every day", "What should I remind you about every day"),
    ("cancel", "Which task"),
    ("note", "What should I note"),
    ("summarize", "Which page"),
]


@pytest.mark.parametrize(("text", "expected"), NO_CALL, ids=[t or "<empty>" for t, _ in NO_CALL])
async def test_requests_it_cannot_act_on_get_text_and_no_call(text: str, expected: str) -> None:
    answer = await ask(text)
    assert expected in answer
    assert calls_in(answer) == []


async def test_unknown_input_lists_examples_of_what_works() -> None:
    answer = await ask("please frobnicate the quantum teapot")
    assert "remind me in 10 minutes to check the oven" in answer
    assert "what are my tasks?" in answer
    assert "```" not in answer


async def test_the_planner_is_a_contract_mode_backend_and_deterministic() -> None:
    planner: LLMBackend = OfflinePlanner()
    assert planner.mode is ToolMode.CONTRACT
    first = await planner.complete([ChatMessage(Role.USER, "remind me in 5m to stretch")])
    again = await planner.complete([ChatMessage(Role.USER, "remind me in 5m to stretch")])
    assert first == again
    await planner.aclose()


async def test_backticks_and_quotes_in_a_message_survive_the_fence() -> None:
    answer = await ask('remind me in 5 minutes to run ```rm -rf``` and say "hi"')
    assert calls_in(answer) == [remind("in 5 minutes", 'run ```rm -rf``` and say "hi"')]
    assert answer.count("```") == 2


async def test_a_message_longer_than_the_limit_is_refused_without_a_call() -> None:
    answer = await ask("note: " + "x" * 200, OfflinePlanner(max_input_chars=100))
    assert "characters long" in answer
    assert calls_in(answer) == []


def test_a_limit_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="max_input_chars"):
        OfflinePlanner(max_input_chars=0)


# -- answers composed from results ---------------------------------------------------------


def result(
    tool: str,
    arguments: dict[str, Any] | None = None,
    *,
    status: ToolStatus = ToolStatus.OK,
    output: object = None,
    text: str = "",
    display: str = "",
    error: str | None = None,
) -> ToolResult:
    call = ToolCall(tool, arguments or {}, id=f"call_{tool}")
    return ToolResult(call, status, output=output, text=text, display=display, error=error)


async def continue_turn(request: str, *rounds: Sequence[ToolResult]) -> str:
    """Replay a turn: the request, then per round the planner's reply and the results."""
    planner = OfflinePlanner()
    messages = [ChatMessage(Role.SYSTEM, "system prompt"), ChatMessage(Role.USER, request)]
    for results in rounds:
        said = await planner.complete(messages)
        messages += [
            ChatMessage(Role.ASSISTANT, said.text),
            ChatMessage(Role.TOOL, "Tool results: ...", results=tuple(results)),
        ]
    return (await planner.complete(messages)).text


async def test_a_successful_call_is_answered_with_what_the_tool_displays() -> None:
    done = result(
        "add_reminder",
        {"when": "in 5 minutes", "message": "call mom"},
        text='{"id": "a1b2c3"}',
        display="I'll remind you at 14:35 (Europe/Berlin) to call mom.",
    )
    answer = await continue_turn("remind me in 5 minutes to call mom", [done])
    assert answer == "I'll remind you at 14:35 (Europe/Berlin) to call mom."


async def test_the_time_is_said_as_a_sentence() -> None:
    output = {
        "date": "2026-01-05",
        "time": "22:35:09",
        "weekday": "Monday",
        "timezone": "Asia/Tokyo",
    }
    done = result("get_current_time", {"tz": "Asia/Tokyo"}, output=output, text="Monday ...")
    answer = await continue_turn("time in Tokyo", [done])
    assert answer == "It's 22:35 on Monday, 2026-01-05 (Asia/Tokyo)."


async def test_without_a_display_the_text_for_the_model_is_used() -> None:
    done = result("get_current_time", text="It is 14:35 on Monday (Asia/Tokyo).")
    assert await continue_turn("time in Tokyo", [done]) == "It is 14:35 on Monday (Asia/Tokyo)."


@pytest.mark.parametrize(
    ("status", "error", "expected"),
    [
        (
            ToolStatus.ERROR,
            "could not understand 'blorp'; say e.g. 'in 10 minutes'",
            "I couldn't set the reminder. Could not understand 'blorp'; say e.g. 'in 10 minutes'.",
        ),
        (
            ToolStatus.INVALID,
            "add_reminder: 'when' is required",
            "I couldn't set the reminder. Add_reminder: 'when' is required.",
        ),
        (
            ToolStatus.TIMEOUT,
            "timed out after 30 s",
            "I couldn't set the reminder: it took too long and was stopped. Timed out after 30 s.",
        ),
        (ToolStatus.DENIED, None, "I did not set the reminder: the request was not approved."),
    ],
)
async def test_failures_are_said_in_plain_words_and_not_retried(
    status: ToolStatus, error: str | None, expected: str
) -> None:
    failed = result("add_reminder", {"when": "blorp", "message": "x"}, status=status, error=error)
    answer = await continue_turn("remind me in 10 minutes to call mom", [failed])
    assert answer == expected
    assert calls_in(answer) == []


async def test_an_approved_call_resumed_after_the_pause_is_reported() -> None:
    approved = result(
        "api_call",
        {"url": "http://home.lan/lights/on", "method": "POST"},
        display="POST http://home.lan/lights/on -> 200 OK",
    )
    messages = [
        ChatMessage(Role.SYSTEM, "system prompt"),
        ChatMessage(Role.USER, "POST http://home.lan/lights/on"),
        ChatMessage(Role.ASSISTANT, "Sending POST http://home.lan/lights/on.\n\n```json\n{}\n```"),
        ChatMessage(Role.TOOL, "Tool results:\n- api_call [pending_approval]: waiting"),
        ChatMessage(Role.TOOL, "approved and ran", results=(approved,)),
    ]
    answer = (await OfflinePlanner().complete(messages)).text
    assert answer == "POST http://home.lan/lights/on -> 200 OK"


async def test_an_earlier_turn_does_not_leak_into_the_next_one() -> None:
    old = result("list_tasks", display="You have no tasks.")
    messages = [
        ChatMessage(Role.USER, "what are my tasks?"),
        ChatMessage(Role.ASSISTANT, "Checking your tasks."),
        ChatMessage(Role.TOOL, "Tool results: ...", results=(old,)),
        ChatMessage(Role.ASSISTANT, "You have no tasks."),
        ChatMessage(Role.USER, "what time is it"),
    ]
    answer = (await OfflinePlanner().complete(messages)).text
    assert calls_in(answer) == [("get_current_time", {})]


# -- acting on a task picked by words ----------------------------------------------------


@dataclass(frozen=True)
class FakeTask:
    id: str
    description: str
    task_type: str = "reminder"


TASKS = [
    FakeTask("a1b2c3", "check the oven"),
    FakeTask("d4e5f6", "call mom"),
    FakeTask("g7h8i9", "call the dentist"),
]


def listing(output: object = TASKS, text: str = "") -> ToolResult:
    return result("list_tasks", output=output, text=text, display=text)


async def test_cancel_by_description_cancels_the_one_task_that_matches() -> None:
    answer = await continue_turn("cancel the oven reminder", [listing()])
    assert calls_in(answer) == [("cancel_task", {"task_id": "a1b2c3"})]


async def test_cancel_by_description_reports_the_cancellation() -> None:
    cancelled = result("cancel_task", {"task_id": "a1b2c3"}, display="Cancelled a1b2c3.")
    answer = await continue_turn("cancel the oven reminder", [listing()], [cancelled])
    assert answer == "Cancelled a1b2c3."


async def test_cancel_by_description_reads_tasks_given_as_dicts() -> None:
    tasks = {"tasks": [{"id": "zz9x1", "description": "water the plants"}]}
    answer = await continue_turn("delete the plants task", [listing(tasks)])
    assert calls_in(answer) == [("cancel_task", {"task_id": "zz9x1"})]


async def test_cancel_by_description_reads_tasks_given_as_text_lines() -> None:
    text = "Your tasks:\n- a1b2c3: check the oven (once at 14:35)\n- d4e5f6: call mom (daily)"
    answer = await continue_turn("cancel the oven one", [listing(None, text)])
    assert calls_in(answer) == [("cancel_task", {"task_id": "a1b2c3"})]


async def test_when_several_tasks_match_the_planner_asks_which_listing_them() -> None:
    answer = await continue_turn("cancel the call reminder", [listing()])
    assert calls_in(answer) == []
    assert "2 tasks match 'call'" in answer
    assert "- d4e5f6: call mom" in answer
    assert "- g7h8i9: call the dentist" in answer
    assert "a1b2c3" not in answer


async def test_when_no_task_matches_the_planner_says_so() -> None:
    answer = await continue_turn("cancel the gym reminder", [listing()])
    assert calls_in(answer) == []
    assert "No task matches 'gym'" in answer
    assert "- a1b2c3: check the oven" in answer


async def test_with_no_tasks_there_is_nothing_to_cancel() -> None:
    answer = await continue_turn("cancel the gym reminder", [listing([])])
    assert answer == "You have no active tasks, so there is nothing to cancel."


async def test_cancel_all_lists_the_tasks_instead_of_cancelling_them() -> None:
    answer = await continue_turn("cancel all my reminders", [listing()])
    assert calls_in(answer) == []
    assert "one at a time" in answer
    assert "- d4e5f6: call mom" in answer


async def test_snooze_by_description_carries_the_delay() -> None:
    answer = await continue_turn("snooze the oven reminder by 5 min", [listing()])
    assert calls_in(answer) == [("snooze_task", {"task_id": "a1b2c3", "delay": "5m"})]


async def test_a_failed_listing_is_reported_without_a_second_call() -> None:
    failed = result("list_tasks", status=ToolStatus.ERROR, error="the task store is closed")
    answer = await continue_turn("cancel the oven reminder", [failed])
    assert answer == "I couldn't list your tasks. The task store is closed."


async def test_a_failed_cancel_is_reported_and_not_repeated() -> None:
    failed = result(
        "cancel_task", {"task_id": "a1b2c3"}, status=ToolStatus.ERROR, error="task is running"
    )
    answer = await continue_turn("cancel the oven reminder", [listing()], [failed])
    assert answer == "I couldn't cancel the task. Task is running."


# -- answering from notes ------------------------------------------------------------------

WHEN = datetime(2026, 1, 1, tzinfo=UTC)


def hit(text: str, kind: HitKind = HitKind.NOTE, role: MessageRole | None = None) -> MemoryHit:
    return MemoryHit(kind, 1, text, 1.0, True, WHEN, role=role)


async def test_a_question_is_answered_from_the_best_note() -> None:
    hits = [
        hit("what is my wifi password?", HitKind.MESSAGE, MessageRole.USER),
        hit("I found nothing earlier", HitKind.MESSAGE, MessageRole.ASSISTANT),
        hit("the wifi password is hunter2"),
    ]
    found = result("search_memory", {"query": "wifi password"}, output=hits)
    answer = await continue_turn("what is my wifi password?", [found])
    assert answer == "From your notes: the wifi password is hunter2"


async def test_other_matches_follow_the_best_one() -> None:
    hits = [hit("car is on level 3"), hit("car keys are in the drawer")]
    found = result("search_memory", {"query": "car"}, output=hits)
    answer = await continue_turn("what did I say about the car?", [found])
    assert answer == (
        "From your notes: car is on level 3\nAlso related:\n- car keys are in the drawer"
    )


async def test_a_question_with_no_matching_note_says_nothing_was_found() -> None:
    found = result("search_memory", {"query": "bike lock code"}, output=[])
    answer = await continue_turn("what is my bike lock code?", [found])
    assert answer.startswith("I found nothing in your notes about 'bike lock code'.")


# -- summarising a page --------------------------------------------------------------------

PAGE = """Home | News | About
Example Article
Asyncio makes concurrent code readable in Python programs today. It schedules coroutines on
one thread. Tasks wrap coroutines and run them concurrently.
Timeouts are easy with asyncio.timeout in modern versions. The end of this page has more.
Contact"""


async def test_a_page_is_summarised_from_its_first_prose_sentences() -> None:
    fetched = result(
        "fetch_url",
        {"url": "https://example.com/a"},
        output={"title": "Example Article", "text": PAGE},
    )
    answer = await continue_turn("summarize https://example.com/a", [fetched])
    assert answer == (
        "Example Article (https://example.com/a):\n"
        "Asyncio makes concurrent code readable in Python programs today. It schedules "
        "coroutines on one thread. Tasks wrap coroutines and run them concurrently."
    )


async def test_a_page_without_text_is_said_to_have_none() -> None:
    fetched = result("fetch_url", {"url": "https://example.com/e"}, output="")
    answer = await continue_turn("summarize https://example.com/e", [fetched])
    assert answer == "I read https://example.com/e, but it has no readable text."


async def test_a_page_that_cannot_be_fetched_is_reported() -> None:
    failed = result(
        "fetch_url", {"url": "https://x.invalid"}, status=ToolStatus.ERROR, error="DNS failed"
    )
    answer = await continue_turn("summarize https://x.invalid", [failed])
    assert answer == "I couldn't read that page. DNS failed."


# -- through the DialogAgent: parsing, validation and execution as with a model --------------


class TaskToolsFake:
    """Stand-ins for the task tools, with the builtin names and arguments."""

    def __init__(self) -> None:
        self.cancelled: list[str] = []

    @tool
    def list_tasks(self) -> list[dict[str, str]]:
        """List the user's active tasks."""
        return [{"id": t.id, "description": t.description} for t in TASKS]

    @tool
    def cancel_task(self, task_id: str) -> str:
        """Cancel a task.

        Args:
            task_id: The task's id.
        """
        self.cancelled.append(task_id)
        return f"Cancelled {task_id}."

    @tool
    def add_reminder(self, when: str, message: str) -> str:
        """Add a one-time reminder.

        Args:
            when: When, in the user's words.
            message: What to say.
        """
        return f"I'll remind you {when} to {message}."


def agent_over(fake: TaskToolsFake) -> DialogAgent:
    registry = ToolRegistry([fake])
    return DialogAgent(
        backend=OfflinePlanner(),
        registry=registry,
        executor=ToolExecutor(registry),
        clock=ManualClock(WHEN),
    )


async def test_the_agent_runs_the_planners_calls_and_shows_its_answer() -> None:
    agent = agent_over(TaskToolsFake())
    reply = await agent.handle_message(
        "remind me in 10 minutes to stretch", user_id="u", chat_id="c"
    )
    assert reply.text == "I'll remind you in 10 minutes to stretch."
    assert [r.call.tool_name for r in reply.results] == ["add_reminder"]


async def test_the_agent_cancels_the_task_picked_by_words_in_two_rounds() -> None:
    fake = TaskToolsFake()
    reply = await agent_over(fake).handle_message(
        "cancel the oven reminder", user_id="u", chat_id="c"
    )
    assert fake.cancelled == ["a1b2c3"]
    assert reply.text == "Cancelled a1b2c3."
    assert reply.rounds == 3


async def test_the_agent_schedules_nothing_for_nonsense() -> None:
    fake = TaskToolsFake()
    reply = await agent_over(fake).handle_message("blorp fizzle", user_id="u", chat_id="c")
    assert "didn't understand" in reply.text
    assert reply.results == ()

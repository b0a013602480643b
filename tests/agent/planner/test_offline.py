"""The offline planner as a backend: the real builtin tools and registry (``assistant.app``),
results turned into answers, two-step flows, follow-ups, and robustness on any input.

What each sentence must become is the golden set's job (``test_golden.py``); here the turns
are replayed with results written by hand, to see every way an answer is composed.
"""

from __future__ import annotations

import random
import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent.llm import ChatMessage, LLMBackend, Role, ToolMode
from agent.planner import OfflinePlanner, PlannerTools, ToolboxError
from assistant.app import App, open_app
from assistant.config import load_settings
from common import ManualClock
from interfaces import JsonlNotifier
from memory import HitKind, MemoryHit, MessageRole
from tasks import ID_ALPHABET, ID_LENGTH
from testing.golden import NOW, ZONE, golden_app, planner_of
from tools import ToolCall, ToolDefinition, ToolParser, ToolRegistry, ToolResult, ToolStatus

Call = tuple[str, dict[str, Any]]
PARSER = ToolParser()


@pytest.fixture
async def app(tmp_path: Path) -> AsyncIterator[App]:
    async with golden_app(tmp_path / "data") as built:
        yield built


@pytest.fixture
def planner(app: App) -> OfflinePlanner:
    return planner_of(app)


def calls_in(text: str) -> list[Call]:
    return [(c.tool_name, c.arguments) for c in PARSER.extract_calls(text)]


def named(planner: OfflinePlanner, pick: Callable[[PlannerTools], Callable[..., object]]) -> str:
    """The registry's name of one of the planner's tools."""
    return planner.tool_name(pick(planner.tools))


# -- the backend ---------------------------------------------------------------------------


async def test_the_planner_is_a_contract_mode_backend_and_deterministic(
    planner: OfflinePlanner,
) -> None:
    backend: LLMBackend = planner
    assert backend.mode is ToolMode.CONTRACT
    message = [ChatMessage(Role.USER, "remind me in 5m to stretch")]
    ignored = ToolDefinition("x", "ignored", {"type": "object", "properties": {}})
    first = await backend.complete(message, tools=[ignored])
    assert first == await backend.complete(message)
    assert calls_in(first.text) == [
        (named(planner, lambda t: t.add_reminder), {"when": "in 5m", "message": "stretch"})
    ]
    await backend.aclose()


def test_tool_names_come_from_the_registry(app: App, planner: OfflinePlanner) -> None:
    with pytest.raises(ToolboxError, match=r"'add_reminder'.* no tool made from that function"):
        OfflinePlanner(tools=planner.tools, registry=ToolRegistry([]))
    assert named(planner, lambda t: t.reschedule_task) in app.registry


def test_backticks_and_quotes_in_a_message_survive_the_fence(planner: OfflinePlanner) -> None:
    answer = planner.respond_to('remind me in 5 minutes to run ```rm -rf``` and say "hi"')
    assert calls_in(answer)[0][1]["message"] == 'run ```rm -rf``` and say "hi"'
    assert answer.count("```") == 2


def test_a_message_longer_than_the_limit_is_refused_without_a_call(app: App) -> None:
    planner = app.planner
    assert isinstance(planner, OfflinePlanner)
    short = OfflinePlanner(tools=planner.tools, registry=app.registry, max_input_chars=100)
    answer = short.respond_to("note: " + "x" * 200)
    assert "characters long" in answer and calls_in(answer) == []
    with pytest.raises(ValueError, match="max_input_chars"):
        OfflinePlanner(tools=planner.tools, registry=app.registry, max_input_chars=0)


def test_unknown_input_says_there_is_no_model_and_what_works(planner: OfflinePlanner) -> None:
    answer = planner.respond_to("please frobnicate the quantum teapot")
    assert "without a language model" in answer
    assert "ASSISTANT_LLM_BASE_URL" in answer
    assert "remind me in 10 minutes to check the oven" in answer
    assert "```" not in answer


@pytest.mark.parametrize(
    ("request_", "example"),
    [
        ("remind me to take my pills twice a day", "every day at 9am and 9pm to take my pills"),
        ("remind me three times a day to drink water", "every day at 8am, 2pm and 8pm to drink"),
        ("remind me twice a week to water the plants", "every monday and thursday at 9am to"),
        ("remind me twice an hour to stand up", "every 30 minutes to stand up"),
        ("remind me 5 times a day to drink", "every 3 hours between 8am and 8pm to drink"),
        ("remind me 13 times a day to drink", "every hour between 8am and 8pm to drink"),
        ("remind me 7 times a week to run", "every day at 9am to run"),
        ("remind me 120 times an hour to blink", "every minute to blink"),
    ],
)
def test_several_times_a_day_asks_for_the_times_with_an_example_that_fits(
    planner: OfflinePlanner, request_: str, example: str
) -> None:
    answer = planner.respond_to(request_)
    assert "means more than one reminder" in answer
    assert f"'remind me {example}" in answer
    assert "```" not in answer  # nothing was scheduled


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


def continue_turn(
    planner: OfflinePlanner,
    request: str,
    *rounds: Sequence[ToolResult],
    before: Sequence[ChatMessage] = (),
) -> str:
    """Replay a turn: the request, then per round the planner's reply and the results."""
    messages = [ChatMessage(Role.SYSTEM, "system prompt"), *before, ChatMessage(Role.USER, request)]
    for results in rounds:
        said = planner.respond(messages)
        messages += [
            ChatMessage(Role.ASSISTANT, said),
            ChatMessage(Role.TOOL, "Tool results: ...", results=tuple(results)),
        ]
    return planner.respond(messages)


def test_a_successful_call_is_answered_with_what_the_tool_displays(
    planner: OfflinePlanner,
) -> None:
    done = result(
        named(planner, lambda t: t.add_reminder),
        text='{"id": "a1b2c3"}',
        display="I'll remind you at 14:35 (Europe/Berlin) to call mom.",
    )
    answer = continue_turn(planner, "remind me in 5 minutes to call mom", [done])
    assert answer == "I'll remind you at 14:35 (Europe/Berlin) to call mom."


def test_the_time_is_said_as_a_sentence(planner: OfflinePlanner) -> None:
    output = {
        "date": "2026-01-05",
        "time": "22:35:09",
        "weekday": "Monday",
        "timezone": "Asia/Tokyo",
    }
    done = result(named(planner, lambda t: t.get_current_time), output=output, text="Monday ...")
    assert continue_turn(planner, "time in Tokyo", [done]) == (
        "It's 22:35 on Monday, 2026-01-05 (Asia/Tokyo)."
    )


@pytest.mark.parametrize(
    ("status", "error", "expected"),
    [
        (
            ToolStatus.ERROR,
            "could not read 'blorp' as a time; say e.g. 'in 10 minutes'",
            "I couldn't set the reminder. Could not read 'blorp' as a time; say e.g. "
            "'in 10 minutes'.",
        ),
        (
            ToolStatus.TIMEOUT,
            "add_reminder did not finish within 15 s and was stopped",
            "I couldn't set the reminder: add_reminder did not finish within 15 s and was stopped.",
        ),
        (ToolStatus.DENIED, None, "I did not set the reminder: the request was not approved."),
    ],
)
def test_failures_are_said_in_plain_words_and_not_retried(
    planner: OfflinePlanner, status: ToolStatus, error: str | None, expected: str
) -> None:
    # As the executor makes them: a refusal or a timeout is said to the model and to people.
    failed = result(
        named(planner, lambda t: t.add_reminder), status=status, error=error, display=error or ""
    )
    answer = continue_turn(planner, "remind me in 10 minutes to call mom", [failed])
    assert answer == expected
    assert calls_in(answer) == []


def test_what_a_failed_call_says_to_the_model_never_reaches_the_person(
    planner: OfflinePlanner,
) -> None:
    for_model = (
        "The call to 'snooze_task' was not run:\n- tool 'snooze_task', argument 'task_id': must "
        'be one of "k3m9xa"; received "n5adgt"\nFix the call and send it again.'
    )
    refused = result(
        named(planner, lambda t: t.snooze_task),
        {"task_id": "n5adgt", "delay": "10m"},
        status=ToolStatus.INVALID,
        text=for_model,
        error=for_model,
        display="'n5adgt' is not a task id I can use here",
    )
    answer = continue_turn(planner, "snooze n5adgt by 10 minutes", [refused])
    assert answer == (
        "I couldn't snooze the task. 'n5adgt' is not a task id I can use here. Say 'list my "
        "tasks' to see your tasks and their ids."
    )
    silent = result(
        named(planner, lambda t: t.snooze_task),
        status=ToolStatus.INVALID,
        text=for_model,
        error=for_model,
    )
    assert continue_turn(planner, "snooze n5adgt by 10 minutes", [silent]) == (
        "I couldn't snooze the task."
    )


def test_an_approved_call_resumed_after_the_pause_is_reported(planner: OfflinePlanner) -> None:
    approved = result(
        named(planner, lambda t: t.api_call), display="POST http://home.lan/lights/on -> 200 OK"
    )
    messages = [
        ChatMessage(Role.SYSTEM, "system prompt"),
        ChatMessage(Role.USER, "POST http://home.lan/lights/on"),
        ChatMessage(Role.ASSISTANT, "Sending POST http://home.lan/lights/on.\n\n```json\n{}\n```"),
        ChatMessage(Role.TOOL, "Tool results:\n- api_call [pending_approval]: waiting"),
        ChatMessage(Role.TOOL, "approved and ran", results=(approved,)),
    ]
    assert planner.respond(messages) == "POST http://home.lan/lights/on -> 200 OK"


def test_an_earlier_turn_does_not_leak_into_the_next_one(planner: OfflinePlanner) -> None:
    old = result(named(planner, lambda t: t.list_tasks), display="You have no tasks.")
    messages = [
        ChatMessage(Role.USER, "what are my tasks?"),
        ChatMessage(Role.ASSISTANT, "Checking your tasks."),
        ChatMessage(Role.TOOL, "Tool results: ...", results=(old,)),
        ChatMessage(Role.ASSISTANT, "You have no tasks."),
        ChatMessage(Role.USER, "what time is it"),
    ]
    assert calls_in(planner.respond(messages)) == [
        (named(planner, lambda t: t.get_current_time), {})
    ]


# -- acting on a task picked by words ----------------------------------------------------


@dataclass(frozen=True)
class Listed:
    id: str
    description: str
    task_type: str = "reminder"


TASKS = [
    Listed("a1b2c3", "check the oven"),
    Listed("d4e5f6", "call mom"),
    Listed("g7h8i9", "call the dentist"),
]


def listing(planner: OfflinePlanner, output: object = TASKS, text: str = "") -> ToolResult:
    return result(named(planner, lambda t: t.list_tasks), output=output, text=text, display=text)


def test_the_task_words_pick_is_acted_on_in_a_second_step(planner: OfflinePlanner) -> None:
    cancel = named(planner, lambda t: t.cancel_task)
    assert calls_in(continue_turn(planner, "cancel the oven reminder", [listing(planner)])) == [
        (cancel, {"task_id": "a1b2c3"})
    ]
    done = result(cancel, {"task_id": "a1b2c3"}, display="Cancelled a1b2c3.")
    assert continue_turn(planner, "cancel the oven reminder", [listing(planner)], [done]) == (
        "Cancelled a1b2c3."
    )


@pytest.mark.parametrize(
    "output",
    [
        {"tasks": [{"id": "zz9x1a", "description": "water the plants"}]},
        [Listed("zz9x1a", "water the plants")],
    ],
)
def test_tasks_are_read_from_whichever_shape_arrives(
    planner: OfflinePlanner, output: object
) -> None:
    answer = continue_turn(planner, "delete the plants task", [listing(planner, output)])
    assert calls_in(answer) == [(named(planner, lambda t: t.cancel_task), {"task_id": "zz9x1a"})]


def test_tasks_are_read_from_text_lines(planner: OfflinePlanner) -> None:
    text = "Your tasks:\n- a1b2c3: check the oven (once at 14:35)\n- d4e5f6: call mom (daily)"
    answer = continue_turn(planner, "cancel the oven one", [listing(planner, None, text)])
    assert calls_in(answer) == [(named(planner, lambda t: t.cancel_task), {"task_id": "a1b2c3"})]


def test_an_id_without_digits_is_matched_exactly(planner: OfflinePlanner) -> None:
    tasks = [Listed("dyynbg", "water the plants"), Listed("k3m9xa", "dyynbg fan club")]
    answer = continue_turn(planner, "cancel dyynbg", [listing(planner, tasks)])
    assert calls_in(answer) == [(named(planner, lambda t: t.cancel_task), {"task_id": "dyynbg"})]


def test_a_task_id_is_never_read_as_a_time(planner: OfflinePlanner) -> None:
    """An id's end can spell a time ("hac2nd" ends in "2nd", "kx5d" in "5 days", "hk3p" in
    "3pm"); named as the task, as the question "which one?" suggests, it is the task."""
    rng = random.Random(29)
    made = ("".join(rng.choice(ID_ALPHABET) for _ in range(ID_LENGTH)) for _ in range(400))
    # An id of letters alone is matched against the task list instead (a test above).
    made = (task_id for task_id in made if any(c.isdigit() for c in task_id))
    move, snooze = (named(planner, pick) for pick in (_move, _snooze))
    for task_id in ("hac2nd", "kx5d", "hk3p", "ab1st2", "zz7h", "qq9am", *made):
        moved = continue_turn(planner, f"move {task_id} to 8pm")
        assert calls_in(moved) == [(move, {"task_id": task_id, "when": "8pm"})], task_id
        snoozed = continue_turn(planner, f"snooze `{task_id}` by 10 minutes")
        assert calls_in(snoozed) == [(snooze, {"task_id": task_id, "delay": "10 minutes"})]
    # Words the schedule language reads whole stay times, beside an id or not.
    for when in ("10am", "the 2nd", "jan5", "tomorrow 8pm"):
        moved = continue_turn(planner, f"move hac2nd to {when}")
        assert calls_in(moved) == [(move, {"task_id": "hac2nd", "when": when})], when


def _move(tools: PlannerTools) -> Callable[..., object]:
    return tools.reschedule_task


def _snooze(tools: PlannerTools) -> Callable[..., object]:
    return tools.snooze_task


def test_when_several_tasks_match_the_planner_asks_which(planner: OfflinePlanner) -> None:
    answer = continue_turn(planner, "cancel the call reminder", [listing(planner)])
    assert calls_in(answer) == []
    assert "2 tasks match 'call'" in answer and "Which one?" in answer
    assert "- d4e5f6: call mom" in answer and "- g7h8i9: call the dentist" in answer
    assert "a1b2c3" not in answer


def test_no_match_no_tasks_and_all_of_them(planner: OfflinePlanner) -> None:
    none = continue_turn(planner, "cancel the gym reminder", [listing(planner)])
    assert "No task matches 'gym'" in none and "- a1b2c3: check the oven" in none
    empty = continue_turn(planner, "cancel the gym reminder", [listing(planner, [])])
    assert empty == "You have no active tasks, so there is nothing to cancel."
    every = continue_turn(planner, "cancel all my reminders", [listing(planner)])
    assert "one at a time" in every and calls_in(every) == []


def test_snooze_and_move_carry_their_delay_and_time(planner: OfflinePlanner) -> None:
    snoozed = continue_turn(planner, "snooze the oven reminder by 5 min", [listing(planner)])
    assert calls_in(snoozed) == [
        (named(planner, lambda t: t.snooze_task), {"task_id": "a1b2c3", "delay": "5 min"})
    ]
    moved = continue_turn(planner, "move the oven reminder to 6pm", [listing(planner)])
    assert calls_in(moved) == [
        (named(planner, lambda t: t.reschedule_task), {"task_id": "a1b2c3", "when": "6pm"})
    ]


@pytest.mark.parametrize(
    ("sentence", "lead"),
    [
        ("move the oven reminder to 10:30", "Moving task a1b2c3 to 10:30."),
        ("move the oven reminder to friday at 9am", "Moving task a1b2c3 to friday at 9am."),
        ("move the oven reminder to 6pm", "Moving task a1b2c3 to 6pm."),
        ("snooze the oven reminder for 10 min", "Snoozing task a1b2c3 by 10 min."),
        ("snooze the oven reminder", "Snoozing task a1b2c3 by 10m."),
    ],
)
def test_the_sentence_before_a_move_or_a_snooze_reads_right(
    planner: OfflinePlanner, sentence: str, lead: str
) -> None:
    said = continue_turn(planner, sentence, [listing(planner)])

    assert said.split("\n", 1)[0] == lead


def test_failed_listing_and_failed_action_are_reported_once(planner: OfflinePlanner) -> None:
    broken = result(
        named(planner, lambda t: t.list_tasks),
        status=ToolStatus.ERROR,
        error="the store is closed",
        display="the store is closed",
    )
    assert continue_turn(planner, "cancel the oven reminder", [broken]) == (
        "I couldn't list your tasks. The store is closed."
    )
    failed = result(
        named(planner, lambda t: t.cancel_task),
        {"task_id": "a1b2c3"},
        status=ToolStatus.ERROR,
        error="task is running",
        display="task is running",
    )
    answer = continue_turn(planner, "cancel the oven reminder", [listing(planner)], [failed])
    assert answer == "I couldn't cancel the task. Task is running."


# -- the conversation so far -----------------------------------------------------------------


def test_it_is_the_task_the_conversation_was_last_about(planner: OfflinePlanner) -> None:
    before = [
        ChatMessage(Role.USER, "remind me in an hour to call mom"),
        ChatMessage(Role.ASSISTANT, "I'll remind you today at 15:30 to call mom (task k3m9xa)."),
    ]
    answer = continue_turn(planner, "snooze it by 10 minutes", before=before)
    assert calls_in(answer) == [
        (named(planner, lambda t: t.snooze_task), {"task_id": "k3m9xa", "delay": "10 minutes"})
    ]
    assert "Which task should I snooze?" in continue_turn(planner, "snooze it")


_SET = [
    ChatMessage(Role.USER, "remind me in 10 minutes to stretch"),
    ChatMessage(Role.ASSISTANT, "I'll remind you today at 14:40 to stretch (task k3m9xa)."),
]


@pytest.mark.parametrize(
    ("sentence", "delay"),
    [
        ("snooze it 1h30m", "1h30m"),
        ("snooze it 90 minutes", "90 minutes"),
        ("snooze it by 1h30m", "1h30m"),
        ("snooze it 1.5 hours", "1.5 hours"),
        ("snooze it 2h", "2h"),
        ("snooze it by 2 hours", "2 hours"),
        ("snooze it for 20 min", "20 min"),
        ("snooze it an hour", "an hour"),
        ("snooze it half an hour", "half an hour"),
        ("snooze it 1 hour and 30 minutes", "1 hour and 30 minutes"),
        ("snooze that 1h30m", "1h30m"),
        ("snooze this one 10m", "10m"),
        ("snooze the last one 10m", "10m"),
        ("postpone it 45 minutes", "45 minutes"),
        ("snooze 2h it", "2h"),
        ("snooze by an hour that one", "an hour"),
        ("snooze it", "10m"),
    ],
)
def test_a_snooze_of_it_carries_its_delay_in_any_form(
    planner: OfflinePlanner, sentence: str, delay: str
) -> None:
    answer = continue_turn(planner, sentence, before=_SET)
    assert calls_in(answer) == [(_snoozing(planner), {"task_id": "k3m9xa", "delay": delay})]


@pytest.mark.parametrize(
    ("sentence", "delay"),
    [
        ("snooze the oven reminder 2h", "2h"),
        ("snooze the oven reminder 90 minutes", "90 minutes"),
        ("snooze the oven reminder 1.5 hours", "1.5 hours"),
        ("snooze 2h the oven reminder", "2h"),
        ("snooze by half an hour the oven reminder", "half an hour"),
    ],
)
def test_a_snooze_by_words_carries_its_delay_before_or_after_them(
    planner: OfflinePlanner, sentence: str, delay: str
) -> None:
    answer = continue_turn(planner, sentence, [listing(planner)])
    assert calls_in(answer) == [(_snoozing(planner), {"task_id": "a1b2c3", "delay": delay})]


def test_a_snooze_by_id_carries_a_delay_after_it(planner: OfflinePlanner) -> None:
    for sentence in ("snooze k3m9xa 1h30m", "snooze k3m9xa 90 minutes", "snooze 2s6d4d 10m"):
        task_id = sentence.split()[1]
        assert calls_in(planner.respond_to(sentence)) == [
            (_snoozing(planner), {"task_id": task_id, "delay": sentence.split(" ", 2)[2]})
        ], sentence


@pytest.mark.parametrize(
    ("sentence", "when"),
    [
        ("snooze it till 5pm", "5pm"),
        ("snooze it until tomorrow 9am", "tomorrow 9am"),
        ("snooze it to 8pm", "8pm"),
        ("snooze it until 9", "at 9"),  # said "until 9"
        ("snooze it until 9.30", "at 9.30"),
        ("postpone it until friday", "friday"),
        ("push it back till tonight", "tonight"),
        ("put it off until tomorrow morning", "tomorrow morning"),
        ("snooze it till 10 tomorrow", "tomorrow at 10"),  # the hour before its day
        ("snooze it until 3 on friday", "friday at 3"),
        ("snooze it till 10 next weekend", "next weekend at 10"),
    ],
)
def test_a_snooze_of_it_until_a_time_snoozes_it_until_then(
    planner: OfflinePlanner, sentence: str, when: str
) -> None:
    """A snooze puts off one run, also until a time: moving a repeating task would change
    every run's time."""
    answer = continue_turn(planner, sentence, before=_SET)
    assert calls_in(answer) == [(_snoozing(planner), {"task_id": "k3m9xa", "delay": when})]
    assert f"Snoozing task k3m9xa until {when.removeprefix('at ')}." in answer


def test_a_snooze_of_a_task_by_words_until_a_time_snoozes_it(planner: OfflinePlanner) -> None:
    answer = continue_turn(planner, "snooze the oven reminder until 11pm", [listing(planner)])
    assert calls_in(answer) == [(_snoozing(planner), {"task_id": "a1b2c3", "delay": "11pm"})]
    moved = continue_turn(planner, "move the oven reminder to 11pm", [listing(planner)])
    assert calls_in(moved) == [
        (named(planner, lambda t: t.reschedule_task), {"task_id": "a1b2c3", "when": "11pm"})
    ]


@pytest.mark.parametrize(
    ("sentence", "words"), [("snooze it a bit", "a bit"), ("snooze it soonish", "soonish")]
)
def test_words_after_it_that_are_no_delay_are_said_back(
    planner: OfflinePlanner, sentence: str, words: str
) -> None:
    answer = continue_turn(planner, sentence, before=_SET)
    assert calls_in(answer) == []
    assert answer.startswith(f"I couldn't read {words!r} as a delay or a time")
    assert "'snooze it by 1h30m'" in answer


@pytest.mark.parametrize(
    ("sentence", "words"),
    [
        ("snooze the oven reminder until blorp", "blorp"),
        ("postpone the oven reminder till whenever", "whenever"),
        ("snooze the oven reminder for a bit", "a bit"),
    ],
)
def test_words_after_until_that_name_no_time_are_said_back(
    planner: OfflinePlanner, sentence: str, words: str
) -> None:
    answer = continue_turn(planner, sentence, [listing(planner)])
    assert calls_in(answer) == []
    assert answer.startswith(f"I couldn't read {words!r} as a delay or a time")


def test_words_after_for_that_name_the_task_still_pick_it(planner: OfflinePlanner) -> None:
    answer = continue_turn(planner, "snooze the reminder for the oven", [listing(planner)])
    assert calls_in(answer) == [(_snoozing(planner), {"task_id": "a1b2c3", "delay": "10m"})]


@pytest.mark.parametrize(
    ("sentence", "said"),
    [
        ("snooze it 5", "5"),
        ("snooze the oven reminder 30", "30"),
        ("snooze the oven reminder for 10", "for 10"),
        ("snooze the oven reminder by 10", "by 10"),
        ("push the oven reminder back 15", "15"),
    ],
)
def test_a_number_alone_goes_to_the_tool_which_asks_what_it_means(
    planner: OfflinePlanner, sentence: str, said: str
) -> None:
    """ "the oven reminder 30" is 30 minutes or until 30? The snooze tool asks (its words
    for a number alone); the number is never dropped for the default 10 minutes."""
    if " it " in f"{sentence} ":
        answer = continue_turn(planner, sentence, before=_SET)
    else:
        answer = continue_turn(planner, sentence, [listing(planner)])
    [(tool, arguments)] = calls_in(answer)
    assert tool == _snoozing(planner) and arguments["delay"] == said


def test_a_split_verb_around_the_task_snoozes_it(planner: OfflinePlanner) -> None:
    for sentence, delay in [
        ("push the oven reminder back to 11pm", "11pm"),
        ("put the oven reminder off till saturday", "saturday"),
        ("push the oven reminder back an hour", "an hour"),
    ]:
        answer = continue_turn(planner, sentence, [listing(planner)])
        assert calls_in(answer) == [(_snoozing(planner), {"task_id": "a1b2c3", "delay": delay})], (
            sentence
        )


def test_a_task_named_with_an_id_like_word_is_snoozed_by_its_name(
    planner: OfflinePlanner,
) -> None:
    """ "room 101", "vitamin b12": a word shaped like an id may be part of the task's name;
    only words that name no task are said back."""
    tasks = [*TASKS, Listed("r0m101", "clean room 101"), Listed("v1t12b", "take vitamin b12")]
    for sentence, task_id in [
        ("snooze the room 101 reminder", "r0m101"),
        ("postpone the vitamin b12 one", "v1t12b"),
    ]:
        answer = continue_turn(planner, sentence, [listing(planner, tasks)])
        assert calls_in(answer) == [(_snoozing(planner), {"task_id": task_id, "delay": "10m"})], (
            sentence
        )
    said_back = continue_turn(planner, "snooze a1b2c3 a bit", [listing(planner, tasks)])
    assert said_back.startswith("I couldn't read 'bit' as a delay or a time")


def test_a_split_verb_leaves_an_alarm_alone(planner: OfflinePlanner) -> None:
    """ "put the alarm off" may mean switch it off: it is not read as a snooze."""
    assert calls_in(planner.respond_to("put the alarm off")) == []


def test_it_is_never_a_word_of_the_assistants_own_reply(planner: OfflinePlanner) -> None:
    """ "No task matches '90 minutes'", the planner's own call ("Snoozing task 1h30m by 10m.")
    and its refusal name no task: "it" is still the reminder the conversation was about."""
    proposed = planner.respond_to("snooze 1h30m by 10m")
    assert "task 1h30m" in proposed
    before = [
        *_SET,
        ChatMessage(Role.USER, "snooze 1h30m by 10m"),
        ChatMessage(Role.ASSISTANT, proposed),
        ChatMessage(Role.TOOL, 'Tool results:\n- snooze_task [invalid]: ... received "1h30m"'),
        ChatMessage(Role.ASSISTANT, "I couldn't snooze the task. '1h30m' is not a task id."),
        ChatMessage(Role.USER, "snooze the yoga one"),
        ChatMessage(Role.ASSISTANT, "No task matches 'yoga'. The task stays as it was."),
    ]
    answer = continue_turn(planner, "snooze it by 1h30m", before=before)
    assert calls_in(answer) == [(_snoozing(planner), {"task_id": "k3m9xa", "delay": "1h30m"})]


def test_it_after_a_listing_is_the_one_task_listed_or_a_question(planner: OfflinePlanner) -> None:
    one = "No task matches 'yoga'. Your tasks:\n- [k3m9xa] reminder: stretch · today at 14:40"
    before = [ChatMessage(Role.USER, "snooze the yoga one"), ChatMessage(Role.ASSISTANT, one)]
    answer = continue_turn(planner, "snooze it 2h", before=before)
    assert calls_in(answer) == [(_snoozing(planner), {"task_id": "k3m9xa", "delay": "2h"})]
    several = "Your tasks:\n- [k3m9xa] reminder: stretch · today\n- [d4e5f6] reminder: call mom"
    before = [*_SET, ChatMessage(Role.USER, "my tasks"), ChatMessage(Role.ASSISTANT, several)]
    asked = continue_turn(planner, "snooze it 2h", before=before)
    assert calls_in(asked) == [] and asked.startswith("Which task should I snooze?")


def _snoozing(planner: OfflinePlanner) -> str:
    return named(planner, lambda t: t.snooze_task)


def test_an_answer_to_a_question_asked_back_completes_the_reminder(
    planner: OfflinePlanner,
) -> None:
    asked = planner.respond_to("remind me to buy milk")
    assert asked.startswith("When should I remind you to buy milk?")
    before = [ChatMessage(Role.USER, "remind me to buy milk"), ChatMessage(Role.ASSISTANT, asked)]
    answer = continue_turn(planner, "tomorrow at 9am", before=before)
    assert calls_in(answer) == [
        (
            named(planner, lambda t: t.add_reminder),
            {"when": "tomorrow at 9am", "message": "buy milk"},
        )
    ]
    # Anything else is read as a new request.
    other = continue_turn(planner, "what time is it", before=before)
    assert calls_in(other) == [(named(planner, lambda t: t.get_current_time), {})]


# -- whole conversations, as the newcomer had them (issue 22) ---------------------------------


@dataclass
class Chat:
    """One user's conversation with the real app, on a manual clock; reminders are
    delivered to a JSON Lines file, as a headless server delivers them."""

    app: App
    clock: ManualClock

    async def say(self, text: str) -> str:
        return (await self.app.agent.handle_message(text, user_id="u", chat_id="c")).text

    async def later(self, minutes: int) -> None:
        self.clock.advance(timedelta(minutes=minutes))
        await self.app.tasks.run_due()


@pytest.fixture
async def chat(tmp_path: Path) -> AsyncIterator[Chat]:
    settings = load_settings(
        data_dir=tmp_path / "data", timezone=ZONE.key, llm_base_url=None, serpapi_api_key=None
    )
    clock = ManualClock(NOW)
    sink = JsonlNotifier(tmp_path / "deliveries.jsonl", clock=clock)
    async with open_app(settings, clock=clock, notifier=sink) as app:
        yield Chat(app, clock)


async def test_notes_answer_from_notes_never_from_what_was_said(chat: Chat) -> None:
    await chat.say("whats my wifi password")
    await chat.say("the eiffel tower is in paris")

    asked = await chat.say("what's my wifi password?")
    eiffel = await chat.say("who is the eiffel tower named after?")
    await chat.say("note: the wifi password is hunter2")
    answered = await chat.say("whats my wifi password")

    assert asked.startswith("I found nothing in your notes about 'wifi password'.")
    assert eiffel.startswith("I found nothing in your notes about 'eiffel tower named after'.")
    assert answered == "From your notes: the wifi password is hunter2"


async def test_that_right_after_a_reminder_went_off_is_that_reminder(chat: Chat) -> None:
    set_first = await chat.say("remind me in 1 minute to stretch")
    await chat.say("remind me tomorrow at 9 to call mom")
    [stretch] = [t for t in await chat.app.tasks.list_tasks("u") if t.description == "stretch"]
    await chat.later(2)  # "stretch" goes off; "call mom" was the last one talked about

    snoozed = await chat.say("snooze that for 10 min")
    await chat.later(11)  # it goes off again
    again = await chat.say("snooze it by 5 minutes")

    assert f"(task {stretch.id})" in set_first
    assert snoozed == (
        f"Snoozed task {stretch.id} ('stretch'); next run today at 14:42 (Europe/Berlin)."
    )
    assert again == (
        f"Snoozed task {stretch.id} ('stretch'); next run today at 14:48 (Europe/Berlin)."
    )


async def test_a_snooze_with_its_delay_after_it_puts_off_exactly_that(chat: Chat) -> None:
    await chat.say("remind me in 10 minutes to stretch")
    first = await chat.say("snooze it 90 minutes")  # not gone off yet: its run moves from 14:40
    await chat.later(101)  # 16:11: it went off at 16:10
    again = await chat.say("snooze that 1h30m")  # gone off: back 1h30m from now
    followed = await chat.say("snooze it by 1.5 hours")  # the answer names it: still it
    [stretch] = await chat.app.tasks.list_tasks("u")

    assert first == (
        f"Snoozed task {stretch.id} ('stretch'); next run today at 16:10 (Europe/Berlin)."
    )
    assert again == (
        f"Snoozed task {stretch.id} ('stretch'); next run today at 17:41 (Europe/Berlin)."
    )
    assert followed == (
        f"Snoozed task {stretch.id} ('stretch'); next run today at 19:11 (Europe/Berlin)."
    )


async def test_a_failed_call_is_told_in_plain_words(chat: Chat) -> None:
    await chat.say("remind me tomorrow at 9 to call mom")
    await chat.say("remind me in 1 minute to stretch")
    await chat.later(2)
    await chat.later(90)  # it went off long ago: a snooze no longer brings it back

    answer = await chat.say("snooze it by 5 minutes")

    assert answer.startswith("I couldn't snooze the task. '")
    assert answer.endswith(
        "' is not a task id I can use here. Say 'list my tasks' to see your tasks and their ids."
    )
    assert "Fix the call" not in answer and "snooze_task" not in answer


async def test_tasks_are_named_in_any_case_and_any_form_of_their_words(chat: Chat) -> None:
    await chat.say("set an alarm for 7")
    await chat.say("remind me in 10 minutes to stand up and stretch")

    cancelled = await chat.say("cancel the alarm")
    paused = await chat.say("pause the stretching one")
    listed = await chat.say("whats on my schedule")

    assert cancelled.startswith("Cancelled task ") and cancelled.endswith("('Alarm').")
    assert paused.startswith("Paused task ") and "('stand up and stretch')" in paused
    assert listed.startswith("Your tasks:")


async def test_a_period_in_a_question_limits_the_listing(chat: Chat) -> None:
    await chat.say("remind me tomorrow at 9 to call mom")
    await chat.say("remind me on december 3 to buy gifts")
    await chat.say("remind me on march 3 2027 to renew the passport")

    week = await chat.say("what have I got on this week?")
    december = await chat.say("anything in december?")

    assert week.startswith("Your tasks for this week (Mon 2026-03-09 to Sun 2026-03-15):")
    assert "call mom" in week and "gifts" not in week and "passport" not in week
    assert december.startswith("Your tasks for December 2026:")
    assert "gifts" in december and "call mom" not in december


# -- with a search service ----------------------------------------------------------------


async def test_with_a_search_key_searches_are_planned_and_scheduled(tmp_path: Path) -> None:
    settings = load_settings(
        data_dir=tmp_path / "keyed", timezone=ZONE.key, llm_base_url=None, serpapi_api_key="k"
    )
    async with open_app(settings, clock=ManualClock(NOW)) as app:
        planner = app.planner
        assert isinstance(planner, OfflinePlanner)
        assert calls_in(planner.respond_to("search for python asyncio")) == [
            (named(planner, lambda t: t.search_web), {"query": "python asyncio"})
        ]
        sentence = "every weekday at 9am search the top US news and send me the top 3"
        reply = await app.agent.handle_message(sentence, user_id="u", chat_id="u")
        [task] = await app.tasks.list_tasks("u")
    assert reply.text.startswith("Scheduled the web search 'the top US news' every weekday")
    assert task.execution.model_dump(exclude={"kind"}) == {"query": "the top US news", "limit": 3}


# -- answering from notes ------------------------------------------------------------------

WHEN = datetime(2026, 1, 1, tzinfo=UTC)


def hit(text: str, kind: HitKind = HitKind.NOTE, role: MessageRole | None = None) -> MemoryHit:
    return MemoryHit(kind, 1, text, 1.0, True, WHEN, role=role)


def test_a_question_is_answered_from_the_best_note(planner: OfflinePlanner) -> None:
    hits = [
        hit("what is my wifi password?", HitKind.MESSAGE, MessageRole.USER),
        hit("I found nothing earlier", HitKind.MESSAGE, MessageRole.ASSISTANT),
        hit("the wifi password is hunter2"),
        hit("the router is in the hall"),
    ]
    found = result(named(planner, lambda t: t.search_memory), output=hits)
    assert continue_turn(planner, "what is my wifi password?", [found]) == (
        "From your notes: the wifi password is hunter2\nAlso related:\n- the router is in the hall"
    )


def test_nothing_found_about_my_things_or_the_world(planner: OfflinePlanner) -> None:
    empty = result(named(planner, lambda t: t.search_memory), output=[])
    mine = continue_turn(planner, "what is my bike lock code?", [empty])
    assert mine.startswith("I found nothing in your notes about 'bike lock code'. Save it")
    world = continue_turn(planner, "what's the capital of France?", [empty])
    assert world.startswith("I found nothing in your notes about 'capital France'.")
    assert "without a language model" in world and "ASSISTANT_LLM_BASE_URL" in world


# -- summarising a page --------------------------------------------------------------------

PAGE = """Home | News | About
Example Article
Asyncio makes concurrent code readable in Python programs today. It schedules coroutines on
one thread. Tasks wrap coroutines and run them concurrently.
Timeouts are easy with asyncio.timeout in modern versions. The end of this page has more.
Contact"""


def test_a_page_is_summarised_or_said_to_be_empty_or_unreadable(planner: OfflinePlanner) -> None:
    fetch = named(planner, lambda t: t.fetch_url)
    page = result(
        fetch, {"url": "https://example.com/a"}, output={"title": "Example Article", "text": PAGE}
    )
    assert continue_turn(planner, "summarize https://example.com/a", [page]) == (
        "Example Article (https://example.com/a):\n"
        "Asyncio makes concurrent code readable in Python programs today. It schedules "
        "coroutines on one thread. Tasks wrap coroutines and run them concurrently."
    )
    empty = result(fetch, {"url": "https://example.com/e"}, output="")
    assert continue_turn(planner, "summarize https://example.com/e", [empty]) == (
        "I read https://example.com/e, but it has no readable text."
    )
    failed = result(
        fetch,
        {"url": "https://x.invalid"},
        status=ToolStatus.ERROR,
        error="DNS failed",
        display="DNS failed",
    )
    assert continue_turn(planner, "summarize https://x.invalid", [failed]) == (
        "I couldn't read that page. DNS failed."
    )


# -- any input -------------------------------------------------------------------------------

WORDS = st.sampled_from(
    ["remind", "me", "to", "at", "every", "tomorrow", "9", "pm", "cancel", "the", "gym", "in",
     "-5", "minutes", "note:", "what", "is", "my", "?", "https://x.org", "snooze", "it", "by",
     "move", "6pm", "twice", "a", "day", "before", "search", "for", "ask:", "POST", "#tag",
     "{", "}", "{when}", "%s", "0m", "IN"]
)  # fmt: skip


@settings(
    max_examples=200, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck)
)
@given(st.one_of(st.text(max_size=120), st.lists(WORDS, max_size=16).map(" ".join)))
def test_any_message_gets_text_and_only_valid_json_calls(app: App, text: str) -> None:
    planner = app.planner
    assert isinstance(planner, OfflinePlanner)
    answer = planner.respond_to(text)
    assert isinstance(answer, str) and answer
    for call in PARSER.extract_calls(answer):
        assert call.tool_name in app.registry


@pytest.mark.parametrize("text", ["IN 0M {", "remind me in -5 minutes to {when} %s }{"])
def test_braces_in_a_message_are_only_text(planner: OfflinePlanner, text: str) -> None:
    answer = planner.respond_to(text)
    assert "I couldn't use that time" in answer


def test_a_long_message_is_read_in_linear_time(planner: OfflinePlanner) -> None:
    started = time.perf_counter()
    for filler in ("remind me every monday at 9am and ", "cancel the 1 2 3 ", "at " * 3, "x" * 20):
        planner.respond_to((filler * 4000)[:3990])
    assert time.perf_counter() - started < 2.0

"""No claim without a tool result: a table of real-model-style replies, both ways."""

from __future__ import annotations

import logging

import pytest

from agent import check_honesty, find_statements
from agent.llm import ScriptedBackend
from tests.agent.agent_world import World, fence
from tools import ToolCall, ToolResult, ToolStatus


def ok(name: str) -> ToolResult:
    return ToolResult(call=ToolCall(name, {}), status=ToolStatus.OK, text="done")


def failed(name: str, error: str) -> ToolResult:
    return ToolResult(call=ToolCall(name, {}), status=ToolStatus.ERROR, error=error)


CLAIMS = [
    "Done! I'll remind you at 9am to call mom.",
    "No problem, I've set the reminder for 9am.",
    "I've scheduled your reminder for tomorrow at 9.",
    "Your reminder has been set for 14:35.",
    "Reminder set for 5pm: call mom.",
    "I have cancelled the oven reminder.",
    "The task was cancelled.",
    "I've saved your note.",
    "Noted: the wifi password is hunter2.",
    "I turned off the lights.",
    "Sure, I've sent the request.",
    "You'll be reminded in 10 minutes.",
    "All set!",
    "I set a reminder for 9.",
    "I've paused the daily news task.",
    "Okay, I'll remind you every weekday at 9am.",
    "Great news \u2014 I\u2019ve added milk to your shopping list.",
    "Sure thing!\nI have successfully scheduled a daily reminder at 8am.",
    "Your reminder is set for tomorrow at 9am.",
]

NOT_CLAIMS = [
    "Would you like me to set a reminder?",
    "Stretching is good for you.\n\n(No reminder was set.)",
    "No note was saved.",
    "No task was cancelled.",
    "I can set a reminder for you. When should it fire?",
    "Reminders are delivered at the exact time you ask for.",
    "To cancel a task, say 'cancel' and its id.",
    "I did not schedule anything: the time is in the past.",
    "I couldn't save the note because the storage failed.",
    "I'll turn off the lights once you approve the request.",
    "I'll schedule POST http://home.lan/lights/off at 1am daily once you approve.",
    "I'll post to api.example.com version 2.5 after you approve it.",
    "What time should I remind you?",
    "You have 2 reminders: call mom at 5pm and check the oven at 14:35.",
    "The capital of France is Paris.",
    "Setting reminders is easy: just tell me when.",
    "If you want, I can remind you tomorrow.",
    "I'm sorry, I don't have access to your calendar.",
    "Here is a summary of the article you sent.",
    "Note that the shop closes at 6.",
    "2 + 2 = 4.",
    "Your notes are private to you.",
    "The model gave no answer; please rephrase your request.",
    "Send the call again with valid JSON arguments.",
    "I stopped after 4 rounds of tool calls without reaching a final answer.",
    "- remind_me: The call to 'remind_me' was not run: its arguments are not a JSON object.",
]


@pytest.mark.parametrize("reply", CLAIMS)
def test_a_claim_without_a_tool_result_is_replaced_by_the_truth(reply: str) -> None:
    checked = check_honesty(reply, [])

    assert checked.caught, reply
    assert checked.text.startswith("I did not")
    assert "no tool did it" in checked.text


@pytest.mark.parametrize("reply", NOT_CLAIMS)
def test_talking_about_actions_is_no_claim(reply: str) -> None:
    assert find_statements(reply) == []
    assert check_honesty(reply, []).text == reply


@pytest.mark.parametrize(
    ("reply", "results"),
    [
        ("I've scheduled your reminder for 9am.", [ok("add_reminder")]),
        ("Okay, I'll remind you every weekday at 9am.", [ok("add_recurring_task")]),
        ("Your reminder is set for 9am.", [ok("list_tasks")]),
        ("I have cancelled the oven reminder.", [ok("list_tasks"), ok("cancel_task")]),
        ("I'll send you the top 3 news every morning.", [ok("add_recurring_task")]),
        ("I turned off the lights.", [ok("turn_off_lights")]),
        ("Noted: the wifi password is hunter2.", [ok("save_note")]),
        ("Done.", [ok("save_note")]),
        ("The lights are now turned off.", [ok("api_call")]),
        # A tool of an MCP server (or the user's own) that is no look-up does what it says.
        ('I created the issue "printer jam" in project h2.', [ok("tracker.create_issue")]),
        ("Done, the issue has been created.", [ok("tracker.create_issue")]),
        ("I've written the file.", [ok("files.write_file")]),
    ],
)
def test_a_claim_a_successful_call_backs_is_kept(reply: str, results: list[ToolResult]) -> None:
    checked = check_honesty(reply, results)

    assert checked.caught == ()
    assert checked.text == reply


def test_the_truth_names_the_call_that_failed() -> None:
    checked = check_honesty(
        "Done! I'll remind you yesterday at 9.",
        [failed("add_reminder", "'yesterday' is in the past")],
    )

    assert checked.text == (
        "I did not schedule anything: add_reminder did not succeed "
        "('yesterday' is in the past). Please try again."
    )


def test_a_call_of_another_kind_does_not_back_a_claim() -> None:
    checked = check_honesty("I've cancelled your reminder.", [ok("add_reminder")])

    assert [claim.sentence for claim in checked.caught] == ["I've cancelled your reminder."]
    assert checked.text.startswith("I did not cancel anything")


def test_a_lookup_does_not_back_an_action() -> None:
    checked = check_honesty("I've scheduled it for 9am.", [ok("list_tasks")])

    assert checked.caught


@pytest.mark.parametrize(
    ("reply", "tool"),
    [
        # Only a tool that schedules backs a reminder, whoever wrote the tool.
        ("I'll remind you at 9am to call mom.", "tracker.create_issue"),
        # A tool whose name says it reads backs no action.
        ("I've saved your note.", "files.read_text_file"),
        ("I created the issue.", "tracker.search_issues"),
    ],
)
def test_an_outside_tool_does_not_back_what_it_cannot_have_done(reply: str, tool: str) -> None:
    assert check_honesty(reply, [ok(tool)]).caught


# -- through the agent ----------------------------------------------------------------------


async def test_a_turn_that_claims_what_no_tool_did_tells_the_truth(
    caplog: pytest.LogCaptureFixture,
) -> None:
    world = World(ScriptedBackend(["Done! I'll remind you in 10 minutes to check the oven."]))

    with caplog.at_level(logging.WARNING, logger="agent"):
        reply = await world.say("remind me in 10 minutes to check the oven")

    assert reply.text.startswith("I did not schedule anything")
    assert world.home.reminders == []
    assert "caught a claim" in caplog.text
    assert "I'll remind you in 10 minutes" in caplog.text
    stored = await world.conversations.load_context("alice", "chat-alice", max_chars=10_000)
    assert stored.messages[-1].content == reply.text


async def test_a_turn_whose_claim_a_tool_backs_is_unchanged() -> None:
    world = World(
        ScriptedBackend(
            [fence("add_reminder", when="in 10 minutes", message="oven"), "I'll remind you."]
        )
    )

    reply = await world.say("remind me in 10 minutes to check the oven")

    assert reply.text == "I'll remind you."
    assert world.home.reminders == [("in 10 minutes", "oven")]

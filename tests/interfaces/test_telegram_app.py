"""The Telegram bot on the real composed app: offline planner, SQLite, built-in tools.

python-telegram-bot runs unmodified against the Bot API stand-in; the app is the one
``assistant.app.open_app`` builds, so these tests cover the words a user types through to the
rows the scheduler fires. Time is a ``ManualClock``; due tasks fire on ``run_due`` (or on the
scheduler's own timer where the test says so).
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import pytest

from assistant.config import Settings
from common import ManualClock
from interfaces import NO_TASKS
from tasks import RunStatus, TaskStatus, TaskType
from testing.botapi_standin import BotApiStandin
from tests.interfaces.app_harness import (
    ALICE,
    BOB,
    T0,
    TOKEN,
    AppBot,
    running_app_bot,
)

TASK_ID = re.compile(r"\(task (?P<id>\w+)\)")


@pytest.fixture
async def api() -> AsyncIterator[BotApiStandin]:
    """A stand-in whose token has the shape the settings accept."""
    async with BotApiStandin(token=TOKEN) as server:
        yield server


@pytest.fixture
async def bot(api: BotApiStandin, tmp_path: Path) -> AsyncIterator[AppBot]:
    """The bot on a fresh app at 13:00 Berlin time."""
    async with running_app_bot(api, tmp_path, clock=ManualClock(T0)) as running:
        yield running


def _task_id(confirmation: str) -> str:
    found = TASK_ID.search(confirmation)
    assert found is not None, f"no task id in {confirmation!r}"
    return found["id"]


async def test_a_reminder_is_confirmed_delivered_and_snoozed(bot: AppBot) -> None:
    [confirmation] = await bot.say(ALICE, "remind me in 2 seconds to stretch")
    assert "today at 13:00:02 (Europe/Berlin)" in confirmation
    assert "stretch" in confirmation
    task_id = _task_id(confirmation)

    bot.clock.advance(timedelta(seconds=2))
    assert await bot.app.tasks.run_due() == 1
    [reminder] = (await bot.api.wait_for_messages(ALICE, 2))[1:]
    assert reminder.text == "⏰ Reminder: stretch"
    assert reminder.labels == ["Snooze 10 min", "Snooze 1 h", "Tomorrow morning", "Done"]

    answer = await bot.api.wait_for_answer(bot.api.press_button(ALICE, reminder, "Snooze"))
    assert answer.text is not None and answer.text.startswith(
        f'Snoozed task {task_id} ("stretch") until'
    )
    assert "13:10:02" in answer.text
    snoozed = await bot.app.tasks.get_task(task_id, str(ALICE))
    assert snoozed.status is TaskStatus.ACTIVE
    assert snoozed.next_run == bot.clock.now() + timedelta(minutes=10)
    [listing] = await bot.say(ALICE, "/tasks")
    assert f"[{task_id}] reminder: stretch" in listing
    assert "next run: 2025-03-10 13:10:02" in listing


async def test_tasks_lists_a_chat_made_task_and_its_cancel_button_cancels_it(
    bot: AppBot,
) -> None:
    task_id = _task_id((await bot.say(ALICE, "remind me in 1 hour to call mom"))[0])
    [listing] = await bot.say_messages(ALICE, "/tasks")
    assert listing.text.startswith("Your tasks (times in Europe/Berlin):")
    assert f"[{task_id}] reminder: call mom" in listing.text
    assert "next run: 2025-03-10 14:00" in listing.text
    assert listing.labels == [f"Cancel {task_id}", f"Pause {task_id}", f"Run now {task_id}"]

    answer = await bot.api.wait_for_answer(
        bot.api.press_button(ALICE, listing, f"Cancel {task_id}")
    )
    assert answer.text == f'Cancelled task {task_id} ("call mom").'
    await bot.api.wait_until(lambda: listing.edits == 1)
    assert task_id not in listing.text
    cancelled = await bot.app.tasks.get_task(task_id, str(ALICE))
    assert cancelled.status is TaskStatus.CANCELLED
    assert await bot.say(ALICE, "/tasks") == [NO_TASKS]


async def test_a_note_answers_a_later_question(bot: AppBot) -> None:
    [saved] = await bot.say(ALICE, "note: the wifi password is tulip-42")
    assert "the wifi password is tulip-42" in saved
    [answer] = await bot.say(ALICE, "what is the wifi password?")
    assert answer == "From your notes: the wifi password is tulip-42"
    # Bob's question finds nothing of Alice's.
    [other] = await bot.say(BOB, "what is the wifi password?")
    assert other.startswith("I found nothing in your notes")
    assert "tulip" not in other
    assert bot.tool_runs() == ["save_note", "search_memory", "search_memory"]


async def test_a_scheduled_post_needs_the_owners_approval(bot: AppBot) -> None:
    # The pause is one message: what the assistant said, then the card with its buttons.
    [card] = await bot.say_messages(ALICE, "at 1am daily POST http://home.lan/lights/off")
    assert card.text.startswith(
        "I'll schedule POST http://home.lan/lights/off at 1am daily once you approve.\n\n"
        "Approval needed\n"
    )
    assert "\nTool: add_recurring_task\n" in card.text
    # Each argument in words: the request's own fields, not "execution_data" or "task_type".
    assert (
        "  kind: HTTP request\n  description: POST http://home.lan/lights/off\n"
        "  method: POST\n  url: http://home.lan/lights/off\n"
    ) in card.text
    assert "execution" not in card.text and "task_type" not in card.text
    assert "{" not in card.text  # no JSON
    assert "Expires at 2025-03-10 13:30 (Europe/Berlin)" in card.text
    assert card.labels == ["Approve", "Deny"]

    refused = await bot.api.wait_for_answer(bot.api.press_button(BOB, card, "Approve"))
    assert refused.show_alert
    assert refused.text == "Only the person who asked can approve or deny this."
    assert card.edits == 0
    assert await bot.app.tasks.list_tasks(str(ALICE)) == []
    assert await bot.app.tasks.list_tasks(str(BOB)) == []

    before = len(bot.api.sent_to(ALICE))
    approved = await bot.api.wait_for_answer(bot.api.press_button(ALICE, card, "Approve"))
    assert (approved.text, approved.show_alert) == ("Approved.", False)
    [follow_up] = (await bot.api.wait_for_messages(ALICE, before + 1))[before:]
    [task] = await bot.app.tasks.list_tasks(str(ALICE))
    assert task.task_type is TaskType.API_CALL
    assert task.id in follow_up.text
    assert follow_up.text.startswith("Scheduled the HTTP call 'POST http://home.lan/lights/off'")
    assert "next run tomorrow at 01:00 (Europe/Berlin)" in follow_up.text
    await bot.api.wait_until(lambda: card.edits == 1)
    assert card.text.endswith("✅ Approved") and card.buttons == []
    [listing] = await bot.say(ALICE, "/tasks")
    assert f"[{task.id}] api call: POST http://home.lan/lights/off" in listing
    assert "next run: 2025-03-11 01:00" in listing


async def test_a_reminder_due_while_the_bot_was_down_arrives_marked_late(
    api: BotApiStandin, tmp_path: Path
) -> None:
    async with running_app_bot(api, tmp_path, clock=ManualClock(T0)) as first:
        [confirmation] = await first.say(ALICE, "remind me in 1 minute to take the pills")
        task_id = _task_id(confirmation)
    # Down for two hours; the reminder's time passes meanwhile. The restarted app runs its
    # scheduler, as `assistant telegram` does, and fires the missed reminder by itself.
    later = ManualClock(T0 + timedelta(hours=2))
    async with running_app_bot(api, tmp_path, clock=later, run_scheduler=True) as second:
        [_, reminder] = await api.wait_for_messages(ALICE, 2)
        assert reminder.text.startswith("⏰ Reminder: take the pills")
        assert "late by 1 h 59 min" in reminder.text
        assert reminder.labels == ["Snooze 10 min", "Snooze 1 h", "Tomorrow morning", "Done"]
        await second.app.tasks.wait_idle()
        [run] = await second.app.tasks.history(task_id, str(ALICE))
        assert run.late_by == timedelta(hours=1, minutes=59)
        assert run.status is RunStatus.SUCCEEDED


def test_settings_take_their_field_names(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, timezone="Europe/Berlin")
    assert (settings.database_path, settings.timezone) == (
        tmp_path / "assistant.db",
        "Europe/Berlin",
    )


async def test_a_new_user_is_asked_the_zone_once_and_the_first_tz_keeps_clock_times(
    bot: AppBot,
) -> None:
    [first] = await bot.say(ALICE, "remind me tomorrow at 9am to call mom")
    [second] = await bot.say(ALICE, "remind me tomorrow at 10am to stretch")
    [chosen] = await bot.say(ALICE, "/tz America/New_York")
    [listing] = await bot.say(ALICE, "/tasks")

    assert first.startswith("I'll remind you tomorrow at 09:00 (Europe/Berlin) to call mom")
    assert "\n\nWhich time zone are you in? Until you say, I use Europe/Berlin" in first
    assert "Which time zone" not in second
    assert second.endswith(
        "\n\n(Times are in Europe/Berlin until you set your zone: /tz America/New_York, or yours.)"
    )
    assert "Your 2 tasks made before keep their clock times there" in chosen
    assert "(Times are in" not in chosen
    assert "next run: 2025-03-11 09:00" in listing and "next run: 2025-03-11 10:00" in listing
    assert "Your tasks (times in America/New_York):" in listing

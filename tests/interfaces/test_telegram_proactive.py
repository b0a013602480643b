"""Issue 28 in Telegram, on the composed app (offline planner, SQLite) against the Bot API
stand-in with python-telegram-bot unmodified: monitors made in chat and by /watch on a real
page, quiet hours (/quiet) holding and releasing, reminders that nag until Done, "done" or
/done, Snooze 10 min / 1 h / tomorrow morning on every delivery, and the morning briefing."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import pytest

from common import ManualClock
from tasks import RunStatus, TaskStatus, TaskType
from testing.botapi_standin import BotApiStandin, SentMessage
from testing.page_server import PageServer
from tests.interfaces.app_harness import ALICE, T0, TOKEN, AppBot, running_app_bot

TASK_ID = re.compile(r"\(task (?P<id>\w+)\)")
SNOOZES = ["Snooze 10 min", "Snooze 1 h", "Tomorrow morning"]


@pytest.fixture
async def api() -> AsyncIterator[BotApiStandin]:
    async with BotApiStandin(token=TOKEN) as server:
        yield server


@pytest.fixture
async def bot(api: BotApiStandin, tmp_path: Path) -> AsyncIterator[AppBot]:
    """The bot on a fresh app at 13:00 Berlin time; 127.0.0.1 may be fetched (the page)."""
    more = {"ASSISTANT_HTTP_ALLOW_HOSTS": "127.0.0.1"}
    async with running_app_bot(api, tmp_path, clock=ManualClock(T0), more=more) as running:
        await running.app.memory.set_timezone(str(ALICE), "Europe/Berlin")
        yield running


def task_id(text: str) -> str:
    found = TASK_ID.search(text)
    assert found is not None, text
    return found["id"]


async def tick(bot: AppBot, span: timedelta) -> None:
    bot.clock.advance(span)
    await bot.app.tasks.run_due()
    await bot.app.tasks.release_due()


async def next_message(bot: AppBot, seen: int) -> SentMessage:
    return (await bot.api.wait_for_messages(ALICE, seen + 1))[seen]


def page(stock: str) -> str:
    return f"<html><body><h1>Kettle</h1><p id='stock'>{stock}</p></body></html>"


async def test_a_monitor_said_in_chat_speaks_once_per_change_and_can_be_snoozed(
    bot: AppBot,
) -> None:
    async with PageServer(page("Sold out")) as site:
        url = site.url("/kettle")
        [made] = await bot.say(
            ALICE, f"every 30 minutes check {url} and tell me if it says in stock"
        )
        assert made.startswith(f"I'll check {url} every 30 minutes (Europe/Berlin) and tell you")
        monitor = task_id(made)
        await tick(bot, timedelta(0))  # the first look, at once: silent
        for _ in range(3):
            await tick(bot, timedelta(minutes=30))  # sold out: silent
        seen = len(bot.api.sent_to(ALICE))
        site.show(page("In stock"))
        await tick(bot, timedelta(minutes=30))
        told = await next_message(bot, seen)
        await tick(bot, timedelta(minutes=30))  # still in stock: silent
    assert told.text == (
        f"watch {url} for contains 'in stock': it contains 'in stock' now.\n- Sold out\n+ In stock"
    )
    assert told.labels == SNOOZES
    assert len(bot.api.sent_to(ALICE)) == seen + 1
    runs = await bot.app.tasks.history(monitor, str(ALICE))
    assert [r.status for r in runs] == [RunStatus.SUCCEEDED] * 6  # silent checks are there

    answer = await bot.api.wait_for_answer(bot.api.press_button(ALICE, told, "Snooze 1 h"))
    assert answer.text == "I'll show it again at 16:30."
    await bot.api.wait_until(lambda: told.edits == 1)
    assert told.text.endswith("\n\n💤 Again at 16:30")
    await tick(bot, timedelta(minutes=59))
    assert len(bot.api.sent_to(ALICE)) == seen + 1
    await tick(bot, timedelta(minutes=1))
    again = await next_message(bot, seen + 1)
    assert again.text.startswith(f"watch {url} for contains 'in stock'")
    assert again.text.endswith("- Sold out\n+ In stock\n(snoozed at 15:30)")


async def test_watch_lists_and_makes_monitors(bot: AppBot) -> None:
    [none] = await bot.say(ALICE, "/watch")
    assert none.startswith("You watch nothing yet.")
    async with PageServer(page("Sold out")) as site:
        [made] = await bot.say(ALICE, f"/watch #stock on {site.url('/k')} for 'in stock'")
        assert f"I'll check {site.url('/k')} (#stock) every hour" in made
        [listed] = await bot.say(ALICE, "/watch")
    assert listed.startswith("What you watch:\n- [")
    assert "monitor: watch" in listed and "every hour" in listed


async def test_quiet_hours_hold_reminders_and_release_them_together_marked(bot: AppBot) -> None:
    [quiet] = await bot.say(ALICE, "/quiet 22:00-07:00")
    assert quiet.startswith("Quiet hours: from 22:00 to 07:00 (Europe/Berlin).")
    for words in ("remind me at 23:00 to stretch", "remind me at 5am to leave for the train"):
        await bot.say(ALICE, words)
    [alarm] = await bot.say(ALICE, "urgent: remind me at 23:30 to take the medicine")
    assert "It is urgent: it comes even in your quiet hours." in alarm
    seen = len(bot.api.sent_to(ALICE))
    await tick(bot, timedelta(hours=10))  # 23:00
    await tick(bot, timedelta(minutes=30))  # 23:30: the urgent one comes
    urgent = await next_message(bot, seen)
    assert urgent.text == "⏰ Reminder: take the medicine"
    await tick(bot, timedelta(hours=5, minutes=30))  # 05:00
    await tick(bot, timedelta(hours=1, minutes=59))  # 06:59
    assert len(bot.api.sent_to(ALICE)) == seen + 1
    await tick(bot, timedelta(minutes=1))  # 07:00
    held = (await bot.api.wait_for_messages(ALICE, seen + 3))[seen + 1 :]
    assert [m.text for m in held] == [
        "⏰ Reminder: stretch\n(held during your quiet hours since 23:00)",
        "⏰ Reminder: leave for the train\n(held during your quiet hours since 05:00)",
    ]
    assert held[0].labels == [*SNOOZES, "Done"]
    [shown] = await bot.say(ALICE, "/quiet")
    assert shown == "Your quiet hours: from 22:00 to 07:00 (Europe/Berlin); /quiet off ends them."
    [off] = await bot.say(ALICE, "/quiet off")
    assert off == "Quiet hours are off: messages arrive when they are due."


async def test_a_nagging_reminder_stops_at_done_and_the_history_shows_it(bot: AppBot) -> None:
    [made] = await bot.say(
        ALICE, "remind me in 1 minute to take the pills and keep reminding me every 5 minutes "
        "until I say done",
    )  # fmt: skip
    assert "It repeats every 5 min until you say done (or press Done)." in made
    pills = task_id(made)
    seen = len(bot.api.sent_to(ALICE))
    await tick(bot, timedelta(minutes=1))
    await tick(bot, timedelta(minutes=5))
    [first, second] = (await bot.api.wait_for_messages(ALICE, seen + 2))[seen:]
    assert first.text == (
        "⏰ Reminder: take the pills\n(again every 5 min until you press Done or say 'done')"
    )
    answer = await bot.api.wait_for_answer(bot.api.press_button(ALICE, second, "Done"))
    assert answer.text == f"Done: task {pills} ('take the pills') will not repeat."
    await bot.api.wait_until(lambda: second.edits == 1)
    await tick(bot, timedelta(minutes=5))
    await tick(bot, timedelta(minutes=5))
    assert len(bot.api.sent_to(ALICE)) == seen + 2
    task = await bot.app.tasks.get_task(pills, str(ALICE))
    assert task.status is TaskStatus.DONE
    [runs] = await bot.say(ALICE, f"/runs {pills}")
    assert "acknowledged: Done in Telegram" in runs.splitlines()[1]


async def test_done_said_or_typed_stops_the_reminder_the_chat_was_about(bot: AppBot) -> None:
    for said in ("done", "/done"):
        [made] = await bot.say(ALICE, "nag me every 10 minutes to call the bank")
        bank = task_id(made)
        seen = len(bot.api.sent_to(ALICE))
        await tick(bot, timedelta(minutes=10))
        await next_message(bot, seen)
        [reply] = await bot.say(ALICE, said)
        assert reply == f"Done: task {bank} ('call the bank') will not repeat."
        await tick(bot, timedelta(minutes=10))
        assert len(bot.api.sent_to(ALICE)) == seen + 2  # the reminder and the reply, no more
        [ack, *_] = await bot.app.tasks.history(bank, str(ALICE))
        where = "'done' in Telegram" if said == "done" else "/done in Telegram"
        assert ack.result == f"acknowledged: {where}"


async def test_a_reminder_is_snoozed_until_tomorrow_morning(bot: AppBot) -> None:
    [made] = await bot.say(ALICE, "remind me in 1 minute to water the plants")
    plants = task_id(made)
    seen = len(bot.api.sent_to(ALICE))
    await tick(bot, timedelta(minutes=1))
    reminder = await next_message(bot, seen)
    answer = await bot.api.wait_for_answer(bot.api.press_button(ALICE, reminder, "Tomorrow"))
    assert (
        answer.text
        == f'Snoozed task {plants} ("water the plants") until 2025-03-11 08:00 (Europe/Berlin).'
    )
    task = await bot.app.tasks.get_task(plants, str(ALICE))
    assert task.status is TaskStatus.ACTIVE


async def test_the_morning_briefing_arrives_with_the_day(bot: AppBot) -> None:
    [started] = await bot.say(ALICE, "/briefing 7:30")
    assert started.startswith("Started your morning briefing: [")
    assert "every day at 07:30" in started
    await bot.say(ALICE, "remind me tomorrow at 9 to call the dentist")
    await bot.say(ALICE, "note: bring the insurance card #tomorrow")
    [task] = [
        t for t in await bot.app.tasks.list_tasks(str(ALICE)) if t.task_type is TaskType.BRIEFING
    ]
    seen = len(bot.api.sent_to(ALICE))
    await tick(bot, timedelta(hours=18, minutes=30))  # 07:30 the next day
    briefing = await next_message(bot, seen)
    assert briefing.text == (
        "Good morning! Your briefing for Tue 2025-03-11 (Europe/Berlin):\n\n"
        "Today\n- 09:00 reminder: call the dentist\n\n"
        "Notes for today\n- bring the insurance card"
    )
    assert briefing.labels == SNOOZES
    [moved] = await bot.say(ALICE, "/briefing 8")
    assert moved.startswith(f"Moved your morning briefing: [{task.id}]")
    [stopped] = await bot.say(ALICE, "/briefing off")
    assert stopped == f"Stopped your morning briefing (task {task.id})."

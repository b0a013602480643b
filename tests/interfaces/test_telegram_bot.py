"""The Telegram bot end to end: python-telegram-bot, unmodified, against the Bot API stand-in."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator, Mapping
from datetime import timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from agent import AgentReply, ApprovalReply, DialogAgent, EventCallback
from common import ManualClock
from interfaces import NO_TASKS
from interfaces.telegram import (
    INVALID_BUTTON,
    TelegramInterface,
    TelegramSetupError,
    WebhookConfig,
)
from tasks import TaskStatus
from testing.botapi_standin import ApiError, BotApiStandin
from tests.interfaces.telegram_harness import (
    ALICE,
    BOB,
    GROUP,
    STRANGER,
    Harness,
    running_bot,
)
from tests.interfaces.world import T0, open_world
from tools import Tool


@pytest.fixture
async def bot(botapi: BotApiStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    async with running_bot(botapi, tmp_path) as harness:
        yield harness


async def test_start_registers_the_commands_menu(bot: Harness) -> None:
    assert [c["command"] for c in bot.api.state.commands] == [
        "start",
        "help",
        "tasks",
        "cancel",
        "snooze",
        "runs",
        "done",
        "watch",
        "quiet",
        "briefing",
        "notes",
        "tz",
        "dateorder",
        "approvals",
        "tools",
        "new",
    ]
    assert bot.api.calls_of("deleteWebhook")  # polling starts by removing any webhook


async def test_tools_learn_what_telegram_says_about_the_sender(bot: Harness) -> None:
    [reply] = await bot.say(ALICE, "who am i")
    # What Telegram says, with what the user's stored settings say (the zone was asked).
    assert reply == f"first_name=user{ALICE}, language_code=en, timezone_asked=yes"


async def test_a_stranger_is_refused_and_nothing_runs(bot: Harness) -> None:
    [refusal] = await bot.say(STRANGER, "post http://evil.example/")
    assert refusal.startswith("Sorry, this is a private assistant.")
    assert f"Your Telegram user id is {STRANGER}" in refusal
    assert "TELEGRAM_ALLOWED_USERS" in refusal
    # A second message within the cooldown gets no second reply.
    bot.api.send_text(STRANGER, "/tasks")
    await bot.api.wait_consumed()
    await bot.say(ALICE, "hello")  # the bot is alive and answers Alice
    assert len(bot.api.sent_to(STRANGER)) == 1
    assert bot.world.gadgets.posts == []
    assert await bot.world.memory.load_conversation(str(STRANGER), str(STRANGER)) == []
    assert await bot.world.memory.get_user(str(STRANGER)) is None
    assert not bot.api.calls_of("sendChatAction") or all(
        c.params["chat_id"] != STRANGER for c in bot.api.calls_of("sendChatAction")
    )


async def test_a_strangers_button_press_gets_an_alert(bot: Harness) -> None:
    await bot.say(ALICE, "/tasks")
    task = await bot.world.remind(str(ALICE), timedelta(minutes=5))
    [listing] = await bot.say(ALICE, "/tasks")
    message = bot.api.sent_to(ALICE)[-1]
    assert listing == message.text
    answer = await bot.api.wait_for_answer(bot.api.press_button(STRANGER, message, "Cancel"))
    assert answer.show_alert and answer.text is not None and "private assistant" in answer.text
    assert (await bot.world.manager.get_task(task.id, str(ALICE))).status is TaskStatus.ACTIVE


async def test_start_greets_and_asks_for_the_zone(bot: Harness) -> None:
    [greeting] = await bot.say(ALICE, "/start")
    assert greeting.startswith("Hi! I'm your assistant.")
    assert "Which time zone are you in?" in greeting
    [answer] = await bot.say(ALICE, "/tz Europe/Berlin")
    assert answer == "Your time zone is now Europe/Berlin (it is 13:00 there)."
    [again] = await bot.say(ALICE, "/start")
    assert "Your time zone is Europe/Berlin" in again


async def test_unknown_commands_get_the_help(bot: Harness) -> None:
    [help_text] = await bot.say(ALICE, "/frobnicate now")
    assert help_text.startswith("I don't know the command '/frobnicate'.")
    assert "/snooze ID 10m" in help_text


async def test_plain_text_goes_to_the_agent_with_typing_shown(bot: Harness) -> None:
    [reply] = await bot.say(ALICE, "hello <b>there</b> *you*")
    assert reply == "You said: hello <b>there</b> *you*"
    [message] = bot.api.sent_to(ALICE)
    assert message.parse_mode is None  # plain text: nothing to escape, nothing mangled
    methods = [c.method for c in bot.api.state.calls if c.params.get("chat_id") == ALICE]
    assert methods.index("sendchataction") < methods.index("sendmessage")
    typing = bot.api.calls_of("sendChatAction")[0]
    assert typing.params["action"] == "typing"


async def test_reminder_is_confirmed_delivered_with_buttons_and_snoozed(bot: Harness) -> None:
    await bot.say(ALICE, "/tz Europe/Berlin")
    [confirmation] = await bot.say(ALICE, "remind 2 stretch")
    assert confirmation.startswith("I'll remind you at 13:00:02")
    [task] = await bot.world.manager.list_tasks(str(ALICE))

    bot.world.clock.advance(timedelta(seconds=2))
    assert await bot.world.manager.run_due() == 1
    [reminder] = (await bot.api.wait_for_messages(ALICE, 3))[2:]
    assert reminder.text == "⏰ Reminder: stretch"
    assert reminder.labels == ["Snooze 10 min", "Snooze 1 h", "Tomorrow morning", "Done"]

    query = bot.api.press_button(ALICE, reminder, "Snooze")
    answer = await bot.api.wait_for_answer(query)
    assert answer.text == (
        f'Snoozed task {task.id} ("stretch") until 2025-03-10 13:10:02 (Europe/Berlin).'
    )
    await bot.api.wait_until(lambda: reminder.edits == 1)
    assert reminder.text.endswith("💤 " + str(answer.text))
    assert reminder.buttons == []
    snoozed = await bot.world.manager.get_task(task.id, str(ALICE))
    assert snoozed.status is TaskStatus.ACTIVE
    assert snoozed.next_run == bot.world.clock.now() + timedelta(minutes=10)


async def test_done_button_marks_the_reminder(bot: Harness) -> None:
    bot.api.add_chat(ALICE)  # Alice has started the bot before
    task = await bot.world.remind(str(ALICE), timedelta(seconds=1))
    bot.world.clock.advance(timedelta(seconds=1))
    await bot.world.manager.run_due()
    [reminder] = await bot.api.wait_for_messages(ALICE, 1)
    answer = await bot.api.wait_for_answer(bot.api.press_button(ALICE, reminder, "Done"))
    assert (answer.text, answer.show_alert) == (
        f"Marked as done: task {task.id} ('stretch').",
        False,
    )
    await bot.api.wait_until(lambda: reminder.edits == 1)
    assert reminder.text == "⏰ Reminder: stretch\n\n✅ Done"
    [acknowledged, _] = await bot.world.manager.history(task.id, str(ALICE))
    assert acknowledged.result == "acknowledged: Done in Telegram"


async def test_tasks_list_and_its_cancel_button(bot: Harness) -> None:
    first = await bot.world.remind(str(ALICE), timedelta(minutes=5), "stretch")
    second = await bot.world.remind(str(ALICE), timedelta(hours=2), "call mom")
    await bot.say(ALICE, "/tasks")
    listing = bot.api.sent_to(ALICE)[-1]
    assert f"[{first.id}] reminder: stretch" in listing.text
    assert "next run: 2025-03-10 12:05" in listing.text  # UTC until Alice sets a zone
    assert listing.labels == [
        f"Cancel {first.id}",
        f"Pause {first.id}",
        f"Run now {first.id}",
        f"Cancel {second.id}",
        f"Pause {second.id}",
        f"Run now {second.id}",
    ]
    answer = await bot.api.wait_for_answer(
        bot.api.press_button(ALICE, listing, f"Cancel {first.id}")
    )
    assert answer.text == f'Cancelled task {first.id} ("stretch").'
    await bot.api.wait_until(lambda: listing.edits == 1)
    assert first.id not in listing.text and second.id in listing.text
    assert (await bot.world.manager.get_task(first.id, str(ALICE))).status is TaskStatus.CANCELLED


async def test_forged_button_data_gets_a_polite_alert(bot: Harness) -> None:
    await bot.say(ALICE, "hello")
    message = bot.api.sent_to(ALICE)[-1]
    for data in ("garbage", "a1:c:../../etc:", "a1:y:" + "x" * 60):
        answer = await bot.api.wait_for_answer(bot.api.press(ALICE, message, data))
        assert (answer.text, answer.show_alert) == (INVALID_BUTTON, True)
    assert await bot.say(ALICE, "still there?") == ["You said: still there?"]


async def test_approve_in_a_group_only_by_the_asker(bot: Harness) -> None:
    # The pause is one message: the card with its buttons.
    await bot.say(ALICE, "post http://lights.lan/off", chat=GROUP, replies=1)
    card = bot.api.sent_to(GROUP)[-1]
    assert card.text.startswith("Approval needed\nTool: post")
    assert "  url: http://lights.lan/off" in card.text
    assert card.labels == ["Approve", "Deny"]

    refused = await bot.api.wait_for_answer(bot.api.press_button(BOB, card, "Approve"))
    assert refused.show_alert and refused.text == (
        "Only the person who asked can approve or deny this."
    )
    assert bot.world.gadgets.posts == []
    assert card.edits == 0

    before = len(bot.api.sent_to(GROUP))
    approved = await bot.api.wait_for_answer(bot.api.press_button(ALICE, card, "Approve"))
    assert (approved.text, approved.show_alert) == ("Approved.", False)
    [follow_up] = (await bot.api.wait_for_messages(GROUP, before + 1))[before:]
    assert follow_up.text.endswith("POST http://lights.lan/off -> 200")
    assert card.text.endswith("\n\n✅ Approved") and card.buttons == []
    assert bot.world.gadgets.posts == ["http://lights.lan/off"]


async def test_deny_runs_nothing_and_a_late_press_says_expired(bot: Harness) -> None:
    await bot.say(ALICE, "post http://a.lan", replies=1)
    card = bot.api.sent_to(ALICE)[-1]
    denied = await bot.api.wait_for_answer(bot.api.press_button(ALICE, card, "Deny"))
    assert denied.text == "Denied."
    await bot.api.wait_until(lambda: card.edits == 1)
    assert card.text.endswith("❌ Denied")
    await bot.api.wait_for_messages(ALICE, 2)  # the agent's answer to the denial

    await bot.say(ALICE, "post http://b.lan", replies=1)
    late_card = bot.api.sent_to(ALICE)[-1]
    bot.world.clock.advance(timedelta(minutes=31))
    late = await bot.api.wait_for_answer(bot.api.press_button(ALICE, late_card, "Approve"))
    assert (
        late.show_alert and late.text is not None and late.text.startswith("This request expired")
    )
    await bot.api.wait_until(lambda: late_card.edits == 1)
    assert "⌛ Expired" in late_card.text
    assert bot.world.gadgets.posts == []


async def test_a_long_reply_is_split_on_paragraph_boundaries(bot: Harness) -> None:
    # 40 paragraphs of about 910 characters: four fit in one message.
    parts = await bot.say(ALICE, "long 40", replies=10)
    messages = bot.api.sent_to(ALICE)
    assert len(messages) == 10
    assert all(len(m.text) <= 4096 for m in messages)
    assert all(m.text.startswith("Paragraph ") for m in messages)
    joined = "\n\n".join(m.text for m in messages)
    assert joined.count("Paragraph ") == 40
    assert parts[0].startswith("Paragraph 0:")


async def test_a_429_is_waited_out_and_nothing_is_lost(bot: Harness) -> None:
    bot.api.fail_next("sendMessage", ApiError.rate_limited(2), chat_id=ALICE)
    assert await bot.say(ALICE, "one") == ["You said: one"]
    assert await bot.say(ALICE, "two") == ["You said: two"]
    assert len(bot.api.calls_of("sendMessage")) == 3
    assert 2.0 in bot.queue_time.slept


async def test_a_blocked_user_pauses_their_reminder_and_the_run_is_undelivered(
    bot: Harness,
) -> None:
    bot.api.add_chat(ALICE)
    task = await bot.world.remind(str(ALICE), timedelta(seconds=1))
    later = await bot.world.remind(str(ALICE), timedelta(hours=1), "water plants")
    bot.api.block(ALICE)
    bot.world.clock.advance(timedelta(seconds=1))
    await bot.world.manager.run_due()
    [run] = await bot.world.manager.history(task.id, str(ALICE))
    assert run.status.value == "undelivered"
    assert (await bot.world.manager.get_task(later.id, str(ALICE))).status is TaskStatus.PAUSED
    assert bot.api.sent_to(ALICE) == []
    assert len(bot.api.calls_of("sendMessage")) == 1  # blocked is final: no retries


async def test_other_bots_commands_and_non_text_messages(bot: Harness) -> None:
    bot.api.send_text(ALICE, "/tasks@some_other_bot", chat_id=GROUP)
    await bot.api.wait_consumed()
    bot.api.send_sticker(ALICE)
    [answer] = await bot.api.wait_for_messages(ALICE, 1)
    assert answer.text.startswith("I can only read text messages.")
    assert await bot.say(ALICE, "/tasks@assistant_test_bot", chat=GROUP) == [NO_TASKS]
    assert len(bot.api.sent_to(GROUP)) == 1


async def test_a_failing_update_gets_an_apology_and_the_bot_goes_on(
    botapi: BotApiStandin, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with open_world(tmp_path / "w") as world:
        crashing = CrashingAgent(world.agent)
        async with running_bot(botapi, tmp_path, agent=crashing) as harness:
            [apology] = await harness.say(ALICE, "crash")
            assert apology.startswith("Sorry, something went wrong on my side (error id ")
            assert await harness.say(ALICE, "fine") == ["You said: fine"]
    error_id = apology.split("error id ")[1].split(")")[0]
    [record] = [r for r in caplog.records if error_id in r.getMessage()]
    assert record.exc_info is not None
    assert "a bug while handling the update" in str(record.exc_info[1])


async def test_a_bad_token_is_a_clear_setup_error(botapi: BotApiStandin, tmp_path: Path) -> None:
    async with open_world(tmp_path) as world:
        interface = TelegramInterface(
            token="123:wrong",
            base_url=botapi.base_url,
            allowed_users=[ALICE],
            agent=world.agent,
            tasks=world.manager,
            memory=world.memory,
        )
        with pytest.raises(TelegramSetupError, match="TELEGRAM_BOT_TOKEN") as refused:
            await interface.start()
        assert "wrong" not in str(refused.value)  # the token stays out of messages and logs


class CrashingAgent:
    """The real agent, except that the message "crash" raises (a bug in a handler)."""

    def __init__(self, agent: DialogAgent) -> None:
        self._agent = agent

    async def handle_message(
        self,
        text: str,
        *,
        user_id: str,
        chat_id: str,
        profile: Mapping[str, str] | None = None,
        on_event: EventCallback | None = None,
    ) -> AgentReply:
        if text == "crash":
            raise RuntimeError("a bug while handling the update")
        return await self._agent.handle_message(
            text, user_id=user_id, chat_id=chat_id, profile=profile, on_event=on_event
        )

    async def reset(self, *, user_id: str, chat_id: str) -> None:
        await self._agent.reset(user_id=user_id, chat_id=chat_id)

    async def resolve_approval(
        self,
        request_id: str,
        *,
        approved: bool,
        by: str,
        on_event: EventCallback | None = None,
    ) -> ApprovalReply:
        return await self._agent.resolve_approval(
            request_id, approved=approved, by=by, on_event=on_event
        )

    async def user_zone(self, user_id: str) -> ZoneInfo:
        return await self._agent.user_zone(user_id)

    def available_tools(self) -> list[Tool]:
        return self._agent.available_tools()


async def test_a_reminder_due_while_the_bot_was_down_is_delivered_late(
    botapi: BotApiStandin, tmp_path: Path
) -> None:
    async with running_bot(botapi, tmp_path) as first:
        await first.say(ALICE, "/tz Europe/Berlin")
        task = await first.world.remind(str(ALICE), timedelta(minutes=1), "take the pills")
    # Down for two hours; the reminder's time passes meanwhile.
    later = ManualClock(T0 + timedelta(hours=2))
    async with running_bot(botapi, tmp_path, clock=later) as second:
        assert await second.world.manager.run_due() == 1
        [_, reminder] = await botapi.wait_for_messages(ALICE, 2)
        assert reminder.text.startswith("⏰ Reminder: take the pills")
        assert "late by 1 h 59 min" in reminder.text
        assert reminder.labels == ["Snooze 10 min", "Snooze 1 h", "Tomorrow morning", "Done"]
        [run] = await second.world.manager.history(task.id, str(ALICE))
        assert run.late_by is not None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


async def test_webhook_mode_receives_updates_by_post(botapi: BotApiStandin, tmp_path: Path) -> None:
    port = _free_port()
    hook = WebhookConfig(
        url=f"http://127.0.0.1:{port}/hook",
        listen="127.0.0.1",
        port=port,
        path="hook",
        secret_token="s3cret",
    )
    async with open_world(tmp_path) as world:
        interface = TelegramInterface(
            token=botapi.token,
            base_url=botapi.base_url,
            allowed_users=[ALICE],
            agent=world.agent,
            tasks=world.manager,
            memory=world.memory,
            webhook=hook,
        )
        async with interface:
            assert botapi.state.webhook_url == hook.url
            assert not botapi.calls_of("getUpdates")
            botapi.send_text(ALICE, "hello hook")
            await botapi.push_to_webhook()
            [reply] = await botapi.wait_for_messages(ALICE, 1)
            # Alice's first contact: the reply asks her zone too.
            assert reply.text.startswith("You said: hello hook\n\nWhich time zone are you in?")

"""The Telegram Notifier: what reminders, results and notices look like, and how they end."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from telegram import Bot

from interfaces import Action, ActionKind
from interfaces.telegram import OutgoingQueue, TelegramNotifier, decode_action
from tasks import Delivery, DeliveryKind, DeliveryStatus
from testing.botapi_standin import ApiError, BotApiStandin
from tests.interfaces.fakes import USER, FakeTime


def _reminder(text: str = "stretch", *, late_by: timedelta | None = None) -> Delivery:
    return Delivery(
        task_id="k3m9xa",
        run_id=7,
        owner_id=str(USER),
        chat_id=str(USER),
        kind=DeliveryKind.REMINDER,
        text=text,
        late_by=late_by,
    )


async def test_reminder_arrives_with_snooze_and_done(
    api: BotApiStandin, ptb_bot: Bot, queue_time: FakeTime
) -> None:
    notifier = TelegramNotifier(OutgoingQueue(ptb_bot, clock=queue_time))
    assert await notifier.deliver(_reminder()) is DeliveryStatus.DELIVERED
    [message] = api.sent_to(USER)
    assert message.text == "⏰ Reminder: stretch"
    assert message.parse_mode is None
    assert message.labels == ["Snooze 10 min", "Snooze 1 h", "Tomorrow morning", "Done"]
    snooze = decode_action(message.button("Snooze").callback_data)
    assert snooze == Action(ActionKind.SNOOZE, "k3m9xa", "10m")
    assert decode_action(message.button("Done").callback_data) == Action(ActionKind.DONE, "k3m9xa")


async def test_a_late_reminder_is_shown_with_its_own_late_note_once(
    api: BotApiStandin, ptb_bot: Bot, queue_time: FakeTime
) -> None:
    # The scheduler writes the late note into the text; the interface adds no second one.
    notifier = TelegramNotifier(OutgoingQueue(ptb_bot, clock=queue_time))
    late = replace(
        _reminder(late_by=timedelta(hours=2, minutes=5)),
        text="stretch\n(late by 2 h 5 min: it was due at 09:00 (Europe/Berlin))",
    )
    assert await notifier.deliver(late) is DeliveryStatus.DELIVERED
    assert api.sent_to(USER)[0].text == (
        "⏰ Reminder: stretch\n(late by 2 h 5 min: it was due at 09:00 (Europe/Berlin))"
    )


async def test_results_and_notices_can_be_snoozed_too(
    api: BotApiStandin, ptb_bot: Bot, queue_time: FakeTime
) -> None:
    notifier = TelegramNotifier(OutgoingQueue(ptb_bot, clock=queue_time))
    result = Delivery("t1", 1, str(USER), str(USER), DeliveryKind.RESULT, "Top 3: a, b, c")
    notice = Delivery("t1", None, str(USER), str(USER), DeliveryKind.NOTICE, "disabled")
    assert await notifier.deliver(result) is DeliveryStatus.DELIVERED
    assert await notifier.deliver(notice) is DeliveryStatus.DELIVERED
    snoozes = ["Snooze 10 min", "Snooze 1 h", "Tomorrow morning"]
    assert [(m.text, m.labels) for m in api.sent_to(USER)] == [
        ("Top 3: a, b, c", snoozes),
        ("ℹ️ disabled", snoozes),
    ]
    [message, _] = api.sent_to(USER)
    pressed = decode_action(message.button("Tomorrow").callback_data)
    assert pressed == Action(ActionKind.LATER, "t1", "morning")


async def test_a_notice_of_unknown_outcome_offers_run_again_bound_to_its_run(
    api: BotApiStandin, ptb_bot: Bot, queue_time: FakeTime
) -> None:
    notifier = TelegramNotifier(OutgoingQueue(ptb_bot, clock=queue_time))
    notice = Delivery(
        "t1", 12, str(USER), str(USER), DeliveryKind.NOTICE, "may or may not", run_again=True
    )
    assert await notifier.deliver(notice) is DeliveryStatus.DELIVERED
    [message] = api.sent_to(USER)
    assert message.labels == ["Run again", "Snooze 10 min", "Snooze 1 h", "Tomorrow morning"]
    pressed = decode_action(message.button("Run again").callback_data)
    assert pressed == Action(ActionKind.RUN_AGAIN, "t1", "12")


async def test_429_is_waited_out_and_nothing_is_lost(
    api: BotApiStandin, ptb_bot: Bot, queue_time: FakeTime
) -> None:
    api.fail_next("sendMessage", ApiError.rate_limited(3), chat_id=USER)
    notifier = TelegramNotifier(OutgoingQueue(ptb_bot, clock=queue_time))
    start = queue_time.now()
    assert await notifier.deliver(_reminder()) is DeliveryStatus.DELIVERED
    assert [m.text for m in api.sent_to(USER)] == ["⏰ Reminder: stretch"]
    [refused, accepted] = api.calls_of("sendMessage")
    assert accepted.at - refused.at >= 3
    assert queue_time.now() - start >= timedelta(seconds=3)


async def test_a_blocked_user_is_reported_blocked_without_retrying(
    api: BotApiStandin, ptb_bot: Bot, queue_time: FakeTime
) -> None:
    api.block(USER)
    notifier = TelegramNotifier(OutgoingQueue(ptb_bot, clock=queue_time))
    assert await notifier.deliver(_reminder()) is DeliveryStatus.BLOCKED
    assert len(api.calls_of("sendMessage")) == 1
    assert queue_time.slept == []


async def test_unknown_chats_are_blocked(
    api: BotApiStandin, ptb_bot: Bot, queue_time: FakeTime
) -> None:
    notifier = TelegramNotifier(OutgoingQueue(ptb_bot, clock=queue_time))
    gone = Delivery("t1", 1, "9", "9", DeliveryKind.REMINDER, "x")
    assert await notifier.deliver(gone) is DeliveryStatus.BLOCKED
    terminal = Delivery("t1", 1, "me", "terminal", DeliveryKind.REMINDER, "x")
    assert await notifier.deliver(terminal) is DeliveryStatus.BLOCKED


async def test_long_text_is_split_with_buttons_on_the_last_part(
    api: BotApiStandin, ptb_bot: Bot, queue_time: FakeTime
) -> None:
    text = "\n\n".join(f"part {i}: " + "x" * 3000 for i in range(3))
    notifier = TelegramNotifier(OutgoingQueue(ptb_bot, clock=queue_time))
    assert await notifier.deliver(_reminder(text)) is DeliveryStatus.DELIVERED
    messages = api.sent_to(USER)
    assert len(messages) == 3
    assert [bool(m.buttons) for m in messages] == [False, False, True]
    assert messages[1].text.startswith("part 1:")


async def test_a_notifier_from_a_token_starts_its_bot_on_first_use_and_stops_on_close(
    api: BotApiStandin, queue_time: FakeTime
) -> None:
    notifier = TelegramNotifier.create(token=api.token, base_url=api.base_url, clock=queue_time)
    try:
        assert await notifier.deliver(_reminder()) is DeliveryStatus.DELIVERED
        assert len(api.calls_of("getMe")) == 1
        await notifier.queue.close()
        assert await notifier.deliver(_reminder()) is DeliveryStatus.FAILED
        assert len(api.sent_to(USER)) == 1
    finally:
        await notifier.queue.bot.shutdown()

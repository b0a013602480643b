"""The outgoing queue and the Telegram Notifier, against the Bot API stand-in."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator
from datetime import timedelta

import pytest
from telegram import Bot

from interfaces.replies import Action, ActionKind
from interfaces.telegram.delivery import TelegramNotifier
from interfaces.telegram.queue import OutgoingQueue, RateLimits
from interfaces.telegram.rendering import decode_action
from tasks.protocols import Delivery, DeliveryKind, DeliveryStatus
from tests.interfaces.botapi_standin import ApiError, BotApiStandin
from tests.interfaces.fakes import FakeTime

USER = 4242


@pytest.fixture
def clock() -> FakeTime:
    return FakeTime()


@pytest.fixture
async def api(clock: FakeTime) -> AsyncIterator[BotApiStandin]:
    async with BotApiStandin(stamp=clock.stamp) as server:
        server.add_chat(USER)
        yield server


@pytest.fixture
async def bot(api: BotApiStandin) -> AsyncIterator[Bot]:
    async with Bot(api.token, base_url=api.base_url) as started:
        yield started


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
    api: BotApiStandin, bot: Bot, clock: FakeTime
) -> None:
    notifier = TelegramNotifier(OutgoingQueue(bot, clock=clock))
    assert await notifier.deliver(_reminder()) is DeliveryStatus.DELIVERED
    [message] = api.sent_to(USER)
    assert message.text == "⏰ Reminder: stretch"
    assert message.parse_mode is None
    assert message.labels == ["Snooze 10 min", "Done"]
    snooze = decode_action(message.button("Snooze").callback_data)
    assert snooze == Action(ActionKind.SNOOZE, "k3m9xa", "10m")
    assert decode_action(message.button("Done").callback_data) == Action(ActionKind.DONE, "k3m9xa")


async def test_late_reminder_says_how_late(api: BotApiStandin, bot: Bot, clock: FakeTime) -> None:
    notifier = TelegramNotifier(OutgoingQueue(bot, clock=clock))
    late = _reminder(late_by=timedelta(hours=2, minutes=5))
    assert await notifier.deliver(late) is DeliveryStatus.DELIVERED
    assert "late by 2 h 5 min" in api.sent_to(USER)[0].text


async def test_results_and_notices_have_no_buttons(
    api: BotApiStandin, bot: Bot, clock: FakeTime
) -> None:
    notifier = TelegramNotifier(OutgoingQueue(bot, clock=clock))
    result = Delivery("t1", 1, str(USER), str(USER), DeliveryKind.RESULT, "Top 3: a, b, c")
    notice = Delivery("t1", None, str(USER), str(USER), DeliveryKind.NOTICE, "disabled")
    assert await notifier.deliver(result) is DeliveryStatus.DELIVERED
    assert await notifier.deliver(notice) is DeliveryStatus.DELIVERED
    assert [(m.text, m.buttons) for m in api.sent_to(USER)] == [
        ("Top 3: a, b, c", []),
        ("ℹ️ disabled", []),
    ]


async def test_429_is_waited_out_and_nothing_is_lost(
    api: BotApiStandin, bot: Bot, clock: FakeTime
) -> None:
    api.fail_next("sendMessage", ApiError.rate_limited(3), chat_id=USER)
    notifier = TelegramNotifier(OutgoingQueue(bot, clock=clock))
    start = clock.now()
    assert await notifier.deliver(_reminder()) is DeliveryStatus.DELIVERED
    assert [m.text for m in api.sent_to(USER)] == ["⏰ Reminder: stretch"]
    [refused, accepted] = api.calls_of("sendMessage")
    assert accepted.at - refused.at >= 3
    assert clock.now() - start >= timedelta(seconds=3)


async def test_a_blocked_user_is_reported_blocked_without_retrying(
    api: BotApiStandin, bot: Bot, clock: FakeTime
) -> None:
    api.block(USER)
    notifier = TelegramNotifier(OutgoingQueue(bot, clock=clock))
    assert await notifier.deliver(_reminder()) is DeliveryStatus.BLOCKED
    assert len(api.calls_of("sendMessage")) == 1
    assert clock.slept == []


async def test_unknown_chats_are_blocked(api: BotApiStandin, bot: Bot, clock: FakeTime) -> None:
    notifier = TelegramNotifier(OutgoingQueue(bot, clock=clock))
    gone = Delivery("t1", 1, "9", "9", DeliveryKind.REMINDER, "x")
    assert await notifier.deliver(gone) is DeliveryStatus.BLOCKED
    terminal = Delivery("t1", 1, "me", "terminal", DeliveryKind.REMINDER, "x")
    assert await notifier.deliver(terminal) is DeliveryStatus.BLOCKED


async def test_network_errors_are_retried_with_backoff(
    api: BotApiStandin, bot: Bot, clock: FakeTime
) -> None:
    api.fail_next("sendMessage", None, chat_id=USER, times=2)
    queue = OutgoingQueue(bot, clock=clock)
    outcome = await queue.send(USER, "hello")
    assert outcome.status is DeliveryStatus.DELIVERED
    assert clock.slept == [1.0, 2.0]
    assert [m.text for m in api.sent_to(USER)] == ["hello"]


async def test_network_errors_give_up_after_the_retry_budget(
    api: BotApiStandin, bot: Bot, clock: FakeTime
) -> None:
    api.fail_next("sendMessage", None, chat_id=USER, times=10)
    queue = OutgoingQueue(bot, limits=RateLimits(network_retries=2), clock=clock)
    outcome = await queue.send(USER, "hello")
    assert outcome.status is DeliveryStatus.FAILED
    assert outcome.error is not None and "after 3 attempts" in outcome.error
    assert api.sent_to(USER) == []


async def test_an_excessive_retry_after_fails_instead_of_hanging(
    api: BotApiStandin, bot: Bot, clock: FakeTime
) -> None:
    api.fail_next("sendMessage", ApiError.rate_limited(3600), chat_id=USER)
    outcome = await OutgoingQueue(bot, clock=clock).send(USER, "hello")
    assert outcome.status is DeliveryStatus.FAILED
    assert outcome.error is not None and "retry after 3600 s" in outcome.error


async def test_long_text_is_split_with_buttons_on_the_last_part(
    api: BotApiStandin, bot: Bot, clock: FakeTime
) -> None:
    text = "\n\n".join(f"part {i}: " + "x" * 3000 for i in range(3))
    notifier = TelegramNotifier(OutgoingQueue(bot, clock=clock))
    assert await notifier.deliver(_reminder(text)) is DeliveryStatus.DELIVERED
    messages = api.sent_to(USER)
    assert len(messages) == 3
    assert [bool(m.buttons) for m in messages] == [False, False, True]
    assert messages[1].text.startswith("part 1:")


async def test_one_chat_is_paced_to_one_message_a_second_after_a_burst(
    api: BotApiStandin, bot: Bot, clock: FakeTime
) -> None:
    queue = OutgoingQueue(bot, limits=RateLimits(per_chat_burst=3), clock=clock)
    outcomes = await asyncio.gather(*(queue.send(USER, f"m{i}") for i in range(6)))
    assert all(o.status is DeliveryStatus.DELIVERED for o in outcomes)
    assert [m.text for m in api.sent_to(USER)] == [f"m{i}" for i in range(6)]
    times = [call.at for call in api.calls_of("sendMessage")]
    gaps = [round(b - a, 3) for a, b in itertools.pairwise(times)]
    assert gaps == [0, 0, 1, 1, 1]


async def test_many_chats_stay_under_the_overall_limit(
    api: BotApiStandin, bot: Bot, clock: FakeTime
) -> None:
    chats = [api.add_chat(10_000 + i) for i in range(75)]
    queue = OutgoingQueue(bot, limits=RateLimits(overall_per_second=30), clock=clock)
    start = clock.now()
    outcomes = await asyncio.gather(*(queue.send(chat, "news") for chat in chats))
    assert all(o.status is DeliveryStatus.DELIVERED for o in outcomes)
    assert len(api.calls_of("sendMessage")) == 75
    # 30 go at once (the overall bucket's capacity); the other 45 need 1.5 s at 30/s.
    assert clock.now() - start >= timedelta(seconds=1.49)

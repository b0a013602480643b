"""The outgoing queue: pacing under Telegram's limits, 429s, network retries, blocked chats."""

from __future__ import annotations

import asyncio
import itertools
from datetime import timedelta

from telegram import Bot

from interfaces.telegram import OutgoingQueue, RateLimits
from tasks import DeliveryStatus
from testing.botapi_standin import ApiError, BotApiStandin
from tests.interfaces.fakes import USER, FakeTime


async def test_network_errors_are_retried_with_backoff(
    api: BotApiStandin, ptb_bot: Bot, queue_time: FakeTime
) -> None:
    api.fail_next("sendMessage", None, chat_id=USER, times=2)
    queue = OutgoingQueue(ptb_bot, clock=queue_time)
    outcome = await queue.send(USER, "hello")
    assert outcome.status is DeliveryStatus.DELIVERED
    assert queue_time.slept == [1.0, 2.0]
    assert [m.text for m in api.sent_to(USER)] == ["hello"]


async def test_network_errors_give_up_after_the_retry_budget(
    api: BotApiStandin, ptb_bot: Bot, queue_time: FakeTime
) -> None:
    api.fail_next("sendMessage", None, chat_id=USER, times=10)
    queue = OutgoingQueue(ptb_bot, limits=RateLimits(network_retries=2), clock=queue_time)
    outcome = await queue.send(USER, "hello")
    assert outcome.status is DeliveryStatus.FAILED
    assert outcome.error is not None and "after 3 attempts" in outcome.error
    assert api.sent_to(USER) == []


async def test_an_excessive_retry_after_fails_instead_of_hanging(
    api: BotApiStandin, ptb_bot: Bot, queue_time: FakeTime
) -> None:
    api.fail_next("sendMessage", ApiError.rate_limited(3600), chat_id=USER)
    outcome = await OutgoingQueue(ptb_bot, clock=queue_time).send(USER, "hello")
    assert outcome.status is DeliveryStatus.FAILED
    assert outcome.error is not None and "retry after 3600 s" in outcome.error


async def test_one_chat_is_paced_to_one_message_a_second_after_a_burst(
    api: BotApiStandin, ptb_bot: Bot, queue_time: FakeTime
) -> None:
    queue = OutgoingQueue(ptb_bot, limits=RateLimits(per_chat_burst=3), clock=queue_time)
    outcomes = await asyncio.gather(*(queue.send(USER, f"m{i}") for i in range(6)))
    assert all(o.status is DeliveryStatus.DELIVERED for o in outcomes)
    assert [m.text for m in api.sent_to(USER)] == [f"m{i}" for i in range(6)]
    times = [call.at for call in api.calls_of("sendMessage")]
    gaps = [round(b - a, 3) for a, b in itertools.pairwise(times)]
    assert gaps == [0, 0, 1, 1, 1]


async def test_many_chats_stay_under_the_overall_limit(
    api: BotApiStandin, ptb_bot: Bot, queue_time: FakeTime
) -> None:
    chats = [api.add_chat(10_000 + i) for i in range(75)]
    queue = OutgoingQueue(ptb_bot, limits=RateLimits(overall_per_second=30), clock=queue_time)
    start = queue_time.now()
    outcomes = await asyncio.gather(*(queue.send(chat, "news") for chat in chats))
    assert all(o.status is DeliveryStatus.DELIVERED for o in outcomes)
    assert len(api.calls_of("sendMessage")) == 75
    # 30 go at once (the overall bucket's capacity); the other 45 need 1.5 s at 30/s.
    assert queue_time.now() - start >= timedelta(seconds=1.49)


async def test_edits_replace_text_and_buttons_and_an_unchanged_edit_is_fine(
    api: BotApiStandin, ptb_bot: Bot, queue_time: FakeTime
) -> None:
    queue = OutgoingQueue(ptb_bot, clock=queue_time)
    [message_id] = (await queue.send(USER, "before")).message_ids
    assert (await queue.edit(USER, message_id, "after")).status is DeliveryStatus.DELIVERED
    assert (await queue.edit(USER, message_id, "after")).status is DeliveryStatus.DELIVERED
    [message] = api.sent_to(USER)
    assert (message.text, message.edits) == ("after", 1)
    missing = await queue.edit(USER, 999_999, "x")
    assert missing.status is DeliveryStatus.FAILED
    assert missing.error is not None and "message to edit not found" in missing.error.lower()

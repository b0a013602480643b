"""Replies that grow in place in Telegram while the model writes them.

The bot runs for real against the Bot API stand-in. The model is the world's scripted one,
which streams word by word; ``WritingAgent`` makes each word take 0.3 s of the outgoing
queue's fake time, so the pacing of the updates can be checked exactly, without waiting.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Mapping, Sequence
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from agent import AgentEvent, AgentEventKind, AgentReply, ApprovalReply, DialogAgent, EventCallback
from agent.llm import ChatMessage, LLMResponse
from interfaces.telegram import LIVE_INTERVAL
from testing.botapi_standin import ApiCall, BotApiStandin, SentMessage
from tests.interfaces.fakes import FakeTime
from tests.interfaces.telegram_harness import ALICE, GROUP, Harness, running_bot
from tests.interfaces.world import default_script
from tools import Tool

SECONDS_PER_WORD = 0.3
_PACED = frozenset({"sendmessage", "sendmessagedraft", "editmessagetext", "deletemessage"})


class WritingAgent:
    """The real agent, its model writing one word every ``SECONDS_PER_WORD`` of fake time;
    with ``waiting``, the model is first busy with another person's request and says so."""

    def __init__(self, agent: DialogAgent, *, waiting: str = "") -> None:
        self._agent = agent
        self._waiting = waiting
        self.time: FakeTime | None = None

    async def handle_message(
        self,
        text: str,
        *,
        user_id: str,
        chat_id: str,
        profile: Mapping[str, str] | None = None,
        on_event: EventCallback | None = None,
    ) -> AgentReply:
        async def writing(event: AgentEvent) -> None:
            if event.kind is AgentEventKind.TEXT_DELTA and self.time is not None:
                self.time.advance(SECONDS_PER_WORD)
            if on_event is not None:
                outcome = on_event(event)
                if outcome is not None:
                    await outcome

        if self._waiting:
            await writing(AgentEvent(AgentEventKind.WAITING, user_id, chat_id, text=self._waiting))
        return await self._agent.handle_message(
            text, user_id=user_id, chat_id=chat_id, profile=profile, on_event=writing
        )

    async def resolve_approval(
        self, request_id: str, *, approved: bool, by: str, on_event: EventCallback | None = None
    ) -> ApprovalReply:
        return await self._agent.resolve_approval(
            request_id, approved=approved, by=by, on_event=on_event
        )

    async def reset(self, *, user_id: str, chat_id: str) -> None:
        await self._agent.reset(user_id=user_id, chat_id=chat_id)

    async def user_zone(self, user_id: str) -> ZoneInfo:
        return await self._agent.user_zone(user_id)

    def available_tools(self) -> Sequence[Tool]:
        return self._agent.available_tools()


def script(messages: Sequence[ChatMessage]) -> str | LLMResponse:
    """The world's model, except that it says what it is about to do before a POST."""
    reply = default_script(messages)
    if messages[-1].content.startswith("post "):
        return f"I will post that for you once you approve. {reply}"
    return reply


@pytest.fixture
async def bot(api: BotApiStandin, queue_time: FakeTime, tmp_path: Path) -> AsyncIterator[Harness]:
    writer: WritingAgent | None = None

    def make(agent: DialogAgent) -> WritingAgent:
        nonlocal writer
        writer = WritingAgent(agent)
        return writer

    async with running_bot(
        api, tmp_path, wrap_agent=make, script=script, queue_time=queue_time
    ) as harness:
        assert writer is not None
        writer.time = harness.queue_time
        yield harness


def words(count: int) -> str:
    return " ".join(f"word{i}" for i in range(count))


def paced_calls(api: BotApiStandin, chat_id: int) -> list[ApiCall]:
    return [c for c in api.state.calls if c.method in _PACED and c.params["chat_id"] == chat_id]


def assert_paced(calls: list[ApiCall]) -> None:
    """At most 3 back to back, then one a second: any 4 calls span at least a second."""
    stamps = [call.at for call in calls]
    spans = [later - earlier for earlier, later in zip(stamps, stamps[3:], strict=False)]
    assert all(span >= 1.0 - 1e-6 for span in spans), spans


async def final_message(api: BotApiStandin, chat_id: int, text: str) -> SentMessage:
    """Wait until the chat's last message reads ``text`` (a preview is edited into it)."""
    await api.wait_until(
        lambda: bool(api.sent_to(chat_id)) and api.sent_to(chat_id)[-1].text == text
    )
    return api.sent_to(chat_id)[-1]


async def test_a_reply_grows_as_a_draft_then_arrives_as_a_message(bot: Harness) -> None:
    text = words(30)

    [reply] = await bot.say(ALICE, text)

    assert reply == f"You said: {text}"
    drafts = bot.api.drafts_to(ALICE)
    assert len(drafts) >= 3  # it grew...
    assert len(drafts) <= 30 * SECONDS_PER_WORD / LIVE_INTERVAL + 1  # ...at most once a second
    assert all(later.startswith(earlier) for earlier, later in itertools.pairwise(drafts))
    assert reply.startswith(drafts[-1])
    assert len(bot.api.sent_to(ALICE)) == 1  # drafts are no messages
    assert_paced(paced_calls(bot.api, ALICE))


async def test_without_drafts_a_preview_message_is_edited_into_the_reply(bot: Harness) -> None:
    bot.api.state.drafts_supported = False  # a Bot API server from before drafts
    text = words(30)

    bot.api.send_text(ALICE, text)
    message = await final_message(bot.api, ALICE, f"You said: {text}")

    assert message.edits >= 2  # it grew in place
    assert len(bot.api.sent_to(ALICE)) == 1
    assert bot.api.drafts_to(ALICE) == []
    assert_paced(paced_calls(bot.api, ALICE))
    # Drafts stay off once they failed: the next reply is edited in place at once.
    drafts_tried = len(bot.api.calls_of("sendMessageDraft"))
    bot.api.send_text(ALICE, words(10))
    await final_message(bot.api, ALICE, f"You said: {words(10)}")
    assert len(bot.api.calls_of("sendMessageDraft")) == drafts_tried


async def test_a_group_has_no_drafts_and_gets_an_edited_preview(bot: Harness) -> None:
    text = words(20)

    bot.api.send_text(ALICE, text, chat_id=GROUP)
    message = await final_message(bot.api, GROUP, f"You said: {text}")

    assert message.edits >= 1
    assert len(bot.api.sent_to(GROUP)) == 1
    assert not bot.api.calls_of("sendMessageDraft")


async def test_a_reply_too_long_for_one_message_replaces_its_preview(bot: Harness) -> None:
    bot.api.send_text(ALICE, "long 6", chat_id=GROUP)  # about 5,500 characters

    await bot.api.wait_until(
        lambda: (
            len(bot.api.sent_to(GROUP)) == 2 and bot.api.sent_to(GROUP)[-1].text.endswith("words")
        )
    )

    first, second = bot.api.sent_to(GROUP)
    assert first.text.startswith("Paragraph 0:") and second.text.startswith("Paragraph 4:")
    deleted = [m for m in bot.api.state.messages.values() if m.chat_id == GROUP and m.deleted]
    assert len(deleted) == 1 and deleted[0].text.startswith("Paragraph 0:")


async def test_an_approval_card_takes_the_place_of_the_preview(bot: Harness) -> None:
    bot.api.state.drafts_supported = False

    bot.api.send_text(ALICE, "post http://lights.lan/off")
    await bot.api.wait_until(
        lambda: bool(bot.api.sent_to(ALICE)) and bool(bot.api.sent_to(ALICE)[-1].buttons)
    )

    [card] = bot.api.sent_to(ALICE)
    assert card.edits >= 1  # it was the preview of what the model said before its call
    assert card.text.startswith("I will post that for you once you approve.\n\nApproval needed")
    assert card.labels == ["Approve", "Deny"]
    assert bot.world.gadgets.posts == []


BUSY = "The model is busy: 1 request ahead of yours. Your answer follows."


@pytest.mark.parametrize("drafts", [True, False], ids=["draft", "preview message"])
async def test_a_busy_model_s_notice_shows_until_the_reply_replaces_it(
    api: BotApiStandin, queue_time: FakeTime, tmp_path: Path, drafts: bool
) -> None:
    api.state.drafts_supported = drafts

    def busy(agent: DialogAgent) -> WritingAgent:
        return WritingAgent(agent, waiting=BUSY)

    text = words(10)
    async with running_bot(api, tmp_path, wrap_agent=busy, queue_time=queue_time):
        api.send_text(ALICE, text)
        message = await final_message(api, ALICE, f"You said: {text}")

    assert len(api.sent_to(ALICE)) == 1
    if drafts:
        assert api.drafts_to(ALICE)[0] == BUSY
    else:  # the notice was the preview message, edited into the reply
        assert message.edits >= 1
        [first] = [c for c in api.calls_of("sendMessage") if c.params["chat_id"] == ALICE]
        assert first.params["text"] == BUSY

"""The Bot API stand-in speaks enough Telegram for python-telegram-bot, unmodified."""

from __future__ import annotations

from datetime import timedelta

import pytest
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup
from telegram.error import BadRequest, Forbidden, NetworkError, RetryAfter

from testing.botapi_standin import ApiError, BotApiStandin

USER = 111


def _bot(botapi: BotApiStandin) -> Bot:
    return Bot(botapi.token, base_url=botapi.base_url)


async def test_get_me_and_send_message_with_buttons(botapi: BotApiStandin) -> None:
    botapi.add_chat(USER)
    markup = InlineKeyboardMarkup([[InlineKeyboardButton("Done", callback_data="d:1")]])
    async with _bot(botapi) as bot:
        assert bot.username == botapi.bot_username
        sent = await bot.send_message(USER, "hello & <b>", reply_markup=markup)
    assert sent.text == "hello & <b>"
    [message] = botapi.sent_to(USER)
    assert message.text == "hello & <b>"
    assert message.labels == ["Done"]
    assert message.button("Done").callback_data == "d:1"


async def test_get_updates_long_polls_and_confirms_by_offset(botapi: BotApiStandin) -> None:
    async with _bot(botapi) as bot:
        assert await bot.get_updates(timeout=0) == ()
        botapi.send_text(USER, "/tasks now")
        [update] = await bot.get_updates(timeout=5)
        assert update.message is not None
        assert update.message.text == "/tasks now"
        assert update.message.entities[0].type == "bot_command"
        assert update.effective_user is not None and update.effective_user.id == USER
        # Not confirmed yet: it comes again; then the offset confirms it.
        assert [u.update_id for u in await bot.get_updates(timeout=0)] == [update.update_id]
        assert await bot.get_updates(offset=update.update_id + 1, timeout=0) == ()
    assert botapi.state.updates == []


async def test_callback_query_round_trip(botapi: BotApiStandin) -> None:
    botapi.add_chat(USER)
    markup = InlineKeyboardMarkup([[InlineKeyboardButton("Go", callback_data="go")]])
    async with _bot(botapi) as bot:
        await bot.send_message(USER, "press", reply_markup=markup)
        query_id = botapi.press_button(USER, botapi.sent_to(USER)[0], "Go")
        [update] = await bot.get_updates(timeout=5)
        query = update.callback_query
        assert query is not None and query.data == "go" and query.id == query_id
        assert query.message is not None
        await query.answer("no", show_alert=True)
        with pytest.raises(BadRequest, match=r"(?i)query is too old"):
            await query.answer("twice")
        await bot.edit_message_text("pressed", chat_id=USER, message_id=query.message.message_id)
    answer = await botapi.wait_for_answer(query_id)
    assert (answer.text, answer.show_alert) == ("no", True)
    [message] = botapi.sent_to(USER)
    assert (message.text, message.buttons, message.edits) == ("pressed", [], 1)


async def test_telegram_error_replies(
    botapi: BotApiStandin, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PTB_TIMEDELTA", "true")  # retry_after read as a timedelta, not warned
    botapi.add_chat(USER)
    botapi.add_chat(222)
    botapi.block(222)
    botapi.fail_next("sendMessage", ApiError.rate_limited(3), chat_id=USER)
    async with _bot(botapi) as bot:
        with pytest.raises(RetryAfter) as rate_limited:
            await bot.send_message(USER, "x")
        assert rate_limited.value.retry_after == timedelta(seconds=3)
        with pytest.raises(Forbidden, match=r"(?i)bot was blocked by the user"):
            await bot.send_message(222, "x")
        with pytest.raises(BadRequest, match=r"(?i)message is too long"):
            await bot.send_message(USER, "x" * 4097)
        with pytest.raises(BadRequest, match=r"(?i)chat not found"):
            await bot.send_message(999, "x")
        botapi.fail_next("sendMessage", None, chat_id=USER)
        with pytest.raises(NetworkError):
            await bot.send_message(USER, "dropped")
        await bot.send_message(USER, "x" * 4096)
    assert [len(m.text) for m in botapi.sent_to(USER)] == [4096]


async def test_commands_and_chat_actions(botapi: BotApiStandin) -> None:
    botapi.add_chat(USER)
    async with _bot(botapi) as bot:
        assert await bot.set_my_commands([("tasks", "List your tasks")])
        assert [c.command for c in await bot.get_my_commands()] == ["tasks"]
        with pytest.raises(BadRequest, match=r"(?i)bot_command_invalid"):
            await bot.set_my_commands([("Bad-Name", "x")])
        assert await bot.send_chat_action(USER, "typing")
    assert len(botapi.calls_of("sendChatAction")) == 1

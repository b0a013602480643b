"""An .ics file sent to the bot, and ``/calendar``, end to end: python-telegram-bot against the
Bot API stand-in (which serves the file as Telegram does: getFile, then a download)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from testing.botapi_standin import BotApiStandin
from tests.interfaces.telegram_harness import ALICE, Harness, running_bot

FILES = Path(__file__).parent.parent / "calendars" / "files"


@pytest.fixture
async def bot(botapi: BotApiStandin, tmp_path: Path) -> AsyncIterator[Harness]:
    async with running_bot(botapi, tmp_path, calendars=True) as harness:
        await harness.world.memory.set_timezone(str(ALICE), "Europe/Berlin")
        yield harness


async def test_a_calendar_file_is_previewed_then_imported_with_its_button(bot: Harness) -> None:
    api = bot.api
    before = len(api.sent_to(ALICE))
    api.send_document(ALICE, "standup.ics", (FILES / "thunderbird.ics").read_bytes(),
                      mime_type="text/calendar")  # fmt: skip
    (preview,) = (await api.wait_for_messages(ALICE, before + 1))[before:]
    assert preview.text.startswith("2 reminders will be made:")
    assert "'Renew passport': once at 2026-11-30 12:00 (Europe/Berlin)" in preview.text
    assert await bot.world.manager.list_tasks(str(ALICE)) == []
    answer = await api.wait_for_answer(api.press_button(ALICE, preview, "Import 2"))
    assert answer.text is not None and answer.text.startswith("Made 2 reminders")
    made = await bot.world.manager.list_tasks(str(ALICE))
    assert sorted(task.description for task in made) == ["Renew passport", "Standup"]
    assert all(task.chat_id == str(ALICE) for task in made)


async def test_a_file_that_is_no_calendar_gets_an_answer_saying_so(bot: Harness) -> None:
    api = bot.api
    before = len(api.sent_to(ALICE))
    api.send_document(ALICE, "notes.txt", b"shopping: milk", mime_type="text/plain")
    (answer,) = (await api.wait_for_messages(ALICE, before + 1))[before:]
    assert answer.text.startswith("I read text messages, and calendar files (.ics)")
    api.send_document(ALICE, "broken.ics", b"not a calendar at all")
    (refusal,) = (await api.wait_for_messages(ALICE, before + 2))[before + 1 :]
    assert refusal.text.startswith("This is not an iCalendar file")


async def test_calendar_is_in_the_menu_and_shows_the_feed_address(bot: Harness) -> None:
    assert "calendar" in [c["command"] for c in bot.api.state.commands]
    (reply,) = await bot.say(ALICE, "/calendar")
    assert "Subscribe to this address in your calendar app" in reply
    assert "/calendar/" in reply and ".ics" in reply

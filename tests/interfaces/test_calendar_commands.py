"""``/calendar`` (the shared slash command) and the import buttons, over the real manager and
memory, with calendars read by address from a server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from calendars import Calendars, day_span
from common import GuardedHttp, NetGuard
from interfaces import Action, ActionKind, CommandReply, SlashCommands
from tests.interfaces.world import World, calendar_commands, open_world

ALICE = "alice"
FILES = Path(__file__).parent.parent / "calendars" / "files"


@dataclass
class Served:
    """A calendar file on 127.0.0.1 (its address) and what the commands see."""

    world: World
    commands: SlashCommands
    url: str


BROKEN = (
    "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:x\r\nBEGIN:VEVENT\r\nUID:d-1\r\n"
    "SUMMARY:Dentist\r\nDTSTART:notadate\r\nBEGIN:VALARM\r\nACTION:DISPLAY\r\n"
    "TRIGGER:-PT5M\r\nEND:VALARM\r\nEND:VEVENT\r\nBEGIN:VEVENT\r\nUID:l-1\r\n"
    "SUMMARY:Lunch\r\nDTSTART:20261103T113000Z\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
)
"""A calendar of an event whose start cannot be read, and a good one."""


async def _serve_file(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, bodies: dict[str, bytes]
) -> None:
    request = await reader.readuntil(b"\r\n\r\n")
    path = request.split(b" ")[1].decode()
    body = bodies.get(path)
    status = "200 OK" if body is not None else "404 File not found"
    body = body if body is not None else b"no such file"
    head = f"HTTP/1.1 {status}\r\nContent-Type: text/calendar\r\nContent-Length: {len(body)}\r\n"
    writer.write(head.encode() + b"Connection: close\r\n\r\n" + body)
    await writer.drain()
    writer.close()


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[Served]:
    bodies = {"/work.ics": (FILES / "thunderbird.ics").read_bytes(), "/broken.ics": BROKEN.encode()}
    server = await asyncio.start_server(lambda r, w: _serve_file(r, w, bodies), "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    http = GuardedHttp(guard=NetGuard(allow_hosts=["127.0.0.1"]))
    async with open_world(tmp_path) as world:
        commands = calendar_commands(world, http=http, public_url="https://assistant.example.org")
        await world.memory.set_timezone(ALICE, "Europe/Berlin")
        try:
            yield Served(world, commands, f"http://127.0.0.1:{port}/work.ics")
        finally:
            await http.aclose()
            server.close()
            await server.wait_closed()


async def ask(served: Served, text: str) -> CommandReply:
    reply = await served.commands.handle(text, user_id=ALICE, chat_id=ALICE)
    assert reply is not None
    return reply


async def test_calendar_makes_a_feed_shows_its_address_once_and_turns_it_off(
    served: Served,
) -> None:
    first = (await ask(served, "/calendar")).text
    found = re.search(r"https://assistant\.example\.org/calendar/[\w-]{43}\.ics", first)
    assert found is not None and "It is a secret" in first
    calendars = served.commands.calendar
    assert calendars is not None
    again = (await ask(served, "/calendar")).text
    assert "Your calendar feed was made on" in again and found[0] not in again  # never shown
    replaced = (await ask(served, "/calendar new")).text
    assert found[0] not in replaced and "/calendar off turns it off" in replaced
    assert (await ask(served, "/calendar off")).text.startswith("Your calendar feed is off")
    assert (await ask(served, "/calendar off")).text == (
        "You have no calendar feed; /calendar makes one."
    )


async def test_a_calendar_by_address_is_previewed_and_made_only_on_yes(served: Served) -> None:
    reply = await ask(served, f"/calendar import {served.url}")
    text = reply.text
    assert text.startswith("2 reminders will be made:")
    assert "'Standup': every weekday at 09:25, except Tue 2026-11-24" in text
    assert text.endswith("Make them? /calendar yes or /calendar no.")
    labels = [button.label for row in reply.replies[0].buttons for button in row]
    assert labels == ["Import 2", "Cancel"]
    assert await served.world.manager.list_tasks(ALICE) == []  # nothing before the yes
    made = (await ask(served, "/calendar yes")).text
    assert made.startswith("Made 2 reminders: ")
    assert len(await served.world.manager.list_tasks(ALICE)) == 2
    assert (await ask(served, "/calendar yes")).text.startswith("There is no calendar import")


async def test_the_import_buttons_make_or_drop_only_their_own_preview(served: Served) -> None:
    reply = await ask(served, f"/calendar import {served.url}")
    (import_button, cancel_button) = reply.replies[0].buttons[0]
    other = await served.commands.press(
        Action(ActionKind.IMPORT, "not-this-one"), user_id=ALICE, chat_id=ALICE
    )
    assert other.alert and await served.world.manager.list_tasks(ALICE) == []
    dropped = await served.commands.press(cancel_button.action, user_id=ALICE, chat_id=ALICE)
    assert dropped.mark == "Nothing was imported."
    late = await served.commands.press(import_button.action, user_id=ALICE, chat_id=ALICE)
    assert late.alert and await served.world.manager.list_tasks(ALICE) == []
    reply = await ask(served, f"/calendar import {served.url}")
    action = reply.replies[0].buttons[0][0].action
    # Someone else in the chat (a group) cannot make alice's import.
    bobs = await served.commands.press(action, user_id="bob", chat_id=ALICE)
    assert bobs.alert and await served.world.manager.list_tasks(ALICE) == []
    made = await served.commands.press(action, user_id=ALICE, chat_id=ALICE)
    assert made.mark is not None and made.mark.startswith("Made 2 reminders")


async def test_a_subscription_is_read_for_the_days_and_can_be_dropped(served: Served) -> None:
    said = (await ask(served, f"/calendar subscribe {served.url} work")).text
    assert said.startswith(f"Subscribed to {served.url} as 'work'")
    status = (await ask(served, "/calendar")).text
    read = served.world.clock.now().astimezone(ZoneInfo("Europe/Berlin"))
    assert f"- work: {served.url} (read {read:%Y-%m-%d %H:%M})" in status  # alice's zone
    assert (await ask(served, "/calendar unsubscribe work")).text == "Unsubscribed from 'work'."
    assert "not subscribed" in (await ask(served, "/calendar unsubscribe work")).text


async def test_a_malformed_calendar_is_named_and_its_other_events_read_for_the_days(
    served: Served,
) -> None:
    broken = served.url.replace("/work.ics", "/broken.ics")
    named = "the event 'Dentist' (UID d-1): its DTSTART 'notadate' is not a date or date-time"
    imported = (await ask(served, f"/calendar import {broken}")).text
    assert imported.startswith("The calendar file is malformed: " + named)
    assert await served.world.manager.list_tasks(ALICE) == []
    said = (await ask(served, f"/calendar subscribe {broken} team")).text
    assert said.startswith(f"Subscribed to {broken} as 'team'")
    assert said.endswith("Left out, as the file is malformed there:\n- " + named)
    world = served.world
    days = Calendars(  # the days read what the subscription kept (read just now)
        memory=world.memory, tasks=world.manager, clock=world.clock, zone_of=world.agent.user_zone
    )
    start, end = day_span(date(2026, 11, 3), ZoneInfo("Europe/Berlin"))
    day = await days.events(ALICE, start, end)
    assert [event.summary for event in day.events] == ["Lunch"]
    (problem,) = day.problems
    assert problem.startswith("the event 'Dentist' (UID d-1) of the calendar 'team' is left out")


async def test_the_terminal_names_the_event_of_a_malformed_file_by_its_path(
    tmp_path: Path,
) -> None:
    source = tmp_path / "baddate.ics"
    source.write_text(BROKEN)
    async with open_world(tmp_path) as world:
        terminal = calendar_commands(world, local_files=True)
        reply = await terminal.handle(f"/calendar import {source}", user_id=ALICE, chat_id=ALICE)
        assert reply is not None
        assert reply.text.startswith("The calendar file is malformed: the event 'Dentist'")
        for other in ("ftp://x/y.ics", "file:///etc/passwd"):
            refused = await terminal.handle(
                f"/calendar import {other}", user_id=ALICE, chat_id=ALICE
            )
            assert refused is not None and "calendars are read from http://" in refused.text


@pytest.mark.parametrize(
    ("command", "answer"),
    [
        ("/calendar import", "Say the calendar's address"),
        (
            "/calendar import http://127.0.0.1:{port}/nothere.ics",
            "http://127.0.0.1:{port}/nothere.ics answered 404 File not found, not a calendar.",
        ),
        ("/calendar import /etc/passwd", "is not a web address; send me the .ics file"),
        ("/calendar import http://10.0.0.1/x.ics", "Could not read http://10.0.0.1/x.ics"),
        ("/calendar sync", "Your reminders are not kept in step with a CalDAV calendar"),
        ("/calendar keep here x", "Your reminders are not kept in step"),
        ("/calendar frobnicate", "I don't know /calendar 'frobnicate'"),
        ("/calendar subscribe ftp://x/y.ics", "is not a calendar's web address"),
        ("/calendar unsubscribe caldav", "The synced calendar is set by ASSISTANT_CALDAV_URL"),
    ],
)
async def test_mistakes_are_answered_with_what_works(
    served: Served, command: str, answer: str
) -> None:
    port = served.url.split(":")[2].split("/")[0]
    said = (await ask(served, command.format(port=port))).text
    assert answer.format(port=port) in said


async def test_the_terminal_imports_a_file_by_its_path(tmp_path: Path) -> None:
    async with open_world(tmp_path) as world:
        await world.memory.set_timezone(ALICE, "Europe/Berlin")
        terminal = calendar_commands(world, local_files=True)
        reply = await terminal.handle(
            f"/calendar import {FILES / 'outlook.ics'}", user_id=ALICE, chat_id=ALICE
        )
        assert reply is not None and reply.text.startswith("2 reminders will be made:")
        assert "'Month-end close': RRULE 'FREQ=MONTHLY;BYMONTHDAY=31'" in reply.text

"""``Calendars``: the CalDAV sync as the front ends run it (against Radicale), and calendars
subscribed to by address, read again when old, their last copy kept when the address fails."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator, Sequence
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from agent import AgentReply, ApprovalReply
from calendars import (
    CaldavSettings,
    CalendarError,
    Calendars,
    SyncError,
    SyncSettings,
    day_span,
    task_uid,
)
from common import GuardedHttp, ManualClock, NetGuard
from interfaces import SlashCommands
from memory import MemoryStore
from tasks import TaskManager, TaskType, parse_schedule
from testing.radicale_server import RadicaleServer, make_calendar
from tests.calendars.conftest import PASSWORD, USER, ZONE, Notices
from tools import Tool

_names = itertools.count()


async def _zone(user: str) -> ZoneInfo:
    return ZONE


@pytest.fixture
async def synced(
    radicale: RadicaleServer, tasks: TaskManager, memory: MemoryStore, clock: ManualClock
) -> AsyncIterator[Calendars]:
    url = radicale.calendar_url(USER, f"service{next(_names)}")
    await make_calendar(url, USER, PASSWORD)
    sync = SyncSettings(
        calendar=CaldavSettings(url=url, username=USER, password=PASSWORD),
        user_id=USER,
        chat_id="chat-1",
    )
    # Its passes in the background are not started: the tests run theirs with sync_now.
    yield Calendars(
        memory=memory, tasks=tasks, clock=clock, zone_of=_zone, sync=sync, notifier=Notices()
    )


async def test_the_background_passes_start_and_stop_with_it(synced: Calendars) -> None:
    async with synced:
        await asyncio.sleep(0)  # the first pass is under way
    async with synced:  # and again: a stopped sync starts anew
        pass


async def test_calendar_sync_and_its_status_through_the_command(
    synced: Calendars, tasks: TaskManager, memory: MemoryStore, clock: ManualClock
) -> None:
    commands = SlashCommands(
        tasks=tasks, memory=memory, agent=_Agent(), clock=clock, calendars=synced
    )
    schedule = parse_schedule("every thursday at 8am", now=clock.now(), tz=ZONE)
    task = await tasks.add_task(
        owner_id=USER,
        chat_id="chat-1",
        task_type=TaskType.REMINDER,
        schedule=schedule,
        description="bins out",
    )
    reply = await commands.handle("/calendar sync", user_id=USER, chat_id="chat-1")
    assert reply is not None
    assert reply.text == f"Synced:\n- made in the calendar: 'bins out' ({task.id})"
    status = await commands.handle("/calendar", user_id=USER, chat_id="chat-1")
    assert status is not None
    assert "Your reminders are kept in step with http://127.0.0.1:" in status.text
    assert "- made in the calendar: 'bins out'" in status.text
    again = await commands.handle("/calendar sync", user_id=USER, chat_id="chat-1")
    assert again is not None
    assert again.text == "Synced: your reminders and the calendar were already in step."
    other = await commands.handle("/calendar sync", user_id="bob", chat_id="bob")
    assert other is not None and "not kept in step" in other.text
    with pytest.raises(CalendarError, match="no calendar conflict"):
        await synced.resolve(task_uid(task.id), "here")


async def test_a_pass_that_cannot_reach_the_server_is_recorded_and_raised(
    tasks: TaskManager, memory: MemoryStore, clock: ManualClock
) -> None:
    sync = SyncSettings(
        calendar=CaldavSettings(url="http://127.0.0.1:9/alice/cal/", username=USER),
        user_id=USER,
        chat_id="chat-1",
    )
    calendars = Calendars(memory=memory, tasks=tasks, clock=clock, zone_of=_zone, sync=sync)
    with pytest.raises(SyncError, match=r"127\.0\.0\.1:9"):
        await calendars.sync_now()
    last, report, error = calendars.sync_state()
    assert last == clock.now() and report is None and error is not None


class _Agent:
    """The little of the agent the calendar commands use: the user's zone."""

    async def user_zone(self, user_id: str) -> ZoneInfo:
        return ZONE

    async def handle_message(self, text: str, **kwargs: object) -> AgentReply:
        raise AssertionError("the calendar commands answer no messages")

    async def resolve_approval(self, request_id: str, **kwargs: object) -> ApprovalReply:
        raise AssertionError("the calendar commands decide no approvals")

    async def reset(self, *, user_id: str, chat_id: str) -> None:
        raise AssertionError("the calendar commands start no conversations")

    def available_tools(self) -> Sequence[Tool]:
        return ()


SUBSCRIBED = (
    "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:x\r\nBEGIN:VEVENT\r\nUID:e1\r\n"
    "DTSTAMP:20261101T000000Z\r\nDTSTART;TZID=Europe/Berlin:20261103T120000\r\n"
    "SUMMARY:{summary}\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
)


async def test_a_subscribed_calendar_is_read_again_when_old_and_kept_when_its_address_fails(
    tasks: TaskManager, memory: MemoryStore, clock: ManualClock
) -> None:
    served = {"status": 200, "summary": "Lunch"}

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        body = SUBSCRIBED.format(summary=served["summary"]).encode()
        writer.write(
            f"HTTP/1.1 {served['status']} X\r\nContent-Length: {len(body)}\r\n"
            f"Connection: close\r\n\r\n".encode()
            + body
        )
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    http = GuardedHttp(guard=NetGuard(allow_hosts=["127.0.0.1"]))
    calendars = Calendars(memory=memory, tasks=tasks, clock=clock, zone_of=_zone, http=http)
    try:
        source = (
            await calendars.subscribe(USER, f"http://127.0.0.1:{port}/team.ics", "team")
        ).source
        assert source.name == "team" and "Lunch" in source.ics
        start, end = day_span(datetime(2026, 11, 3).date(), ZONE)
        found = await calendars.events(USER, start, end)
        assert [e.summary for e in found.events] == ["Lunch"] and found.read

        served["summary"] = "Lunch moved"
        clock.advance(timedelta(minutes=30))  # not old yet: the copy serves
        assert [e.summary for e in (await calendars.events(USER, start, end)).events] == ["Lunch"]
        clock.advance(timedelta(minutes=31))
        found = await calendars.events(USER, start, end)
        assert [e.summary for e in found.events] == ["Lunch moved"]

        served["status"] = 500
        clock.advance(timedelta(hours=2))
        found = await calendars.events(USER, start, end)
        assert [e.summary for e in found.events] == ["Lunch moved"]  # the last copy
        (problem,) = found.problems
        assert problem.startswith("the calendar 'team' could not be read (")
        assert "answered 500" in problem
    finally:
        await http.aclose()
        server.close()
        await server.wait_closed()

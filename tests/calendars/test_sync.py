"""Two-way CalDAV sync against a real server (Radicale on 127.0.0.1).

"The other side" is what another calendar app does: plain HTTP PUT and DELETE of iCalendar
objects on the server (httpx), read back with ``icalendar``. Each test works in a calendar of
its own.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import httpx
import pytest
from icalendar import Calendar

from calendars import (
    CALDAV_SOURCE,
    CaldavCalendar,
    CaldavSettings,
    CalendarError,
    CalendarSync,
    RemoteCalendar,
    RemoteChanged,
    RemoteEvent,
    SyncError,
    day_span,
    events_between,
    task_uid,
)
from common import ManualClock
from memory import MemoryStore
from tasks import TaskManager, TaskStatus, TaskType, parse_schedule
from testing.radicale_server import RadicaleServer, make_calendar
from tests.calendars.conftest import PASSWORD, USER, ZONE, Notices

_names = itertools.count()


@dataclass
class World:
    """The sync under test, the server's calendar as another app sees it, and this side."""

    sync: CalendarSync
    calendar_url: str
    http: httpx.AsyncClient
    tasks: TaskManager
    memory: MemoryStore
    clock: ManualClock
    notices: Notices
    remote: RemoteCalendar

    async def put(self, name: str, ics: str, etag: str | None = None) -> None:
        """Another app stores an event."""
        headers = {"Content-Type": "text/calendar"}
        if etag:
            headers["If-Match"] = etag
        answer = await self.http.put(f"{self.calendar_url}{name}.ics", content=ics, headers=headers)
        assert answer.status_code in (201, 204), answer.text

    async def get(self, name: str) -> tuple[Calendar | None, str]:
        """Another app reads an event (``None``: it is not there)."""
        answer = await self.http.get(f"{self.calendar_url}{name}.ics")
        if answer.status_code == 404:
            return None, ""
        assert answer.status_code == 200, answer.text
        return Calendar.from_ical(answer.content), answer.headers.get("etag", "")

    async def delete(self, name: str) -> None:
        """Another app deletes an event."""
        answer = await self.http.delete(f"{self.calendar_url}{name}.ics")
        assert answer.status_code in (200, 204), answer.text

    async def remind(self, text: str, when: str) -> str:
        """A reminder made here; its id."""
        schedule = parse_schedule(when, now=self.clock.now(), tz=ZONE)
        task = await self.tasks.add_task(
            owner_id=USER,
            chat_id="chat-1",
            task_type=TaskType.REMINDER,
            schedule=schedule,
            description=text,
        )
        return task.id


def event(
    uid: str, summary: str, start: str, rule: str | None = None, alarm: str = "-PT10M"
) -> str:
    """An event as a phone's calendar app writes one (Apple's shape), in Europe/Berlin."""
    lines = [
        "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Apple Inc.//iOS 18.0//EN",
        "BEGIN:VEVENT", f"UID:{uid}", "DTSTAMP:20261101T120000Z",
        f"DTSTART;TZID=Europe/Berlin:{start}", f"SUMMARY:{summary}",
    ]  # fmt: skip
    if rule:
        lines.append(f"RRULE:{rule}")
    if alarm:
        lines += ["BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:Reminder",
                  f"TRIGGER:{alarm}", "END:VALARM"]  # fmt: skip
    lines += ["END:VEVENT", "END:VCALENDAR", ""]
    return "\r\n".join(lines)


@pytest.fixture
async def world(
    radicale: RadicaleServer,
    tasks: TaskManager,
    memory: MemoryStore,
    clock: ManualClock,
    notices: Notices,
) -> AsyncIterator[World]:
    url = radicale.calendar_url(USER, f"cal{next(_names)}")
    await make_calendar(url, USER, PASSWORD)
    async with (
        httpx.AsyncClient(auth=(USER, PASSWORD)) as http,
        CaldavCalendar(CaldavSettings(url=url, username=USER, password=PASSWORD)) as remote,
    ):
        sync = CalendarSync(
            remote=remote,
            tasks=tasks,
            memory=memory,
            clock=clock,
            user_id=USER,
            chat_id="chat-1",
            zone=ZONE,
            notifier=notices,
        )
        yield World(sync, url, http, tasks, memory, clock, notices, remote)


def rule_of(calendar: Calendar) -> tuple[str, str]:
    """The event's DTSTART (local) and RRULE."""
    (component,) = calendar.walk("VEVENT")
    start: Any = component["DTSTART"]
    rule: Any = component.get("RRULE")
    return start.dt.strftime("%Y-%m-%dT%H:%M"), "" if rule is None else rule.to_ical().decode()


# -- made, moved and cancelled here --------------------------------------------------------


async def test_a_reminder_made_moved_and_cancelled_here_does_the_same_there(world: World) -> None:
    task_id = await world.remind("water the plants", "every other friday at 6pm")
    report = await world.sync.run()
    assert report.made_there == [f"'water the plants' ({task_id})"]
    there, _ = await world.get(task_uid(task_id))
    assert there is not None
    assert rule_of(there) == ("2026-11-06T18:00", "FREQ=WEEKLY;INTERVAL=2;BYDAY=FR")
    (alarm,) = there.walk("VALARM")
    trigger: Any = alarm["TRIGGER"]
    assert trigger.dt == timedelta(0)

    moved = parse_schedule("every other saturday at 10am", now=world.clock.now(), tz=ZONE)
    await world.tasks.reschedule(task_id, USER, moved)
    report = await world.sync.run()
    assert report.changed_there == [f"'water the plants' ({task_id})"]
    there, _ = await world.get(task_uid(task_id))
    assert there is not None
    assert rule_of(there) == ("2026-11-07T10:00", "FREQ=WEEKLY;INTERVAL=2;BYDAY=SA")

    await world.tasks.cancel(task_id, USER)
    report = await world.sync.run()
    assert report.deleted_there == [f"'water the plants' ({task_id})"]
    assert (await world.get(task_uid(task_id)))[0] is None
    assert await world.memory.calendar_links(USER) == []
    assert (await world.sync.run()).lines() == []  # in step: nothing more to do


# -- made, moved and deleted there ----------------------------------------------------------


async def test_an_event_made_moved_and_deleted_there_does_the_same_here(world: World) -> None:
    await world.put("dentist", event("dentist-1", "Dentist", "20261105T090000"))
    report = await world.sync.run()
    (made,) = report.made_here
    (task,) = await world.tasks.list_tasks(USER)
    assert made == f"'Dentist' ({task.id})"
    assert task.task_type is TaskType.REMINDER
    assert task.next_run == datetime(2026, 11, 5, 8, 50, tzinfo=ZONE)  # 10 minutes before

    await world.put("dentist", event("dentist-1", "Dentist", "20261106T140000"))
    report = await world.sync.run()
    assert report.changed_here == [f"'Dentist' ({task.id})"]
    moved = await world.tasks.get_task(task.id, USER)
    assert moved.next_run == datetime(2026, 11, 6, 13, 50, tzinfo=ZONE)

    await world.delete("dentist")
    report = await world.sync.run()
    assert report.deleted_here == [f"'Dentist' ({task.id})"]
    gone = await world.tasks.get_task(task.id, USER)
    assert gone.status is TaskStatus.CANCELLED
    assert (await world.get(task_uid(task.id)))[0] is None  # not put back by the same pass
    assert (await world.sync.run()).lines() == []


async def test_an_event_renamed_there_is_a_new_reminder_here_and_only_that_is_there(
    world: World,
) -> None:
    await world.put("dentist", event("dentist-2", "Dentist", "20261105T090000"))
    await world.sync.run()
    (old,) = await world.tasks.list_tasks(USER)
    await world.put("dentist", event("dentist-2", "Dentist (Dr Lee)", "20261105T090000"))
    report = await world.sync.run()
    (new,) = await world.tasks.list_tasks(USER)
    assert new.id != old.id and new.description == "Dentist (Dr Lee)"
    assert report.changed_here == [f"'Dentist (Dr Lee)' ({new.id})"]
    assert report.made_there == [] and report.deleted_there == []
    assert (await world.tasks.get_task(old.id, USER)).status is TaskStatus.CANCELLED
    assert (await world.get(task_uid(old.id)))[0] is None  # the ended one is not pushed
    assert (await world.sync.run()).lines() == []


async def test_a_repeating_event_there_keeps_its_rule_zone_and_exceptions_here(
    world: World,
) -> None:
    ics = event(
        "standup-1", "Standup", "20261102T093000", "FREQ=WEEKLY;BYDAY=MO,WE,FR", alarm="-PT5M"
    ).replace("END:VEVENT", "EXDATE;TZID=Europe/Berlin:20261104T093000\r\nEND:VEVENT")
    await world.put("standup", ics)
    await world.sync.run()
    (task,) = await world.tasks.list_tasks(USER)
    assert task.schedule.describe() == (
        "every Monday, Wednesday and Friday at 09:25, except Wed 2026-11-04 (Europe/Berlin)"
    )


async def test_an_event_without_an_alarm_is_no_reminder_but_is_on_the_calendar(
    world: World,
) -> None:
    await world.put("lunch", event("lunch-1", "Lunch with Sam", "20261103T123000", alarm=""))
    report = await world.sync.run()
    assert report.made_here == [] and await world.tasks.list_tasks(USER) == []
    sources = await world.memory.calendar_sources(USER)
    assert [s.name for s in sources] == [CALDAV_SOURCE]
    start, end = day_span(datetime(2026, 11, 3).date(), ZONE)
    (found,), problems = events_between(sources, start, end, ZONE)
    assert problems == []
    assert found.summary == "Lunch with Sam"
    assert found.line(ZONE) == "Tue 12:30 Lunch with Sam (caldav)"


async def test_a_rule_the_language_cannot_say_is_reported_by_name_and_left_alone(
    world: World,
) -> None:
    await world.put(
        "club", event("club-1", "Book club", "20261110T190000", "FREQ=MONTHLY;BYDAY=2TU,4TU")
    )
    report = await world.sync.run()
    (refused,) = report.refused
    assert "'Book club'" in refused and "BYDAY=2TU,4TU" in refused
    assert await world.tasks.list_tasks(USER) == []
    assert (await world.sync.run()).refused == []  # said once, until the event changes


async def test_an_event_of_ours_is_not_made_again_when_its_link_was_lost(world: World) -> None:
    task_id = await world.remind("stretch", "every day at 3pm")
    await world.sync.run()
    await world.memory.save_calendar_links([], [(USER, task_uid(task_id))])
    report = await world.sync.run()
    assert report.lines() == []
    assert len(await world.tasks.list_tasks(USER)) == 1


# -- conflicts --------------------------------------------------------------------------------


async def test_a_change_on_both_sides_is_a_conflict_reported_and_never_settled_silently(
    world: World,
) -> None:
    task_id = await world.remind("call mom", "every sunday at 11am")
    await world.sync.run()
    uid = task_uid(task_id)
    there, etag = await world.get(uid)
    assert there is not None
    await world.tasks.reschedule(
        task_id, USER, parse_schedule("every sunday at noon", now=world.clock.now(), tz=ZONE)
    )
    changed = there.to_ical().decode().replace("20261108T110000", "20261108T170000")
    await world.put(uid, changed, etag)

    report = await world.sync.run()
    (conflict,) = report.conflicts
    assert "'call mom'" in conflict and "changed both here and in the calendar" in conflict
    assert "neither side was changed" in conflict
    here = await world.tasks.get_task(task_id, USER)
    assert here.schedule.describe() == "every Sunday at 12:00 (Europe/Berlin)"
    after, _ = await world.get(uid)
    assert after is not None and rule_of(after)[0] == "2026-11-08T17:00"
    (notice,) = world.notices.deliveries
    assert notice.text.startswith("Calendar sync: 'call mom'") and notice.chat_id == "chat-1"
    assert (await world.sync.run()).conflicts == []  # told once; still standing
    (link,) = await world.memory.calendar_links(USER)
    assert link.conflict is not None

    said = await world.sync.resolve(uid, "there")
    assert said.startswith("Kept the calendar's version")
    kept = await world.tasks.get_task(task_id, USER)
    assert kept.schedule.describe() == "every Sunday at 17:00 (Europe/Berlin)"
    assert (await world.sync.run()).lines() == []


async def test_a_cancel_here_and_a_change_there_is_a_conflict_settled_here(world: World) -> None:
    task_id = await world.remind("recycling", "every tuesday at 7pm")
    await world.sync.run()
    uid = task_uid(task_id)
    there, etag = await world.get(uid)
    assert there is not None
    await world.tasks.cancel(task_id, USER)
    await world.put(uid, there.to_ical().decode().replace("recycling", "Recycling!"), etag)

    report = await world.sync.run()
    (conflict,) = report.conflicts
    assert "cancelled here and changed in the calendar" in conflict
    assert (await world.get(uid))[0] is not None  # not deleted while in conflict

    said = await world.sync.resolve(uid, "here")
    assert said == "Kept it cancelled: the event is deleted from the calendar."
    assert (await world.get(uid))[0] is None
    with pytest.raises(CalendarError, match="no calendar conflict"):
        await world.sync.resolve(uid, "here")


async def test_a_new_event_never_overwrites_one_there_by_name_or_by_uid(world: World) -> None:
    await world.put("taken", event("taken", "Theirs", "20261105T090000"))
    await world.put("elsewhere", event("moved-uid", "Theirs too", "20261105T090000"))
    settings = CaldavSettings(url=world.calendar_url, username=USER, password=PASSWORD)
    async with CaldavCalendar(settings) as remote:
        for name, uid in (("taken", "taken"), ("moved-uid", "moved-uid")):
            with pytest.raises(RemoteChanged):
                await remote.create(name, event(uid, "Ours", "20261106T090000").encode())
        made = await remote.create("new-one", event("new-one", "Ours", "20261106T090000").encode())
        assert made.etag and made.href.endswith("/new-one.ics")
    for name, summary in (("taken", "Theirs"), ("elsewhere", "Theirs too")):
        there, _ = await world.get(name)
        assert there is not None
        assert str(there.walk("VEVENT")[0]["SUMMARY"]) == summary  # left as it was


async def test_a_server_that_refuses_the_login_is_a_sync_error_naming_the_setting(
    radicale: RadicaleServer,
) -> None:
    settings = CaldavSettings(
        url=radicale.calendar_url(USER, "nope"), username=USER, password="wrong-password"
    )
    with pytest.raises(SyncError, match="ASSISTANT_CALDAV_PASSWORD") as refused:
        async with CaldavCalendar(settings) as remote:
            await remote.events()
    assert "wrong-password" not in str(refused.value)


async def test_a_server_that_is_not_there_is_a_sync_error() -> None:
    settings = CaldavSettings(url="http://127.0.0.1:9/alice/cal/", username=USER, password="x")
    with pytest.raises(SyncError, match=r"127\.0\.0\.1:9"):
        async with CaldavCalendar(settings) as remote:
            await remote.events()


# -- what cannot be read ---------------------------------------------------------------------


@dataclass
class Unchecked:
    """The calendar as a server that stores what it is sent unchecked answers it (Radicale
    refuses a malformed event; others keep it): the real calendar, with the objects named in
    ``stored`` holding that text."""

    real: RemoteCalendar
    stored: dict[str, str] = field(default_factory=dict)

    @property
    def where(self) -> str:
        return self.real.where

    async def events(self) -> list[RemoteEvent]:
        found = await self.real.events()
        names = {event.href.rsplit("/", 1)[-1]: event for event in found}
        for name, text in self.stored.items():
            href = f"{self.real.where.rstrip('/')}/{name}"
            names[name] = RemoteEvent(href=href, etag='"unchecked"', data=text.encode())
        return list(names.values())

    async def create(self, name: str, data: bytes) -> RemoteEvent:
        return await self.real.create(name, data)

    async def update(self, event: RemoteEvent, data: bytes) -> RemoteEvent:
        return await self.real.update(event, data)

    async def delete(self, event: RemoteEvent) -> None:
        await self.real.delete(event)


async def test_an_event_that_cannot_be_read_is_reported_and_its_reminder_kept(
    world: World,
) -> None:
    server = Unchecked(world.remote)
    sync = CalendarSync(
        remote=server, tasks=world.tasks, memory=world.memory, clock=world.clock,
        user_id=USER, chat_id="chat-1", zone=ZONE,
    )  # fmt: skip
    await world.put("dentist", event("dentist-9", "Dentist", "20261105T090000"))
    await world.put("lunch", event("lunch-9", "Lunch", "20261103T123000", alarm=""))
    await sync.run()
    (task,) = await world.tasks.list_tasks(USER)
    server.stored["dentist.ics"] = event("dentist-9", "Dentist", "20261105T090000").replace(
        "DTSTART;TZID=Europe/Berlin:20261105T090000", "DTSTART:notadate"
    )
    server.stored["party.ics"] = event("party-9", "Party", "20261103T200000", alarm="banana")
    report = await sync.run()
    assert sorted(report.refused) == [
        "dentist.ics: the calendar file is malformed: the event 'Dentist' (UID dentist-9): its "
        "DTSTART 'notadate' is not a date or date-time; correct it in the calendar app (or "
        "delete it there) and export the calendar again",
        "party.ics: the calendar file is malformed: the event 'Party' (UID party-9): its "
        "alarm's TRIGGER 'banana' is not a length of time (e.g. -PT15M) or a date-time; correct "
        "it in the calendar app (or delete it there) and export the calendar again",
    ]
    assert (await world.tasks.get_task(task.id, USER)).status is TaskStatus.ACTIVE  # not deleted
    assert [link.task_id for link in await world.memory.calendar_links(USER)] == [task.id]
    sources = await world.memory.calendar_sources(USER)
    start, end = day_span(datetime(2026, 11, 3).date(), ZONE)
    found, problems = events_between(sources, start, end, ZONE)
    assert [e.summary for e in found] == ["Lunch", "Party"]  # its alarm is no part of a day
    start, end = day_span(datetime(2026, 11, 5).date(), ZONE)
    found, problems = events_between(sources, start, end, ZONE)
    assert found == [] and len(problems) == 1
    assert problems[0].startswith("the event 'Dentist' (UID dentist-9) of the calendar 'caldav'")

    server.stored.clear()
    await world.put("dentist", event("dentist-9", "Dentist", "20261106T090000"))
    report = await sync.run()  # readable again: it follows
    assert report.changed_here == [f"'Dentist' ({task.id})"] and report.refused == []

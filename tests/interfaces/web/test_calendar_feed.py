"""The calendar feed as ``assistant web`` serves it: a user with many kinds of tasks, in three
zones, over a year that holds both changes of the clocks.

The feed is fetched as a calendar app fetches it (its address, no bearer token), checked
against RFC 5545's required parts, and expanded by ``recurring-ical-events`` (an expander of
its own, reading the file's VTIMEZONEs); every task's instances must be exactly the fires the
scheduler will make. Revoked, its address answers 404.
"""

from __future__ import annotations

import secrets
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import recurring_ical_events
from icalendar import Calendar

from tasks import Task, TaskManager, TaskType, parse_schedule
from tests.interfaces.web.harness import BOB_TOKEN, T0, running_web

YEAR = timedelta(days=365)
KINDS: list[tuple[str, TaskType, str]] = [
    ("tomorrow at 9am", TaskType.REMINDER, "dentist"),
    ("every day at 7:30", TaskType.REMINDER, "vitamins"),
    ("every weekday at 9", TaskType.REMINDER, "standup"),
    ("every other friday at 5pm", TaskType.REMINDER, "pay the babysitter"),
    ("every last weekday of the month at 4pm", TaskType.REMINDER, "timesheets"),
    ("every day at 2:30am until september 30", TaskType.REMINDER, "night backup check"),
    ("every monday at 8 for 10 times", TaskType.REMINDER, "physio exercises"),
    ("every weekday at 9 except holidays", TaskType.REMINDER, "open the shop"),
    ("every 90 minutes", TaskType.AGENT_TASK, "check the build"),
    ("every thanksgiving at 10", TaskType.WEB_SEARCH, "turkey recipes"),
    ("every easter at 10", TaskType.REMINDER, "call grandma"),
    ("every day at 9 and 18:30", TaskType.REMINDER, "feed the cat"),
    ("every month on the 31st at 20:00", TaskType.REMINDER, "pay rent"),
]


async def _add(tasks: TaskManager, when: str, kind: TaskType, text: str, zone: ZoneInfo) -> Task:
    schedule = parse_schedule(when, now=tasks.clock.now(), tz=zone)
    return await tasks.add_task(
        owner_id="alice", chat_id="web:main", task_type=kind, schedule=schedule, description=text
    )


def _upcoming(task: Task, until: datetime) -> list[datetime]:
    """The fires the scheduler will make: the next run, then the schedule's from it."""
    fires: list[datetime] = []
    fire = task.next_run
    while fire is not None and fire < until:  # the expander counts up to (not at) until
        fires.append(fire)
        fire = None if task.schedule.kind == "once" else task.schedule.next_after(fire)
    return fires


def _check_rfc_5545(calendar: Calendar) -> None:
    """The parts RFC 5545 requires, and a VTIMEZONE for every TZID."""
    assert calendar.get("PRODID") and str(calendar.get("VERSION")) == "2.0"
    assert calendar.get_missing_tzids() == set()
    for event in calendar.walk("VEVENT"):
        for required in ("UID", "DTSTAMP", "DTSTART"):
            assert event.get(required) is not None, (required, event.get("SUMMARY"))
        for alarm in event.walk("VALARM"):
            assert str(alarm["ACTION"]) == "DISPLAY"
            assert alarm.get("TRIGGER") is not None and alarm.get("DESCRIPTION")


@pytest.mark.parametrize("zone_name", ["America/New_York", "Europe/Berlin", "Australia/Sydney"])
async def test_the_feed_validates_and_expands_to_exactly_the_tasks_fires_for_a_year(
    tmp_path: Path, zone_name: str
) -> None:
    zone = ZoneInfo(zone_name)
    async with running_web(tmp_path, ASSISTANT_TIMEZONE=zone_name) as web:
        tasks = web.front.app.tasks
        made = [await _add(tasks, when, kind, text, zone) for when, kind, text in KINDS]
        paused = await _add(tasks, "every sunday at 11", TaskType.REMINDER, "brunch", zone)
        await tasks.pause(paused.id, "alice")
        snoozed = await _add(tasks, "every day at 6pm", TaskType.REMINDER, "walk", zone)
        snoozed = await tasks.snooze(snoozed.id, "alice", timedelta(minutes=45))
        made.append(snoozed)

        async with web.client() as alice:
            answer = await alice.post("/calendar/feed")
            assert answer.status_code == 200, answer.text
            url: str = answer.json()["url"]
        assert url.startswith(f"{web.url}/calendar/") and url.endswith(".ics")
        async with web.client(token=None) as app:  # a calendar app: the address, no token
            fetched = await app.get(url)
        assert fetched.status_code == 200
        assert fetched.headers["content-type"] == "text/calendar; charset=utf-8"
        stored = [await tasks.get_task(task.id, "alice") for task in made]

    calendar = Calendar.from_ical(fetched.content)
    _check_rfc_5545(calendar)
    events = {str(e["UID"]): e for e in calendar.walk("VEVENT")}
    assert f"task-{paused.id}@assistant" not in events  # paused: left out
    assert len(events) == len(made)
    alarms = {uid for uid, e in events.items() if e.walk("VALARM")}
    assert alarms == {f"task-{t.id}@assistant" for t in made if t.task_type is TaskType.REMINDER}
    zones = {str(e["DTSTART"].params.get("TZID", "UTC")) for e in events.values()}
    assert zones == {zone_name, "UTC"}  # the tasks' zone; "every 90 minutes" counts in UTC

    until = T0 + YEAR
    instances: dict[str, list[datetime]] = defaultdict(list)
    for occurrence in recurring_ical_events.of(calendar).between(T0, until):
        start: Any = occurrence["DTSTART"].dt
        instances[str(occurrence["UID"])].append(start.astimezone(UTC))
    for task in stored:
        got = sorted(instances[f"task-{task.id}@assistant"])
        assert got == _upcoming(task, until), (task.description, task.schedule.describe())


async def test_a_revoked_or_replaced_feed_answers_404_and_needs_no_token(tmp_path: Path) -> None:
    async with running_web(tmp_path) as web, web.client() as alice:
        first = (await alice.post("/calendar/feed")).json()["url"]
        second = (await alice.post("/calendar/feed")).json()["url"]
        status = (await alice.get("/calendar")).json()
        assert status["feed_created_at"] is not None
        async with web.client(token=None) as app:
            assert (await app.get(first)).status_code == 404  # replaced
            assert (await app.get(second)).status_code == 200
            assert (await alice.delete("/calendar/feed")).json() == {"revoked": True}
            gone = await app.get(second)
            assert gone.status_code == 404 and gone.json() == {"detail": "no such calendar"}
            unknown = f"/calendar/{secrets.token_urlsafe(32)}.ics"
            assert (await app.get(unknown)).status_code == 404
            assert (await app.get("/calendar")).status_code == 401  # the rest needs one
        assert (await alice.delete("/calendar/feed")).json() == {"revoked": False}


async def test_another_users_feed_shows_only_their_tasks(tmp_path: Path) -> None:
    async with running_web(tmp_path) as web:
        zone = ZoneInfo("Europe/Berlin")
        await _add(web.front.app.tasks, "tomorrow at 9am", TaskType.REMINDER, "alice's", zone)
        async with web.client() as alice:
            url = (await alice.post("/calendar/feed")).json()["url"]
        async with web.client(token=None) as app:
            body = (await app.get(url)).text
        assert "alice's" in body
        async with web.client(token=BOB_TOKEN) as bob:
            bobs = (await bob.post("/calendar/feed")).json()["url"]
        async with web.client(token=None) as app:
            assert "alice's" not in (await app.get(bobs)).text


async def test_monitors_are_checks_and_stay_out_of_the_feed(tmp_path: Path) -> None:
    async with running_web(tmp_path) as web:
        tasks = web.front.app.tasks
        zone = ZoneInfo("Europe/Berlin")
        kept = await _add(tasks, "every day at 8pm", TaskType.REMINDER, "pills", zone)
        news = await _add(tasks, "every day at 7am", TaskType.AGENT_TASK, "the news", zone)
        monitor = await tasks.add_task(
            owner_id="alice",
            chat_id="web:main",
            task_type=TaskType.MONITOR,
            schedule=parse_schedule("every minute", now=tasks.clock.now(), tz=zone),
            execution_data={"source": "page", "url": "https://example.org/kettle"},
        )
        async with web.client() as alice:
            url = (await alice.post("/calendar/feed")).json()["url"]
        async with web.client(token=None) as app:
            body = (await app.get(url)).text
    uids = {str(e["UID"]) for e in Calendar.from_ical(body).walk("VEVENT")}
    assert uids == {f"task-{kept.id}@assistant", f"task-{news.id}@assistant"}
    assert monitor.id not in body and "FREQ=MINUTELY" not in body
    assert "TRIGGER:P0D" in body  # as docs/calendar.md says


BROKEN = (
    "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:x\r\nBEGIN:VEVENT\r\nUID:d-1\r\n"
    "SUMMARY:Dentist\r\n{lines}\r\nBEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER:{trigger}\r\n"
    "END:VALARM\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
)


@pytest.mark.parametrize(
    ("body", "said"),
    [
        (BROKEN.format(lines="DTSTART:notadate", trigger="-PT5M"), "its DTSTART 'notadate'"),
        (
            BROKEN.format(lines="DTSTART:20301101T090000Z\r\nRRULE:FREQ=DAILY\r\nEXDATE:garbage",
                          trigger="-PT5M"),
            "its EXDATE 'garbage'",
        ),
        (BROKEN.format(lines="DTSTART:20301101T090000Z", trigger="banana"),
         "its alarm's TRIGGER 'banana'"),
    ],
)  # fmt: skip
async def test_importing_a_malformed_file_is_a_400_naming_the_event_and_property(
    tmp_path: Path, body: str, said: str
) -> None:
    async with running_web(tmp_path) as web, web.client() as alice:
        for confirm in ("false", "true"):
            answer = await alice.post(
                f"/calendar/import?confirm={confirm}",
                content=body,
                headers={"Content-Type": "text/calendar"},
            )
            assert answer.status_code == 400, answer.text
            detail = answer.json()["detail"]
            assert "the event 'Dentist' (UID d-1): " + said in detail
        assert await web.front.app.tasks.list_tasks("alice") == []

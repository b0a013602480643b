"""Calendar files turned into reminders: files in the shapes Google, Apple, Outlook (Exchange,
Windows zone names) and Thunderbird write (``files/``), the round trip export -> import, and
what is refused by name.

Every reminder an import makes is checked against ``recurring-ical-events``, which computes
each alarm of each instance on its own (moved instances, EXDATEs, VTIMEZONEs and all): over a
year, the reminders of an event fire exactly when its alarms go off.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import recurring_ical_events
from icalendar import Calendar

from calendars import (
    Calendars,
    IcsError,
    ImportPlan,
    plan_import,
    read_file,
    task_event,
    write_calendar,
)
from common import ManualClock
from memory import MemoryStore
from tasks import (
    MisfirePolicy,
    MisfireRule,
    ReminderData,
    Schedule,
    Task,
    TaskManager,
    TaskStatus,
    TaskType,
    parse_schedule,
)
from testing.schedules import ICALENDAR_PHRASES, fires_between
from tests.calendars.conftest import NOW, ZONE

FILES = Path(__file__).parent / "files"
YEAR = timedelta(days=365)


def plan_of(name: str, zone: ZoneInfo = ZONE) -> tuple[bytes, ImportPlan]:
    data = (FILES / name).read_bytes()
    return data, plan_import(read_file(data, zone=zone, now=NOW), now=NOW, zone=zone)


def alarm_times(data: bytes, zone: ZoneInfo, until: datetime) -> dict[str, list[datetime]]:
    """When each event's alarms go off, by UID: its instances as recurring-ical-events expands
    them (moved instances, EXDATEs, the file's zones), each alarm counted from its own."""
    calendar = Calendar.from_ical(data)
    found: dict[str, list[datetime]] = defaultdict(list)
    query = recurring_ical_events.of(calendar, components=["VEVENT", "VTODO"])
    for occurrence in query.between(NOW - timedelta(days=3), until + timedelta(days=3)):
        start = _instant(occurrence.get("DTSTART") or occurrence.get("DUE"), zone)
        end = _instant(occurrence.get("DTEND") or occurrence.get("DUE"), zone) or start
        for alarm in occurrence.walk("VALARM"):
            trigger: Any = alarm["TRIGGER"]
            if isinstance(trigger.dt, timedelta):
                related = str(trigger.params.get("RELATED", "START"))
                assert start is not None and end is not None
                moment = (end if related == "END" else start) + trigger.dt
            else:
                moment = trigger.dt
            if NOW < moment < until:
                found[str(occurrence["UID"])].append(moment.astimezone(UTC))
    return found


def _instant(prop: Any, zone: ZoneInfo) -> datetime | None:
    if prop is None:
        return None
    value = prop.dt
    if not isinstance(value, datetime):
        return datetime.combine(value, datetime.min.time(), tzinfo=zone)
    return value if value.tzinfo is not None else value.replace(tzinfo=zone)


def check_against_the_alarms(data: bytes, plan: ImportPlan, zone: ZoneInfo = ZONE) -> None:
    until = NOW + YEAR
    ours: dict[str, list[datetime]] = defaultdict(list)
    for item in plan.items:
        ours[item.uid] += fires_between(item.schedule, NOW, until)
    theirs = alarm_times(data, zone, until)
    for uid, moments in ours.items():
        assert sorted(moments) == sorted(set(theirs[uid])), uid


def said(plan: ImportPlan) -> list[str]:
    return [f"{item.summary}: {item.schedule.describe()}" for item in plan.items]


def test_a_google_calendar_export() -> None:
    data, plan = plan_of("google.ics")
    assert said(plan) == [
        "Pay the babysitter: every other week on Friday at 16:50, except Fri 2026-11-20 and "
        "Fri 2026-12-18 (America/Los_Angeles)",
        "Pay the babysitter: once at 2026-11-21 09:50 (America/Los_Angeles)",  # moved
        "Dentist: once at 2026-11-10 08:30 (America/Los_Angeles)",  # X-WR-TIMEZONE's
    ]
    (refused,) = plan.refused
    assert refused.summary == "Book club" and "BYDAY=2TU,4TU" in refused.reason
    assert plan.skipped == (("Lunch with Sam", "without an alarm (not a reminder)"),)
    check_against_the_alarms(data, plan)


def test_an_apple_calendar_export_with_all_day_events_and_two_alarms() -> None:
    data, plan = plan_of("apple.ics")
    assert said(plan) == [
        "Mom's birthday: every year on the 1st of March at 09:00 (Europe/Berlin)",
        "Yoga: every Tuesday at 17:00, 8 times, until 2026-12-22 17:00 (Europe/Berlin)",
        "Yoga: every Tuesday at 17:55, 8 times, until 2026-12-22 17:55 (Europe/Berlin)",
    ]
    assert plan.items[0].note == "15 hours before the event's start"
    check_against_the_alarms(data, plan)


def test_an_outlook_export_with_windows_zone_names() -> None:
    data, plan = plan_of("outlook.ics")
    assert said(plan) == [
        "Timesheets due: every month on the last weekday at 09:45, except Fri 2027-01-29, "
        "until 2027-12-31 09:45 (Europe/Berlin)",  # "W. Europe Standard Time"
        "Call the family: every year on Thanksgiving at 11:00 (America/New_York)",
    ]
    (refused,) = plan.refused
    assert refused.summary == "Month-end close" and "BYMONTHDAY=31" in refused.reason
    check_against_the_alarms(data, plan)


def test_a_thunderbird_export_with_a_to_do() -> None:
    data, plan = plan_of("thunderbird.ics")
    assert said(plan) == [
        "Standup: every weekday at 09:25, except Tue 2026-11-24, until 2026-12-31 09:25 "
        "(Europe/Berlin)",
        "Renew passport: once at 2026-11-30 12:00 (Europe/Berlin)",  # due Dec 1, a day before
    ]
    check_against_the_alarms(data, plan)


def test_a_windows_zone_whose_rules_differ_from_iana_is_refused_by_name() -> None:
    text = (FILES / "outlook.ics").read_text()
    # Daylight saving time starting a week late: not Europe/Berlin's rules.
    wrong = text.replace("BYDAY=-1SU;BYMONTH=3", "BYDAY=1SU;BYMONTH=4")
    plan = plan_import(read_file(wrong.encode(), zone=ZONE, now=NOW), now=NOW, zone=ZONE)
    assert all("W. Europe Standard Time" in r.reason for r in plan.refused[:2]), plan.refused
    assert "differ on 2027-03-28" in plan.refused[0].reason
    # Each event of that zone, however many and whatever their days: what is known of a
    # zone (read once for a file) is not taken for more than was compared.
    head, rest = wrong.split("BEGIN:VEVENT", 1)
    timesheets = "BEGIN:VEVENT" + rest.split("END:VEVENT", 1)[0] + "END:VEVENT\r\n"
    copies = [
        timesheets.replace("UID:", f"UID:{n}-").replace("20261130T1", f"2026{12 - n % 2}0{n}T1")
        for n in range(1, 10)
    ]
    events = read_file((head + "".join(copies) + "END:VCALENDAR\r\n").encode(), zone=ZONE)
    assert len(events) == 9 and all("differ on 2027-03-28" in (e.problem or "") for e in events)


def test_a_windows_zone_is_checked_from_today_so_a_series_begun_long_ago_is_read() -> None:
    # Outlook writes today's rules for every year since 1601; New York's clocks were set
    # otherwise in 1966, so the zone is compared with IANA's from now on, where it matters.
    text = (FILES / "outlook.ics").read_text()
    old = text.replace(
        "DTSTART;TZID=Eastern Standard Time:20261126T110000",
        "DTSTART;TZID=Eastern Standard Time:19651125T110000",
    ).encode()
    plan = plan_import(read_file(old, zone=ZONE, now=NOW), now=NOW, zone=ZONE)
    assert "Call the family: every year on Thanksgiving at 11:00 (America/New_York)" in said(plan)
    check_against_the_alarms(old, plan)
    (family,) = [e for e in read_file(old, zone=ZONE) if e.summary == "Call the family"]
    assert family.problem is not None and "differ on 1966-" in family.problem  # from 1965 on


def test_an_unknown_zone_is_refused_by_name() -> None:
    text = (
        (FILES / "thunderbird.ics")
        .read_text()
        .replace(
            "DTSTART;TZID=Europe/Berlin:20261102T093000",
            "DTSTART;TZID=Mars/Olympus:20261102T093000",
        )
    )
    plan = plan_import(read_file(text.encode(), zone=ZONE), now=NOW, zone=ZONE)
    assert any("TZID='Mars/Olympus'" in r.reason for r in plan.refused)


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (("RRULE:FREQ=WEEKLY;UNTIL", "RRULE:FREQ=DAILY\r\nRRULE:FREQ=WEEKLY;UNTIL"), "2 RRULEs"),
        (
            ("TRIGGER;VALUE=DURATION:-PT5M", "TRIGGER;VALUE=DATE-TIME:20261103T080000Z"),
            "TRIGGER;VALUE=DATE-TIME",
        ),
    ],
)
def test_what_a_reminder_cannot_follow_is_refused_by_name(
    change: tuple[str, str], named: str
) -> None:
    text = (FILES / "thunderbird.ics").read_text().replace(*change)
    plan = plan_import(read_file(text.encode(), zone=ZONE), now=NOW, zone=ZONE)
    assert any(named in r.reason for r in plan.refused), plan.refused


def test_files_that_are_no_calendars_say_so() -> None:
    with pytest.raises(IcsError, match="not an iCalendar file"):
        read_file(b"<html>not a calendar</html>", zone=ZONE)
    with pytest.raises(IcsError, match="at most 100 are read"):
        read_file(b"BEGIN:VCALENDAR" + b" " * 200, zone=ZONE, max_bytes=100)


# -- the round trip --------------------------------------------------------------------------

PHRASES = ["tomorrow at 9am", *ICALENDAR_PHRASES]


def _task(number: int, phrase: str, zone: ZoneInfo) -> Task:
    schedule = parse_schedule(phrase, now=NOW, tz=zone)
    return Task(
        owner_id="alice",
        chat_id="chat-1",
        task_type=TaskType.REMINDER,
        description=phrase,
        schedule=schedule,
        execution=ReminderData(message=phrase),
        misfire=MisfireRule(MisfirePolicy.COALESCE),
        id=f"t{number:05d}",
        status=TaskStatus.ACTIVE,
        created_at=NOW,
        next_run=schedule.next_after(NOW),
    )


def _exported(tasks: list[Task]) -> bytes:
    events = [task_event(task, now=NOW, horizon=NOW + 2 * YEAR) for task in tasks]
    return write_calendar([e for e in events if e is not None], name="test", now=NOW)


@pytest.mark.parametrize("zone_name", ["America/New_York", "Europe/Berlin", "Australia/Sydney"])
def test_export_then_import_gives_back_every_schedule_exactly(zone_name: str) -> None:
    zone = ZoneInfo(zone_name)
    tasks = [_task(n, phrase, zone) for n, phrase in enumerate(PHRASES)]
    plan = plan_import(read_file(_exported(tasks), zone=zone), now=NOW, zone=zone)
    assert plan.refused == () and plan.skipped == ()
    back = {item.summary: item.schedule for item in plan.items}
    for task in tasks:
        assert back[task.description].to_json() == task.schedule.to_json(), task.description


@pytest.mark.parametrize("zone_name", ["America/New_York", "Europe/Berlin", "Australia/Sydney"])
def test_an_app_that_drops_our_own_property_still_gets_every_rule_exactly(zone_name: str) -> None:
    """Without X-ASSISTANT-SCHEDULE only RFC 5545's words are left: every rule comes back with
    the same fires (and the same words, but where RFC 5545 has none: a rule's start, days
    left out every year, which the file lists as dates), or, with no rule, is refused."""
    zone = ZoneInfo(zone_name)
    tasks = [_task(n, phrase, zone) for n, phrase in enumerate(PHRASES)]
    text = _exported(tasks).decode()
    stripped = "\r\n".join(
        line
        for line in text.replace("\r\n ", "").split("\r\n")
        if not line.startswith("X-ASSISTANT-SCHEDULE")
    )
    plan = plan_import(read_file(stripped.encode(), zone=zone), now=NOW, zone=zone)
    back: dict[str, list[Schedule]] = defaultdict(list)
    for item in plan.items:
        back[item.summary].append(item.schedule)
    until = NOW + YEAR
    for task in tasks:
        came = back[task.description]
        if task.description in ("every easter at 10", "0 9 1 * 1"):
            # No rule says them (a day from Easter; cron's day of the month OR of the week):
            # their dates are listed (RDATE). A few become one-time reminders each; many are
            # refused, naming them.
            assert all(schedule.kind == "once" for schedule in came), task.description
            if not came:
                (refused,) = [r for r in plan.refused if r.summary == task.description]
                assert "RDATE and moved instances list" in refused.reason
                continue
        ours = sorted(fire for schedule in came for fire in fires_between(schedule, NOW, until))
        assert ours == fires_between(task.schedule, NOW, until), task.description


async def test_a_confirmed_import_makes_the_reminders(
    tasks: TaskManager, memory: MemoryStore, clock: ManualClock
) -> None:
    async def zone_of(user: str) -> ZoneInfo:
        return ZONE

    calendars = Calendars(memory=memory, tasks=tasks, clock=clock, zone_of=zone_of)
    plan = await calendars.plan("alice", (FILES / "thunderbird.ics").read_bytes())
    result = await calendars.apply(plan, user_id="alice", chat_id="chat-1")
    assert result.error is None and len(result.created) == 2
    made = await tasks.list_tasks("alice")
    assert [task.description for task in made] == ["Standup", "Renew passport"]
    assert made[0].next_run == datetime(2026, 11, 3, 9, 25, tzinfo=ZONE)
    again = await calendars.plan("alice", (FILES / "thunderbird.ics").read_bytes())
    assert again.items == () and [why for _, why in again.skipped] == ["already a task"] * 2

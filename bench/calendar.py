"""Calendars: how long a feed takes to make, a file to plan, and a CalDAV sync pass to run.

Run with ``.venv/bin/python -m bench.calendar`` from the repository root (``--tasks N`` and
``--synced N`` for the sizes). One user's tasks (SQLite, a temporary folder) cycle through 13
kinds of schedules, from a one-time reminder to "every weekday at 9 except holidays" and
"every easter at 10" (written as dates):

- the feed: ``Calendars.export`` of all of them (what ``GET /calendar/<token>.ics`` answers),
  the median of 5 runs and its size;
- the import: that file read and planned back (``Calendars.plan``), the median of 5; and a
  file as Outlook writes one (``--outlook N`` meetings on days and half hours over a year, in
  its Windows zone whose rules start in 1601), planned once;
- the CalDAV sync against Radicale on 127.0.0.1 (``testing.radicale_server``), for the first
  ``--synced`` of them: the first pass (every reminder written to the server, one PUT each),
  then a pass with nothing to do, then a pass after one reminder moved here and one event
  moved there.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import httpx

from calendars import CaldavSettings, Calendars, SyncSettings, task_uid
from common import ManualClock
from memory import MemoryStore
from tasks import (
    Delivery,
    DeliveryStatus,
    SqliteTaskStore,
    TaskManager,
    TaskType,
    parse_schedule,
)
from testing.radicale_server import make_calendar, radicale_server

ZONE = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
KINDS = (
    "tomorrow at 9am",
    "every day at 7:30",
    "every weekday at 9",
    "every other friday at 5pm",
    "every last weekday of the month at 4pm",
    "every day at 2:30am until september 30",
    "every monday at 8 for 10 times",
    "every weekday at 9 except holidays",
    "every 90 minutes",
    "every thanksgiving at 10",
    "every easter at 10",
    "every day at 9 and 18:30",
    "every month on the 31st at 20:00",
)
USER, PASSWORD = "bench", "bench-calendar-password"
OUTLOOK_ZONE = """BEGIN:VTIMEZONE
TZID:W. Europe Standard Time
BEGIN:STANDARD
DTSTART:16010101T030000
TZOFFSETFROM:+0200
TZOFFSETTO:+0100
RRULE:FREQ=YEARLY;INTERVAL=1;BYDAY=-1SU;BYMONTH=10
END:STANDARD
BEGIN:DAYLIGHT
DTSTART:16010101T020000
TZOFFSETFROM:+0100
TZOFFSETTO:+0200
RRULE:FREQ=YEARLY;INTERVAL=1;BYDAY=-1SU;BYMONTH=3
END:DAYLIGHT
END:VTIMEZONE
"""


def outlook_file(count: int) -> bytes:
    """``count`` meetings over the year from ``NOW``, each with a 15-minute alarm."""
    events = []
    for number in range(count):
        day = NOW.astimezone(ZONE) + timedelta(days=number * 7 % 365)
        start = day.replace(hour=8 + number % 10, minute=30 * (number % 2))
        events.append(
            "BEGIN:VEVENT\n"
            f"UID:bench-{number}\nSUMMARY:Meeting {number}\nDTSTAMP:20261101T120000Z\n"
            f"DTSTART;TZID=W. Europe Standard Time:{start:%Y%m%dT%H%M%S}\n"
            "BEGIN:VALARM\nACTION:DISPLAY\nDESCRIPTION:Reminder\nTRIGGER:-PT15M\n"
            "END:VALARM\nEND:VEVENT\n"
        )
    text = "BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:Microsoft Exchange Server 2010\n"
    return (
        (text + OUTLOOK_ZONE + "".join(events) + "END:VCALENDAR\n").replace("\n", "\r\n").encode()
    )


class _Quiet:
    """A notifier that delivers nothing (the benchmark has no chat)."""

    async def deliver(self, delivery: Delivery) -> DeliveryStatus:
        return DeliveryStatus.DELIVERED


async def _median(run: Callable[[], Awaitable[object]], rounds: int = 5) -> float:
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        await run()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


async def measure(folder: Path, count: int, synced: int, outlook: int) -> list[str]:
    """The figures, as lines."""
    clock = ManualClock(NOW)
    lines: list[str] = []
    async with MemoryStore(folder / "assistant.db", clock=clock) as memory:
        tasks = TaskManager(
            store=SqliteTaskStore(folder / "assistant.db"), notifier=_Quiet(), clock=clock
        )
        await tasks.start(timer=False)
        try:
            for number in range(count):
                kind = KINDS[number % len(KINDS)]
                await tasks.add_task(
                    owner_id=USER,
                    chat_id=USER,
                    task_type=TaskType.REMINDER,
                    schedule=parse_schedule(kind, now=NOW, tz=ZONE),
                    description=f"{kind} #{number}",
                )

            async def zone_of(user: str) -> ZoneInfo:
                return ZONE

            calendars = Calendars(memory=memory, tasks=tasks, clock=clock, zone_of=zone_of)
            feed = await calendars.export(USER)
            made = await _median(lambda: calendars.export(USER))
            lines.append(f"feed of {count} tasks ({len(feed) / 1000:.0f} kB)  {made * 1000:.0f} ms")
            planned = await _median(lambda: calendars.plan("other", feed))
            lines.append(f"import of that file, planned  {planned * 1000:.0f} ms")
            meetings = outlook_file(outlook)
            started = time.perf_counter()
            plan = await calendars.plan("other", meetings)
            lines.append(
                f"an Outlook file of {outlook} meetings ({len(meetings) / 1000:.0f} kB), "
                f"planned ({len(plan.items)} reminders)  {time.perf_counter() - started:.2f} s"
            )
            for task in (await tasks.list_tasks(USER))[synced:]:
                await tasks.pause(task.id, USER)  # a paused reminder gets no new event
            lines += await _sync(folder, memory, tasks, clock, zone_of, synced)
        finally:
            await tasks.stop()
    return lines


async def _sync(
    folder: Path,
    memory: MemoryStore,
    tasks: TaskManager,
    clock: ManualClock,
    zone_of: Callable[[str], Awaitable[ZoneInfo]],
    count: int,
) -> list[str]:
    with radicale_server(folder / "radicale", {USER: PASSWORD}) as server:
        url = server.calendar_url(USER, "bench")
        await make_calendar(url, USER, PASSWORD)
        async with httpx.AsyncClient(auth=(USER, PASSWORD)) as http:
            sync = SyncSettings(
                calendar=CaldavSettings(url=url, username=USER, password=PASSWORD),
                user_id=USER,
                chat_id=USER,
            )
            calendars = Calendars(
                memory=memory, tasks=tasks, clock=clock, zone_of=zone_of, sync=sync
            )
            lines = []
            for said in ("first CalDAV pass (all written)", "a pass with nothing to do"):
                started = time.perf_counter()
                await calendars.sync_now()
                lines.append(f"{said}, {count} reminders  {time.perf_counter() - started:.2f} s")
            mine = (await tasks.list_tasks(USER))[:2]
            await tasks.reschedule(
                mine[0].id, USER, parse_schedule("every sunday at 10", now=NOW, tz=ZONE)
            )
            there = await http.get(f"{url}{task_uid(mine[1].id)}.ics")
            moved = there.text.replace("SUMMARY:", "SUMMARY:moved ", 1)
            await http.put(f"{url}{task_uid(mine[1].id)}.ics", content=moved)
            started = time.perf_counter()
            report = await calendars.sync_now()
            changed = len(report.changed_here) + len(report.changed_there)
            lines.append(
                f"a pass with one change on each side ({changed} carried over)  "
                f"{time.perf_counter() - started:.2f} s"
            )
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    """Print the figures."""
    parser = argparse.ArgumentParser(prog="bench.calendar", description=__doc__)
    parser.add_argument("--tasks", type=int, default=500, help="the user's tasks (default 500)")
    parser.add_argument("--synced", type=int, default=100, help="those synced (default 100)")
    parser.add_argument(
        "--outlook", type=int, default=1000, help="meetings in the Outlook file (default 1000)"
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        figures = measure(Path(tmp), args.tasks, min(args.synced, args.tasks), args.outlook)
        for line in asyncio.run(figures):
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())

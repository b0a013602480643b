"""Issue 28 in the terminal, on the composed app (offline planner, SQLite): a monitor said in
the chat on a real page, quiet hours with /quiet, a reminder that nags until /done, Snooze
and /later on what was printed, the morning briefing with /briefing. Lines are typed into
the chat as ``assistant chat`` reads them; the scheduler fires on a manual clock."""

from __future__ import annotations

import io
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from assistant.app import LOCAL_CHAT, LOCAL_USER, App, open_app
from assistant.config import load_settings
from common import ManualClock
from interfaces import Console, SlashCommands, TerminalChat, TerminalNotifier
from memory import CalendarSource
from tasks import MonitorData, RunStatus, TaskStatus
from testing.page_server import PageServer

T0 = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)  # Tuesday 13:00 in Berlin


@dataclass
class Terminal:
    """The chat, what it printed, and the app behind it."""

    chat: TerminalChat
    output: io.StringIO
    app: App
    clock: ManualClock

    async def type(self, line: str) -> str:
        """Type ``line``; return what the terminal printed for it (and since)."""
        start = len(self.output.getvalue())
        await self.chat.handle_line(line)
        return self.output.getvalue()[start:]

    async def wait(self, span: timedelta) -> str:
        """Let ``span`` pass; return what the scheduler printed meanwhile."""
        start = len(self.output.getvalue())
        self.clock.advance(span)
        await self.app.tasks.run_due()
        await self.app.tasks.release_due()
        return self.output.getvalue()[start:]


@pytest.fixture
async def terminal(tmp_path: Path) -> AsyncIterator[Terminal]:
    """The terminal chat as ``assistant.frontends.chat`` wires it, on a manual clock."""
    settings = load_settings(
        data_dir=tmp_path / "data",
        timezone="Europe/Berlin",
        llm_base_url=None,
        http_allow_hosts=["127.0.0.1"],
    )
    output = io.StringIO()
    printed = TerminalNotifier(Console(output))
    clock = ManualClock(T0)
    async with open_app(settings, notifier=printed, clock=clock) as app:
        await app.memory.set_timezone(LOCAL_USER, "Europe/Berlin")
        commands = SlashCommands(
            tasks=app.tasks, memory=app.memory, agent=app.agent, buttons=False, quiet=app.quiet
        )
        chat = TerminalChat(
            agent=app.agent,
            commands=commands,
            user_id=LOCAL_USER,
            chat_id=LOCAL_CHAT,
            output=output,
            deliveries=printed,
        )
        yield Terminal(chat, output, app, clock)


async def test_a_monitor_said_in_the_terminal_prints_a_change_and_later_again(
    terminal: Terminal,
) -> None:
    async with PageServer("<html><body><p>Price: 320 EUR</p></body></html>") as site:
        url = site.url("/kettle")
        made = await terminal.type(f"tell me when {url} changes")
        assert f"I'll check {url} every hour (Europe/Berlin)" in made
        assert await terminal.wait(timedelta(hours=1)) == ""  # the first looks are silent
        site.show("<html><body><p>Price: 289 EUR</p></body></html>")
        told = await terminal.wait(timedelta(hours=1))
    assert told == (
        f"\n[task {told.split()[1].rstrip(']')}]\nwatch {url} changed:\n"
        "was Price: 320 EUR, now Price: 289 EUR\n  [Later: /later 1 10m | 1h | morning]\n"
    )
    assert await terminal.type("/later 1 1h") == "I'll show it again at 16:00.\n"
    again = await terminal.wait(timedelta(hours=1))
    assert "was Price: 320 EUR, now Price: 289 EUR\n(snoozed at 15:00)" in again
    assert "[Later: /later 2 10m | 1h | morning]" in again
    assert await terminal.type("/later 2 morning") == "I'll show it again tomorrow at 08:00.\n"
    assert await terminal.type("/later 2 until 9pm") == (
        "I'll show it again at 21:00 instead of tomorrow at 08:00.\n"
    )
    assert await terminal.type("/later 9 1h") == (
        "There is no message 9 here any more; /tasks lists tasks.\n"
    )


async def test_quiet_hours_hold_what_is_printed_until_they_end(terminal: Terminal) -> None:
    said = await terminal.type("/quiet 14:00-15:00")
    assert said.startswith("Quiet hours: from 14:00 to 15:00 (Europe/Berlin).")
    await terminal.type("remind me at 14:30 to stretch")
    assert await terminal.wait(timedelta(hours=1, minutes=30)) == ""
    released = await terminal.wait(timedelta(minutes=30))
    assert "[reminder] stretch\n(held during your quiet hours since 14:30)" in released


async def test_a_reminder_nags_until_done_is_typed(terminal: Terminal) -> None:
    made = await terminal.type("nag me every 5 minutes to take the pills")
    task_id = made.split("(task ")[1].split(")")[0]
    first = await terminal.wait(timedelta(minutes=5))
    assert first == (
        "\n[reminder] take the pills\n(again every 5 min until you press Done or say 'done')\n"
        f"  [Snooze: /snooze {task_id} 10m | 1h | morning] [Done: /done {task_id}]\n"
    )
    assert "take the pills" in await terminal.wait(timedelta(minutes=5))
    assert await terminal.type(f"/done {task_id}") == (
        f"Done: task {task_id} ('take the pills') will not repeat.\n"
    )
    assert await terminal.wait(timedelta(minutes=5)) == ""
    runs = await terminal.app.tasks.history(task_id, LOCAL_USER)
    assert runs[0].status is RunStatus.ACKNOWLEDGED
    assert runs[0].result == "acknowledged: /done in the terminal"
    task = await terminal.app.tasks.get_task(task_id, LOCAL_USER)
    assert task.status is TaskStatus.DONE


@pytest.mark.parametrize(
    ("said", "minutes"),
    [
        ("nag me every minute to stretch", 1),
        ("nag me every hour to stretch", 60),
        ("nag me every other minute to stretch", 2),
        ("nag me every half hour to stretch", 30),
        ("nag me every quarter of an hour to stretch", 15),
        (
            "remind me at 13:55 to drink water and keep reminding me every minute until I say done",
            1,
        ),
    ],
)
async def test_a_nag_takes_every_span_the_schedule_language_reads(
    terminal: Terminal, said: str, minutes: int
) -> None:
    made = await terminal.type(said)
    assert f"It repeats every {minutes} min until you say done" in made


async def test_a_nag_of_no_minutes_says_the_range_quoting_what_was_said(
    terminal: Terminal,
) -> None:
    assert await terminal.type("nag me every 0 minutes to stretch") == (
        "A reminder nags every 1 to 1,440 minutes (a day), and 'every 0 minutes' is 0 "
        "minutes; say e.g. 'every 10 minutes', 'every minute' or 'every hour'; nothing was set.\n"
    )
    assert await terminal.app.tasks.list_tasks(LOCAL_USER) == []


async def test_done_snooze_and_later_after_done_bring_nothing_back(terminal: Terminal) -> None:
    made = await terminal.type("nag me every 1 minute to check the stove")
    task_id = made.split("(task ")[1].split(")")[0]
    await terminal.wait(timedelta(minutes=1))
    assert await terminal.type("/later 1 10m") == "I'll show it again at 13:11.\n"
    assert await terminal.type("done") == (
        f"Done: task {task_id} ('check the stove') will not repeat.\n"
    )
    assert await terminal.type("done") == (
        f"Task {task_id} ('check the stove') was already marked done at 13:01; nothing changed.\n"
    )
    assert (await terminal.type("snooze that for 10 minutes")).endswith(
        f"I couldn't snooze the task. Task {task_id} ('check the stove') was marked done at "
        "13:01, so a snooze does not bring it back; say e.g. 'remind me in 10 minutes to "
        "check the stove' for a new reminder.\n"
    )
    assert await terminal.wait(timedelta(minutes=30)) == ""
    runs = await terminal.app.tasks.history(task_id, LOCAL_USER)
    assert [r.status for r in runs].count(RunStatus.ACKNOWLEDGED) == 1


async def test_the_briefing_quotes_a_bad_time_and_refuses_more_than_daily(
    terminal: Terminal,
) -> None:
    assert await terminal.type("/briefing 25:00") == (
        "Could not read '25:00' as the briefing's time of day; say e.g. '7:30', '7am' or "
        "'every weekday at 7'.\n"
    )
    assert await terminal.type("/briefing every 5 minutes") == (
        "A briefing comes once a day (or on the weekdays you choose), so 'every 5 minutes' "
        "does not fit; say e.g. '7:30', '7am' or 'every weekday at 7'.\n"
    )
    assert await terminal.app.tasks.briefing(LOCAL_USER) is None


async def test_a_reminder_snoozed_until_tomorrow_morning_comes_then(terminal: Terminal) -> None:
    made = await terminal.type("remind me in 1 minute to water the plants")
    task_id = made.split("(task ")[1].split(")")[0]
    await terminal.wait(timedelta(minutes=1))
    assert await terminal.type(f"/snooze {task_id} morning") == (
        f'Snoozed task {task_id} ("water the plants") until 2026-03-11 08:00 (Europe/Berlin).\n'
    )
    assert await terminal.wait(timedelta(hours=18, minutes=58)) == ""
    assert "[reminder] water the plants" in await terminal.wait(timedelta(minutes=1))


async def test_the_morning_briefing_is_printed(terminal: Terminal) -> None:
    started = await terminal.type("morning briefing at 7")
    assert "Started your morning briefing: every day at 07:00" in started
    await terminal.type("remind me tomorrow at 10am to call the garage")
    briefing = await terminal.wait(timedelta(hours=18))
    assert "Good morning! Your briefing for Wed 2026-03-11 (Europe/Berlin):" in briefing
    assert "Today\n- 10:00 reminder: call the garage" in briefing
    assert "[Later: /later 1 10m | 1h | morning]" in briefing
    assert (await terminal.type("/briefing")).startswith("Your morning briefing: [")


TEAM_CALENDAR = """BEGIN:VCALENDAR\r
VERSION:2.0\r
PRODID:-//test//team//EN\r
BEGIN:VEVENT\r
UID:standup-1@team\r
DTSTAMP:20260301T000000Z\r
DTSTART;TZID=Europe/Berlin:20260302T093000\r
DTEND;TZID=Europe/Berlin:20260302T094500\r
RRULE:FREQ=WEEKLY;BYDAY=MO,WE,FR\r
SUMMARY:Stand-up\r
END:VEVENT\r
BEGIN:VEVENT\r
UID:offsite-1@team\r
DTSTAMP:20260301T000000Z\r
DTSTART;VALUE=DATE:20260311\r
DTEND;VALUE=DATE:20260312\r
SUMMARY:Team offsite\r
LOCATION:Lisbon\r
END:VEVENT\r
END:VCALENDAR\r
"""


async def test_the_briefing_lists_the_days_events_of_a_subscribed_calendar(
    terminal: Terminal,
) -> None:
    # Its address no longer answers by the morning: the briefing uses the copy last read.
    await terminal.app.memory.save_calendar_source(
        CalendarSource(
            user_id=LOCAL_USER,
            name="team",
            url="http://127.0.0.1:9/team.ics",
            ics=TEAM_CALENDAR,
            fetched_at=T0,
        )
    )
    await terminal.type("morning briefing at 7")
    # Notes tagged with the day's date and weekday (Berlin's: UTC's is still the 10th).
    await terminal.type("note: bring the slides #2026-03-11")
    await terminal.type("note: bins out #wednesday")
    await terminal.type("note: not this one #2026-03-10")
    briefing = await terminal.wait(timedelta(hours=18))
    assert "Good morning! Your briefing for Wed 2026-03-11 (Europe/Berlin):" in briefing
    assert "Notes for today\n- bring the slides\n- bins out\n" in briefing
    assert "not this one" not in briefing
    assert "Calendar\n- all day Team offsite, Lisbon\n- 09:30 Stand-up\n" in briefing


PAGE = "<html><body><p>Version 3 of the page</p><p>Price 350 EUR</p><p>sold out</p></body></html>"


@pytest.mark.parametrize(
    ("said", "condition"),
    [
        ("tell me when 'sold out' disappears from {url}", "it no longer contains 'sold out'"),
        ("tell me when sold out is gone from {url}", "it no longer contains 'sold out'"),
        ("tell me when 'in stock' appears on {url}", "it contains 'in stock'"),
        ("tell me when {url} no longer says sold out", "it no longer contains 'sold out'"),
        ("let me know if {url} mentions 'in stock'", "it contains 'in stock'"),
        ("tell me when the price drops below 300 on {url}", "price is below 300"),
        ("tell me when {url} is under 300", "the value is below 300"),
        ("tell me when {url} is not 42", "the value is not 42"),
        (
            "check {url} every 5 minutes and tell me when it's at least 300",
            "the value is at least 300",
        ),
        ("watch {url} and tell me when it is over 300", "the value is above 300"),
    ],
)
async def test_a_condition_is_read_before_or_after_the_address(
    terminal: Terminal, said: str, condition: str
) -> None:
    async with PageServer(PAGE) as site:
        url = site.url("/page.html")
        made = await terminal.type(said.format(url=url))
    assert f"and tell you only when {condition} (task " in made, made


async def test_words_that_look_like_a_condition_but_cannot_be_read_are_refused(
    terminal: Terminal,
) -> None:
    url = "http://127.0.0.1:9/price.json"
    made = await terminal.type(f"tell me when {url} field price is banana")
    assert made == (
        "Setting up a monitor of http://127.0.0.1:9/price.json.\nI couldn't set up that "
        "monitor. I could not read 'is banana' as a condition; say e.g. 'contains in stock', "
        "'no longer says sold out', 'price < 300' or 'above 1000', or nothing to hear of "
        "every change. Monitors that work: 'tell me when https://shop.example/kettle says in "
        "stock' or 'every 30 minutes check https://api.example/kettle.json field price and "
        "tell me when it is below 300'.\n"
    )
    gone = await terminal.type(f"tell me when 'sold out' goes missing from {url}")
    assert "I could not read \"'sold out' goes missing\" as a condition" in gone
    assert await terminal.app.tasks.list_tasks(LOCAL_USER) == []


@pytest.mark.parametrize(
    ("said", "answer"),
    [
        (
            "tell me when htp://nonsense changes",
            "I can watch only http:// and https:// addresses, and 'htp://nonsense' is not one.",
        ),
        (
            "tell me when file:///etc/passwd changes",
            "I can watch only http:// and https:// addresses, and 'file:///etc/passwd' is not",
        ),
        (
            "tell me when http://127.0.0.1:9/page.html changes every 0 minutes",
            "I couldn't set up that monitor: could not read 'every 0 minutes' as a repeating "
            "time: the interval is zero; a monitor looks again and again: say how often, e.g. "
            "'every 30 minutes' or 'every day at 9am'.",
        ),
        (
            "/watch http://127.0.0.1:9/page.html every 0 minutes",
            "the interval is zero; a monitor looks again and again: say how often",
        ),
        ("/watch htp://x", "'htp://x' is not one"),
        (
            "/watch banana",
            "I can't watch 'banana': /watch takes an address. Usage: /watch URL [for 'text'] "
            "[every 30 minutes], e.g. /watch https://shop.example/kettle for 'in stock' every "
            "30 minutes; or /watch the search results for 'python 3.14'.",
        ),
        (
            "tell me when http://10.1.2.3/x changes",
            "A monitor of http://10.1.2.3/x could only fail: refusing to connect: 10.1.2.3 is "
            "a private address",
        ),
    ],
)
async def test_a_monitor_that_cannot_work_says_what_is_wrong(
    terminal: Terminal, said: str, answer: str
) -> None:
    reply = await terminal.type(said)
    assert answer in reply, reply
    assert "notes" not in reply and "didn't understand" not in reply
    assert await terminal.app.tasks.list_tasks(LOCAL_USER) == []


async def test_a_page_comparison_says_which_number_it_read_and_the_history_says_was_and_now(
    terminal: Terminal,
) -> None:
    async with PageServer(PAGE) as site:
        url = site.url("/page.html")
        made = await terminal.type(f"every minute tell me when {url} is below 300")
        assert "It reads the first number on the page" in made
        told = await terminal.wait(timedelta(0))
        assert "the value is below 300 now (read 3 from 'Version 3 of the page')." in told
        changes = await terminal.type(f"tell me when {url} changes")
        task_id = changes.split("(task ")[1].split(")")[0]
        await terminal.wait(timedelta(0))
        site.show(PAGE.replace("Version 3", "Version 4"))
        await terminal.wait(timedelta(hours=1))
        runs = await terminal.app.tasks.history(task_id, LOCAL_USER)
    assert runs[0].result == ("changed: was Version 3 of the page, now Version 4 of the page")


async def test_stop_watching_an_address_matches_that_address_only(terminal: Terminal) -> None:
    async with PageServer(PAGE) as site:
        page, price = site.url("/page.html"), site.url("/price.json")
        await terminal.type(f"tell me when {page} changes")
        await terminal.type(f"tell me when {price} changes")
        stopped = await terminal.type(f"stop watching {page}")
        [left] = await terminal.app.tasks.list_tasks(LOCAL_USER)
    assert "Cancelled task" in stopped
    assert isinstance(left.execution, MonitorData) and left.execution.url == price


async def test_a_first_look_that_fails_is_printed_at_once(terminal: Terminal) -> None:
    async with PageServer(PAGE) as site:
        site.show(PAGE, status=404)
        url = site.url("/missing")
        made = await terminal.type(f"tell me when {url} changes")
        task_id = made.split("(task ")[1].split(")")[0]
        told = await terminal.wait(timedelta(0))
    assert told.startswith(
        f'\n[notice about task {task_id}] Task {task_id} ("watch {url}") could not take its '
        f"first look: {url} answered HTTP 404 Not Found\nIf the address or what it watches is "
        f"wrong, cancel it ('cancel {task_id}') and set it up again; otherwise I keep looking"
    )


async def test_done_on_a_monitor_marks_nothing(terminal: Terminal) -> None:
    async with PageServer(PAGE) as site:
        made = await terminal.type(f"tell me when {site.url('/p')} changes")
        task_id = made.split("(task ")[1].split(")")[0]
        await terminal.wait(timedelta(0))
        refused = await terminal.type(f"/done {task_id}")
        runs = await terminal.app.tasks.history(task_id, LOCAL_USER)
    assert "is a monitor task, not a reminder, so nothing was marked done" in refused
    assert [r.status for r in runs] == [RunStatus.SUCCEEDED]


async def _a_monitor_that_told_a_change(terminal: Terminal, site: PageServer) -> str:
    """Say a monitor of the page, let it see a change; return its task id (it told at 15:00)."""
    made = await terminal.type(f"tell me when {site.url('/kettle')} changes")
    await terminal.wait(timedelta(hours=1))
    site.show("<html><body><p>Price: 289 EUR</p></body></html>")
    told = await terminal.wait(timedelta(hours=1))
    assert "now Price: 289 EUR" in told, made
    return told.split()[1].rstrip("]")


async def test_snoozing_a_monitor_after_its_change_shows_the_change_again(
    terminal: Terminal,
) -> None:
    async with PageServer("<html><body><p>Price: 320 EUR</p></body></html>") as site:
        task_id = await _a_monitor_that_told_a_change(terminal, site)
        before = (await terminal.app.tasks.get_task(task_id, LOCAL_USER)).next_run
        said = await terminal.type("snooze that for 10 minutes")
        assert said.endswith(
            f"I'll show the message from task {task_id} again today at 15:10 (Europe/Berlin); "
            "the task keeps its schedule (next run today at 16:00 (Europe/Berlin)).\n"
        )
        assert await terminal.type(f"/snooze {task_id} 1h") == (
            f"I'll show the message from task {task_id} again at 16:00 instead of 15:10; "
            "the task keeps its schedule.\n"
        )
        task = await terminal.app.tasks.get_task(task_id, LOCAL_USER)
        assert task.next_run == before
        assert await terminal.wait(timedelta(minutes=30)) == ""
        again = await terminal.wait(timedelta(minutes=30))
    assert again.count("now Price: 289 EUR\n(snoozed at 15:00)") == 1
    assert len(await terminal.app.tasks.held(LOCAL_USER)) == 0


async def test_snoozing_a_monitor_that_said_nothing_lately_puts_its_next_run_off(
    terminal: Terminal,
) -> None:
    async with PageServer("<html><body><p>Price: 320 EUR</p></body></html>") as site:
        task_id = await _a_monitor_that_told_a_change(terminal, site)
        await terminal.wait(timedelta(minutes=61))  # 16:01: it looked again, said nothing
        assert await terminal.type(f"/snooze {task_id} 10m") == (
            f'Snoozed task {task_id} ("watch {site.url("/kettle")}"): it showed nothing in '
            "the last hour, so this puts off its next run, to 2026-03-10 17:10 "
            "(Europe/Berlin), then every hour (Europe/Berlin).\n"
        )
    assert await terminal.app.tasks.held(LOCAL_USER) == []


async def test_a_message_later_twice_comes_once_at_the_second_time(terminal: Terminal) -> None:
    async with PageServer("<html><body><p>Price: 320 EUR</p></body></html>") as site:
        await _a_monitor_that_told_a_change(terminal, site)
        assert await terminal.type("/later 1 morning") == "I'll show it again tomorrow at 08:00.\n"
        assert await terminal.type("/later 1 1h") == (
            "I'll show it again at 16:00 instead of tomorrow at 08:00.\n"
        )
        again = await terminal.wait(timedelta(hours=1))
    assert again.count("(snoozed at 15:00)") == 1
    assert await terminal.app.tasks.held(LOCAL_USER) == []
    assert await terminal.wait(timedelta(hours=17)) == ""

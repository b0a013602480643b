"""The tools of issue 28 (add_monitor, quiet_hours, morning_briefing, acknowledge_task) in the
composed app: the registry, the executor, the task manager, a page on 127.0.0.1."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from assistant.app import App, open_app
from assistant.config import load_settings
from common import ManualClock
from tasks import (
    Delivery,
    DeliveryStatus,
    OnceSchedule,
    RunStatus,
    TaskStatus,
    TaskType,
    zone_from_name,
)
from testing.page_server import PageServer
from tools import ToolCall, ToolResult, ToolStatus

NOW = datetime(2026, 3, 10, 13, 30, tzinfo=UTC)  # Tuesday 14:30 in Berlin
BERLIN = zone_from_name("Europe/Berlin")
USER, CHAT = "alice", "chat-alice"


class Inbox:
    """A notifier that keeps what it was asked to deliver."""

    def __init__(self) -> None:
        self.deliveries: list[Delivery] = []

    async def deliver(self, delivery: Delivery) -> DeliveryStatus:
        self.deliveries.append(delivery)
        return DeliveryStatus.DELIVERED


WATCHED_FILE = '''
from pathlib import Path

from tools import tool

SHOWN = Path(__file__).with_name("stock.txt")


@tool
def stock_level(item: str) -> str:
    """How many of an item are in stock.

    Args:
        item: The item.
    """
    return f"{item}: {SHOWN.read_text().strip()}"


@tool(requires_approval=True)
def guarded_level(item: str) -> str:
    """The same, behind an approval.

    Args:
        item: The item.
    """
    return item
'''


@pytest.fixture
def inbox() -> Inbox:
    return Inbox()


@pytest.fixture
async def app(tmp_path: Path, inbox: Inbox) -> AsyncIterator[App]:
    tools_dir = tmp_path / "data" / "custom_tools"
    tools_dir.mkdir(parents=True)
    (tools_dir / "stock.py").write_text(WATCHED_FILE)
    (tools_dir / "stock.txt").write_text("3")
    settings = load_settings(
        data_dir=tmp_path / "data",
        timezone="Europe/Berlin",
        llm_base_url=None,
        serpapi_api_key=None,
        http_allow_hosts=["127.0.0.1"],
    )
    async with open_app(settings, notifier=inbox, clock=ManualClock(NOW)) as built:
        yield built


async def call(app: App, name: str, /, **arguments: Any) -> ToolResult:
    ctx = await app.agent.tool_context(USER, CHAT)
    return await app.executor.execute(ToolCall(name, arguments), ctx)


async def said(app: App, name: str, /, **arguments: Any) -> str:
    result = await call(app, name, **arguments)
    assert result.status is ToolStatus.OK, result.display
    return result.display


async def refused(app: App, name: str, /, **arguments: Any) -> str:
    result = await call(app, name, **arguments)
    assert result.status is not ToolStatus.OK, result.display
    return result.display


async def tick(app: App, span: timedelta) -> None:
    clock = app.clock
    assert isinstance(clock, ManualClock)
    clock.advance(span)
    await app.tasks.run_due()


async def test_a_page_monitor_is_made_with_its_condition_and_speaks_on_it(
    app: App, inbox: Inbox
) -> None:
    async with PageServer("<html><body><p id='s'>Sold out</p></body></html>") as site:
        text = await said(
            app, "add_monitor", url=site.url("/k"), selector="#s",
            condition="when it says in stock", every="every 30 minutes",
        )  # fmt: skip
        [task] = await app.tasks.list_tasks(USER)
        assert text == (
            f"I'll check {site.url('/k')} (#s) every 30 minutes (Europe/Berlin) and tell you "
            f"only when it contains 'in stock' (task {task.id}); I take a first look now, "
            "and tell you at once if it contains 'in stock' already."
        )
        assert task.task_type is TaskType.MONITOR
        assert task.next_run == app.clock.now()
        await tick(app, timedelta(0))  # the first look: nothing to say
        assert inbox.deliveries == []
        assert (await app.tasks.get_task(task.id, USER)).next_run == app.clock.now() + timedelta(
            minutes=30
        )
        site.show("<html><body><p id='s'>In stock</p></body></html>")
        await tick(app, timedelta(minutes=30))
    [delivery] = inbox.deliveries
    assert delivery.text.endswith("it contains 'in stock' now.\nwas Sold out, now In stock")


@pytest.mark.parametrize(
    ("arguments", "reason"),
    [
        ({}, "say what to watch: a url"),
        ({"url": "https://a.example/", "query": "x"}, "got url, query"),
        ({"url": "https://a.example/", "every": "tomorrow at 9am"}, "'tomorrow' happens once"),
        ({"url": "https://a.example/", "condition": "when pigs fly"}, "could not read"),
        ({"url": "ftp://a.example/"}, "must be an absolute http:// or https:// URL"),
        ({"url": "https://a.example/", "selector": "##"}, "is not a CSS selector"),
        ({"query": "python 3.14"}, "web search is not configured"),
        ({"tool": "no_such_tool"}, "there is no tool 'no_such_tool'"),
        ({"tool": "save_note", "arguments": {"content": "x"}}, "changes things"),
        ({"tool": "guarded_level", "arguments": {"item": "x"}}, "waits for your approval"),
        ({"url": "https://a.example/", "every": "every second"}, "ASSISTANT_MIN_INTERVAL"),
        ({"url": "http://10.1.2.3/x"}, "refusing to connect: 10.1.2.3 is a private address"),
        ({"url": "https://a.example/", "every": "banana"}, "'every 30 minutes' or 'every day"),
        (
            {"url": "https://a.example/p.json", "field": "price", "condition": "is banana"},
            "I could not read 'is banana' as a condition; say e.g.",
        ),
    ],
)
async def test_a_monitor_that_cannot_work_is_refused_saying_why(
    app: App, arguments: dict[str, Any], reason: str
) -> None:
    assert reason in await refused(app, "add_monitor", **arguments)
    assert await app.tasks.list_tasks(USER) == []


async def test_the_same_monitor_twice_is_the_one_that_exists(app: App) -> None:
    first = await said(app, "add_monitor", url="https://a.example/k", condition="< 300")
    again = await said(app, "add_monitor", url="https://a.example/k", condition="below 300")
    other = await said(app, "add_monitor", url="https://a.example/k", condition="above 300")
    tasks = await app.tasks.list_tasks(USER)
    assert len(tasks) == 2
    task_id = first.split("(task ")[1].split(")")[0]
    assert again == (
        f"You already have that monitor (task {task_id}): I check https://a.example/k every "
        "hour (Europe/Berlin) and tell you only when the value is below 300. I made no second "
        "one."
    )
    assert first.endswith(
        "It reads the first number on the page: to compare another, name what holds it, a "
        "CSS selector on a page ('watch #price on https://...') or a JSON field "
        "('https://.../item.json field data.price')."
    )
    assert other.startswith("I'll check https://a.example/k every hour")  # another condition
    changes = await said(app, "add_monitor", url="https://a.example/n")
    assert changes.endswith("I take a first look now, which only notes what is there.")


async def test_done_on_a_monitor_is_refused_and_changes_nothing(app: App) -> None:
    await said(app, "add_monitor", url="https://a.example/k")
    [task] = await app.tasks.list_tasks(USER)
    refusal = await refused(app, "acknowledge_task", task_id=task.id)
    assert "is a monitor task, not a reminder, so nothing was marked done" in refusal
    assert await app.tasks.history(task.id, USER) == []
    assert (await app.tasks.get_task(task.id, USER)).status is TaskStatus.ACTIVE


async def test_a_tool_monitor_runs_the_tool_unattended_and_tells_a_change(
    app: App, inbox: Inbox, tmp_path: Path
) -> None:
    text = await said(
        app, "add_monitor", tool="stock_level", arguments={"item": "kettle"},
        condition="< 2", every="every hour",
    )  # fmt: skip
    assert "the output of stock_level every hour" in text
    await tick(app, timedelta(hours=1))
    (tmp_path / "data" / "custom_tools" / "stock.txt").write_text("1")
    await tick(app, timedelta(hours=1))
    [delivery] = inbox.deliveries
    assert delivery.text.endswith("the value is below 2 now.\nwas kettle: 3, now kettle: 1")
    [task] = await app.tasks.list_tasks(USER)
    runs = await app.tasks.history(task.id, USER)
    assert [r.status for r in runs] == [RunStatus.SUCCEEDED] * 2


async def test_quiet_hours_are_set_shown_and_ended(app: App, inbox: Inbox) -> None:
    assert "no quiet hours" in await said(app, "quiet_hours")
    assert await said(app, "quiet_hours", hours="from 10pm to 7am") == (
        "Quiet hours: from 22:00 to 07:00 (Europe/Berlin). Messages due then wait and arrive "
        "together at 07:00, marked as held; reminders you mark urgent still come at once."
    )
    assert await app.quiet.get(USER) is not None
    assert (
        await said(app, "quiet_hours") == "Your quiet hours: from 22:00 to 07:00 (Europe/Berlin)."
    )
    await app.tasks.add_task(
        owner_id=USER, chat_id=CHAT, task_type=TaskType.REMINDER,
        schedule=OnceSchedule(at=datetime(2026, 3, 10, 23, 0, tzinfo=BERLIN), tz=BERLIN),
        execution_data={"message": "stretch"},
    )  # fmt: skip
    await tick(app, timedelta(hours=8, minutes=30))
    assert inbox.deliveries == []
    assert await said(app, "quiet_hours", hours="off") == (
        "Quiet hours are off: messages arrive when they are due. The 1 message they held "
        "arrives now."
    )
    await app.tasks.release_due()
    assert [d.text for d in inbox.deliveries] == [
        "stretch\n(held during your quiet hours since 23:00)"
    ]
    assert "could not read 'whenever'" in await refused(app, "quiet_hours", hours="whenever")


async def test_one_morning_briefing_is_started_moved_shown_and_stopped(app: App) -> None:
    started = await said(app, "morning_briefing", at="7:30")
    [task] = await app.tasks.list_tasks(USER)
    assert started.startswith(
        "Started your morning briefing: every day at 07:30 (Europe/Berlin), the first on "
        f"tomorrow at 07:30 (Europe/Berlin) (task {task.id})."
    )
    moved = await said(app, "morning_briefing", at="8am")
    assert moved.startswith("Moved your morning briefing: every day at 08:00")
    [same] = await app.tasks.list_tasks(USER)
    assert same.id == task.id and same.task_type is TaskType.BRIEFING
    assert "every day at 08:00" in await said(app, "morning_briefing")
    assert await said(app, "morning_briefing", at="off") == (
        f"Stopped your morning briefing (task {task.id})."
    )
    assert await app.tasks.list_tasks(USER) == []


async def test_done_stops_the_reminder_that_repeats_and_is_kept_in_its_history(
    app: App, inbox: Inbox
) -> None:
    task = await app.tasks.add_task(
        owner_id=USER, chat_id=CHAT, task_type=TaskType.REMINDER,
        schedule=OnceSchedule(at=NOW + timedelta(minutes=5), tz=BERLIN),
        execution_data={"message": "take the pills", "nag_minutes": 10},
    )  # fmt: skip
    assert "no reminder has gone off" in await refused(app, "acknowledge_task")
    await tick(app, timedelta(minutes=5))
    await tick(app, timedelta(minutes=10))
    assert len(inbox.deliveries) == 2
    assert await said(app, "acknowledge_task") == (
        f"Done: task {task.id} ('take the pills') will not repeat."
    )
    await tick(app, timedelta(minutes=10))
    assert len(inbox.deliveries) == 2
    done = await app.tasks.get_task(task.id, USER)
    assert done.status is TaskStatus.DONE
    [ack, *_] = await app.tasks.history(task.id, USER)
    assert (ack.status, ack.result) == (
        RunStatus.ACKNOWLEDGED,
        "acknowledged: 'done' in chat chat-alice",
    )
    assert await said(app, "acknowledge_task", task_id=task.id) == (
        f"Task {task.id} ('take the pills') was already marked done at 14:45; nothing changed."
    )
    assert len(await app.tasks.history(task.id, USER)) == 3  # no second acknowledgement

"""Monitors (issue 28): conditions, fields and diffs as values, and monitors run by the
TaskManager against a real page on 127.0.0.1, fetched through the guarded HTTP path."""

from __future__ import annotations

import ipaddress
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta

import pytest

from common import GuardedHttp, IPAddress, ManualClock, NetGuard
from tasks import (
    DeliveryKind,
    MonitorData,
    OnceSchedule,
    RunStatus,
    SearchHit,
    TaskDataError,
    TaskError,
    TaskManager,
    TaskStatus,
    TaskType,
    parse_schedule,
)
from tasks.monitors import (
    Condition,
    ConditionKind,
    Observation,
    change_line,
    first_number,
    judge,
    parse_condition,
    read_field,
    short_diff,
)
from testing.page_server import PageServer
from tests.tasks.conftest import (
    BERLIN,
    T0,
    FakeSearcher,
    RecordingNotifier,
    StoreFactory,
    every,
)

MINUTE = timedelta(minutes=1)
HOUR = timedelta(hours=1)


def page(stock: str, price: str = "€320.00", noise: str = "") -> str:
    return (
        "<html><head><title>Kettle</title><script>var t = 1;</script></head><body>"
        f"<nav>Home | Shop</nav><main><h1>Kettle</h1><p class='price'>{price}</p>"
        f"<p id='stock'>{stock}</p><p>{noise}</p></main><footer>(c) shop</footer></body></html>"
    )


@pytest.fixture
async def site() -> AsyncIterator[PageServer]:
    async with PageServer(page("Sold out")) as server:
        yield server


def watching(
    store_factory: StoreFactory, clock: ManualClock, notifier: RecordingNotifier, http: GuardedHttp
) -> TaskManager:
    return TaskManager(store=store_factory(), clock=clock, notifier=notifier, http=http)


@asynccontextmanager
async def started(manager: TaskManager) -> AsyncIterator[TaskManager]:
    """The manager open, its timer not running: the test fires what is due (``run_due``)."""
    await manager.start(timer=False)
    try:
        yield manager
    finally:
        await manager.stop()


async def add_monitor(manager: TaskManager, **data: object) -> str:
    task = await manager.add_task(
        owner_id="alice",
        chat_id="chat-alice",
        task_type=TaskType.MONITOR,
        schedule=every(MINUTE),
        execution_data=data,
    )
    return task.id


# -- values ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("said", "canonical"),
    [
        ("when it contains 'in stock'", "contains 'in stock'"),
        ("if it says “Back in stock”", "contains 'Back in stock'"),
        ("when 'Sold out' disappears", "lacks 'Sold out'"),
        ("it no longer says sold out", "lacks 'sold out'"),
        ("< 300", "< 300"),
        ("when price < 300", "price < 300"),
        ("when the price drops below 300", "price < 300"),
        ("under €1,000", "< 1000"),
        ("is at most 299.99", "<= 299.99"),
        ("goes over 9000", "> 9000"),
        ("reaches 100", ">= 100"),
        ("when the temperature falls below -3.5 °C", "temperature < -3.5"),
        ("is not 42", "!= 42"),
        ("price is 42", "price = 42"),
        ("when it's at least 300", ">= 300"),
        ("that’s above 1.2", "> 1.2"),
        ("'sold out' is gone", "lacks 'sold out'"),
    ],
)
def test_a_condition_in_words_or_as_an_expression_has_one_canonical_form(
    said: str, canonical: str
) -> None:
    condition = parse_condition(said)
    assert condition is not None and condition.canonical() == canonical
    assert parse_condition(canonical) == condition


@pytest.mark.parametrize("said", [None, "changes", "when it changes", "when anything changes"])
def test_a_change_alone_is_no_condition(said: str | None) -> None:
    assert parse_condition(said) is None


def test_a_condition_that_cannot_be_read_is_refused_with_examples() -> None:
    with pytest.raises(TaskDataError, match=r"could not read 'when the moon' .* 'price < 300'"):
        parse_condition("when the moon")
    with pytest.raises(TaskDataError, match="at most 300"):
        parse_condition("contains " + "x" * 400)


def test_conditions_judge_text_without_case_and_numbers_by_the_first_one() -> None:
    assert Condition(ConditionKind.CONTAINS, text="In  Stock").holds("Now in stock!")
    assert Condition(ConditionKind.LACKS, text="sold out").holds("In stock")
    assert Condition(ConditionKind.BELOW, number=300).holds("Price: €289.99 (was €320)")
    assert not Condition(ConditionKind.BELOW, number=300).holds("€1,299.00")
    assert first_number("-3.5 °C") == -3.5 and first_number("no digits") is None
    with pytest.raises(TaskError, match="needs a number"):
        Condition(ConditionKind.BELOW, number=300).holds("Sold out")


def test_a_json_field_is_read_by_its_path_and_a_missing_one_says_where() -> None:
    document = json.loads('{"data": {"items": [{"price": 289.5}, {"price": 300}]}}')
    assert read_field(document, "data.items[0].price") == 289.5
    assert read_field(document, "$.data.items[-1].price") == 300
    with pytest.raises(TaskError, match=r"\$\.data has no 'item' \(it has: items\)"):
        read_field(document, "data.item")
    with pytest.raises(TaskDataError, match="write it like"):
        read_field(document, "data..x")


def test_a_short_diff_says_a_value_or_the_lines_that_changed() -> None:
    assert short_diff("320", "289") == "was 320, now 289"
    before = "\n".join(f"line {n}" for n in range(20))
    after = before.replace("line 3", "line three").replace("line 9", "line nine")
    assert short_diff(before, after) == ("- line 3\n+ line three\n- line 9\n+ line nine")
    many = "\n".join(f"new {n}" for n in range(20))
    assert short_diff(before, many).endswith("… and 34 more changed lines")


def test_a_change_is_one_history_line_saying_what_was_and_what_is() -> None:
    assert change_line("320", "289") == "was 320, now 289"
    page_before = "Version 1 of the page.\nPrice 320 EUR\nsold out"
    page_after = "Version 2 of the page.\nPrice 320 EUR\nsold out"
    assert change_line(page_before, page_after) == (
        "was Version 1 of the page., now Version 2 of the page."
    )
    assert change_line("a\nb", "a\nb\nc") == "added c"
    assert change_line("a\nb\nc", "a\nc") == "removed b"
    assert change_line("a\nb\nc", "x\ny\nz") == "was a, now x (and 4 more changed lines)"
    assert change_line("x" * 300 + "\n1", "y" * 300 + "\n1") == (
        f"was {'x' * 69}…, now {'y' * 69}…"
    )
    first = judge(None, None, page_before, T0, title="page")
    moved = judge(None, first.observation, page_after, T0 + MINUTE, title="page")
    assert moved.result == "changed: was Version 1 of the page., now Version 2 of the page."


def test_a_comparison_says_which_number_it_read_and_where() -> None:
    below = Condition(ConditionKind.BELOW, number=300)
    seen = "Version 3 of the page\nPrice 350 EUR"
    told = judge(below, None, seen, T0, title="page")
    assert told.message is not None
    assert told.message.startswith(
        "page: the value is below 300 now (read 3 from 'Version 3 of the page')."
    )
    assert told.result == "the value is below 300: yes, told (read 3 from 'Version 3 of the page')"
    # A value of one short line says it all: no "read ... from" then.
    assert below.source("€289") == "" and below.source("289\n") == ""
    long_line = "Intro " + "x" * 100 + " price 42 and more " + "y" * 100
    assert below.source(long_line) == f"read 42 from '…{'x' * 13} price 42 and more {'y' * 28}…'"


def test_judge_speaks_on_change_or_when_a_condition_comes_to_hold() -> None:
    first = judge(None, None, "a", T0, title="page")
    assert first.message is None and first.result.startswith("first look")
    same = judge(None, first.observation, "a", T0 + MINUTE, title="page")
    assert same.message is None and same.result == "unchanged"
    assert same.observation.changed_at == T0 and same.observation.checks == 2
    moved = judge(None, same.observation, "b", T0 + 2 * MINUTE, title="page")
    assert moved.message == "page changed:\nwas a, now b"
    assert moved.observation.pending == moved.message  # until it is delivered

    low = Condition(ConditionKind.BELOW, number=300, subject="price")
    high = judge(low, None, "320", T0, title="kettle")
    assert high.message is None and high.observation.holds is False
    dropped = judge(low, high.observation, "289", T0, title="kettle")
    assert dropped.message == "kettle: price is below 300 now.\nwas 320, now 289"
    lower = judge(low, dropped.observation.delivered(), "280", T0, title="kettle")
    assert lower.message is None and lower.result == "price is below 300: still (told before)"


def test_a_message_not_delivered_is_sent_by_the_next_check() -> None:
    before = Observation("a", T0, T0, pending="page changed:\nwas x, now a")
    again = judge(None, before, "a", T0 + MINUTE, title="page")
    assert again.message == "page changed:\nwas x, now a"
    assert again.observation.pending == again.message


def test_monitor_data_is_checked_for_its_source() -> None:
    data = MonitorData.model_validate(
        {"source": "page", "url": "https://shop.example/k", "selector": "#stock",
         "condition": "when it says in stock"}
    )  # fmt: skip
    assert data.condition == "contains 'in stock'"
    assert data.subject() == "https://shop.example/k (#stock)"
    with pytest.raises(ValueError, match="a json monitor needs url"):
        MonitorData.model_validate({"source": "json", "field": "price"})
    with pytest.raises(ValueError, match="selector do not belong to a json monitor"):
        MonitorData.model_validate(
            {"source": "json", "url": "https://x.example/", "selector": "#p"}
        )
    with pytest.raises(ValueError, match="is not a CSS selector"):
        MonitorData.model_validate(
            {"source": "page", "url": "https://x.example/", "selector": "##"}
        )


# -- monitors run by the TaskManager ------------------------------------------------------------


async def test_a_page_monitor_sends_one_message_per_change_over_100_checks_and_restarts(
    store_factory: StoreFactory, clock: ManualClock, http: GuardedHttp, site: PageServer
) -> None:
    notifier = RecordingNotifier()
    changes = {10: "In stock", 30: "Only 2 left", 55: "Sold out", 70: "In stock", 95: "Gone"}
    manager = watching(store_factory, clock, notifier, http)
    await manager.start(timer=False)
    task_id = await add_monitor(manager, source="page", url=site.url("/kettle"))
    for check in range(1, 101):
        if check == 50:  # a restart between changes: a new manager, the same store
            await manager.stop()
            manager = watching(store_factory, clock, notifier, http)
            await manager.start(timer=False)
        if check in changes:
            site.show(page(changes[check]))
        clock.advance(MINUTE)
        assert await manager.run_due() == 1
    await manager.stop()

    assert site.requests == 100
    assert len(notifier.deliveries) == 5
    assert all(d.kind is DeliveryKind.RESULT for d in notifier.deliveries)
    first = notifier.deliveries[0].text
    assert first.startswith(f"watch {site.url('/kettle')} changed:")
    assert "- Sold out\n+ In stock" in first
    assert "var t" not in first and "Home | Shop" not in first  # scripts and chrome dropped
    manager = watching(store_factory, clock, notifier, http)
    await manager.start(timer=False)
    runs = await manager.history(task_id, "alice", limit=200)
    await manager.stop()
    assert len(runs) == 100 and all(r.status is RunStatus.SUCCEEDED for r in runs)
    results = [r.result or "" for r in runs]
    assert sum(r.startswith("changed:") for r in results) == 5
    assert sum(r == "unchanged" for r in results) == 94  # silent checks, in the history
    assert results[-1].startswith("first look")


async def test_a_selector_and_a_contains_condition_speak_once_when_it_comes_in_stock(
    store_factory: StoreFactory, clock: ManualClock, http: GuardedHttp, site: PageServer
) -> None:
    notifier = RecordingNotifier()
    async with started(watching(store_factory, clock, notifier, http)) as manager:
        await add_monitor(
            manager, source="page", url=site.url("/k"), selector="#stock",
            condition="when it contains 'in stock'",
        )  # fmt: skip
        for stock, noise in [
            ("Sold out", "a"), ("Sold out", "b"), ("In stock", "c"), ("In stock", "d"),
            ("Sold out", "e"), ("Back in stock!", "f"),
        ]:  # fmt: skip
            site.show(page(stock, noise=noise))  # the noise is outside the selector
            clock.advance(MINUTE)
            await manager.run_due()
    assert notifier.texts() == [
        f"watch {site.url('/k')} (#stock) for contains 'in stock': it contains 'in stock' "
        "now.\nwas Sold out, now In stock",
        f"watch {site.url('/k')} (#stock) for contains 'in stock': it contains 'in stock' "
        "now.\nwas Sold out, now Back in stock!",
    ]


async def test_a_json_field_below_a_number_is_told_when_it_drops(
    store_factory: StoreFactory, clock: ManualClock, http: GuardedHttp, site: PageServer
) -> None:
    notifier = RecordingNotifier()
    async with started(watching(store_factory, clock, notifier, http)) as manager:
        task_id = await add_monitor(
            manager, source="json", url=site.url("/api/kettle"), field="offer.price",
            condition="< 300",
        )  # fmt: skip
        for price in (320, 310, 289, 280, 305, 299):
            site.show(json.dumps({"offer": {"price": price}}), content_type="application/json")
            clock.advance(MINUTE)
            await manager.run_due()
        seen = await manager.observation(task_id, "alice")
    assert [d.text.split("\n")[1] for d in notifier.deliveries] == [
        "was 310, now 289",
        "was 305, now 299",
    ]
    assert notifier.deliveries[0].text.startswith(
        f"watch offer.price at {site.url('/api/kettle')} for < 300: the value is below 300 now."
    )
    assert seen is not None and seen.value == "299" and seen.holds is True


async def test_a_monitor_that_cannot_look_alerts_once_and_says_when_it_works_again(
    store_factory: StoreFactory, clock: ManualClock, http: GuardedHttp, site: PageServer
) -> None:
    notifier = RecordingNotifier()
    async with started(watching(store_factory, clock, notifier, http)) as manager:
        task_id = await add_monitor(manager, source="page", url=site.url("/k"), selector="#stock")
        clock.advance(MINUTE)
        await manager.run_due()  # first look
        site.show(page("x"), status=503)
        for _ in range(4):
            clock.advance(MINUTE)
            await manager.run_due()
        site.show(page("Sold out"))
        clock.advance(MINUTE)
        await manager.run_due()
        clock.advance(MINUTE)
        await manager.run_due()
        task = await manager.get_task(task_id, "alice")
    notices = [d.text for d in notifier.deliveries if d.kind is DeliveryKind.NOTICE]
    assert len(notices) == 2
    assert "has failed 3 times in a row. Last error: " in notices[0]
    assert f"{site.url('/k')} answered HTTP 503 Service Unavailable" in notices[0]
    assert notices[1].endswith("works again: it succeeded after 4 failures in a row.")
    assert [d.kind for d in notifier.deliveries] == [DeliveryKind.NOTICE] * 2  # nothing changed
    assert task.status is TaskStatus.ACTIVE and task.consecutive_failures == 0


async def resolves_to_loopback(host: str) -> list[IPAddress]:
    """A resolver for which every name is 127.0.0.1 (a name that hides a private address)."""
    return [ipaddress.ip_address("127.0.0.1")]


async def test_the_guarded_path_refuses_a_name_that_resolves_to_a_private_address(
    store_factory: StoreFactory, clock: ManualClock, site: PageServer
) -> None:
    guarded = GuardedHttp(guard=NetGuard(resolver=resolves_to_loopback))
    notifier = RecordingNotifier()
    url = f"http://shop.test:{site.port}/k"
    try:
        async with started(watching(store_factory, clock, notifier, guarded)) as manager:
            task_id = await add_monitor(manager, source="page", url=url)  # DNS decides later
            clock.advance(MINUTE)
            await manager.run_due()
            [run] = await manager.history(task_id, "alice")
    finally:
        await guarded.aclose()
    assert run.status is RunStatus.FAILED and site.requests == 0
    assert "refusing to connect: 'shop.test' resolves to 127.0.0.1" in (run.error or "")
    # Its first look failed: its owner hears of it at once, not after 3 failures.
    [notice] = notifier.deliveries
    assert notice.kind is DeliveryKind.NOTICE
    assert "could not take its first look: " in notice.text
    assert "'shop.test' resolves to 127.0.0.1, which is a loopback address" in notice.text
    assert f"cancel it ('cancel {task_id}')" in notice.text


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://10.1.2.3/x", "10.1.2.3 is a private address"),
        ("http://169.254.169.254/latest", "169.254.169.254 is a cloud metadata address"),
        ("http://[::1]:8080/x", "::1 is a loopback address"),
        ("http://metadata.google.internal/x", "is a cloud metadata host"),
        ("http://0x7f.1/x", "'0x7f.1' resolves to 127.0.0.1, which is a loopback address"),
    ],
)
async def test_a_monitor_of_an_address_the_guard_always_refuses_is_refused_when_made(
    store_factory: StoreFactory, clock: ManualClock, url: str, reason: str
) -> None:
    guarded = GuardedHttp(guard=NetGuard(resolver=resolves_to_loopback))
    manager = watching(store_factory, clock, RecordingNotifier(), guarded)
    async with started(manager):
        with pytest.raises(TaskDataError, match="could only fail: refusing") as refused:
            await add_monitor(manager, source="page", url=url)
        assert await manager.list_tasks("alice") == []
    assert reason in str(refused.value)
    assert "ASSISTANT_HTTP_ALLOW_HOSTS" in str(refused.value) or "never fetched" in str(
        refused.value
    )


async def test_an_address_on_the_allow_list_may_be_watched(
    store_factory: StoreFactory, clock: ManualClock
) -> None:
    guarded = GuardedHttp(guard=NetGuard(allow_hosts=["10.1.2.3"]))
    manager = watching(store_factory, clock, RecordingNotifier(), guarded)
    async with started(manager):
        await add_monitor(manager, source="page", url="http://10.1.2.3/x")
        [task] = await manager.list_tasks("alice")
    assert task.task_type is TaskType.MONITOR


async def test_a_first_look_that_fails_is_told_at_once_and_later_ones_wait_for_the_alert(
    store_factory: StoreFactory, clock: ManualClock, http: GuardedHttp, site: PageServer
) -> None:
    site.show(page("x"), status=404)
    notifier = RecordingNotifier()
    async with started(watching(store_factory, clock, notifier, http)) as manager:
        task_id = await add_monitor(manager, source="page", url=site.url("/gone"))
        clock.advance(MINUTE)
        await manager.run_due()  # the first look: told at once
        told_first = [d.text for d in notifier.deliveries]
        clock.advance(MINUTE)
        await manager.run_due()  # the second: only in its history
        told_second = len(notifier.deliveries)
        clock.advance(MINUTE)
        await manager.run_due()  # the third: the failure alert
    [first] = told_first
    assert first.startswith(f'Task {task_id} ("watch {site.url("/gone")}") could not take its ')
    assert f"first look: {site.url('/gone')} answered HTTP 404 Not Found" in first
    assert "tell you if it fails 3 times in a row." in first
    assert told_second == 1
    assert len(notifier.deliveries) == 2
    assert "has failed 3 times in a row" in notifier.deliveries[1].text


async def test_a_monitor_seen_once_does_not_tell_a_failure_at_once(
    store_factory: StoreFactory, clock: ManualClock, http: GuardedHttp, site: PageServer
) -> None:
    notifier = RecordingNotifier()
    async with started(watching(store_factory, clock, notifier, http)) as manager:
        await add_monitor(manager, source="page", url=site.url("/k"))
        clock.advance(MINUTE)
        await manager.run_due()  # a first look that works
        site.show(page("x"), status=503)
        clock.advance(MINUTE)
        await manager.run_due()
    assert notifier.deliveries == []


async def test_a_search_monitor_tells_which_results_came_and_went(
    store_factory: StoreFactory, clock: ManualClock
) -> None:
    searcher = FakeSearcher([SearchHit("Python 3.14 released", "https://python.org/314")])
    notifier = RecordingNotifier()
    manager = TaskManager(store=store_factory(), clock=clock, notifier=notifier, searcher=searcher)
    async with started(manager):
        await add_monitor(manager, source="search", query="python 3.14", limit=3)
        clock.advance(MINUTE)
        await manager.run_due()
        searcher.hits = [
            SearchHit("Python 3.14.1", "https://python.org/3141"),
            SearchHit("Python 3.14 released", "https://python.org/314"),
        ]
        clock.advance(MINUTE)
        await manager.run_due()
    assert notifier.texts() == [
        "watch the top 3 results for 'python 3.14' changed:\n"
        "+ Python 3.14.1 - https://python.org/3141"
    ]


async def test_the_briefing_tells_a_monitors_change_not_its_checks(
    store_factory: StoreFactory, clock: ManualClock, http: GuardedHttp, site: PageServer
) -> None:
    notifier = RecordingNotifier()
    async with started(watching(store_factory, clock, notifier, http)) as manager:
        for selector in ("#stock", ".price"):  # the price never changes
            await manager.add_task(
                owner_id="alice", chat_id="chat-alice", task_type=TaskType.MONITOR,
                schedule=every(HOUR), execution_data={"source": "page", "url": site.url("/k"), "selector": selector},
            )  # fmt: skip
        for when, what in ((T0 + 3 * HOUR, "call the garage"), (T0 + 25 * HOUR, "dentist")):
            await manager.add_task(
                owner_id="alice", chat_id="chat-alice", task_type=TaskType.REMINDER,
                schedule=OnceSchedule(at=when, tz=BERLIN), description=what,
            )  # fmt: skip
        await manager.add_task(
            owner_id="alice", chat_id="chat-alice", task_type=TaskType.BRIEFING,
            schedule=parse_schedule("every day at 7am", now=T0, tz=BERLIN),
        )  # fmt: skip
        await manager.run_due()  # the monitors' first looks, at once
        for hour in range(1, 23):  # Monday 10:00 to Tuesday 07:00
            if hour == 5:
                site.show(page("In stock"))
            clock.advance(HOUR)
            await manager.run_due()
    [briefing] = [d.text for d in notifier.deliveries if d.text.startswith("Good morning")]
    assert briefing == (
        "Good morning! Your briefing for Tue 2026-03-03 (Europe/Berlin):\n\n"
        "Today\n- 10:00 reminder: dentist\n\n"
        "Overnight\n- 12:00 call the garage: succeeded (reminder delivered)\n\n"
        f"Monitors that changed\n- watch {site.url('/k')} (#stock): changed at 14:00"
    )

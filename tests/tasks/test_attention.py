"""Quiet hours, reminders that nag until done, snoozed messages and the morning briefing
(issue 28), as the TaskManager does them over each store."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import replace
from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest

from common import ManualClock
from tasks import (
    BriefingLine,
    BriefingSection,
    Delivery,
    DeliveryKind,
    IntervalSchedule,
    OnceSchedule,
    PostgresTaskStore,
    QuietWindow,
    RunStatus,
    Schedule,
    TaskDataError,
    TaskManager,
    TaskNotFoundError,
    TaskStateError,
    TaskStatus,
    TaskStore,
    TaskType,
    parse_schedule,
)
from tasks.runners import Deliverer, ReminderRunner, checked_summary
from tests.tasks.conftest import (
    RecordingNotifier,
    ScriptedAgent,
    StoreFactory,
)

BERLIN = ZoneInfo("Europe/Berlin")
EVENING = datetime(2026, 3, 10, 21, 0, tzinfo=BERLIN)
MINUTE = timedelta(minutes=1)
HOUR = timedelta(hours=1)


class Quiet:
    """Quiet hours from 22:00 to 07:00 for alice, in Berlin (``tasks.QuietHours``)."""

    def __init__(self) -> None:
        self.window: QuietWindow | None = QuietWindow(time(22), time(7))

    async def quiet_until(self, owner_id: str, at: datetime) -> datetime | None:
        if owner_id != "alice" or self.window is None:
            return None
        return self.window.until(at, BERLIN)


@asynccontextmanager
async def started(manager: TaskManager) -> AsyncIterator[TaskManager]:
    await manager.start(timer=False)
    try:
        yield manager
    finally:
        await manager.stop()


def manager_of(
    store: TaskStore,
    clock: ManualClock,
    notifier: RecordingNotifier,
    *,
    quiet: Quiet | None = None,
    summarizer: ScriptedAgent | None = None,
    briefing: Notes | None = None,
) -> TaskManager:
    return TaskManager(
        store=store,
        clock=clock,
        notifier=notifier,
        quiet=quiet,
        summarizer=summarizer,
        briefing=briefing,
    )


async def remind(
    manager: TaskManager,
    schedule: Schedule,
    message: str,
    *,
    urgent: bool = False,
    nag: int | None = None,
    owner: str = "alice",
) -> str:
    data: dict[str, object] = {"message": message, "urgent": urgent, "nag_minutes": nag}
    task = await manager.add_task(
        owner_id=owner,
        chat_id=f"chat-{owner}",
        task_type=TaskType.REMINDER,
        schedule=schedule,
        execution_data=data,
    )
    return task.id


def at(hour: int, minute: int = 0, *, day: int = 10) -> datetime:
    return datetime(2026, 3, day, hour, minute, tzinfo=BERLIN)


async def advance_to(clock: ManualClock, manager: TaskManager, when: datetime) -> None:
    clock.advance(when - clock.now())
    await manager.run_due()


# -- quiet hours --------------------------------------------------------------------------------


async def test_quiet_hours_hold_every_delivery_and_release_them_together(
    store_factory: StoreFactory,
) -> None:
    clock, notifier, quiet = ManualClock(EVENING), RecordingNotifier(), Quiet()
    async with started(manager_of(store_factory(), clock, notifier, quiet=quiet)) as manager:
        first = await remind(manager, OnceSchedule(at=at(22, 30), tz=BERLIN), "stretch")
        await remind(manager, OnceSchedule(at=at(23, 0), tz=BERLIN), "water the plants")
        alarm = await remind(
            manager, OnceSchedule(at=at(23, 30), tz=BERLIN), "take the pills", urgent=True
        )
        await remind(manager, OnceSchedule(at=at(5, day=11), tz=BERLIN), "leave for the train")
        bob = await remind(manager, OnceSchedule(at=at(23, 0), tz=BERLIN), "bob's", owner="bob")
        for when in (at(22, 30), at(23, 0), at(23, 30), at(5, day=11)):
            await advance_to(clock, manager, when)
        # Only the urgent alarm, and another user's reminder, went out during the night.
        assert notifier.texts() == ["bob's", "take the pills"]
        assert [d.task_id for d in notifier.deliveries] == [bob, alarm]
        held = await manager.held("alice")
        assert [h.delivery.text for h in held] == ["stretch", "water the plants",
                                                  "leave for the train"]  # fmt: skip
        [run] = await manager.history(first, "alice")
        assert run.status is RunStatus.SUCCEEDED
        assert run.result == "reminder held for quiet hours"

        await advance_to(clock, manager, at(6, 59, day=11))
        assert await manager.release_due() == 0
        clock.advance(MINUTE)
        assert await manager.release_due() == 3
        assert notifier.texts()[2:] == [
            "stretch\n(held during your quiet hours since 22:30)",
            "water the plants\n(held during your quiet hours since 23:00)",
            "leave for the train\n(held during your quiet hours since 05:00)",
        ]
        assert await manager.held("alice") == []
        [run] = await manager.history(first, "alice")
    assert run.result == (
        "reminder held for quiet hours; delivered at 2026-03-11 07:00 (Europe/Berlin)"
    )


async def test_nothing_held_is_lost_across_a_restart(store_factory: StoreFactory) -> None:
    clock, notifier, quiet = ManualClock(EVENING), RecordingNotifier(), Quiet()
    async with started(manager_of(store_factory(), clock, notifier, quiet=quiet)) as manager:
        for minute in range(5):
            await remind(manager, OnceSchedule(at=at(23, minute), tz=BERLIN), f"r{minute}")
        for minute in range(5):
            await advance_to(clock, manager, at(23, minute))
    assert notifier.texts() == []
    # Down from 23:10 to 08:00: the next scheduler releases what waited, by itself.
    clock.advance(at(8, day=11) - clock.now())
    async with manager_of(store_factory(), clock, notifier, quiet=quiet) as running:
        await notifier.wait_for(5)
        await running.wait_idle()
    assert [t.split("\n")[0] for t in notifier.texts()] == [f"r{m}" for m in range(5)]


async def test_ending_quiet_hours_delivers_what_they_hold_at_once(
    store_factory: StoreFactory,
) -> None:
    clock, notifier, quiet = ManualClock(EVENING), RecordingNotifier(), Quiet()
    async with started(manager_of(store_factory(), clock, notifier, quiet=quiet)) as manager:
        await remind(manager, OnceSchedule(at=at(22, 30), tz=BERLIN), "stretch")
        await advance_to(clock, manager, at(22, 30))
        quiet.window = None
        assert await manager.release_quiet("alice") == 1
        assert await manager.release_due() == 1
    assert notifier.texts() == ["stretch\n(held during your quiet hours since 22:30)"]


async def test_a_repeating_reminder_held_all_night_comes_once_in_the_morning(
    store_factory: StoreFactory,
) -> None:
    clock, notifier, quiet = ManualClock(EVENING), RecordingNotifier(), Quiet()
    async with started(manager_of(store_factory(), clock, notifier, quiet=quiet)) as manager:
        task_id = await remind(
            manager, OnceSchedule(at=at(23, 0), tz=BERLIN), "call the bank", nag=60
        )
        for hour in (23, 24, 25, 26):
            await advance_to(clock, manager, at(23, 0) + (hour - 23) * HOUR)
        assert notifier.texts() == []
        clock.advance(at(7, day=11) - clock.now())
        await manager.release_due()
        await manager.run_due()  # the repeat due at 07:00 is held no more
        runs = await manager.history(task_id, "alice")
    held, again = notifier.texts()
    assert held.endswith("\n(held during your quiet hours since 23:00; it came 4 times)")
    assert "call the bank" in held and "call the bank" in again
    assert len(runs) == 5


# -- reminders that nag until acknowledged ------------------------------------------------------


async def test_a_nagging_reminder_repeats_until_the_first_acknowledgement(
    store_factory: StoreFactory,
) -> None:
    clock, notifier = ManualClock(at(9)), RecordingNotifier()
    async with started(manager_of(store_factory(), clock, notifier)) as manager:
        task_id = await remind(
            manager, OnceSchedule(at=at(9, 5), tz=BERLIN), "take the pills", nag=10
        )
        for minute in (5, 15, 25):
            await advance_to(clock, manager, at(9, minute))
        assert len(notifier.deliveries) == 3
        assert notifier.deliveries[0].text == (
            "take the pills\n(again every 10 min until you press Done or say 'done')"
        )
        assert all(d.nags for d in notifier.deliveries)
        task = await manager.get_task(task_id, "alice")
        assert task.status is TaskStatus.ACTIVE and task.next_run == at(9, 35)

        clock.advance(3 * MINUTE)
        done = await manager.acknowledge(task_id, "alice", via="Done in Telegram")
        assert done.stopped and done.task.status is TaskStatus.DONE
        for minute in (35, 45, 55):
            await advance_to(clock, manager, at(9, minute))
        assert len(notifier.deliveries) == 3
        # Done again says when it was done, and records nothing more.
        again = await manager.acknowledge(task_id, "alice", via="'done' in the chat")
        assert not again.stopped and again.already == at(9, 28)
        rows = await manager.history(task_id, "alice")
    assert [r.status for r in rows] == [RunStatus.ACKNOWLEDGED] + [RunStatus.SUCCEEDED] * 3
    assert rows[0].result == "acknowledged: Done in Telegram"
    assert rows[0].finished_at == at(9, 28)
    assert rows[1].result == "reminder delivered; again at 09:35 unless acknowledged"


async def test_a_reminder_that_has_not_gone_off_cannot_be_done(
    store_factory: StoreFactory,
) -> None:
    clock, notifier = ManualClock(at(9)), RecordingNotifier()
    async with started(manager_of(store_factory(), clock, notifier)) as manager:
        task_id = await remind(
            manager, OnceSchedule(at=at(9, 5), tz=BERLIN), "take the pills", nag=10
        )
        with pytest.raises(TaskStateError, match="has not gone off yet, so nothing was marked"):
            await manager.acknowledge(task_id, "alice", via="Done in Telegram")
        with pytest.raises(TaskNotFoundError, match="no reminder has gone off"):
            await manager.acknowledge_latest("alice", via="'done' in the chat")
        await advance_to(clock, manager, at(9, 5))  # it still comes, and nags
        await advance_to(clock, manager, at(9, 15))
        assert len(notifier.deliveries) == 2
        rows = await manager.history(task_id, "alice")
    assert RunStatus.ACKNOWLEDGED not in [r.status for r in rows]


async def test_a_daily_nagging_reminder_waits_for_tomorrow_once_acknowledged(
    store_factory: StoreFactory,
) -> None:
    clock, notifier = ManualClock(at(7)), RecordingNotifier()
    daily = parse_schedule("every day at 8am", now=at(7), tz=BERLIN)
    async with started(manager_of(store_factory(), clock, notifier)) as manager:
        task_id = await remind(manager, daily, "stretch", nag=15)
        await advance_to(clock, manager, at(8))
        await advance_to(clock, manager, at(8, 15))
        assert (await manager.get_task(task_id, "alice")).next_run == at(8, 30)
        clock.advance(5 * MINUTE)
        done = await manager.acknowledge(task_id, "alice", via="/done in the terminal")
        assert done.stopped and done.task.next_run == at(8, day=11)
        await advance_to(clock, manager, at(8, 30))
        assert len(notifier.deliveries) == 2
        await advance_to(clock, manager, at(8, day=11))
        assert len(notifier.deliveries) == 3
        assert (await manager.get_task(task_id, "alice")).next_run == at(8, 15, day=11)


async def test_a_reminder_marked_done_is_not_brought_back_by_a_snooze(
    store_factory: StoreFactory,
) -> None:
    clock, notifier = ManualClock(at(9, 59)), RecordingNotifier()
    async with started(manager_of(store_factory(), clock, notifier)) as manager:
        once = await remind(manager, OnceSchedule(at=at(10), tz=BERLIN), "check the stove", nag=1)
        daily = parse_schedule("every day at 10am", now=at(9), tz=BERLIN)
        every_day = await remind(manager, daily, "stretch", nag=5)
        await advance_to(clock, manager, at(10))
        await advance_to(clock, manager, at(10, 1))
        await manager.acknowledge(once, "alice", via="'done' in the chat")
        await manager.acknowledge(every_day, "alice", via="/done in the terminal")
        clock.advance(30 * timedelta(seconds=1))
        for task_id in (once, every_day):
            with pytest.raises(TaskStateError, match="was marked done at 10:01, so a snooze"):
                await manager.snooze(task_id, "alice", 10 * MINUTE)
        assert (await manager.get_task(once, "alice")).status is TaskStatus.DONE
        assert (await manager.get_task(every_day, "alice")).next_run == at(10, day=11)
        for minute in (11, 12, 30):
            await advance_to(clock, manager, at(10, minute))
    assert len(notifier.deliveries) == 3  # the stove twice, the stretch once; nothing since


async def test_a_nag_shown_again_later_is_dropped_once_its_reminder_is_done(
    store_factory: StoreFactory,
) -> None:
    clock, notifier = ManualClock(at(9, 50)), RecordingNotifier()
    async with started(manager_of(store_factory(), clock, notifier)) as manager:
        task_id = await remind(manager, OnceSchedule(at=at(9, 50), tz=BERLIN), "stretch", nag=1)
        await advance_to(clock, manager, at(9, 50))
        [nag] = notifier.deliveries
        await manager.snooze_delivery("alice", nag, at(10))  # /later 1 10m
        await manager.acknowledge(task_id, "alice", via="'done' in the chat")
        with pytest.raises(TaskStateError, match="was marked done at 09:50"):
            await manager.snooze_delivery("alice", nag, at(10))  # /later after Done
        await advance_to(clock, manager, at(10, 5))
        assert await manager.release_due() == 0
        assert await manager.held("alice") == []
        rows = await manager.history(task_id, "alice")
    assert len(notifier.deliveries) == 1
    assert rows[-1].result == "reminder delivered; again at 09:51 unless acknowledged"


async def test_done_twice_says_when_and_keeps_one_row(store_factory: StoreFactory) -> None:
    clock, notifier = ManualClock(at(10)), RecordingNotifier()
    async with started(manager_of(store_factory(), clock, notifier)) as manager:
        task_id = await remind(manager, OnceSchedule(at=at(10), tz=BERLIN), "feed the cat")
        await advance_to(clock, manager, at(10, 2))
        first = await manager.acknowledge(task_id, "alice", via="/done in the terminal")
        clock.advance(5 * MINUTE)
        second = await manager.acknowledge(task_id, "alice", via="Done on the page")
        latest = await manager.acknowledge_latest("alice", via="'done' in the chat")
        rows = await manager.history(task_id, "alice")
    assert first.already is None and first.note == "acknowledged: /done in the terminal"
    assert second.already == at(10, 2) and latest.already == at(10, 2)
    assert [r.status for r in rows] == [RunStatus.ACKNOWLEDGED, RunStatus.SUCCEEDED]


async def test_done_alone_means_the_reminder_nagging_now_not_one_snoozed(
    store_factory: StoreFactory,
) -> None:
    clock, notifier = ManualClock(at(10)), RecordingNotifier()
    async with started(manager_of(store_factory(), clock, notifier)) as manager:
        cat = await remind(manager, OnceSchedule(at=at(10), tz=BERLIN), "feed the cat", nag=1)
        stretch = await remind(manager, OnceSchedule(at=at(10), tz=BERLIN), "stretch", nag=1)
        await advance_to(clock, manager, at(10))
        with pytest.raises(TaskStateError, match="several reminders are nagging now"):
            await manager.acknowledge_latest("alice", via="'done' in the chat")
        await manager.snooze(stretch, "alice", 10 * MINUTE)
        done = await manager.acknowledge_latest("alice", via="'done' in the chat")
        assert done.task.id == cat and done.stopped
        still = await manager.get_task(stretch, "alice")
    assert still.status is TaskStatus.ACTIVE and still.next_run == at(10, 11)


async def test_a_repeat_claimed_before_the_acknowledgement_is_not_sent(
    store_factory: StoreFactory,
) -> None:
    clock, notifier = ManualClock(at(9)), RecordingNotifier()
    store = store_factory()
    async with started(manager_of(store, clock, notifier)) as manager:
        task_id = await remind(manager, OnceSchedule(at=at(9), tz=BERLIN), "call", nag=10)
        await manager.run_due()
        clock.advance(10 * MINUTE)
        # Another scheduler claims the repeat, then the owner presses Done, then it runs.
        [claim] = await store.claim_due(clock.now(), limit=10, lease=MINUTE)
        await manager.acknowledge(task_id, "alice", via="Done on the page")
        runner = ReminderRunner(Deliverer(notifier, sleep=clock.sleep), acks=store, clock=clock)
        report = await runner.run(claim.task, claim.run)
    assert report.status is RunStatus.SKIPPED
    assert report.error == "acknowledged just before this repeat went out"
    assert len(notifier.deliveries) == 1


async def test_two_schedulers_on_postgresql_never_send_a_repeat_twice(postgres_url: str) -> None:
    clock, notifier = ManualClock(at(9)), RecordingNotifier()
    one = manager_of(PostgresTaskStore(postgres_url), clock, notifier)
    two = manager_of(PostgresTaskStore(postgres_url), clock, notifier)
    front = manager_of(PostgresTaskStore(postgres_url), clock, RecordingNotifier())
    async with started(one), started(two), started(front):
        task_ids = [
            await remind(one, OnceSchedule(at=at(9, n), tz=BERLIN), f"nag {n}", nag=5)
            for n in range(4)
        ]
        for step in range(40):  # 09:00 to 09:39, both schedulers claiming every minute
            await asyncio.gather(one.run_due(), two.run_due())
            if step == 20:
                for task_id in task_ids:
                    await front.acknowledge(task_id, "alice", via="Done in Telegram")
            clock.advance(MINUTE)
    sent = [(d.text.split("\n")[0], d.run_id) for d in notifier.deliveries]
    assert len({run for _, run in sent}) == len(sent)  # no run delivered twice
    for n in range(4):
        times = [d for d in notifier.deliveries if d.text.startswith(f"nag {n}\n")]
        # Every 5 minutes from 09:0n until the acknowledgement at 09:20.
        assert len(times) == len(range(n, 21, 5)), n


# -- snoozed messages -------------------------------------------------------------------------


async def test_a_snoozed_message_comes_again_marked(store_factory: StoreFactory) -> None:
    clock, notifier = ManualClock(at(9)), RecordingNotifier()
    async with started(manager_of(store_factory(), clock, notifier)) as manager:
        schedule = IntervalSchedule(every=HOUR, anchor=at(9), tz=BERLIN)
        task_id = await remind(manager, schedule, "hourly")
        result = Delivery(task_id, None, "alice", "chat-alice", DeliveryKind.RESULT, "the news")
        held = await manager.snooze_delivery(
            "alice", result, (clock.now() + HOUR).astimezone(BERLIN)
        )
        assert held.release_at == at(10)
        clock.advance(HOUR)
        assert await manager.release_due() == 1
        with pytest.raises(TaskNotFoundError):
            await manager.snooze_delivery("bob", result, clock.now() + HOUR)
    assert notifier.texts() == ["the news\n(snoozed at 09:00)"]
    assert notifier.deliveries[0].kind is DeliveryKind.RESULT


async def test_a_message_snoozed_again_moves_and_comes_once(store_factory: StoreFactory) -> None:
    clock, notifier = ManualClock(at(9)), RecordingNotifier()
    async with started(manager_of(store_factory(), clock, notifier)) as manager:
        schedule = IntervalSchedule(every=HOUR, anchor=at(9), tz=BERLIN)
        task_id = await remind(manager, schedule, "hourly")
        result = Delivery(task_id, None, "alice", "chat-alice", DeliveryKind.RESULT, "the news")
        other = replace(result, text="the weather")
        first = await manager.snooze_delivery("alice", result, at(8, day=11))
        assert first.moved_from is None
        await manager.snooze_delivery("alice", other, at(11))
        moved = await manager.snooze_delivery("alice", result, at(10))
        assert (moved.id, moved.release_at, moved.moved_from) == (first.id, at(10), at(8, day=11))
        assert len(await manager.held("alice")) == 2  # one per message
        clock.advance(timedelta(days=1))
        assert await manager.release_due() == 2
    assert notifier.texts() == ["the news\n(snoozed at 09:00)", "the weather\n(snoozed at 09:00)"]


class Shown:
    """What the owners were shown lately (``tasks.DeliveredMessages``): one message."""

    def __init__(self, delivery: Delivery, at: datetime) -> None:
        self.delivery, self.at = delivery, at

    async def last_delivered(
        self, *, task_id: str, owner_id: str, chat_id: str, since: datetime
    ) -> Delivery | None:
        mine = (task_id, owner_id, chat_id) == (
            self.delivery.task_id, self.delivery.owner_id, self.delivery.chat_id
        )  # fmt: skip
        return self.delivery if mine and self.at >= since else None


async def test_snoozing_a_task_that_is_no_reminder_shows_its_message_again(
    store_factory: StoreFactory,
) -> None:
    clock, notifier = ManualClock(at(9)), RecordingNotifier()
    store = store_factory()
    schedule = IntervalSchedule(every=HOUR, anchor=at(9), tz=BERLIN)
    async with started(manager_of(store, clock, notifier)) as making:
        task = await making.add_task(
            owner_id="alice", chat_id="chat-alice", task_type=TaskType.AGENT_TASK,
            schedule=schedule, execution_data={"prompt": "the news"},
        )  # fmt: skip
        reminder = await remind(making, schedule, "stretch")
    told = Delivery(task.id, None, "alice", "chat-alice", DeliveryKind.RESULT, "the news")
    shown = Shown(told, at(9))
    manager = TaskManager(store=store, clock=clock, notifier=notifier, delivered=shown)
    async with started(manager):
        again = await manager.snooze_task(task.id, "alice", at(9, 10))
        assert again.held is not None and again.held.release_at == at(9, 10)
        assert again.task.next_run == task.next_run  # it keeps its schedule
        put_off = await manager.snooze_task(reminder, "alice", 10 * MINUTE)
        assert put_off.held is None and put_off.task.next_run == at(10, 10)  # its run, by 10 min
        with pytest.raises(TaskDataError, match=r"until 2\S+ 10:05 .*only puts a run off"):
            await manager.snooze_task(reminder, "alice", at(10, 5))  # a snooze never brings it on
        until = await manager.snooze_task(reminder, "alice", at(11))
        assert until.held is None and until.task.next_run == at(11)  # until then, not by
        clock.advance(HOUR + MINUTE)  # 10:01: nothing shown within the hour
        later = await manager.snooze_task(task.id, "alice", at(10, 11))
        assert later.held is None and later.task.next_run == at(10, 11)
        assert [h.release_at for h in await manager.held("alice")] == [at(9, 10)]


# -- the morning briefing -----------------------------------------------------------------------


class Notes:
    """A ``BriefingSource`` with one note for the day."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, datetime, datetime]] = []

    async def sections(
        self, owner_id: str, *, day: datetime, since: datetime, now: datetime
    ) -> Sequence[BriefingSection]:
        self.asked.append((owner_id, day, since))
        return [BriefingSection("Notes for today", (BriefingLine("bring the 3 forms", "note #3"),))]


async def briefing_morning(
    manager: TaskManager, clock: ManualClock, notifier: RecordingNotifier
) -> str:
    daily = parse_schedule("every day at 7am", now=clock.now(), tz=BERLIN)
    briefing = await manager.add_task(
        owner_id="alice", chat_id="chat-alice", task_type=TaskType.BRIEFING, schedule=daily
    )
    await remind(manager, OnceSchedule(at=at(9, day=11), tz=BERLIN), "dentist")
    await remind(manager, OnceSchedule(at=at(9, day=12), tz=BERLIN), "not today")
    failing = await manager.add_task(
        owner_id="alice", chat_id="chat-alice", task_type=TaskType.AGENT_TASK,
        schedule=OnceSchedule(at=at(23), tz=BERLIN), execution_data={"prompt": "digest"},
    )  # fmt: skip
    await advance_to(clock, manager, at(23))  # no agent is configured: it fails
    notifier.deliveries.clear()
    await advance_to(clock, manager, at(7, day=11))
    assert failing.id != briefing.id
    [delivery] = notifier.deliveries
    return delivery.text


async def test_the_briefing_is_built_from_the_store_with_no_model(
    store_factory: StoreFactory,
) -> None:
    clock, notifier, notes = ManualClock(at(20)), RecordingNotifier(), Notes()
    async with started(manager_of(store_factory(), clock, notifier, briefing=notes)) as manager:
        text = await briefing_morning(manager, clock, notifier)
    assert text == (
        "Good morning! Your briefing for Wed 2026-03-11 (Europe/Berlin):\n\n"
        "Today\n- 09:00 reminder: dentist\n\n"
        "Overnight\n- 23:00 digest: failed (agent tasks need an agent, and none is configured "
        "for the scheduler)\n\n"
        "Notes for today\n- bring the 3 forms"
    )
    [(owner, day, since)] = notes.asked
    assert (owner, day) == ("alice", at(0, day=11))
    assert since == at(7, day=11) - timedelta(hours=24)


async def test_a_summary_is_kept_only_when_every_line_cites_what_it_was_given(
    store_factory: StoreFactory,
) -> None:
    def faithful(prompt: str) -> str:
        assert "[note #3]" in prompt and "Say only what the items say" in prompt
        dentist = next(line for line in prompt.splitlines() if "dentist" in line)
        task = dentist.split("[")[1].rstrip("]")
        return f"Dentist at 09:00 [{task}]\nBring the 3 forms [note #3]"

    clock, notifier = ManualClock(at(20)), RecordingNotifier()
    model = ScriptedAgent(faithful)
    store = store_factory()
    async with started(manager_of(store, clock, notifier, summarizer=model, briefing=Notes())) as m:
        text = await briefing_morning(m, clock, notifier)
    assert text.startswith("Your briefing, in short (each line names where it comes from):\n")
    assert "Dentist at 09:00 [task " in text and text.endswith("Bring the 3 forms [note #3]")


def test_a_summary_that_invents_is_refused() -> None:
    lines = [BriefingLine("09:00 reminder: dentist", "task abc123"),
             BriefingLine("bring the 3 forms", "note #3")]  # fmt: skip
    assert checked_summary("Dentist at 09:00 [task abc123]", lines) == (
        "Dentist at 09:00 [task abc123]"
    )
    assert checked_summary("Dentist at 10:00 [task abc123]", lines) is None  # a wrong time
    assert checked_summary("Lunch with Bob [task zzz999]", lines) is None  # no such row
    assert checked_summary("You are busy today.", lines) is None  # no row at all
    assert checked_summary("Bring 4 forms [note #3]", lines) is None


async def test_an_unfaithful_summary_leaves_the_plain_briefing(store_factory: StoreFactory) -> None:
    clock, notifier = ManualClock(at(20)), RecordingNotifier()
    model = ScriptedAgent(lambda prompt: "A quiet day, have fun at the beach! [task nope12]")
    store = store_factory()
    async with started(manager_of(store, clock, notifier, summarizer=model)) as m:
        text = await briefing_morning(m, clock, notifier)
    assert text.startswith("Good morning! Your briefing for Wed 2026-03-11")
    assert "beach" not in text

"""The ledger kept small while a scheduler runs, and health that says when runs start late
(issue 24, item 8).

The attack as written: 500 reminders every second wrote about 500 ledger rows a second (43
million a day), and at 2,000 another user's reminder came 4.8 s late while ``/health`` said
ok. Every second is refused now (``tests/interfaces/web/test_limits.py``); here a task every
minute, the most frequent allowed, keeps a bounded ledger, and a run that starts late shows
in the health the scheduler reports.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta
from pathlib import Path

from common import ManualClock
from tasks import (
    BoundedSchedule,
    LedgerPolicy,
    RunStatus,
    SqliteTaskStore,
    TaskManager,
    TaskStatus,
    TaskStore,
)
from tasks.engine import LedgerRetention
from tests.tasks.conftest import BERLIN, T0, RecordingNotifier, every, once_at

MINUTE = timedelta(minutes=1)
HOUR = timedelta(hours=1)
DAY = timedelta(days=1)


async def test_a_running_scheduler_folds_old_runs_of_a_frequent_task_into_its_summary(
    tmp_path: Path, clock: ManualClock
) -> None:
    path = tmp_path / "assistant.db"
    notifier = RecordingNotifier()
    async with TaskManager(store=SqliteTaskStore(path), clock=clock, notifier=notifier) as making:
        await making.start(timer=False)
        task = await making.add_task(
            owner_id="alice", chat_id="chat-alice", task_type="reminder",
            schedule=every(MINUTE), execution_data={"message": "drink water"},
        )  # fmt: skip
        for _ in range(180):  # three hours, a run a minute (the first a minute in)
            clock.advance(MINUTE)
            await making.run_due()
        assert len(await making.history(task.id, "alice", limit=500)) == 180

    policy = LedgerPolicy(
        keep_for=HOUR, keep_runs=30, rows_per_round=40, tasks_per_round=10, every=MINUTE
    )
    keeper = TaskManager(store=SqliteTaskStore(path), clock=clock, notifier=notifier, ledger=policy)
    async with keeper:
        for _ in range(100):  # rounds follow each other while there is work (bounded)
            summary = await keeper.ledger_summary(task.id, "alice")
            if summary is not None and summary.runs >= 120:
                break
            clock.advance(timedelta(seconds=1))
            await asyncio.sleep(0.01)
        rows = await keeper.history(task.id, "alice", limit=500)

    assert summary is not None and summary.runs == 120  # older than an hour: 2 of 3 hours
    assert summary.counts == {RunStatus.SUCCEEDED: 120}
    assert summary.first_scheduled == T0 + MINUTE
    assert summary.last_scheduled == T0 + 2 * HOUR
    assert len(rows) >= 60 and all(r.scheduled_for > T0 + 2 * HOUR for r in rows)


async def test_health_reports_runs_that_start_late_and_forgets_them_after_a_minute(
    tmp_path: Path, clock: ManualClock
) -> None:
    notifier = RecordingNotifier()
    manager = TaskManager(
        store=SqliteTaskStore(tmp_path / "assistant.db"), clock=clock, notifier=notifier
    )
    await manager.start(timer=False)  # the test is the timer: it claims when it likes
    try:
        await manager.add_task(
            owner_id="bob", chat_id="chat-bob", task_type="reminder",
            schedule=every(MINUTE), execution_data={"message": "stand up"},
        )  # fmt: skip
        clock.advance(MINUTE + timedelta(seconds=4.8))  # due a minute in; claimed late
        before = await manager.health()
        await manager.run_due()
        after = await manager.health()
        clock.advance(MINUTE - timedelta(seconds=3.8))  # the next one, a second late
        await manager.run_due()
        both = await manager.health()
        clock.advance(MINUTE)  # the late one is a minute old
        later = await manager.health()
    finally:
        await manager.stop()

    assert before.late == timedelta(seconds=4.8)  # due, not claimed yet
    assert after.late == timedelta(seconds=4.8)  # started 4.8 s after its time
    assert both.late == timedelta(seconds=4.8)  # the worst of the last minute
    # A minute on, the late starts are forgotten; the run due a second ago waits: that is
    # what is late now.
    assert later.late == timedelta(seconds=1)


async def test_retention_rounds_remove_finished_reminders_past_the_age_a_few_at_a_time(
    tmp_path: Path, clock: ManualClock
) -> None:
    store = SqliteTaskStore(tmp_path / "assistant.db")
    notifier = RecordingNotifier()
    async with TaskManager(store=store, clock=clock, notifier=notifier) as manager:
        await manager.start(timer=False)
        for n in range(5):
            await manager.add_task(
                owner_id="alice", chat_id="chat-alice", task_type="reminder",
                schedule=once_at(T0 + (n + 1) * MINUTE), execution_data={"message": f"r{n}"},
            )  # fmt: skip
        kept = await manager.add_task(
            owner_id="alice", chat_id="chat-alice", task_type="reminder",
            schedule=every(HOUR), execution_data={"message": "hourly"},
        )  # fmt: skip
        clock.advance(10 * MINUTE)
        await manager.run_due()
        policy = LedgerPolicy(keep_for=HOUR, tasks_per_round=2, finished_for=timedelta(days=1))
        retention = LedgerRetention(store, clock, policy)
        too_young = await retention.round()
        clock.advance(timedelta(days=1, minutes=1))  # their runs finished 10 minutes in
        rounds = [await retention.round()]
        while not rounds[-1].complete:
            rounds.append(await retention.round())
        summary = await store.owner_summary("alice")
        left = await manager.list_tasks("alice", include_finished=True)

    assert too_young.removed == 0
    removed = [r.removed for r in rounds]
    assert sum(removed) == 5 and max(removed) == 2  # at most tasks_per_round a round
    assert [t.id for t in left] == [kept.id]
    assert summary is not None and (summary.tasks, summary.runs) == (5, 5)
    assert summary.counts == {RunStatus.SUCCEEDED: 5}
    assert sorted(d.text[:2] for d in notifier.deliveries if d.task_id != kept.id) == [
        f"r{n}" for n in range(5)
    ]


async def test_a_task_cancelled_long_after_it_was_made_is_kept_for_the_age_from_then(
    store: TaskStore, clock: ManualClock
) -> None:
    # Its age for removal counts from when it finished: cancelled a month after it was made,
    # it stays listable for the whole retention age, on every store.
    manager = TaskManager(store=store, clock=clock, notifier=RecordingNotifier())
    made = await manager.add_task(
        owner_id="alice", chat_id="chat-alice", task_type="reminder",
        schedule=once_at(T0 + 60 * DAY), execution_data={"message": "dentist"},
    )  # fmt: skip
    clock.advance(30 * DAY)
    cancelled = await manager.cancel(made.id, "alice")
    retention = LedgerRetention(store, clock, LedgerPolicy(finished_for=3 * DAY))

    await retention.round()
    clock.advance(3 * DAY - timedelta(seconds=1))
    await retention.round()
    kept = await manager.list_tasks("alice", include_finished=True)
    clock.advance(timedelta(seconds=2))
    await retention.round()

    assert cancelled.finished_at == T0 + 30 * DAY
    assert [t.id for t in kept] == [made.id] and kept[0].finished_at == T0 + 30 * DAY
    assert await store.get_task(made.id) is None
    summary = await store.owner_summary("alice")
    assert summary is not None and summary.tasks == 1


async def test_a_task_is_finished_from_its_last_run_and_live_again_when_it_comes_back(
    store: TaskStore, clock: ManualClock
) -> None:
    manager = TaskManager(store=store, clock=clock, notifier=RecordingNotifier())
    once = await manager.add_task(
        owner_id="alice", chat_id="chat-alice", task_type="reminder",
        schedule=once_at(T0 + MINUTE), execution_data={"message": "tea"},
    )  # fmt: skip
    ending = await manager.add_task(
        owner_id="alice", chat_id="chat-alice", task_type="reminder",
        schedule=BoundedSchedule(
            inner=every(MINUTE), start=None, end=T0 + 2 * MINUTE, count=2, tz=BERLIN
        ),
        execution_data={"message": "stretch"},
    )  # fmt: skip
    clock.advance(MINUTE)
    await manager.run_due()
    ran = await manager.get_task(once.id, "alice")
    clock.advance(MINUTE)
    await manager.run_due()
    ended = await manager.get_task(ending.id, "alice")
    clock.advance(MINUTE)
    snoozed = await manager.snooze(once.id, "alice", 10 * MINUTE)

    assert (ran.status, ran.finished_at) == (TaskStatus.DONE, T0 + MINUTE)
    assert (ended.status, ended.finished_at) == (TaskStatus.DONE, T0 + 2 * MINUTE)
    assert (snoozed.status, snoozed.finished_at) == (TaskStatus.ACTIVE, None)

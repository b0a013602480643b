"""The TaskManager: firing on time, restarts, races, failures, blocked chats and operations."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from common import GuardedHttp, ManualClock
from tasks import (
    Claim,
    Delivery,
    DeliveryKind,
    DeliveryStatus,
    FinishedRun,
    MemoryTaskStore,
    MisfireAction,
    MisfirePolicy,
    RunOutcome,
    RunStatus,
    Schedule,
    ScheduleError,
    SqliteTaskStore,
    Task,
    TaskDataError,
    TaskManager,
    TaskNotFoundError,
    TaskStateError,
    TaskStatus,
    TaskStore,
    TaskStoreError,
    TaskType,
    WebSearchData,
    parse_schedule,
)
from tests.tasks.conftest import (
    T0,
    RecordingNotifier,
    ScriptedAgent,
    StoreFactory,
    every,
    once_at,
    reminder_draft,
)
from tests.tasks.http_standin import HOLD, ScriptedServer

MINUTE = timedelta(minutes=1)
HOUR = timedelta(hours=1)
LIGHTS_OFF: dict[str, object] = {"method": "POST", "url": "https://example.com/lights/off"}


def manager_for(
    store: TaskStore,
    clock: ManualClock,
    notifier: RecordingNotifier,
    agent: ScriptedAgent | None = None,
    *,
    claim_batch: int = 500,
    max_concurrent_runs: int = 256,
) -> TaskManager:
    return TaskManager(
        store=store,
        clock=clock,
        notifier=notifier,
        agent=agent,
        claim_batch=claim_batch,
        max_concurrent_runs=max_concurrent_runs,
    )


async def remind(
    manager: TaskManager,
    at_or_every: timedelta,
    message: str = "call mom",
    *,
    recurring: bool = False,
) -> Task:
    schedule = every(at_or_every) if recurring else once_at(T0 + at_or_every)
    return await manager.add_task(
        owner_id="alice",
        chat_id="chat-alice",
        task_type="reminder",
        schedule=schedule,
        execution_data={"message": message},
    )


async def test_reminder_fires_when_due_with_no_llm(store: TaskStore, clock: ManualClock) -> None:
    notifier = RecordingNotifier()
    agent = ScriptedAgent()
    manager = manager_for(store, clock, notifier, agent)
    task = await remind(manager, 5 * MINUTE)

    assert await manager.run_due() == 0
    clock.advance(5 * MINUTE)
    assert await manager.run_due() == 1

    (delivery,) = notifier.deliveries
    assert delivery.kind is DeliveryKind.REMINDER and delivery.text == "call mom"
    assert delivery.chat_id == "chat-alice" and delivery.late_by is None
    assert agent.prompts == []
    (run,) = await manager.history(task.id, "alice")
    assert run.status is RunStatus.SUCCEEDED and run.finished_at == T0 + 5 * MINUTE
    assert (await manager.get_task(task.id, "alice")).status is TaskStatus.DONE
    assert await manager.run_due() == 0


async def test_health_says_when_the_timer_last_ran_and_what_is_overdue(
    clock: ManualClock,
) -> None:
    notifier = RecordingNotifier()
    stopped = manager_for(MemoryTaskStore(), clock, notifier)
    await stopped.start(timer=False)
    await remind(stopped, MINUTE)
    clock.advance(3 * MINUTE)

    health = await stopped.health()
    assert not health.running and health.last_tick is None and health.overdue == 1
    assert (await stopped.health(grace=5 * MINUTE)).overdue == 0
    await stopped.stop()

    async with manager_for(MemoryTaskStore(), clock, notifier) as running:
        await remind(running, 4 * MINUTE, "soon")  # the clock is at T0 + 3 min
        clock.advance(MINUTE)
        await notifier.wait_for(1)
        health = await running.health()
        assert health.running and health.last_tick == clock.now() and health.overdue == 0
        await running.wait_idle()


async def test_timer_sleeps_until_due_and_wakes_on_new_tasks(clock: ManualClock) -> None:
    notifier = RecordingNotifier()
    async with manager_for(MemoryTaskStore(), clock, notifier) as manager:
        await asyncio.sleep(0)
        await remind(manager, 10 * MINUTE, "later")
        await remind(manager, MINUTE, "sooner")
        clock.advance(MINUTE)
        await notifier.wait_for(1)
        assert notifier.texts() == ["sooner"]
        clock.advance(9 * MINUTE)
        await notifier.wait_for(2)
        assert notifier.texts() == ["sooner", "later"]
        await manager.wait_idle()


async def test_restart_delivers_missed_reminder_late_and_coalesces_recurring(
    tmp_path: Path, clock: ManualClock
) -> None:
    path = tmp_path / "assistant.db"
    notifier = RecordingNotifier()
    async with manager_for(SqliteTaskStore(path), clock, notifier) as first:
        once = await remind(first, HOUR, "take the cake out")
        daily = await remind(first, HOUR, "stretch", recurring=True)
        clock.advance(30 * MINUTE)
        await first.run_due()
        assert notifier.texts() == []

    clock.advance(2 * HOUR + 30 * MINUTE)  # down from T0+30min to T0+3h
    async with manager_for(SqliteTaskStore(path), clock, notifier) as second:
        await second.run_due()
        late = [d for d in notifier.deliveries if d.text.startswith("take the cake out")]
        assert len(late) == 1
        assert late[0].late_by == 3 * HOUR - HOUR
        assert "(late by 2 h: it was due at 2026-03-02 10:00 (Europe/Berlin))" in late[0].text
        assert [t for t in notifier.texts() if t.startswith("stretch")] == ["stretch"]
        (coalesced,) = await second.history(daily.id, "alice")
        assert coalesced.misfire is MisfireAction.COALESCED and coalesced.missed == 2
        assert coalesced.scheduled_for == T0 + 3 * HOUR
        assert (await second.get_task(daily.id, "alice")).next_run == T0 + 4 * HOUR
        (late_run,) = await second.history(once.id, "alice")
        assert late_run.misfire is MisfireAction.LATE and late_run.status is RunStatus.SUCCEEDED


async def test_two_managers_on_one_file_fire_each_run_once(
    tmp_path: Path, clock: ManualClock
) -> None:
    path = tmp_path / "assistant.db"
    notifier = RecordingNotifier()
    one = manager_for(SqliteTaskStore(path), clock, notifier, claim_batch=7)
    two = manager_for(SqliteTaskStore(path), clock, notifier, claim_batch=5)
    await one.start(timer=False)
    await two.start(timer=False)
    try:
        for n in range(40):
            await remind(one if n % 2 else two, timedelta(seconds=n % 5), f"r{n}")
        await remind(one, timedelta(seconds=2), "tick", recurring=True)
        for _ in range(7):
            await asyncio.gather(one.run_due(), two.run_due())
            clock.advance(timedelta(seconds=1))
    finally:
        await one.stop()
        await two.stop()

    texts = notifier.texts()
    assert sorted(t for t in texts if t != "tick") == sorted(f"r{n}" for n in range(40))
    assert texts.count("tick") == 3  # at +2 s, +4 s and +6 s


async def test_cancel_during_a_run_lets_it_finish_and_never_fire_again(
    store: TaskStore, clock: ManualClock
) -> None:
    notifier = RecordingNotifier()
    agent = ScriptedAgent()
    agent.release = asyncio.Event()
    manager = manager_for(store, clock, notifier, agent)
    task = await manager.add_task(
        owner_id="alice",
        chat_id="chat-alice",
        task_type=TaskType.AGENT_TASK,
        schedule=every(HOUR),
        execution_data={"prompt": "summarise the news"},
    )

    clock.advance(HOUR)
    running = asyncio.create_task(manager.run_due())
    async with asyncio.timeout(5):
        await agent.started.wait()
    cancelled = await manager.cancel(task.id, "alice")
    agent.release.set()
    assert await running == 1

    assert cancelled.status is TaskStatus.CANCELLED
    (run,) = await manager.history(task.id, "alice")
    assert run.status is RunStatus.SUCCEEDED
    assert notifier.texts() == ["summarise the news\n\nanswer to summarise the news"]
    clock.advance(5 * HOUR)
    assert await manager.run_due() == 0
    assert (await manager.get_task(task.id, "alice")).status is TaskStatus.CANCELLED
    assert task.id not in await manager.active_task_ids("alice")


async def _failing_digest(
    store: TaskStore, clock: ManualClock, notifier: RecordingNotifier
) -> tuple[TaskManager, Task]:
    """A manager whose agent always fails, and an every-minute agent task for it."""

    def broken(prompt: str) -> str:
        raise RuntimeError("model server unreachable")

    manager = manager_for(store, clock, notifier, ScriptedAgent(broken))
    task = await manager.add_task(
        owner_id="alice",
        chat_id="chat-alice",
        task_type="agent_task",
        schedule=every(MINUTE),
        description="daily digest",
        execution_data={"prompt": "digest"},
    )
    return manager, task


async def test_failures_alert_the_owner_once_then_disable_the_task(
    store: TaskStore, clock: ManualClock
) -> None:
    notifier = RecordingNotifier()
    manager, task = await _failing_digest(store, clock, notifier)

    for _ in range(5):
        clock.advance(MINUTE)
        await manager.run_due()

    # The third failure in a row is the alert (once, with the reason); the fifth disables.
    notices = [d for d in notifier.deliveries if d.kind is DeliveryKind.NOTICE]
    assert len(notices) == 2
    assert notices[0].text == (
        f'Task {task.id} ("daily digest") has failed 3 times in a row. Last error: '
        "RuntimeError: model server unreachable\nI keep trying on its schedule (next run: "
        "2026-03-02 09:04 (Europe/Berlin)) and disable it after 5 failures in a row; I'll "
        "tell you when it works again."
    )
    assert notices[-1].text.startswith(f'I disabled task {task.id} ("daily digest"): it failed 5')
    stored = await manager.get_task(task.id, "alice")
    assert stored.status is TaskStatus.DISABLED and stored.consecutive_failures == 5
    assert await manager.run_due() == 0

    resumed = await manager.resume(task.id, "alice")
    assert resumed.status is TaskStatus.ACTIVE and resumed.consecutive_failures == 0
    assert resumed.next_run == clock.now() + MINUTE


async def test_a_failed_run_the_owner_started_is_told_at_once(
    store: TaskStore, clock: ManualClock
) -> None:
    notifier = RecordingNotifier()
    manager, task = await _failing_digest(store, clock, notifier)
    clock.advance(MINUTE)
    await manager.run_due()  # a scheduled failure: silent until the third in a row
    assert notifier.deliveries == []

    run = await manager.run_now(task.id, "alice")  # "Run now": the owner waits for it

    assert run.status is RunStatus.FAILED
    [notice] = [d for d in notifier.deliveries if d.kind is DeliveryKind.NOTICE]
    assert "RuntimeError: model server unreachable" in notice.text
    assert notice.text.endswith("It keeps its schedule: next run 2026-03-02 09:02 (Europe/Berlin).")


async def test_blocked_delivery_pauses_the_owners_tasks(
    store: TaskStore, clock: ManualClock
) -> None:
    notifier = RecordingNotifier(DeliveryStatus.BLOCKED)
    manager = manager_for(store, clock, notifier)
    due = await remind(manager, timedelta(0))
    later = await remind(manager, HOUR, recurring=True)
    other = await manager.add_task(
        owner_id="bob", chat_id="chat-bob", task_type="reminder",
        schedule=once_at(T0 + HOUR), execution_data={"message": "hi"},
    )  # fmt: skip

    await manager.run_due()

    (run,) = await manager.history(due.id, "alice")
    assert run.status is RunStatus.UNDELIVERED and "blocked" in (run.error or "")
    paused = await manager.get_task(later.id, "alice")
    assert paused.status is TaskStatus.PAUSED and "blocked" in (paused.status_reason or "")
    assert (await manager.get_task(other.id, "bob")).status is TaskStatus.ACTIVE
    assert len(notifier.deliveries) == 1


async def test_failed_delivery_is_retried_then_recorded(
    store: TaskStore, clock: ManualClock
) -> None:
    notifier = RecordingNotifier(DeliveryStatus.FAILED)
    manager = manager_for(store, clock, notifier)
    task = await remind(manager, timedelta(0))

    await manager.run_due()

    assert len(notifier.deliveries) == 3 and clock.slept == [1.0, 2.0]
    (run,) = await manager.history(task.id, "alice")
    assert run.status is RunStatus.FAILED
    assert run.error == "the message could not be delivered after 3 attempts"


async def test_undelivered_one_time_reminder_comes_back_with_backoff_then_disables(
    store: TaskStore, clock: ManualClock
) -> None:
    notifier = RecordingNotifier(DeliveryStatus.FAILED)  # a network outage
    manager = manager_for(store, clock, notifier)
    task = await remind(manager, timedelta(0))
    waits = []

    for _ in range(4):
        await manager.run_due()
        stored = await manager.get_task(task.id, "alice")
        assert stored.status is TaskStatus.ACTIVE and stored.next_run is not None
        waits.append(stored.next_run - clock.now())
        clock.set(stored.next_run)
    assert waits == [MINUTE, 2 * MINUTE, 4 * MINUTE, 8 * MINUTE]
    assert not [d for d in notifier.deliveries if d.kind is DeliveryKind.NOTICE]

    await manager.run_due()  # the fifth failure: disabled; its notice cannot be delivered

    stored = await manager.get_task(task.id, "alice")
    assert stored.status is TaskStatus.DISABLED and stored.consecutive_failures == 5
    kinds = [d.kind for d in notifier.deliveries]
    assert kinds == [DeliveryKind.REMINDER] * 15 + [DeliveryKind.NOTICE] * 3
    assert await manager.run_due() == 0
    history = await manager.history(task.id, "alice")
    assert [r.status for r in history] == [RunStatus.FAILED] * 5


async def test_one_time_reminder_is_delivered_once_the_outage_ends(
    store: TaskStore, clock: ManualClock
) -> None:
    notifier = RecordingNotifier()
    notifier.statuses = [DeliveryStatus.FAILED] * 3
    manager = manager_for(store, clock, notifier)
    task = await remind(manager, timedelta(0))
    await manager.run_due()
    clock.advance(MINUTE)

    assert await manager.run_due() == 1

    stored = await manager.get_task(task.id, "alice")
    assert stored.status is TaskStatus.DONE and stored.consecutive_failures == 0
    assert notifier.texts()[-1] == "call mom" and len(notifier.deliveries) == 4


async def test_a_run_whose_process_died_is_retried_once_marked_late(
    tmp_path: Path, clock: ManualClock
) -> None:
    path = tmp_path / "assistant.db"
    notifier = RecordingNotifier()
    async with SqliteTaskStore(path) as crashed:
        manager = manager_for(crashed, clock, notifier)
        task = await remind(manager, timedelta(0))
        await crashed.claim_due(clock.now(), limit=10, lease=3 * MINUTE)  # then "dies"

    clock.advance(3 * MINUTE)
    async with manager_for(SqliteTaskStore(path), clock, notifier) as restarted:
        assert await restarted.run_due() == 1
        retry, abandoned = await restarted.history(task.id, "alice")

    (delivery,) = notifier.deliveries
    assert delivery.late_by == 3 * MINUTE
    assert (
        delivery.text == "call mom\n(late by 3 min: it was due at 2026-03-02 09:00 (Europe/Berlin))"
    )
    assert abandoned.status is RunStatus.ABANDONED and abandoned.attempt == 1
    assert retry.status is RunStatus.SUCCEEDED and retry.attempt == 2
    assert retry.misfire is MisfireAction.RETRY and retry.late_by == 3 * MINUTE


async def agent_task(manager: TaskManager) -> Task:
    return await manager.add_task(
        owner_id="alice",
        chat_id="chat-alice",
        task_type=TaskType.AGENT_TASK,
        schedule=once_at(T0 + MINUTE),
        execution_data={"prompt": "write the weekly report"},
    )


async def lease_of(store: TaskStore, task_id: str) -> datetime | None:
    """The lease of the task's newest run."""
    (newest, *_) = await store.history(task_id, "alice")
    return newest.lease_until


async def lease_moves_to(store: TaskStore, task_id: str, until: datetime) -> None:
    """Yield to the manager's heartbeat until the run's lease reached ``until`` (bounded)."""
    for _ in range(1000):
        if await lease_of(store, task_id) == until:
            return
        await asyncio.sleep(0)
    raise AssertionError(f"the lease never moved to {until}")


async def test_a_slow_run_keeps_its_lease_while_its_manager_beats(
    store: TaskStore, clock: ManualClock
) -> None:
    agent = ScriptedAgent()
    agent.release = asyncio.Event()
    notifier = RecordingNotifier()
    lease = timedelta(seconds=30)
    manager = TaskManager(
        store=store, clock=clock, notifier=notifier, agent=agent, lease=lease,
        run_timeout=HOUR,
    )  # fmt: skip
    task = await agent_task(manager)
    clock.advance(MINUTE)
    running = asyncio.create_task(manager.run_due())
    async with asyncio.timeout(5):
        await agent.started.wait()

    for _ in range(18):  # three minutes, six leases long, in 10 s beats
        clock.advance(lease / 3)
        await lease_moves_to(store, task.id, clock.now() + lease)
        # Another manager looking for dead runs finds none.
        assert await store.reclaim_expired(clock.now(), limit=10, lease=lease) == ([], [])
    agent.release.set()
    assert await running == 1

    (run,) = await manager.history(task.id, "alice")
    assert run.status is RunStatus.SUCCEEDED and run.attempt == 1 and run.lease_until is None
    assert len(notifier.deliveries) == 1


async def run_left_claimed(
    path: Path, clock: ManualClock, notifier: RecordingNotifier, lease: timedelta
) -> Task:
    """An agent task whose run a manager claimed and left unfinished when it stopped."""
    stuck = ScriptedAgent()
    stuck.release = asyncio.Event()
    dying = TaskManager(
        store=SqliteTaskStore(path), clock=clock, notifier=notifier, agent=stuck, lease=lease,
        drain_timeout=timedelta(0),
    )  # fmt: skip
    await dying.start(timer=False)
    task = await agent_task(dying)
    clock.advance(MINUTE)
    running = asyncio.create_task(dying.run_due())
    async with asyncio.timeout(5):
        await stuck.started.wait()
    await dying.stop()  # its run is cut off unfinished, and nothing beats for it any more
    assert await running == 1
    return task


async def test_a_run_delivered_before_its_worker_was_stopped_is_recorded(
    tmp_path: Path, clock: ManualClock
) -> None:
    # A run that succeeded the usual way leaves its bookkeeping until no run is due; one
    # worker delivered the reminder, then got stuck in the agent task due with it. Stopping
    # records the reminder (it was delivered: never again), and leaves the agent's run
    # claimed, to be retried.
    path = tmp_path / "assistant.db"
    notifier = RecordingNotifier()
    stuck = ScriptedAgent()
    stuck.release = asyncio.Event()
    dying = TaskManager(
        store=SqliteTaskStore(path), clock=clock, notifier=notifier, agent=stuck,
        max_concurrent_runs=1, drain_timeout=timedelta(0),
    )  # fmt: skip
    await dying.start(timer=False)
    reminder = await remind(dying, MINUTE - timedelta(seconds=1))
    report = await agent_task(dying)
    clock.advance(MINUTE)
    running = asyncio.create_task(dying.run_due())
    async with asyncio.timeout(5):
        await stuck.started.wait()
    assert notifier.texts() == ["call mom"]
    await dying.stop()
    async with asyncio.timeout(5):  # the reminder's outcome is known: nothing waits for it
        assert await running == 2

    store = SqliteTaskStore(path)
    async with store:
        (delivered,) = await store.history(reminder.id, "alice")
        (cut_off,) = await store.history(report.id, "alice")
        done = await store.get_task(reminder.id)
    assert delivered.status is RunStatus.SUCCEEDED and delivered.lease_until is None
    assert done is not None and done.status is TaskStatus.DONE
    assert cut_off.status is RunStatus.CLAIMED and cut_off.lease_until is not None


class WatchedLedger(MemoryTaskStore):
    """A memory store that says when a batch of outcomes reached its ledger."""

    def __init__(self) -> None:
        super().__init__()
        self.recorded = asyncio.Event()

    async def finish_runs(
        self, outcomes: Sequence[RunOutcome], *, max_failures: int
    ) -> list[FinishedRun]:
        finished = await super().finish_runs(outcomes, max_failures=max_failures)
        self.recorded.set()
        return finished


async def test_a_run_delivered_while_every_worker_is_busy_is_recorded_soon(
    clock: ManualClock,
) -> None:
    # The one worker delivered the reminder, then got stuck in the agent task due with it:
    # no worker finds "nothing due", and the reminder is recorded all the same (a crash now
    # must not deliver it again), while the agent task still runs.
    store = WatchedLedger()
    notifier = RecordingNotifier()
    stuck = ScriptedAgent()
    stuck.release = asyncio.Event()
    manager = TaskManager(
        store=store, clock=clock, notifier=notifier, agent=stuck, max_concurrent_runs=1
    )
    async with manager:
        reminder = await remind(manager, MINUTE - timedelta(seconds=1))
        report = await agent_task(manager)
        clock.advance(MINUTE)
        async with asyncio.timeout(5):
            await stuck.started.wait()
            await store.recorded.wait()
        (delivered,) = await manager.history(reminder.id, "alice")
        (running,) = await manager.history(report.id, "alice")
        assert delivered.status is RunStatus.SUCCEEDED
        assert running.status is RunStatus.CLAIMED
        stuck.release.set()
        await manager.wait_idle()


async def test_health_shows_how_late_on_time_runs_started(clock: ManualClock) -> None:
    notifier = RecordingNotifier()
    manager = manager_for(MemoryTaskStore(), clock, notifier)
    async with manager:
        await remind(manager, MINUTE)
        clock.advance(MINUTE + timedelta(seconds=2))  # within the grace: on time, 2 s late
        await notifier.wait_for(1)
        await manager.wait_idle()
        assert (await manager.health()).late == timedelta(seconds=2)


async def test_a_dead_managers_run_is_retried_after_the_short_lease(
    tmp_path: Path, clock: ManualClock
) -> None:
    path = tmp_path / "assistant.db"
    notifier = RecordingNotifier()
    lease = timedelta(seconds=30)
    task = await run_left_claimed(path, clock, notifier, lease)

    heir = TaskManager(
        store=SqliteTaskStore(path), clock=clock, notifier=notifier, agent=ScriptedAgent(),
        lease=lease,
    )  # fmt: skip
    async with heir:
        clock.advance(lease - timedelta(seconds=1))
        assert await heir.run_due() == 0
        clock.advance(timedelta(seconds=1))
        assert await heir.run_due() == 1
        retry, abandoned = await heir.history(task.id, "alice")

    assert notifier.texts() == ["write the weekly report\n\nanswer to write the weekly report"]
    assert abandoned.status is RunStatus.ABANDONED and abandoned.attempt == 1
    assert retry.status is RunStatus.SUCCEEDED and retry.misfire is MisfireAction.RETRY


async def test_an_exclusive_heir_retries_the_dead_managers_run_at_once(
    tmp_path: Path, clock: ManualClock
) -> None:
    path = tmp_path / "assistant.db"
    notifier = RecordingNotifier()
    task = await run_left_claimed(path, clock, notifier, timedelta(seconds=30))

    heir = TaskManager(
        store=SqliteTaskStore(path), clock=clock, notifier=notifier, agent=ScriptedAgent(),
        exclusive=True,
    )  # fmt: skip
    async with heir:
        await notifier.wait_for(1)
        await heir.wait_idle()
        retry, abandoned = await heir.history(task.id, "alice")

    assert clock.now() == T0 + MINUTE  # no lease was waited out
    assert notifier.texts() == ["write the weekly report\n\nanswer to write the weekly report"]
    assert abandoned.status is RunStatus.ABANDONED and abandoned.attempt == 1
    assert retry.status is RunStatus.SUCCEEDED and retry.misfire is MisfireAction.RETRY
    assert retry.attempt == 2


async def test_a_manager_never_renews_a_run_another_manager_took_over(
    clock: ManualClock, caplog: pytest.LogCaptureFixture
) -> None:
    store = MemoryTaskStore()
    agent = ScriptedAgent()
    agent.release = asyncio.Event()
    lease = timedelta(seconds=30)
    manager = TaskManager(
        store=store, clock=clock, notifier=RecordingNotifier(), agent=agent, lease=lease
    )
    task = await agent_task(manager)
    clock.advance(MINUTE)
    running = asyncio.create_task(manager.run_due())
    async with asyncio.timeout(5):
        await agent.started.wait()

    (first,) = await store.history(task.id, "alice")
    clock.advance(2 * lease)  # the manager stalls: before it beats, another one takes over
    (retry,), _ = await store.reclaim_expired(clock.now(), limit=10, lease=lease)
    with caplog.at_level(logging.WARNING, logger="tasks.leases"):
        clock.advance(lease / 3)
        for _ in range(100):  # the memory store: a few turns of the loop
            await asyncio.sleep(0)
            if "lost its lease" in caplog.text:
                break
    agent.release.set()
    await running

    runs = {r.id: r for r in await store.history(task.id, "alice")}
    assert runs[retry.run.id].status is RunStatus.CLAIMED
    assert runs[retry.run.id].lease_until == retry.run.lease_until
    assert f"run {first.id} lost its lease" in caplog.text


async def test_a_run_over_its_time_limit_fails_and_the_next_one_still_runs(
    store: TaskStore, clock: ManualClock
) -> None:
    hanging = ScriptedAgent()
    hanging.release = asyncio.Event()  # never set
    notifier = RecordingNotifier()
    manager = TaskManager(
        store=store, clock=clock, notifier=notifier, agent=hanging,
        run_timeout=timedelta(milliseconds=50),  # real time: the limit bounds real waits
    )  # fmt: skip
    task = await agent_task(manager)
    reminder = await remind(manager, MINUTE, "still here")
    clock.advance(MINUTE)

    assert await manager.run_due() == 2

    (run,) = await manager.history(task.id, "alice")
    assert run.status is RunStatus.FAILED and run.error == "the run did not finish within 0.05 s"
    (kept,) = await manager.history(reminder.id, "alice")
    assert kept.status is RunStatus.SUCCEEDED
    assert "still here" in notifier.texts()


async def test_burst_of_due_tasks_is_delivered_in_one_run_due(clock: ManualClock) -> None:
    notifier = RecordingNotifier()
    store = MemoryTaskStore()
    manager = manager_for(store, clock, notifier, claim_batch=300, max_concurrent_runs=64)
    for n in range(1000):
        await remind(manager, MINUTE, f"r{n}")
    clock.advance(MINUTE)

    assert await manager.run_due() == 1000
    assert len(set(notifier.texts())) == 1000
    assert await store.next_wakeup() is None


class GatedNotifier(RecordingNotifier):
    """Holds every delivery until ``gate`` opens, and notes the most it held at once."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = asyncio.Event()
        self.held = 0
        self.most = 0

    async def deliver(self, delivery: Delivery) -> DeliveryStatus:
        self.held += 1
        self.most = max(self.most, self.held)
        try:
            await self.gate.wait()
        finally:
            self.held -= 1
        return await super().deliver(delivery)


async def test_runs_that_wait_run_side_by_side_up_to_the_bound(clock: ManualClock) -> None:
    notifier = GatedNotifier()
    async with manager_for(MemoryTaskStore(), clock, notifier, max_concurrent_runs=4) as manager:
        for n in range(10):
            await remind(manager, MINUTE, f"r{n}")
        clock.advance(MINUTE)
        for _ in range(1000):
            if notifier.held == 4:
                break
            await asyncio.sleep(0)
        for _ in range(50):  # room for a fifth, if the bound did not hold
            await asyncio.sleep(0)
        assert (notifier.held, notifier.deliveries) == (4, [])
        notifier.gate.set()
        await notifier.wait_for(10)
        await manager.wait_idle()

    assert notifier.most == 4
    assert sorted(notifier.texts()) == sorted(f"r{n}" for n in range(10))


async def test_a_run_that_waits_does_not_hold_up_the_next_due_run(clock: ManualClock) -> None:
    agent = ScriptedAgent()
    agent.release = asyncio.Event()
    notifier = RecordingNotifier()
    async with manager_for(MemoryTaskStore(), clock, notifier, agent) as manager:
        await agent_task(manager)  # due in a minute
        await remind(manager, 2 * MINUTE, "on time")
        clock.advance(MINUTE)
        async with asyncio.timeout(5):
            await agent.started.wait()
        clock.advance(MINUTE)
        await notifier.wait_for(1)
        assert notifier.texts() == ["on time"]
        agent.release.set()
        await notifier.wait_for(2)
        await manager.wait_idle()


async def test_a_timer_that_is_behind_delivers_while_it_still_claims(clock: ManualClock) -> None:
    # The memory store never awaits: the engine itself must yield between claims and runs.
    store = MemoryTaskStore()
    unclaimed: list[int] = []

    class Probe(RecordingNotifier):
        async def deliver(self, delivery: Delivery) -> DeliveryStatus:
            unclaimed.append(await store.count_due(T0 + HOUR, limit=10_000))
            return await super().deliver(delivery)

    notifier = Probe()
    manager = manager_for(store, clock, notifier, claim_batch=100)
    for n in range(1000):
        await remind(manager, MINUTE, f"r{n}")
    clock.advance(HOUR)  # the process was down: every run is overdue
    async with manager:
        await notifier.wait_for(1000)
        await manager.wait_idle()

    assert unclaimed[0] >= 800  # the first delivery came after a batch or two of claims
    assert len(set(notifier.texts())) == 1000


async def test_a_burst_is_claimed_before_it_is_due_and_delivered_at_its_time(
    clock: ManualClock,
) -> None:
    store = MemoryTaskStore()
    notifier = RecordingNotifier()
    manager = manager_for(store, clock, notifier)
    await store.add_tasks([reminder_draft(once_at(T0 + MINUTE)) for _ in range(4000)])
    async with manager:
        # Claiming 4,000 runs takes longer than the 50 ms prefetch, so the timer starts early.
        clock.advance(MINUTE - timedelta(milliseconds=200))
        for _ in range(1000):
            if not await store.count_due(T0 + MINUTE, limit=1):
                break
            await asyncio.sleep(0)
        assert await store.count_due(T0 + MINUTE, limit=1) == 0
        assert notifier.deliveries == []
        clock.advance(timedelta(milliseconds=200))
        await notifier.wait_for(4000)
        await manager.wait_idle()


async def test_recurring_runs_due_together_are_claimed_and_advanced_before_their_instant(
    store: TaskStore, clock: ManualClock
) -> None:
    """600 daily reminders at one instant (issue 29): the claims, which compute and write
    each one's next fire, are done before it, so the instant only delivers."""
    notifier = RecordingNotifier()
    manager = manager_for(store, clock, notifier, claim_batch=1000)
    daily = parse_schedule("every day at 09:01", now=T0, tz=ZoneInfo("UTC"))
    await store.add_tasks([reminder_draft(daily, owner=f"u{n % 7}") for n in range(600)])
    due = T0 + timedelta(hours=1, minutes=1)  # T0 is 08:00 UTC
    async with manager:
        clock.advance(due - T0 - timedelta(milliseconds=60))
        for _ in range(2000):
            if not await store.count_due(due, limit=1):
                break
            await asyncio.sleep(0)
        claimed = await store.count_due(due, limit=1)
        tasks = [t for n in range(7) for t in await store.list_tasks(f"u{n}")]
        delivered_early = list(notifier.deliveries)
        clock.advance(timedelta(milliseconds=60))
        await notifier.wait_for(600)
        await manager.wait_idle()
        runs = [r for t in tasks for r in await store.history(t.id, t.owner_id)]

    assert claimed == 0 and delivered_early == []
    assert {t.next_run for t in tasks} == {due + timedelta(days=1)}
    assert len(runs) == 600 and {(r.scheduled_for, r.status) for r in runs} == {
        (due, RunStatus.SUCCEEDED)
    }


async def test_operations_are_owner_scoped(store: TaskStore, clock: ManualClock) -> None:
    manager = manager_for(store, clock, RecordingNotifier())
    task = await remind(manager, HOUR)

    for call in (
        manager.get_task(task.id, "mallory"),
        manager.cancel(task.id, "mallory"),
        manager.pause(task.id, "mallory"),
        manager.snooze(task.id, "mallory", MINUTE),
        manager.run_now(task.id, "mallory"),
        manager.history(task.id, "mallory"),
    ):
        with pytest.raises(TaskNotFoundError) as caught:
            await call
        assert str(caught.value).startswith(f"there is no task {task.id!r}")
    assert await manager.active_task_ids("mallory") == []
    assert await manager.list_tasks("mallory") == []
    assert (await manager.get_task(f" {task.id.upper()} ", "alice")).id == task.id


async def test_pause_resume_and_state_errors(store: TaskStore, clock: ManualClock) -> None:
    manager = manager_for(store, clock, RecordingNotifier())
    task = await remind(manager, HOUR)

    paused = await manager.pause(task.id, "alice")
    assert paused.status is TaskStatus.PAUSED
    with pytest.raises(TaskStateError, match="already paused"):
        await manager.pause(task.id, "alice")
    clock.advance(2 * HOUR)
    assert await manager.run_due() == 0

    resumed = await manager.resume(task.id, "alice")
    assert resumed.status is TaskStatus.ACTIVE and resumed.next_run == T0 + HOUR
    assert await manager.run_due() == 1  # the missed one-time reminder still arrives, late
    with pytest.raises(TaskStateError, match="already ran"):
        await manager.cancel(task.id, "alice")


async def test_snooze_moves_one_time_rearms_done_and_puts_recurring_off(
    store: TaskStore, clock: ManualClock
) -> None:
    notifier = RecordingNotifier()
    manager = manager_for(store, clock, notifier)
    pending = await remind(manager, HOUR)
    recurring = await remind(manager, 3 * HOUR, recurring=True)

    moved = await manager.snooze(pending.id, "alice", 10 * MINUTE)
    assert moved.next_run == T0 + HOUR + 10 * MINUTE
    put_off = await manager.snooze(recurring.id, "alice", 20 * MINUTE)
    assert put_off.next_run == T0 + 3 * HOUR + 20 * MINUTE

    clock.advance(HOUR + 10 * MINUTE)
    assert await manager.run_due() == 1
    again = await manager.snooze(pending.id, "alice", 5 * MINUTE)
    assert again.status is TaskStatus.ACTIVE and again.next_run == clock.now() + 5 * MINUTE
    assert (await manager.get_task(recurring.id, "alice")).next_run == T0 + 3 * HOUR + 20 * MINUTE
    with pytest.raises(TaskDataError, match=r"^cannot snooze by 0 seconds: the delay must be"):
        await manager.snooze(pending.id, "alice", timedelta(0))
    with pytest.raises(TaskDataError, match=r"^cannot snooze by 400 days: .* 366 days"):
        await manager.snooze(pending.id, "alice", timedelta(days=400))


async def test_snooze_of_a_recurring_task_that_has_not_fired_never_fires_it_early(
    store: TaskStore, clock: ManualClock
) -> None:
    notifier = RecordingNotifier()
    manager = manager_for(store, clock, notifier)
    weekly = await remind(manager, 7 * 24 * HOUR, "plan the week", recurring=True)
    lights = await add(manager, "api_call", LIGHTS_OFF, schedule=every(24 * HOUR, T0 + 17 * HOUR))

    planned = await manager.snooze(weekly.id, "alice", HOUR)
    posted = await manager.snooze(lights.id, "alice", HOUR)

    assert planned.next_run == T0 + 7 * 24 * HOUR + HOUR
    assert posted.next_run == T0 + 18 * HOUR
    clock.advance(17 * HOUR)
    assert await manager.run_due() == 0
    assert notifier.deliveries == []


@pytest.mark.parametrize(
    ("until", "comes"),
    [(10 * MINUTE, T0 + 3 * HOUR + 12 * MINUTE), (T0 + 4 * HOUR, T0 + 4 * HOUR)],
)
async def test_a_recurring_reminder_snoozed_just_after_it_went_off_comes_back(
    store: TaskStore, clock: ManualClock, until: timedelta | datetime, comes: datetime
) -> None:
    notifier = RecordingNotifier()
    manager = manager_for(store, clock, notifier)
    water = await remind(manager, 3 * HOUR, "water plants", recurring=True)
    clock.advance(3 * HOUR)
    assert await manager.run_due() == 1
    clock.advance(2 * MINUTE)

    snoozed = await manager.snooze(water.id, "alice", until)

    assert snoozed.next_run == comes  # from now, by the delay or at the instant: not from 6 h
    clock.set(comes)
    assert await manager.run_due() == 1
    assert notifier.texts() == ["water plants", "water plants"]
    after = await manager.get_task(water.id, "alice")
    assert after.next_run == T0 + 6 * HOUR  # then on its schedule again
    clock.set(T0 + 5 * HOUR + 12 * MINUTE)  # long after it went off: the next run moves instead
    later = await manager.snooze(water.id, "alice", 10 * MINUTE)
    assert later.next_run == T0 + 6 * HOUR + 10 * MINUTE


async def test_a_snooze_until_an_instant_puts_one_run_off_to_then(
    store: TaskStore, clock: ManualClock
) -> None:
    """ "snooze the stretch reminder until 11pm": that one run comes then, not a delay after
    it, and the task keeps its schedule; a snooze never brings a run on."""
    notifier = RecordingNotifier()
    manager = manager_for(store, clock, notifier)
    stretch = await remind(manager, 3 * HOUR, "stretch", recurring=True)
    call = await remind(manager, 8 * HOUR)

    until = await manager.snooze(stretch.id, "alice", T0 + 4 * HOUR)
    assert until.next_run == T0 + 4 * HOUR and until.schedule == stretch.schedule
    earlier = r"its next run, 2026-03-02 13:00, is later, and a snooze only puts a run off; "
    with pytest.raises(TaskDataError, match=earlier + r"say a time after .* '1h'$"):
        await manager.snooze(stretch.id, "alice", T0 + 3 * HOUR)  # no move hint: it repeats
    with pytest.raises(TaskDataError, match=r"already runs at 2026-03-02 13:00 .*nothing changed"):
        await manager.snooze(stretch.id, "alice", T0 + 4 * HOUR)  # "snoozed" to where it is
    with pytest.raises(TaskDataError, match=rf"'1h'; .* 'move {call.id} to 2026-03-02 16:00'$"):
        await manager.snooze(call.id, "alice", T0 + 7 * HOUR)
    with pytest.raises(TaskDataError, match=r"that is less than a second away"):
        await manager.snooze(call.id, "alice", clock.now() + timedelta(milliseconds=500))
    assert (await manager.snooze(call.id, "alice", T0 + 9 * HOUR)).next_run == T0 + 9 * HOUR

    clock.advance(3 * HOUR)
    assert await manager.run_due() == 0  # not at its usual time
    clock.advance(HOUR)
    assert await manager.run_due() == 1
    assert (await manager.get_task(stretch.id, "alice")).next_run == T0 + 6 * HOUR
    clock.advance(2 * HOUR)
    assert await manager.run_due() == 1  # the stretch on its schedule again, at 6 h
    clock.advance(3 * HOUR)
    assert await manager.run_due() == 2  # the stretch and the call, at 9 h
    assert sorted(notifier.texts()) == ["call mom", "stretch", "stretch", "stretch"]
    back = await manager.snooze(call.id, "alice", clock.now() + 30 * MINUTE)
    assert back.status is TaskStatus.ACTIVE and back.next_run == clock.now() + 30 * MINUTE
    with pytest.raises(TaskDataError, match=r"^cannot snooze until .*: that has passed"):
        await manager.snooze(call.id, "alice", clock.now() - MINUTE)
    with pytest.raises(TaskDataError, match=r"that is more than 366 days away"):
        await manager.snooze(call.id, "alice", clock.now() + timedelta(days=400))


async def test_a_snooze_past_the_end_of_a_repetition_is_refused(
    store: TaskStore, clock: ManualClock
) -> None:
    """ "every day next week", snoozed until the week after: the runs still to come before its
    end would be lost; refused, saying where it ends. Its last run may still be snoozed, and
    so may a run that just went off (the Snooze button)."""
    manager = manager_for(store, clock, RecordingNotifier())
    daily = parse_schedule("every day at 9 for 3 times", now=clock.now(), tz="Europe/Berlin")
    drink = await add(manager, "reminder", {"message": "drink"}, schedule=daily)
    first = drink.next_run
    assert first is not None
    with pytest.raises(TaskDataError, match=r"its repetition ends 2026-03-05 09:00, and its runs"):
        await manager.snooze(drink.id, "alice", 5 * 24 * HOUR)
    with pytest.raises(TaskDataError, match=r"'move .* to \.\.\.'$"):
        await manager.snooze(drink.id, "alice", first + 3 * 24 * HOUR)
    inside = await manager.snooze(drink.id, "alice", first + 24 * HOUR)  # within it: as ever
    assert inside.next_run == first + 24 * HOUR
    clock.set(first + 24 * HOUR)
    assert await manager.run_due() == 1  # the run put off; then the last one, on day three
    clock.set(first + 24 * HOUR + 5 * MINUTE)  # it just went off: the Snooze button
    with pytest.raises(TaskDataError, match=r"from 2026-03-05 09:00, would be skipped"):
        await manager.snooze(drink.id, "alice", 3 * 24 * HOUR)
    clock.set(first + 24 * HOUR + 2 * HOUR)  # the last run, on day three, is the one pending
    last = await manager.snooze(drink.id, "alice", 10 * MINUTE)  # nothing left to lose
    assert last.next_run == first + 2 * 24 * HOUR + 10 * MINUTE
    week = parse_schedule("every day next week at 7", now=clock.now(), tz="Europe/Berlin")
    stretch = await add(manager, "reminder", {"message": "stretch"}, schedule=week)
    with pytest.raises(TaskDataError, match=r"its repetition ends after 2026-03-15, and"):
        await manager.snooze(stretch.id, "alice", 14 * 24 * HOUR)


async def test_a_task_that_is_not_a_reminder_snoozed_just_after_it_ran_is_not_run_again(
    store: TaskStore, clock: ManualClock
) -> None:
    agent = ScriptedAgent()
    manager = manager_for(store, clock, RecordingNotifier(), agent)
    report = await add(manager, "agent_task", {"prompt": "weekly report"}, schedule=every(HOUR))
    clock.advance(HOUR)
    assert await manager.run_due() == 1

    snoozed = await manager.snooze(report.id, "alice", 10 * MINUTE)

    assert snoozed.next_run == T0 + 2 * HOUR + 10 * MINUTE


async def test_reschedule_keeps_the_id_and_fires_only_at_the_new_time(
    store: TaskStore, clock: ManualClock
) -> None:
    notifier = RecordingNotifier()
    manager = manager_for(store, clock, notifier)
    task = await remind(manager, HOUR)

    moved = await manager.reschedule(task.id, "alice", once_at(T0 + 3 * HOUR))

    assert (moved.id, moved.next_run, moved.status) == (task.id, T0 + 3 * HOUR, TaskStatus.ACTIVE)
    clock.advance(HOUR)
    assert await manager.run_due() == 0
    clock.advance(2 * HOUR)
    assert await manager.run_due() == 1
    assert [d.task_id for d in notifier.deliveries] == [task.id]


async def test_reschedule_of_a_recurring_or_paused_task(
    store: TaskStore, clock: ManualClock
) -> None:
    manager = manager_for(store, clock, RecordingNotifier())
    recurring = await remind(manager, 3 * HOUR, recurring=True)
    moved = await manager.reschedule(recurring.id, "alice", every(HOUR))
    assert moved.schedule == every(HOUR) and moved.next_run == T0 + HOUR

    paused = await manager.pause((await remind(manager, HOUR)).id, "alice")
    still = await manager.reschedule(paused.id, "alice", once_at(T0 + 2 * HOUR))
    assert (still.status, still.next_run) == (TaskStatus.PAUSED, T0 + 2 * HOUR)


async def test_rezone_keeps_clock_times_in_the_new_zone(
    store: TaskStore, clock: ManualClock
) -> None:
    """Made in Berlin (a zone the owner never chose), moved to New York: a reminder for
    10:00 is at 10:00 there, "every day at 07:00" too; a reminder set by a delay keeps its
    moment, and so does "every 15 minutes"."""
    manager = manager_for(store, clock, RecordingNotifier())
    berlin, new_york = ZoneInfo("Europe/Berlin"), ZoneInfo("America/New_York")

    async def add(words: str, *, now: datetime = T0) -> Task:
        return await manager.add_task(
            owner_id="alice", chat_id="c", task_type="reminder",
            schedule=parse_schedule(words, now=now, tz=berlin), description=words,
        )  # fmt: skip

    clock_time = await add("tomorrow at 10am")
    delay = await add("in 10 minutes", now=T0 + timedelta(seconds=7))
    daily = await add("every day at 7am")
    interval = await add("every 15 minutes")
    paused = await manager.pause((await add("tomorrow at 11am")).id, "alice")
    elsewhere = await manager.add_task(
        owner_id="alice", chat_id="c", task_type="reminder", description="tokyo",
        schedule=parse_schedule("tomorrow at 9am", now=T0, tz=ZoneInfo("Asia/Tokyo")),
    )  # fmt: skip

    moved = await manager.rezone("alice", made_in=berlin, to=new_york)

    by_id = {task.id: task for task in moved}
    assert set(by_id) == {clock_time.id, delay.id, daily.id, interval.id, paused.id}
    assert by_id[clock_time.id].next_run == datetime(2026, 3, 3, 15, 0, tzinfo=UTC)  # 10:00 EST
    assert by_id[clock_time.id].schedule.describe() == "once at 2026-03-03 10:00 (America/New_York)"
    assert by_id[delay.id].next_run == delay.next_run  # 10 minutes after it was set
    assert by_id[daily.id].schedule.describe() == "every day at 07:00 (America/New_York)"
    assert by_id[daily.id].next_run == datetime(2026, 3, 2, 12, 0, tzinfo=UTC)  # 07:00 EST
    assert by_id[interval.id].next_run == interval.next_run
    assert by_id[paused.id].status is TaskStatus.PAUSED
    assert by_id[paused.id].next_run == datetime(2026, 3, 3, 16, 0, tzinfo=UTC)
    assert await manager.get_task(elsewhere.id, "alice") == elsewhere
    assert await manager.rezone("bob", made_in=berlin, to=new_york) == []


async def test_rezone_makes_a_clock_time_passed_in_the_new_zone_due_now(
    store: TaskStore, clock: ManualClock
) -> None:
    manager = manager_for(store, clock, RecordingNotifier())
    berlin, tokyo = ZoneInfo("Europe/Berlin"), ZoneInfo("Asia/Tokyo")
    task = await manager.add_task(
        owner_id="alice", chat_id="c", task_type="reminder", description="lunch",
        schedule=parse_schedule("today at noon", now=T0, tz=berlin),
    )  # fmt: skip

    [moved] = await manager.rezone("alice", made_in=berlin, to=tokyo)  # noon there was at 03:00

    assert moved.id == task.id and moved.next_run == T0
    assert await manager.run_due() == 1


async def test_reschedule_refuses_a_time_past_and_a_finished_task(
    store: TaskStore, clock: ManualClock
) -> None:
    manager = manager_for(store, clock, RecordingNotifier())
    task = await remind(manager, HOUR)
    with pytest.raises(ScheduleError, match="has no run after now"):
        await manager.reschedule(task.id, "alice", once_at(T0 - HOUR))
    assert (await manager.get_task(task.id, "alice")).next_run == T0 + HOUR
    await manager.cancel(task.id, "alice")
    with pytest.raises(TaskStateError, match="cannot reschedule"):
        await manager.reschedule(task.id, "alice", once_at(T0 + 2 * HOUR))
    with pytest.raises(TaskNotFoundError):
        await manager.reschedule(task.id, "mallory", once_at(T0 + 2 * HOUR))


async def test_run_now_runs_once_outside_the_schedule(store: TaskStore, clock: ManualClock) -> None:
    notifier = RecordingNotifier()
    manager = manager_for(store, clock, notifier)
    recurring = await remind(manager, HOUR, "water plants", recurring=True)
    clock.advance(MINUTE)

    run = await manager.run_now(recurring.id, "alice")

    assert run.status is RunStatus.SUCCEEDED and run.misfire is MisfireAction.MANUAL
    assert run.scheduled_for == T0 + MINUTE
    assert notifier.texts() == ["water plants"]
    assert [r.id for r in await manager.history(recurring.id, "alice")] == [run.id]
    assert (await manager.get_task(recurring.id, "alice")).next_run == T0 + HOUR


async def test_run_now_of_a_one_time_task_is_an_extra_run_that_keeps_its_time(
    store: TaskStore, clock: ManualClock
) -> None:
    notifier = RecordingNotifier()
    manager = manager_for(store, clock, notifier)
    alarm = await remind(manager, 23 * HOUR, "wake up")

    run = await manager.run_now(alarm.id, "alice")

    assert run.status is RunStatus.SUCCEEDED and run.misfire is MisfireAction.MANUAL
    kept = await manager.get_task(alarm.id, "alice")
    assert (kept.status, kept.next_run) == (TaskStatus.ACTIVE, T0 + 23 * HOUR)
    clock.advance(23 * HOUR)
    assert await manager.run_due() == 1
    assert notifier.texts() == ["wake up", "wake up"]
    runs = await manager.history(alarm.id, "alice")
    assert [(r.misfire, r.scheduled_for) for r in runs] == [
        (MisfireAction.ON_TIME, T0 + 23 * HOUR),
        (MisfireAction.MANUAL, T0),
    ]
    assert (await manager.get_task(alarm.id, "alice")).status is TaskStatus.DONE
    again = await manager.run_now(alarm.id, "alice")  # "Run again": it stays done
    assert again.status is RunStatus.SUCCEEDED
    assert (await manager.get_task(alarm.id, "alice")).status is TaskStatus.DONE


async def add(
    manager: TaskManager,
    task_type: str,
    execution_data: dict[str, object] | None = None,
    *,
    description: str | None = None,
    misfire: str | MisfirePolicy | None = None,
    owner_id: str = "alice",
    schedule: Schedule | None = None,
) -> Task:
    return await manager.add_task(
        owner_id=owner_id,
        chat_id="c",
        task_type=task_type,
        schedule=schedule or every(HOUR),
        execution_data=execution_data,
        description=description,
        misfire=misfire,
    )


async def test_bad_input_gets_clear_errors(store: TaskStore, clock: ManualClock) -> None:
    manager = manager_for(store, clock, RecordingNotifier())

    with pytest.raises(TaskDataError, match=r"unknown task type 'email'; use one of 'reminder'"):
        await add(manager, "email", description="x")
    with pytest.raises(TaskDataError, match=r"'message' is missing.*give e.g."):
        await add(manager, "reminder", {"text": "x"})
    with pytest.raises(TaskDataError, match=r"url 'ftp://x' must be an absolute http"):
        await add(manager, "api_call", {"url": "ftp://x"})
    with pytest.raises(TaskDataError, match=r"'method': method 'FETCH' is not one of GET"):
        await add(manager, "api_call", {"url": "https://x.org", "method": "FETCH"})
    with pytest.raises(TaskDataError, match="owner_id must be a non-empty string, got ''"):
        await add(manager, "reminder", description="x", owner_id="")
    with pytest.raises(TaskDataError, match="unknown misfire policy 'sometimes'"):
        await add(manager, "reminder", description="x", misfire="sometimes")
    with pytest.raises(ScheduleError, match="has no run after now"):
        await add(manager, "reminder", description="x", schedule=once_at(T0 - HOUR))
    with pytest.raises(TaskDataError, match="'limit': Input should be less than or equal to 10"):
        await add(manager, "web_search", {"query": "news", "limit": 50})


async def test_description_defaults_and_misfire_override(
    store: TaskStore, clock: ManualClock
) -> None:
    manager = manager_for(store, clock, RecordingNotifier())

    search = await add(manager, "web_search", description="top US news")
    call = await add(
        manager,
        "api_call",
        {"method": "post", "url": "https://h.example/off?token=s3cret"},
        misfire=MisfirePolicy.COALESCE,
    )

    assert search.description == "top US news"
    assert search.execution == WebSearchData(query="top US news")
    assert call.description == "POST https://h.example/off?token=[redacted]"
    assert call.misfire.policy is MisfirePolicy.COALESCE
    assert manager.misfire_rule(TaskType.API_CALL).policy is MisfirePolicy.SKIP
    assert await manager.get_task(search.id, "alice") == search


async def claimed_runs(manager: TaskManager, task_id: str) -> list[RunStatus]:
    """Yield to the timer until it has claimed a run of the task (memory store: no threads)."""
    for _ in range(1000):
        runs = await manager.history(task_id, "alice")
        if runs:
            return [r.status for r in runs]
        await asyncio.sleep(0)
    raise AssertionError("the timer never claimed the run")


async def test_runs_claimed_ahead_start_on_time_or_not_at_all(clock: ManualClock) -> None:
    notifier = RecordingNotifier()
    manager = TaskManager(
        store=MemoryTaskStore(), clock=clock, notifier=notifier, prefetch=timedelta(minutes=1)
    )
    async with manager:
        kept = await remind(manager, timedelta(seconds=30), "kept")
        dropped = await remind(manager, timedelta(seconds=40), "dropped")
        assert await claimed_runs(manager, kept.id) == [RunStatus.CLAIMED]
        assert await claimed_runs(manager, dropped.id) == [RunStatus.CLAIMED]
        await manager.cancel(dropped.id, "alice")

        clock.advance(timedelta(seconds=29))
        await asyncio.sleep(0)
        assert notifier.deliveries == []
        clock.advance(timedelta(seconds=11))
        await notifier.wait_for(1)
        await manager.wait_idle()
        (skipped,) = await manager.history(dropped.id, "alice")

    assert notifier.texts() == ["kept"]
    assert skipped.status is RunStatus.SKIPPED and "cancelled or paused" in (skipped.error or "")


@pytest.mark.parametrize(
    ("until", "comes"),
    [
        (timedelta(minutes=10), T0 + timedelta(seconds=30) + timedelta(minutes=10)),  # by
        (T0 + HOUR, T0 + HOUR),  # until
    ],
)
async def test_a_snooze_puts_off_the_run_claimed_ahead_not_the_one_after(
    clock: ManualClock, until: timedelta | datetime, comes: datetime
) -> None:
    notifier = RecordingNotifier()
    manager = TaskManager(
        store=MemoryTaskStore(), clock=clock, notifier=notifier, prefetch=timedelta(minutes=1)
    )
    async with manager:
        daily = await manager.add_task(
            owner_id="alice",
            chat_id="chat-alice",
            task_type="reminder",
            schedule=every(timedelta(days=1), anchor=clock.now() + timedelta(seconds=30)),
            description="stand up",
        )
        assert await claimed_runs(manager, daily.id) == [RunStatus.CLAIMED]

        snoozed = await manager.snooze(daily.id, "alice", until)
        clock.advance(timedelta(seconds=31))  # its time: the claimed run must not go off
        await asyncio.sleep(0)
        await manager.wait_idle()
        assert notifier.deliveries == []
        clock.set(comes)
        await notifier.wait_for(1)

    # Today's run came when the snooze said, once; tomorrow's keeps its time.
    assert snoozed.next_run == comes
    assert notifier.texts() == ["stand up"]


async def post_task(manager: TaskManager, url: str) -> Task:
    return await manager.add_task(
        owner_id="alice",
        chat_id="chat-alice",
        task_type=TaskType.API_CALL,
        schedule=once_at(T0 + MINUTE),
        execution_data={"method": "POST", "url": url, "body": {"pizza": 1}},
        description="order pizza",
    )


async def test_a_post_whose_process_died_mid_request_is_never_sent_again(
    tmp_path: Path, clock: ManualClock, server: ScriptedServer, http: GuardedHttp
) -> None:
    path = tmp_path / "assistant.db"
    notifier = RecordingNotifier()
    lease = timedelta(seconds=30)
    server.replies = [(HOLD, "")]  # the server has the POST and has not answered yet
    dying = TaskManager(
        store=SqliteTaskStore(path), clock=clock, notifier=notifier, lease=lease,
        drain_timeout=timedelta(0), http=http,
    )  # fmt: skip
    await dying.start(timer=False)
    task = await post_task(dying, f"{server.url}/orders")
    clock.advance(MINUTE)
    running = asyncio.create_task(dying.run_due())
    await server.wait_for(1)
    await dying.stop()  # its run is cut off mid-request, and nothing beats for it any more
    assert await running == 1

    heir = TaskManager(
        store=SqliteTaskStore(path), clock=clock, notifier=notifier, lease=lease, http=http
    )
    async with heir:
        clock.advance(lease)
        assert await heir.run_due() == 0
        (lost,) = await heir.history(task.id, "alice")
        (notice,) = notifier.deliveries

        assert len(server.received) == 1  # not sent again
        assert lost.status is RunStatus.OUTCOME_UNKNOWN and lost.attempt == 1
        assert notice.kind is DeliveryKind.NOTICE and notice.run_again
        assert notice.run_id == lost.id and notice.text.startswith(
            f'Task {task.id} ("order pizza") may or may not have happened: the assistant '
            "stopped during this run"
        )
        assert (await heir.get_task(task.id, "alice")).status is TaskStatus.DONE

        again = await heir.run_now(task.id, "alice")  # what "Run again" does

    assert again.status is RunStatus.SUCCEEDED and len(server.received) == 2
    first_key, second_key = (r.headers["idempotency-key"] for r in server.received)
    assert first_key != second_key  # a new run, a new key


async def test_a_post_cut_off_by_the_time_limit_has_an_unknown_outcome(
    store: TaskStore, clock: ManualClock, server: ScriptedServer, http: GuardedHttp
) -> None:
    server.replies = [(HOLD, "")]
    notifier = RecordingNotifier()
    manager = TaskManager(
        store=store, clock=clock, notifier=notifier, http=http,
        run_timeout=timedelta(milliseconds=200),  # real time: the limit bounds real waits
    )  # fmt: skip
    task = await post_task(manager, f"{server.url}/orders")
    clock.advance(MINUTE)

    assert await manager.run_due() == 1

    (run,) = await manager.history(task.id, "alice")
    assert run.status is RunStatus.OUTCOME_UNKNOWN and len(server.received) == 1
    (notice,) = notifier.deliveries
    assert notice.run_again and "may or may not have happened" in notice.text


async def test_a_request_whose_reference_would_be_shown_is_refused_at_creation(
    store: TaskStore, clock: ManualClock
) -> None:
    manager = manager_for(store, clock, RecordingNotifier())

    with pytest.raises(TaskDataError, match="header 'X-Note' holds a reference"):
        await manager.add_task(
            owner_id="alice", chat_id="chat-alice", task_type=TaskType.API_CALL,
            schedule=once_at(T0 + HOUR),
            execution_data={"url": "https://x.test/", "headers": {"X-Note": "${TOKEN}"}},
        )  # fmt: skip
    kept = await manager.add_task(
        owner_id="alice", chat_id="chat-alice", task_type=TaskType.API_CALL,
        schedule=once_at(T0 + HOUR),
        execution_data={"url": "https://x.test/", "headers": {"X-Api-Key": "${TOKEN}"}},
    )  # fmt: skip
    assert kept.execution == (await manager.get_task(kept.id, "alice")).execution


class LockedForAWhile(MemoryTaskStore):
    """A store whose claims fail, as while another process holds the database's lock."""

    def __init__(self, failures: int) -> None:
        super().__init__()
        self.failures = failures

    async def claim_due(
        self, now: datetime, *, limit: int, lease: timedelta, ahead: timedelta = timedelta(0)
    ) -> list[Claim]:
        if self.failures:
            self.failures -= 1
            raise TaskStoreError(
                "SQLite error on the task database: it is locked by another process"
            )
        return await super().claim_due(now, limit=limit, lease=lease, ahead=ahead)


async def test_a_locked_store_is_one_warning_per_retry_and_the_timer_carries_on(
    clock: ManualClock, caplog: pytest.LogCaptureFixture
) -> None:
    notifier = RecordingNotifier()
    store = LockedForAWhile(failures=2)
    with caplog.at_level(logging.DEBUG, logger="tasks"):
        async with manager_for(store, clock, notifier) as manager:
            await remind(manager, timedelta(0), "still delivered")
            for _ in range(100):  # each retry waits a second on the manual clock
                if notifier.deliveries:
                    break
                clock.advance(timedelta(seconds=1))
                for _ in range(10):
                    await asyncio.sleep(0)
            await notifier.wait_for(1)

    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert [r.getMessage() for r in warnings] == [
        "the task timer could not use the store (SQLite error on the task database: it is "
        "locked by another process); retrying in 1 s"
    ] * 2
    assert all(r.exc_info is None for r in caplog.records if r.levelno > logging.DEBUG)
    assert sum(r.exc_info is not None for r in caplog.records) == 2  # at DEBUG


# A POST or PATCH claimed ahead of its time when its process stops (issue 29's review): it
# never started, so it runs at its time after a restart, once; one that started (its request
# may have gone out) is never sent again.

DAY = timedelta(days=1)
LIGHTS_AT = T0 + MINUTE


def lights_manager(
    store: TaskStore,
    clock: ManualClock,
    http: GuardedHttp,
    notifier: RecordingNotifier,
    *,
    heir: bool = False,
) -> TaskManager:
    """A manager that claims up to a minute ahead and stops without waiting for runs (its
    leases outlast the test's jumps of the clock, which its heartbeat does not follow); an
    ``heir`` holds the data directory's lock, as the program does (its predecessor is gone)."""
    return TaskManager(
        store=store, clock=clock, notifier=notifier, http=http, lease=5 * MINUTE,
        prefetch=timedelta(minutes=1), drain_timeout=timedelta(0), exclusive=heir,
    )  # fmt: skip


async def lights_off(manager: TaskManager, url: str, *, daily: bool) -> Task:
    schedule = every(DAY, anchor=LIGHTS_AT) if daily else once_at(LIGHTS_AT)
    return await manager.add_task(
        owner_id="alice", chat_id="chat-alice", task_type=TaskType.API_CALL, schedule=schedule,
        execution_data={"method": "POST", "url": url}, description="lights off",
    )  # fmt: skip


@pytest.mark.parametrize("daily", [False, True], ids=["once", "daily"])
async def test_a_post_claimed_ahead_is_given_back_at_stop_and_runs_once_at_its_time(
    store_factory: StoreFactory,
    clock: ManualClock,
    server: ScriptedServer,
    http: GuardedHttp,
    daily: bool,
) -> None:
    notifier = RecordingNotifier()
    clock.advance(MINUTE - timedelta(seconds=20))  # 20 s before its time
    async with lights_manager(store_factory(), clock, http, notifier) as stopping:
        task = await lights_off(stopping, f"{server.url}/lights", daily=daily)
        assert await claimed_runs(stopping, task.id) == [RunStatus.CLAIMED]
        ahead = await stopping.get_task(task.id, "alice")
    # Stopped orderly: the claim was given back, as if it had never been made.
    async with store_factory() as store:
        given_back = await store.get_task(task.id)
        rows = await store.history(task.id, "alice")

    async with lights_manager(store_factory(), clock, http, notifier) as restarted:
        await claimed_runs(restarted, task.id)
        clock.advance(timedelta(seconds=19))
        await asyncio.sleep(0)
        sent_early = len(server.received)
        clock.advance(timedelta(seconds=1))
        await server.wait_for(1)
        await restarted.wait_idle()
        (run,) = await restarted.history(task.id, "alice")
        after = await restarted.get_task(task.id, "alice")

    assert ahead.next_run == (LIGHTS_AT + DAY if daily else None)  # claimed ahead
    assert given_back is not None and rows == []
    assert (given_back.status, given_back.next_run) == (TaskStatus.ACTIVE, LIGHTS_AT)
    assert sent_early == 0 and len(server.received) == 1
    assert run.status is RunStatus.SUCCEEDED and run.scheduled_for == LIGHTS_AT
    assert run.misfire is MisfireAction.ON_TIME and run.attempt == 1
    # The next fire the first claim computed is computed again, to the same instant.
    assert after.next_run == (LIGHTS_AT + DAY if daily else None)
    assert after.status is (TaskStatus.ACTIVE if daily else TaskStatus.DONE)


async def test_a_run_cancelled_after_its_claim_is_skipped_at_stop_not_given_back(
    store_factory: StoreFactory, clock: ManualClock, server: ScriptedServer, http: GuardedHttp
) -> None:
    notifier = RecordingNotifier()
    clock.advance(MINUTE - timedelta(seconds=20))
    async with lights_manager(store_factory(), clock, http, notifier) as stopping:
        task = await lights_off(stopping, f"{server.url}/lights", daily=True)
        await claimed_runs(stopping, task.id)
        await stopping.pause(task.id, "alice")
    async with lights_manager(store_factory(), clock, http, notifier) as restarted:
        clock.advance(MINUTE)
        await restarted.run_due()
        (skipped,) = await restarted.history(task.id, "alice")
        paused = await restarted.get_task(task.id, "alice")

    assert server.received == [] and paused.status is TaskStatus.PAUSED
    assert skipped.status is RunStatus.SKIPPED and skipped.scheduled_for == LIGHTS_AT


@pytest.mark.parametrize("daily", [False, True], ids=["once", "daily"])
async def test_after_a_crash_a_post_claimed_but_never_started_runs_at_its_time(
    store_factory: StoreFactory,
    clock: ManualClock,
    server: ScriptedServer,
    http: GuardedHttp,
    daily: bool,
) -> None:
    notifier = RecordingNotifier()
    clock.advance(MINUTE - timedelta(seconds=20))
    async with store_factory() as dying:
        making = lights_manager(dying, clock, http, notifier)
        task = await lights_off(making, f"{server.url}/lights", daily=daily)
        # What the dead process's timer did before it died: the run claimed ahead, no more.
        (claim,) = await dying.claim_due(clock.now(), limit=9, lease=MINUTE, ahead=MINUTE)

    async with lights_manager(store_factory(), clock, http, notifier, heir=True) as heir:
        await claimed_runs(heir, task.id)
        assert server.received == []
        clock.advance(timedelta(seconds=20))
        await server.wait_for(1)
        await heir.wait_idle()
        retry, abandoned = await heir.history(task.id, "alice")

    assert [d.kind for d in notifier.deliveries] == [DeliveryKind.RESULT]  # no "may have"
    assert len(server.received) == 1
    assert abandoned.id == claim.run.id and abandoned.status is RunStatus.ABANDONED
    assert retry.status is RunStatus.SUCCEEDED and retry.scheduled_for == LIGHTS_AT
    assert retry.misfire is MisfireAction.RETRY and retry.late_by is None


@pytest.mark.parametrize("daily", [False, True], ids=["once", "daily"])
async def test_after_a_crash_a_post_that_started_is_never_sent_again(
    store_factory: StoreFactory,
    clock: ManualClock,
    server: ScriptedServer,
    http: GuardedHttp,
    daily: bool,
) -> None:
    notifier = RecordingNotifier()
    async with store_factory() as dying:
        making = lights_manager(dying, clock, http, notifier)
        task = await lights_off(making, f"{server.url}/lights", daily=daily)
        clock.advance(MINUTE)
        # What the dead process did: claimed the run, recorded its start, then (maybe) sent.
        (claim,) = await dying.claim_due(clock.now(), limit=9, lease=MINUTE)
        assert await dying.mark_started(claim.run.id, clock.now())

    async with lights_manager(store_factory(), clock, http, notifier, heir=True) as heir:
        await notifier.wait_for(1)
        await heir.wait_idle()
        clock.advance(timedelta(seconds=30))
        assert await heir.run_due() == 0
        (lost,) = await heir.history(task.id, "alice")

    assert server.received == []
    assert lost.id == claim.run.id and lost.status is RunStatus.OUTCOME_UNKNOWN
    (notice,) = notifier.deliveries
    assert notice.kind is DeliveryKind.NOTICE and notice.run_again

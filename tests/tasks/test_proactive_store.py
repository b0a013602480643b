"""The task stores' contract for what the proactive features keep (issue 28): monitors' last
observations, held deliveries, acknowledgements, and what a briefing reads. Run against the
in-memory, the SQLite and the PostgreSQL store."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from zoneinfo import ZoneInfo

import pytest

from tasks import (
    Delivery,
    DeliveryKind,
    RunOutcome,
    RunStatus,
    TaskNotFoundError,
    TaskStateError,
    TaskStatus,
)
from tasks.monitors import Observation
from tasks.store import HoldReason, TaskChange, TaskStore
from tests.tasks.conftest import T0, StoreFactory, every, once_at, reminder_draft

MINUTE = timedelta(minutes=1)
HOUR = timedelta(hours=1)
BERLIN = ZoneInfo("Europe/Berlin")
LEASE = timedelta(minutes=1)


def _delivery(
    task_id: str, text: str, *, run_id: int | None = None, nags: bool = False
) -> Delivery:
    return Delivery(
        task_id=task_id,
        run_id=run_id,
        owner_id="alice",
        chat_id="chat-alice",
        kind=DeliveryKind.REMINDER,
        text=text,
        nags=nags,
    )


async def test_an_observation_is_kept_one_per_task_and_read_back(store: TaskStore) -> None:
    task = await store.add_task(reminder_draft(every(HOUR)))
    assert await store.observation(task.id) is None
    first = Observation("price 320", T0, T0, holds=False, pending="say this", checks=1)
    await store.save_observation(task.id, first)
    assert await store.observation(task.id) == first

    later = Observation("price 289", T0 + HOUR, T0 + HOUR, holds=True, checks=2, changes=1)
    await store.save_observation(task.id, later)
    assert await store.observation(task.id) == later


async def test_held_deliveries_wait_for_their_time_and_are_taken_once(store: TaskStore) -> None:
    task = await store.add_task(reminder_draft(once_at(T0 + HOUR)))
    release = (T0 + 8 * HOUR).astimezone(BERLIN)
    one = await store.hold(
        _delivery(task.id, "first"), reason=HoldReason.QUIET, now=T0, release_at=release
    )
    two = await store.hold(
        _delivery(task.id, "second"), reason=HoldReason.QUIET, now=T0 + MINUTE, release_at=release
    )
    assert (one.zone, two.zone) == ("Europe/Berlin", "Europe/Berlin")
    assert [h.delivery.text for h in await store.held("alice")] == ["first", "second"]
    assert await store.held("bob") == []
    assert await store.next_release() == release

    assert await store.claim_held(release - MINUTE, limit=10, lease=LEASE) == []
    taken = await store.claim_held(release, limit=10, lease=LEASE)
    assert [h.delivery.text for h in taken] == ["first", "second"]
    # Leased: nobody takes them again until the lease runs out (their releaser died).
    assert await store.claim_held(release, limit=10, lease=LEASE) == []
    assert await store.next_release() == release + LEASE
    again = await store.claim_held(release + LEASE, limit=1, lease=LEASE)
    assert [h.delivery.text for h in again] == ["first"]

    await store.release_held(taken, release + LEASE)
    assert await store.held("alice") == []
    assert await store.next_release() is None


async def test_a_repeated_reminder_is_held_once_and_counted(store: TaskStore) -> None:
    task = await store.add_task(reminder_draft(once_at(T0 + HOUR)))
    release = T0 + 8 * HOUR
    for number in range(3):
        await store.hold(
            _delivery(task.id, f"take the pills ({number})", nags=True),
            reason=HoldReason.QUIET,
            now=T0 + number * MINUTE,
            release_at=release,
        )
    [held] = await store.held("alice")
    assert held.delivery.text == "take the pills (2)"
    assert held.repeats == 2
    assert held.held_at == T0


async def test_a_released_delivery_notes_it_on_its_run(store: TaskStore) -> None:
    task = await store.add_task(reminder_draft(once_at(T0)))
    [claim] = await store.claim_due(T0, limit=10, lease=LEASE)
    await store.hold(
        _delivery(task.id, "call mom", run_id=claim.run.id),
        reason=HoldReason.QUIET,
        now=T0,
        release_at=(T0 + HOUR).astimezone(BERLIN),
    )
    outcome = RunOutcome(
        claim.run.id, task.id, RunStatus.SUCCEEDED, T0, T0, result="reminder held for quiet hours"
    )
    await store.finish_runs([outcome], max_failures=5)
    taken = await store.claim_held(T0 + HOUR, limit=10, lease=LEASE)
    await store.release_held(taken, T0 + HOUR)
    [run] = await store.history(task.id, "alice")
    assert run.result == (
        "reminder held for quiet hours; delivered at 2026-03-02 10:00 (Europe/Berlin)"
    )


async def test_an_owner_without_quiet_hours_gets_their_held_deliveries_now(
    store: TaskStore,
) -> None:
    task = await store.add_task(reminder_draft(once_at(T0 + HOUR)))
    await store.hold(
        _delivery(task.id, "quiet"), reason=HoldReason.QUIET, now=T0, release_at=T0 + 9 * HOUR
    )
    await store.hold(
        _delivery(task.id, "later"), reason=HoldReason.SNOOZED, now=T0, release_at=T0 + 2 * HOUR
    )
    assert await store.release_owner("alice", T0, reason=HoldReason.QUIET) == 1
    assert await store.release_owner("bob", T0, reason=HoldReason.QUIET) == 0
    [due] = await store.claim_held(T0, limit=10, lease=LEASE)
    assert due.delivery.text == "quiet"


async def test_an_acknowledgement_is_a_ledger_row_and_may_change_the_task(
    store: TaskStore,
) -> None:
    task = await store.add_task(reminder_draft(once_at(T0 + HOUR)))
    assert not await store.acknowledged_since(task.id, T0)
    kept = await store.acknowledge(
        task.id, "alice", T0, note="acknowledged: Done in Telegram", change=None, allowed_from=()
    )
    assert kept == task
    assert await store.acknowledged_since(task.id, T0)
    assert not await store.acknowledged_since(task.id, T0 + MINUTE)

    done = TaskChange(status=TaskStatus.DONE, next_run=None, status_reason="acknowledged")
    finished = await store.acknowledge(
        task.id, "alice", T0 + MINUTE, note="acknowledged: done", change=done,
        allowed_from={TaskStatus.ACTIVE},
    )  # fmt: skip
    assert (finished.status, finished.next_run) == (TaskStatus.DONE, None)
    assert (await store.get_task(task.id)) == finished
    rows = await store.history(task.id, "alice")
    assert [(r.status, r.result) for r in rows] == [
        (RunStatus.ACKNOWLEDGED, "acknowledged: done"),
        (RunStatus.ACKNOWLEDGED, "acknowledged: Done in Telegram"),
    ]
    assert rows[0].finished_at == T0 + MINUTE

    with pytest.raises(TaskStateError, match="cannot acknowledge"):
        await store.acknowledge(
            task.id, "alice", T0, note="x", change=done, allowed_from={TaskStatus.ACTIVE}
        )
    with pytest.raises(TaskNotFoundError):
        await store.acknowledge(task.id, "mallory", T0, note="x", change=None, allowed_from=())


async def test_a_briefing_reads_recent_runs_and_changed_monitors(store: TaskStore) -> None:
    first = await store.add_task(reminder_draft(once_at(T0)))
    second = await store.add_task(reminder_draft(once_at(T0 + MINUTE)))
    other = await store.add_task(reminder_draft(once_at(T0), owner="bob"))
    claims = await store.claim_due(T0 + MINUTE, limit=10, lease=LEASE)
    assert len(claims) == 3
    await store.finish_runs(
        [
            RunOutcome(c.run.id, c.task.id, RunStatus.SUCCEEDED, T0, T0 + i * MINUTE)
            for i, c in enumerate(claims)
        ],
        max_failures=5,
    )
    recent = await store.runs_since("alice", T0, limit=10)
    assert {r.task.id for r in recent} == {first.id, second.id}
    assert all(r.task.owner_id == "alice" for r in recent)
    finished = [r.run.finished_at or T0 for r in recent]
    assert finished == sorted(finished, reverse=True) and finished[0] > finished[1]
    assert len(await store.runs_since("alice", T0, limit=1)) == 1
    assert await store.runs_since("alice", T0 + HOUR, limit=10) == []

    await store.save_observation(first.id, Observation("a", T0, T0, checks=1))
    await store.save_observation(
        second.id, Observation("b", T0 + HOUR, T0 + HOUR, checks=4, changes=1)
    )
    await store.save_observation(
        other.id, Observation("c", T0 + HOUR, T0 + HOUR, checks=4, changes=2)
    )
    # Looked at since T0, never changed since its first look (at T0 + 1 h): not a change.
    third = await store.add_task(reminder_draft(once_at(T0 + 2 * HOUR)))
    await store.save_observation(third.id, Observation("d", T0 + 2 * HOUR, T0 + HOUR, checks=5))
    [change] = await store.changes_since("alice", T0)
    assert (change.task.id, change.observation.value) == (second.id, "b")
    assert await store.changes_since("alice", T0 + 2 * HOUR) == []


async def test_held_deliveries_survive_a_restart_and_two_stores_take_each_once(
    store_factory: StoreFactory,
) -> None:
    factory = store_factory
    async with factory() as first:
        task = await first.add_task(reminder_draft(once_at(T0 + HOUR)))
        for number in range(40):
            await first.hold(
                _delivery(task.id, f"held {number}"),
                reason=HoldReason.QUIET,
                now=T0,
                release_at=T0 + HOUR,
            )
    async with factory() as one, factory() as two:
        assert len(await one.held("alice")) == 40
        taken = await asyncio.gather(
            *(store.claim_held(T0 + HOUR, limit=7, lease=LEASE) for store in [one, two] * 4)
        )
        texts = [held.delivery.text for batch in taken for held in batch]
        assert sorted(texts) == sorted(f"held {n}" for n in range(40))

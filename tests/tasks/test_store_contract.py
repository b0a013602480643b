"""One contract for every TaskStore: run against the in-memory, the SQLite and the PostgreSQL store."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from pathlib import Path
from types import MappingProxyType

import pytest

from tasks import (
    DEFAULT_MISFIRE_RULES,
    MemoryTaskStore,
    MisfireAction,
    MisfirePolicy,
    MisfireRule,
    PostgresTaskStore,
    RunOutcome,
    RunStatus,
    SqliteTaskStore,
    Task,
    TaskError,
    TaskLimitError,
    TaskLimits,
    TaskNotFoundError,
    TaskStateError,
    TaskStatus,
    TaskType,
)
from tasks.monitors import Observation
from tasks.store import OUTCOME_UNKNOWN_ERROR, UNSET, TaskChange, TaskStore
from tests.tasks.conftest import (
    T0,
    StoreFactory,
    api_call_draft,
    every,
    once_at,
    reminder_draft,
)

LEASE = timedelta(minutes=2)
MINUTE = timedelta(minutes=1)
HOUR = timedelta(hours=1)


async def test_added_task_reads_back_and_only_for_its_owner(store: TaskStore) -> None:
    draft = reminder_draft(once_at(T0 + HOUR))
    added = await store.add_task(draft)

    assert len(added.id) == 6 and added == draft.to_task(added.id)
    assert added.status is TaskStatus.ACTIVE and added.enabled
    assert await store.get_task(added.id, "alice") == added
    assert await store.get_task(added.id) == added
    assert await store.get_task(added.id, "mallory") is None
    assert await store.get_task("zzzzzz", "alice") is None


def test_default_misfire_rules_are_read_only() -> None:
    assert isinstance(DEFAULT_MISFIRE_RULES, MappingProxyType)
    assert DEFAULT_MISFIRE_RULES[TaskType.API_CALL].policy is MisfirePolicy.SKIP


async def test_bulk_add_and_listing_order(store: TaskStore) -> None:
    drafts = [reminder_draft(once_at(T0 + timedelta(minutes=m))) for m in (30, 10, 20)]
    ids = await store.add_tasks(drafts)
    await store.add_task(reminder_draft(once_at(T0 + HOUR), owner="bob"))

    assert len(set(ids)) == 3
    listed = await store.list_tasks("alice")
    assert [t.id for t in listed] == [ids[1], ids[2], ids[0]]
    assert await store.active_task_ids("alice") == sorted(ids)


async def test_update_applies_only_from_allowed_states(store: TaskStore) -> None:
    task = await store.add_task(reminder_draft(once_at(T0 + HOUR)))
    pause = TaskChange(status=TaskStatus.PAUSED, status_reason="on holiday")

    paused = await store.update_task(
        task.id, "alice", pause, allowed_from={TaskStatus.ACTIVE}, action="pause", now=T0
    )

    assert paused.status is TaskStatus.PAUSED and paused.status_reason == "on holiday"
    assert paused.next_run == task.next_run
    assert await store.get_task(task.id) == paused
    with pytest.raises(TaskStateError, match=rf"cannot pause task '{task.id}': it is already"):
        await store.update_task(
            task.id, "alice", pause, allowed_from={TaskStatus.ACTIVE}, action="pause", now=T0
        )
    with pytest.raises(TaskNotFoundError, match=repr(task.id)):
        await store.update_task(
            task.id, "mallory", pause, allowed_from=set(TaskStatus), action="pause", now=T0
        )


async def test_update_can_replace_the_schedule_keeping_the_id(store: TaskStore) -> None:
    task = await store.add_task(reminder_draft(once_at(T0 + HOUR)))
    later = once_at(T0 + 3 * HOUR)
    change = TaskChange(schedule=later, next_run=T0 + 3 * HOUR)

    moved = await store.update_task(
        task.id, "alice", change, allowed_from={TaskStatus.ACTIVE}, action="reschedule", now=T0
    )

    assert (moved.id, moved.schedule, moved.next_run) == (task.id, later, T0 + 3 * HOUR)
    assert await store.get_task(task.id) == moved
    assert [t.id for t in await store.list_tasks("alice")] == [task.id]


async def test_cancelled_and_done_tasks_leave_the_active_list(store: TaskStore) -> None:
    kept = await store.add_task(reminder_draft(once_at(T0 + HOUR)))
    gone = await store.add_task(reminder_draft(once_at(T0 + HOUR)))
    cancel = TaskChange(status=TaskStatus.CANCELLED, next_run=None)
    await store.update_task(
        gone.id, "alice", cancel, allowed_from=set(TaskStatus), action="x", now=T0
    )

    assert await store.active_task_ids("alice") == [kept.id]
    assert [t.id for t in await store.list_tasks("alice")] == [kept.id]
    everything = await store.list_tasks("alice", include_finished=True)
    assert {t.id for t in everything} == {kept.id, gone.id}


async def test_done_tasks_are_among_the_active_ids_only_since_when_asked(
    store: TaskStore,
) -> None:
    live = await store.add_task(reminder_draft(once_at(T0 + HOUR)))
    rang = await store.add_task(reminder_draft(once_at(T0)))
    theirs = await store.add_task(reminder_draft(once_at(T0), owner="bob"))
    claims = await store.claim_due(T0, limit=10, lease=LEASE)
    outcomes = [RunOutcome(c.run.id, c.task.id, RunStatus.SUCCEEDED, T0, T0) for c in claims]
    await store.finish_runs(outcomes, max_failures=5)

    assert await store.active_task_ids("alice") == [live.id]
    assert await store.active_task_ids("alice", done_since=T0) == sorted([live.id, rang.id])
    assert await store.active_task_ids("alice", done_since=T0 + MINUTE) == [live.id]
    assert await store.active_task_ids("bob", done_since=T0) == [theirs.id]


async def test_claim_marks_one_time_task_running_with_a_lease(store: TaskStore) -> None:
    task = await store.add_task(reminder_draft(once_at(T0 + MINUTE)))

    assert await store.claim_due(T0, limit=10, lease=LEASE) == []
    claims = await store.claim_due(T0 + MINUTE, limit=10, lease=LEASE)

    assert len(claims) == 1
    claim = claims[0]
    assert claim.task.status is TaskStatus.RUNNING and claim.task.next_run is None
    assert claim.run.status is RunStatus.CLAIMED
    assert claim.run.scheduled_for == T0 + MINUTE
    assert claim.run.lease_until == T0 + MINUTE + LEASE
    assert claim.run.misfire is MisfireAction.ON_TIME and claim.run.late_by is None
    assert (await store.get_task(task.id)) == claim.task
    assert await store.claim_due(T0 + HOUR, limit=10, lease=LEASE) == []


async def test_claim_advances_a_recurring_task(store: TaskStore) -> None:
    task = await store.add_task(reminder_draft(every(timedelta(minutes=15))))

    claims = await store.claim_due(T0 + timedelta(seconds=1), limit=10, lease=LEASE)

    assert [c.run.scheduled_for for c in claims] == [T0]
    stored = await store.get_task(task.id)
    assert stored is not None and stored.status is TaskStatus.ACTIVE
    assert stored.next_run == T0 + timedelta(minutes=15)


async def test_claim_respects_limit_and_order(store: TaskStore) -> None:
    await store.add_tasks(
        [reminder_draft(once_at(T0 + timedelta(seconds=s))) for s in (3, 1, 2, 30)]
    )

    first = await store.claim_due(T0 + timedelta(seconds=10), limit=2, lease=LEASE)
    rest = await store.claim_due(T0 + timedelta(seconds=10), limit=10, lease=LEASE)

    seconds = [(c.run.scheduled_for - T0).seconds for c in first + rest]
    assert seconds == [1, 2, 3]
    assert len({c.run.id for c in first + rest}) == 3


async def test_missed_one_time_reminder_runs_late(store: TaskStore) -> None:
    await store.add_task(reminder_draft(once_at(T0 + MINUTE)))

    (claim,) = await store.claim_due(T0 + 2 * HOUR, limit=10, lease=LEASE)

    assert claim.run.misfire is MisfireAction.LATE
    assert claim.run.late_by == 2 * HOUR - MINUTE


async def test_missed_recurring_runs_coalesce_into_one(store: TaskStore) -> None:
    task = await store.add_task(reminder_draft(every(HOUR)))

    claims = await store.claim_due(T0 + 5 * HOUR + 10 * MINUTE, limit=10, lease=LEASE)

    assert len(claims) == 1
    run = claims[0].run
    assert run.misfire is MisfireAction.COALESCED
    assert run.scheduled_for == T0 + 5 * HOUR
    assert run.missed == 5
    assert run.late_by == 10 * MINUTE
    assert claims[0].task.next_run == T0 + 6 * HOUR
    assert [r.id for r in await store.history(task.id, "alice")] == [run.id]


async def test_skip_policy_records_skipped_runs_in_the_ledger(store: TaskStore) -> None:
    skip = MisfireRule(MisfirePolicy.SKIP, grace=MINUTE)
    task = await store.add_task(reminder_draft(every(HOUR), misfire=skip))

    claims = await store.claim_due(T0 + 3 * HOUR + 30 * MINUTE, limit=10, lease=LEASE)

    assert claims == []
    (row,) = await store.history(task.id, "alice")
    assert row.status is RunStatus.SKIPPED and row.misfire is MisfireAction.SKIPPED
    assert row.scheduled_for == T0 and row.missed == 3
    stored = await store.get_task(task.id)
    assert stored is not None and stored.next_run == T0 + 4 * HOUR


async def test_skip_policy_still_runs_the_latest_within_grace(store: TaskStore) -> None:
    skip = MisfireRule(MisfirePolicy.SKIP, grace=5 * MINUTE)
    task = await store.add_task(reminder_draft(every(HOUR), misfire=skip))

    (claim,) = await store.claim_due(T0 + 2 * HOUR + MINUTE, limit=10, lease=LEASE)

    assert claim.run.scheduled_for == T0 + 2 * HOUR
    assert claim.run.misfire is MisfireAction.ON_TIME
    skipped, run = sorted(await store.history(task.id, "alice"), key=lambda r: r.id)
    assert skipped.status is RunStatus.SKIPPED and skipped.missed == 1
    assert run.id == claim.run.id


async def test_skip_policy_drops_a_missed_one_time_task(store: TaskStore) -> None:
    skip = MisfireRule(MisfirePolicy.SKIP, grace=MINUTE)
    task = await store.add_task(reminder_draft(once_at(T0 + MINUTE), misfire=skip))

    assert await store.claim_due(T0 + HOUR, limit=10, lease=LEASE) == []

    stored = await store.get_task(task.id)
    assert stored is not None and stored.status is TaskStatus.DONE
    assert [r.status for r in await store.history(task.id, "alice")] == [RunStatus.SKIPPED]


async def test_run_late_policy_catches_up_each_missed_run(store: TaskStore) -> None:
    late = MisfireRule(MisfirePolicy.RUN_LATE, grace=MINUTE)
    await store.add_task(reminder_draft(every(HOUR), misfire=late))
    now = T0 + 2 * HOUR + 30 * MINUTE

    fired = []
    while claims := await store.claim_due(now, limit=10, lease=LEASE):
        fired += [c.run.scheduled_for for c in claims]

    assert fired == [T0, T0 + HOUR, T0 + 2 * HOUR]


async def test_finishing_runs_counts_failures_and_disables(store: TaskStore) -> None:
    task = await store.add_task(reminder_draft(every(MINUTE)))
    now = T0
    disabled = []
    for _ in range(3):
        now += MINUTE
        (claim,) = await store.claim_due(now, limit=10, lease=LEASE)
        fail = RunOutcome(claim.run.id, task.id, RunStatus.FAILED, now, now, error="boom")
        (finished,) = await store.finish_runs([fail], max_failures=3)
        disabled.append(finished.disabled)

    assert disabled == [False, False, True]
    stored = await store.get_task(task.id)
    assert stored is not None and stored.status is TaskStatus.DISABLED
    assert stored.consecutive_failures == 3 and stored.run_count == 3
    assert stored.status_reason == "failed 3 times in a row; last error: boom"
    assert await store.claim_due(now + HOUR, limit=10, lease=LEASE) == []
    (newest, *_) = await store.history(task.id, "alice")
    assert newest.status is RunStatus.FAILED and newest.error == "boom"
    assert newest.lease_until is None and newest.finished_at == now


async def test_outcomes_of_one_batch_apply_in_order(store: TaskStore) -> None:
    task = await store.add_task(reminder_draft(every(MINUTE)))
    claims = await store.claim_due(T0, limit=10, lease=LEASE)
    claims += await store.claim_due(T0 + MINUTE, limit=10, lease=LEASE)
    assert [c.run.scheduled_for for c in claims] == [T0, T0 + MINUTE]
    fails = [
        RunOutcome(c.run.id, task.id, RunStatus.FAILED, T0, T0 + MINUTE, error=f"boom {n}")
        for n, c in enumerate(claims)
    ]

    first, second = await store.finish_runs(fails, max_failures=2)

    assert (first.task_status, first.consecutive_failures, first.disabled) == (
        TaskStatus.ACTIVE, 1, False,
    )  # fmt: skip
    assert (second.task_status, second.consecutive_failures, second.disabled) == (
        TaskStatus.DISABLED, 2, True,
    )  # fmt: skip
    stored = await store.get_task(task.id)
    assert stored is not None and stored.run_count == 2 and stored.last_run == T0 + MINUTE
    assert stored.status_reason == "failed 2 times in a row; last error: boom 1"


async def test_success_resets_failures_and_finishes_one_time_task(store: TaskStore) -> None:
    task = await store.add_task(reminder_draft(once_at(T0)))
    (claim,) = await store.claim_due(T0, limit=10, lease=LEASE)
    ok = RunOutcome(claim.run.id, task.id, RunStatus.SUCCEEDED, T0, T0, result="sent")

    (finished,) = await store.finish_runs([ok], max_failures=5)

    assert finished.task_status is TaskStatus.DONE and finished.consecutive_failures == 0
    stored = await store.get_task(task.id)
    assert stored is not None and stored.last_run == T0 and stored.run_count == 1
    assert (await store.history(task.id, "alice"))[0].result == "sent"


async def test_a_failed_one_time_run_with_a_retry_time_becomes_active_again(
    store: TaskStore,
) -> None:
    task = await store.add_task(reminder_draft(once_at(T0)))
    retry_at = T0 + 2 * MINUTE
    for failures in (1, 2):
        (claim,) = await store.claim_due(retry_at, limit=10, lease=LEASE)
        fail = RunOutcome(
            claim.run.id, task.id, RunStatus.FAILED, T0, T0, error="offline", retry_at=retry_at
        )
        (finished,) = await store.finish_runs([fail], max_failures=2)
        assert finished.consecutive_failures == failures

    assert finished.disabled and finished.task_status is TaskStatus.DISABLED
    stored = await store.get_task(task.id)
    assert stored is not None and stored.status is TaskStatus.DISABLED
    assert await store.claim_due(T0 + HOUR, limit=10, lease=LEASE) == []


async def test_a_retry_time_puts_back_only_a_running_one_time_task(store: TaskStore) -> None:
    once = await store.add_task(reminder_draft(once_at(T0)))
    (claim,) = await store.claim_due(T0, limit=10, lease=LEASE)
    retry_at = T0 + MINUTE
    fail = RunOutcome(claim.run.id, once.id, RunStatus.FAILED, T0, T0, retry_at=retry_at)

    (finished,) = await store.finish_runs([fail], max_failures=5)

    assert finished.task_status is TaskStatus.ACTIVE and not finished.disabled
    stored = await store.get_task(once.id)
    assert stored is not None and stored.next_run == retry_at and stored.run_count == 1
    assert await store.next_wakeup() == retry_at
    (again,) = await store.claim_due(retry_at, limit=10, lease=LEASE)
    assert again.task.id == once.id and again.run.scheduled_for == retry_at
    cancel = TaskChange(status=TaskStatus.CANCELLED, next_run=None)
    await store.update_task(
        once.id, "alice", cancel, allowed_from=set(TaskStatus), action="x", now=T0
    )
    late = RunOutcome(again.run.id, once.id, RunStatus.FAILED, T0, T0, retry_at=T0 + HOUR)
    (finished,) = await store.finish_runs([late], max_failures=5)
    assert finished.task_status is TaskStatus.CANCELLED
    assert await store.next_wakeup() is None


async def test_overdue_counts_enabled_tasks_due_before_an_instant(store: TaskStore) -> None:
    due = await store.add_task(reminder_draft(once_at(T0)))
    await store.add_task(reminder_draft(once_at(T0 + HOUR), owner="bob"))
    paused = await store.add_task(reminder_draft(every(MINUTE)))
    pause = TaskChange(status=TaskStatus.PAUSED)
    await store.update_task(
        paused.id, "alice", pause, allowed_from=set(TaskStatus), action="x", now=T0
    )

    assert await store.count_overdue(T0) == 0  # due at T0 is not before T0
    assert await store.count_overdue(T0 + MINUTE) == 1
    assert await store.count_overdue(T0 + 2 * HOUR) == 2
    await store.claim_due(T0 + 2 * HOUR, limit=10, lease=LEASE)  # claimed runs are not overdue
    assert await store.count_overdue(T0 + 2 * HOUR) == 0
    assert (await store.get_task(due.id)) is not None


async def test_finish_does_not_revive_a_task_cancelled_during_its_run(store: TaskStore) -> None:
    task = await store.add_task(reminder_draft(every(HOUR)))
    (claim,) = await store.claim_due(T0, limit=10, lease=LEASE)
    cancel = TaskChange(status=TaskStatus.CANCELLED, next_run=None)
    await store.update_task(
        task.id, "alice", cancel, allowed_from=set(TaskStatus), action="x", now=T0
    )

    fail = RunOutcome(claim.run.id, task.id, RunStatus.FAILED, T0, T0, error="boom")
    (finished,) = await store.finish_runs([fail], max_failures=1)

    assert finished.task_status is TaskStatus.CANCELLED and not finished.disabled
    assert await store.claim_due(T0 + 9 * HOUR, limit=10, lease=LEASE) == []


async def test_expired_lease_is_retried_once_then_failed(store: TaskStore) -> None:
    task = await store.add_task(reminder_draft(once_at(T0)))
    (claim,) = await store.claim_due(T0, limit=10, lease=LEASE)

    assert await store.reclaim_expired(T0 + MINUTE, limit=10, lease=LEASE) == ([], [])
    assert await store.next_wakeup() == T0 + LEASE
    retries, given_up = await store.reclaim_expired(T0 + LEASE, limit=10, lease=LEASE)

    assert given_up == []
    (retry,) = retries
    assert retry.run.attempt == 2 and retry.run.misfire is MisfireAction.RETRY
    assert retry.run.scheduled_for == claim.run.scheduled_for
    retries, given_up = await store.reclaim_expired(T0 + 2 * LEASE, limit=10, lease=LEASE)

    assert retries == []
    (gave_up,) = given_up
    assert gave_up.run.status is RunStatus.FAILED and gave_up.run.attempt == 2
    assert gave_up.task.status is TaskStatus.DONE and gave_up.task.consecutive_failures == 1
    statuses = [r.status for r in await store.history(task.id, "alice")]
    assert statuses == [RunStatus.FAILED, RunStatus.ABANDONED]
    assert await store.next_wakeup() is None


async def test_orphaned_runs_are_reclaimed_before_their_lease_runs_out(
    store: TaskStore,
) -> None:
    task = await store.add_task(reminder_draft(once_at(T0)))
    (claim,) = await store.claim_due(T0, limit=10, lease=LEASE)

    assert await store.reclaim_expired(T0 + MINUTE, limit=10, lease=LEASE) == ([], [])
    retries, given_up = await store.reclaim_expired(
        T0 + MINUTE, limit=10, lease=LEASE, orphaned=True
    )

    assert given_up == []
    (retry,) = retries
    assert retry.run.attempt == 2 and retry.run.misfire is MisfireAction.RETRY
    assert retry.run.lease_until == T0 + MINUTE + LEASE
    statuses = {r.id: r.status for r in await store.history(task.id, "alice")}
    assert statuses == {claim.run.id: RunStatus.ABANDONED, retry.run.id: RunStatus.CLAIMED}


async def test_orphaned_runs_keep_the_rule_for_requests_not_safe_to_repeat(
    store: TaskStore,
) -> None:
    post = await store.add_task(api_call_draft(once_at(T0), method="POST"))
    get = await store.add_task(api_call_draft(once_at(T0), method="GET"))
    for claim in await store.claim_due(T0, limit=10, lease=LEASE):
        assert await store.mark_started(claim.run.id, T0)  # what a manager does first

    retries, given_up = await store.reclaim_expired(
        T0 + MINUTE, limit=10, lease=LEASE, orphaned=True
    )

    (retry,) = retries
    assert retry.task.id == get.id and retry.run.attempt == 2
    (lost,) = given_up
    assert lost.task.id == post.id and lost.run.status is RunStatus.OUTCOME_UNKNOWN
    assert lost.run.error == OUTCOME_UNKNOWN_ERROR


async def test_retry_after_a_lost_lease_is_marked_late_beyond_the_grace(
    store: TaskStore,
) -> None:
    late = await store.add_task(reminder_draft(once_at(T0)))  # grace 1 min
    patient = MisfireRule(MisfirePolicy.COALESCE, grace=10 * MINUTE)
    within = await store.add_task(reminder_draft(once_at(T0), misfire=patient))
    lease = 3 * MINUTE
    first = await store.claim_due(T0, limit=10, lease=lease)
    assert [c.run.late_by for c in first] == [None, None]

    now = T0 + lease + timedelta(seconds=1)
    retries, _ = await store.reclaim_expired(now, limit=10, lease=lease)

    by_task = {c.task.id: c.run for c in retries}
    assert by_task[late.id].misfire is MisfireAction.RETRY
    assert by_task[late.id].late_by == lease + timedelta(seconds=1)
    assert by_task[within.id].late_by is None
    stored = {r.id: r for r in await store.history(late.id, "alice")}
    assert stored[by_task[late.id].id].late_by == lease + timedelta(seconds=1)


async def test_a_lost_run_of_a_skip_policy_task_is_not_retried_beyond_the_grace(
    store: TaskStore,
) -> None:
    skip = MisfireRule(MisfirePolicy.SKIP, grace=10 * MINUTE)  # like api_call's default
    once = await store.add_task(reminder_draft(once_at(T0), misfire=skip))
    daily = await store.add_task(reminder_draft(every(24 * HOUR), misfire=skip))
    assert len(await store.claim_due(T0, limit=10, lease=LEASE)) == 2

    # The process died just after claiming; it comes back at 9 am.
    assert await store.reclaim_expired(T0 + 8 * HOUR, limit=10, lease=LEASE) == ([], [])

    for task_id in (once.id, daily.id):
        skipped, abandoned = await store.history(task_id, "alice")
        assert skipped.status is RunStatus.SKIPPED and skipped.misfire is MisfireAction.SKIPPED
        assert skipped.attempt == 2 and skipped.scheduled_for == T0
        assert skipped.late_by == 8 * HOUR and skipped.finished_at == T0 + 8 * HOUR
        assert skipped.lease_until is None and abandoned.status is RunStatus.ABANDONED
    done = await store.get_task(once.id)
    assert done is not None and done.status is TaskStatus.DONE and done.next_run is None
    kept = await store.get_task(daily.id)
    assert kept is not None and kept.status is TaskStatus.ACTIVE
    assert kept.next_run == T0 + 24 * HOUR and kept.consecutive_failures == 0
    assert await store.next_wakeup() == T0 + 24 * HOUR


async def test_count_due_counts_enabled_tasks_due_by_a_time_up_to_a_limit(
    store: TaskStore,
) -> None:
    minutes = (1, 2, 2, 3)
    await store.add_tasks([reminder_draft(once_at(T0 + m * MINUTE)) for m in minutes])
    paused = await store.add_task(reminder_draft(once_at(T0 + MINUTE)))
    pause = TaskChange(status=TaskStatus.PAUSED)
    await store.update_task(
        paused.id, "alice", pause, allowed_from={TaskStatus.ACTIVE}, action="pause", now=T0
    )

    assert await store.count_due(T0, limit=10) == 0
    assert await store.count_due(T0 + 2 * MINUTE, limit=10) == 3
    assert await store.count_due(T0 + HOUR, limit=10) == 4
    assert await store.count_due(T0 + HOUR, limit=2) == 2
    await store.claim_due(T0 + MINUTE, limit=10, lease=LEASE)
    assert await store.count_due(T0 + 2 * MINUTE, limit=10) == 2


async def test_a_lost_run_of_a_skip_policy_task_is_retried_within_the_grace(
    store: TaskStore,
) -> None:
    skip = MisfireRule(MisfirePolicy.SKIP, grace=10 * MINUTE)
    task = await store.add_task(reminder_draft(once_at(T0), misfire=skip))
    await store.claim_due(T0, limit=10, lease=LEASE)

    (retry,), given_up = await store.reclaim_expired(T0 + LEASE, limit=10, lease=LEASE)

    assert given_up == [] and retry.task.id == task.id and retry.run.attempt == 2
    assert retry.run.misfire is MisfireAction.RETRY and retry.run.late_by is None


@pytest.mark.parametrize("method", ["POST", "PATCH"])
@pytest.mark.parametrize("down_for", [LEASE, 8 * HOUR], ids=["within grace", "beyond grace"])
async def test_a_lost_run_that_may_have_sent_a_post_is_never_repeated(
    store: TaskStore, method: str, down_for: timedelta
) -> None:
    # The rule every store keeps: a non-idempotent request whose process died after it may
    # have been sent is recorded as of unknown outcome, never claimed again, and handed back
    # as given up so that the owner is asked; whatever the misfire policy says.
    once = await store.add_task(api_call_draft(once_at(T0), method=method))
    daily = await store.add_task(api_call_draft(every(24 * HOUR), method=method))
    claimed = await store.claim_due(T0, limit=10, lease=LEASE)
    assert {c.task.id for c in claimed} == {once.id, daily.id}
    for claim in claimed:
        assert await store.mark_started(claim.run.id, T0)  # its request may go out now

    retries, given_up = await store.reclaim_expired(T0 + down_for, limit=10, lease=LEASE)

    assert retries == []
    assert {g.task.id for g in given_up} == {once.id, daily.id}
    for lost in given_up:
        assert lost.run.status is RunStatus.OUTCOME_UNKNOWN and lost.run.attempt == 1
        assert lost.run.error == OUTCOME_UNKNOWN_ERROR and lost.run.lease_until is None
        (row,) = await store.history(lost.task.id, "alice")  # no ABANDONED row, no attempt 2
        assert row == lost.run and row.finished_at == T0 + down_for
        assert row.started_at == T0 + down_for  # the outcome's, as it ends
    done = await store.get_task(once.id)
    assert done is not None and done.status is TaskStatus.DONE and done.next_run is None
    kept = await store.get_task(daily.id)
    assert kept is not None and kept.status is TaskStatus.ACTIVE
    assert kept.next_run == T0 + 24 * HOUR and kept.consecutive_failures == 1
    assert await store.next_wakeup() == T0 + 24 * HOUR
    assert await store.reclaim_expired(T0 + 9 * HOUR, limit=10, lease=LEASE) == ([], [])


async def test_a_run_again_of_a_post_is_not_repeated_either(store: TaskStore) -> None:
    task = await store.add_task(api_call_draft(once_at(T0 + HOUR)))
    again = await store.claim_now(task.id, "alice", T0, lease=LEASE)
    assert again.run.misfire is MisfireAction.MANUAL
    assert await store.mark_started(again.run.id, T0)

    retries, (lost,) = await store.reclaim_expired(T0 + LEASE, limit=10, lease=LEASE)

    assert retries == [] and lost.run.id == again.run.id
    assert lost.run.status is RunStatus.OUTCOME_UNKNOWN
    assert (lost.task.status, lost.task.next_run) == (TaskStatus.ACTIVE, T0 + HOUR)


@pytest.mark.parametrize("method", ["GET", "PUT", "DELETE"])
async def test_a_lost_idempotent_request_is_retried_like_any_run(
    store: TaskStore, method: str
) -> None:
    task = await store.add_task(api_call_draft(once_at(T0), method=method))
    await store.claim_due(T0, limit=10, lease=LEASE)

    (retry,), given_up = await store.reclaim_expired(T0 + LEASE, limit=10, lease=LEASE)

    assert given_up == [] and retry.task.id == task.id and retry.run.attempt == 2
    statuses = [r.status for r in await store.history(task.id, "alice")]
    assert statuses == [RunStatus.CLAIMED, RunStatus.ABANDONED]


async def test_renewed_leases_outlive_their_first_expiry(store: TaskStore) -> None:
    short = timedelta(seconds=30)
    await store.add_tasks([reminder_draft(once_at(T0)) for _ in range(3)])
    claims = await store.claim_due(T0, limit=10, lease=short)
    held = {c.run.id for c in claims}
    assert await store.renew_leases([], T0, lease=short) == set()

    for beat in range(1, 7):  # three minutes of heartbeats every 10 s
        now = T0 + beat * timedelta(seconds=10)
        assert await store.renew_leases(held, now, lease=short) == held
        assert await store.reclaim_expired(now + short / 2, limit=10, lease=short) == ([], [])
    assert await store.next_wakeup() == T0 + timedelta(seconds=60) + short

    assert await store.renew_leases(held, T0, lease=short) == held  # never shortened
    assert await store.next_wakeup() == T0 + timedelta(seconds=60) + short
    retries, _ = await store.reclaim_expired(T0 + 2 * short + MINUTE, limit=10, lease=short)
    assert {r.run.attempt for r in retries} == {2} and len(retries) == 3


async def test_renewal_never_extends_a_run_that_was_finished_or_taken_over(
    store: TaskStore,
) -> None:
    short = timedelta(seconds=30)
    await store.add_tasks([reminder_draft(once_at(T0)) for _ in range(2)])
    finished, lost = await store.claim_due(T0, limit=10, lease=short)
    done = RunOutcome(finished.run.id, finished.task.id, RunStatus.SUCCEEDED, T0, T0)
    await store.finish_runs([done], max_failures=5)
    # The holder of ``lost`` stopped beating: another manager retries it.
    (retry,), _ = await store.reclaim_expired(T0 + short, limit=10, lease=short)

    renewed = await store.renew_leases(
        [finished.run.id, lost.run.id, 999_999], T0 + short, lease=HOUR
    )

    assert renewed == set()
    assert await store.next_wakeup() == T0 + 2 * short  # the retry's own lease, untouched
    assert await store.renew_leases([retry.run.id], T0 + short, lease=short) == {retry.run.id}
    statuses = {r.id: r.status for r in await store.history(lost.task.id, "alice")}
    assert statuses == {lost.run.id: RunStatus.ABANDONED, retry.run.id: RunStatus.CLAIMED}


async def test_expired_lease_of_a_cancelled_task_is_not_retried(store: TaskStore) -> None:
    task = await store.add_task(reminder_draft(every(HOUR)))
    await store.claim_due(T0, limit=10, lease=LEASE)
    cancel = TaskChange(status=TaskStatus.CANCELLED, next_run=None)
    await store.update_task(
        task.id, "alice", cancel, allowed_from=set(TaskStatus), action="x", now=T0
    )

    retries, given_up = await store.reclaim_expired(T0 + LEASE, limit=10, lease=LEASE)

    assert retries == [] and [g.task.id for g in given_up] == [task.id]


async def test_claim_now_is_an_extra_run_that_keeps_the_tasks_schedule(store: TaskStore) -> None:
    once = await store.add_task(reminder_draft(once_at(T0 + HOUR)))
    recurring = await store.add_task(reminder_draft(every(HOUR, anchor=T0 + HOUR)))

    now_once = await store.claim_now(once.id, "alice", T0, lease=LEASE)
    now_recurring = await store.claim_now(recurring.id, "alice", T0, lease=LEASE)

    assert now_once.task.status is TaskStatus.ACTIVE and now_once.task.next_run == T0 + HOUR
    assert now_once.run.misfire is MisfireAction.MANUAL and now_once.run.scheduled_for == T0
    assert now_recurring.task.next_run == T0 + HOUR
    with pytest.raises(TaskNotFoundError):
        await store.claim_now(recurring.id, "bob", T0, lease=LEASE)
    due = await store.claim_due(T0 + HOUR, limit=10, lease=LEASE)
    assert sorted((c.task.id, c.run.scheduled_for) for c in due) == sorted(
        [(once.id, T0 + HOUR), (recurring.id, T0 + HOUR)]
    )
    with pytest.raises(TaskStateError, match="running right now"):
        await store.claim_now(once.id, "alice", T0 + HOUR, lease=LEASE)


async def test_an_extra_run_finishing_leaves_the_scheduled_run_to_finish_its_task(
    store: TaskStore,
) -> None:
    task = await store.add_task(reminder_draft(once_at(T0 + HOUR)))
    extra = await store.claim_now(task.id, "alice", T0 + HOUR - MINUTE, lease=LEASE)
    (scheduled,) = await store.claim_due(T0 + HOUR, limit=10, lease=LEASE)
    extra_ends = RunOutcome(
        extra.run.id, task.id, RunStatus.UNDELIVERED, T0 + HOUR, T0 + HOUR,
        retry_at=T0 + 2 * HOUR, extra=True,
    )  # fmt: skip

    (first,) = await store.finish_runs([extra_ends], max_failures=5)

    assert first.task_status is TaskStatus.RUNNING  # the scheduled run is still out
    ok = RunOutcome(scheduled.run.id, task.id, RunStatus.SUCCEEDED, T0 + HOUR, T0 + HOUR)
    (second,) = await store.finish_runs([ok], max_failures=5)
    assert second.task_status is TaskStatus.DONE
    assert [r.status for r in await store.history(task.id, "alice")] == [
        RunStatus.SUCCEEDED,
        RunStatus.UNDELIVERED,
    ]


async def test_next_wakeup_is_the_earliest_enabled_run(store: TaskStore) -> None:
    assert await store.next_wakeup() is None
    late = await store.add_task(reminder_draft(once_at(T0 + 2 * HOUR)))
    early = await store.add_task(reminder_draft(once_at(T0 + HOUR)))
    assert await store.next_wakeup() == T0 + HOUR

    pause = TaskChange(status=TaskStatus.PAUSED)
    await store.update_task(
        early.id, "alice", pause, allowed_from=set(TaskStatus), action="x", now=T0
    )

    assert await store.next_wakeup() == late.next_run


async def test_pause_owner_touches_only_that_owners_active_tasks(store: TaskStore) -> None:
    a1 = await store.add_task(reminder_draft(once_at(T0 + HOUR)))
    a2 = await store.add_task(reminder_draft(once_at(T0 + HOUR)))
    b1 = await store.add_task(reminder_draft(once_at(T0 + HOUR), owner="bob"))

    paused = await store.pause_owner("alice", "the chat blocked the bot")

    assert sorted(paused) == sorted([a1.id, a2.id])
    for task_id, status in ((a1.id, TaskStatus.PAUSED), (b1.id, TaskStatus.ACTIVE)):
        stored = await store.get_task(task_id)
        assert stored is not None and stored.status is status
    stored = await store.get_task(a2.id)
    assert stored is not None and stored.status_reason == "the chat blocked the bot"


async def test_history_is_owner_scoped_and_newest_first(store: TaskStore) -> None:
    task = await store.add_task(reminder_draft(every(HOUR)))
    for hours in range(3):
        await store.claim_due(T0 + hours * HOUR, limit=10, lease=LEASE)

    runs = await store.history(task.id, "alice")
    assert [r.scheduled_for for r in runs] == [T0 + 2 * HOUR, T0 + HOUR, T0]
    assert len(await store.history(task.id, "alice", limit=2)) == 2
    with pytest.raises(TaskNotFoundError, match="no task"):
        await store.history(task.id, "mallory")


async def test_change_can_clear_and_keep_fields(store: TaskStore) -> None:
    task = await store.add_task(reminder_draft(once_at(T0 + HOUR)))
    snoozed = await store.update_task(
        task.id,
        "alice",
        TaskChange(next_run=T0 + 2 * HOUR, status_reason=None, reset_failures=True),
        allowed_from={TaskStatus.ACTIVE},
        action="snooze",
        now=T0,
    )
    assert snoozed.next_run == T0 + 2 * HOUR and snoozed.status is TaskStatus.ACTIVE
    assert TaskChange().status is UNSET
    assert await store.next_wakeup() == T0 + 2 * HOUR


class IdSource:
    """Task ids from a list, over and over (to make ids collide)."""

    def __init__(self, ids: list[str]) -> None:
        self.ids: Iterator[str] = iter(ids)

    def __call__(self) -> str:
        return next(self.ids)


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def store_with_ids(
    request: pytest.FixtureRequest, tmp_path: Path
) -> Callable[[Callable[[], str]], TaskStore]:
    """Make a store of each kind that draws its task ids from the given source."""
    if request.param == "memory":
        return lambda source: MemoryTaskStore(new_id=source)
    if request.param == "postgres":
        url: str = request.getfixturevalue("postgres_url")
        return lambda source: PostgresTaskStore(url, new_id=source)
    return lambda source: SqliteTaskStore(tmp_path / "assistant.db", new_id=source)


async def test_bulk_add_redraws_only_the_ids_that_are_taken(
    store_with_ids: Callable[[Callable[[], str]], TaskStore],
) -> None:
    taken = [f"t{n:05d}" for n in range(20)]
    free = [f"f{n:05d}" for n in range(10)]
    source = IdSource(taken)
    opened = store_with_ids(source)
    async with opened as store:
        assert await store.add_tasks([reminder_draft(once_at(T0))] * 20) == taken
        # Two taken ids around each free one: no batch of fresh draws is ever all free.
        mixed = [i for pair in zip(taken[::2], taken[1::2], free, strict=True) for i in pair]
        source.ids = itertools.cycle(mixed)

        ids = await store.add_tasks([reminder_draft(once_at(T0))] * 10)
        assert sorted(ids) == free
        with pytest.raises(TaskError, match="free task id"):
            await store.add_task(reminder_draft(once_at(T0)))  # every id it draws is taken
        assert len(await store.list_tasks("alice")) == 30


async def test_two_stores_racing_claim_each_run_exactly_once(
    store_factory: StoreFactory,
) -> None:
    async with store_factory() as first, store_factory() as second:
        ids = await first.add_tasks(
            [reminder_draft(once_at(T0 + timedelta(seconds=s % 7))) for s in range(60)]
        )
        recurring = await second.add_task(reminder_draft(every(timedelta(seconds=2))))

        # Both stores go through the seconds together, as two schedulers on one clock do: a
        # store a tick ahead would find the recurring run late and skip it by its misfire rule.
        tick_done = asyncio.Barrier(2)

        async def drain(store: TaskStore) -> list[tuple[str, int]]:
            got = []
            for tick in range(12):
                now = T0 + timedelta(seconds=tick)
                while claims := await store.claim_due(now, limit=5, lease=LEASE):
                    got += [(c.task.id, (c.run.scheduled_for - T0).seconds) for c in claims]
                    await asyncio.sleep(0)
                await tick_done.wait()
            return got

        a, b = await asyncio.gather(drain(first), drain(second))

    fired = a + b
    assert len(fired) == len(set(fired))
    assert sorted(t for t, _ in fired if t != recurring.id) == sorted(ids)
    assert sorted(s for t, s in fired if t == recurring.id) == [0, 2, 4, 6, 8, 10]


async def test_limits_are_counted_with_the_insert_and_two_racers_cannot_both_pass(
    store_factory: StoreFactory,
) -> None:
    limits = TaskLimits(max_tasks=3, max_bytes=10_000)
    async with store_factory() as first, store_factory() as second:
        await first.add_task(reminder_draft(once_at(T0 + HOUR)), limits=limits)
        done = await first.add_task(reminder_draft(once_at(T0 + HOUR)), limits=limits)
        await first.update_task(
            done.id, "alice", TaskChange(status=TaskStatus.CANCELLED, next_run=None),
            allowed_from={TaskStatus.ACTIVE}, action="cancel", now=T0,
        )  # fmt: skip
        racers = [
            store.add_task(reminder_draft(once_at(T0 + HOUR)), limits=limits)
            for store in (first, second, first, second)
        ]
        outcomes = await asyncio.gather(*racers, return_exceptions=True)
        bob = await first.add_task(reminder_draft(once_at(T0 + HOUR), owner="bob"), limits=limits)
        live = await first.list_tasks("alice")

    refused = [o for o in outcomes if isinstance(o, TaskLimitError)]
    assert len(live) == 3 and len(refused) == 2  # a cancelled task leaves its place
    assert "ASSISTANT_MAX_TASKS_PER_USER=3" in str(refused[0])
    assert bob.owner_id == "bob"


async def test_the_bytes_of_an_owners_tasks_are_limited(store: TaskStore) -> None:
    limits = TaskLimits(max_tasks=100, max_bytes=300)
    await store.add_task(reminder_draft(once_at(T0 + HOUR), message="a" * 100), limits=limits)
    with pytest.raises(TaskLimitError, match=r"ASSISTANT_MAX_TASK_BYTES_PER_USER") as refused:
        await store.add_task(reminder_draft(once_at(T0 + HOUR), message="é" * 60), limits=limits)
    assert "of the 300 bytes" in str(refused.value)
    await store.add_task(reminder_draft(once_at(T0 + HOUR), message="b"), limits=limits)


async def test_listings_and_ledgers_come_a_page_at_a_time_in_one_order(store: TaskStore) -> None:
    minutes = [5, 1, 4, 2, 3, 6, 7]
    await store.add_tasks([reminder_draft(once_at(T0 + m * MINUTE)) for m in minutes])
    everything = await store.list_tasks("alice")
    pages = [await store.list_tasks("alice", limit=3, offset=o) for o in (0, 3, 6, 9)]
    assert [t.id for t in everything] == [t.id for t in sorted(everything, key=_next_run)]
    assert [t.id for page in pages for t in page] == [t.id for t in everything]
    assert [len(p) for p in pages] == [3, 3, 1, 0]

    task = await store.add_task(reminder_draft(every(MINUTE)))
    for _ in range(5):
        await store.claim_now(task.id, "alice", T0, lease=LEASE)
    newest = await store.history(task.id, "alice", limit=10)
    paged = [await store.history(task.id, "alice", limit=2, offset=o) for o in (0, 2, 4)]
    assert [r.id for page in paged for r in page] == [r.id for r in newest]


def _next_run(task: Task) -> datetime:
    assert task.next_run is not None
    return task.next_run


async def _run_minutes(store: TaskStore, task_id: str, minutes: int) -> list[int]:
    """Claim and finish the every-minute task's runs at T0, T0 + 1 min, ...; their ids."""
    ids = []
    for minute in range(minutes):
        now = T0 + minute * MINUTE
        failed = minute % 10 == 3
        status = RunStatus.FAILED if failed else RunStatus.SUCCEEDED
        error = f"no answer at minute {minute}" if failed else None
        for claim in await store.claim_due(now, limit=10, lease=LEASE):
            outcome = RunOutcome(
                claim.run.id, claim.task.id, status, now, now, result="sent", error=error
            )
            await store.finish_runs([outcome], max_failures=1000)
            if claim.task.id == task_id:
                ids.append(claim.run.id)
    return ids


async def test_old_ledger_rows_fold_into_a_summary_a_bounded_round_at_a_time(
    store: TaskStore,
) -> None:
    task = await store.add_task(reminder_draft(every(MINUTE)))
    other = await store.add_task(reminder_draft(every(HOUR), owner="bob"))
    ids = await _run_minutes(store, task.id, 30)
    before = T0 + 25 * MINUTE  # rows claimed before this may go, the newest 10 stay
    first = await store.compact_ledger(before=before, keep=10, max_rows=8, max_tasks=100)
    assert first.folded == 8 and not first.complete
    rounds = [first]
    while not rounds[-1].complete:
        rounds.append(
            await store.compact_ledger(
                before=before, keep=10, max_rows=8, max_tasks=100,
                after_task=rounds[-1].next_task,
            )
        )  # fmt: skip
    again = await store.compact_ledger(before=before, keep=10, max_rows=8, max_tasks=100)
    kept = await store.history(task.id, "alice", limit=100)
    summary = await store.ledger_summary(task.id, "alice")

    assert sum(r.folded for r in rounds) == 20 and again.folded == 0
    assert [r.id for r in kept] == list(reversed(ids[20:]))  # the newest ten, untouched
    assert summary is not None and summary.runs == 20 and summary.last_run_id == ids[19]
    assert summary.counts == {RunStatus.SUCCEEDED: 18, RunStatus.FAILED: 2}
    assert summary.first_scheduled == T0 and summary.last_scheduled == T0 + 19 * MINUTE
    assert summary.last_status is RunStatus.SUCCEEDED  # minute 19's
    assert summary.last_failure == "no answer at minute 13"
    assert summary.last_failure_at == T0 + 13 * MINUTE
    assert await store.ledger_summary(other.id, "bob") is None
    with pytest.raises(TaskNotFoundError):
        await store.ledger_summary(task.id, "bob")


async def test_rows_that_may_not_be_folded_never_hold_the_compaction_up(
    store: TaskStore,
) -> None:
    """Two old runs of unknown outcome, and one row per round: the rounds still end, and the
    other task's old rows are folded."""
    posted = await store.add_task(api_call_draft(every(MINUTE)))
    short = timedelta(seconds=10)
    for minute in (0, 1):  # two runs in a row whose leases ran out mid-request
        (claim,) = await store.claim_due(T0 + minute * MINUTE, limit=10, lease=short)
        await store.mark_started(claim.run.id, T0 + minute * MINUTE)
        await store.reclaim_expired(T0 + minute * MINUTE + 3 * short, limit=10, lease=short)
    unknown = [r.id for r in await store.history(posted.id, "alice", limit=10)]
    assert [r.status for r in await store.history(posted.id, "alice")] == 2 * [
        RunStatus.OUTCOME_UNKNOWN
    ]
    task = await store.add_task(reminder_draft(every(MINUTE)))
    ids = await _run_minutes(store, task.id, 3)
    rounds, done = (
        0,
        await store.compact_ledger(before=T0 + 10 * HOUR, keep=0, max_rows=1, max_tasks=100),
    )
    while not done.complete:
        rounds += 1
        assert rounds < 20, "the compaction keeps coming back to the same rows"
        done = await store.compact_ledger(
            before=T0 + 10 * HOUR, keep=0, max_rows=1, max_tasks=100, after_task=done.next_task
        )
    assert [r.id for r in await store.history(posted.id, "alice", limit=10)] == unknown
    folded = await store.ledger_summary(task.id, "alice")
    assert folded is not None and folded.runs == len(ids) == 3


async def test_rows_younger_than_the_age_unfinished_or_of_unknown_outcome_are_kept(
    store: TaskStore,
) -> None:
    task = await store.add_task(reminder_draft(every(MINUTE)))
    ids = await _run_minutes(store, task.id, 6)
    (claimed,) = await store.claim_due(T0 + 6 * MINUTE, limit=10, lease=LEASE)
    young = await store.compact_ledger(before=T0 + 2 * MINUTE, keep=0, max_rows=100, max_tasks=9)
    old = await store.compact_ledger(before=T0 + HOUR, keep=0, max_rows=100, max_tasks=9)
    kept = await store.history(task.id, "alice", limit=100)

    assert young.folded == 2 and old.folded == 4  # the claimed run is never folded
    assert [r.id for r in kept] == [claimed.run.id]
    posted = await store.add_task(api_call_draft(every(MINUTE)))
    (lost,) = await store.claim_due(T0, limit=10, lease=LEASE)
    await store.mark_started(lost.run.id, T0)
    await store.reclaim_expired(T0 + HOUR, limit=10, lease=LEASE)  # outcome_unknown
    await store.compact_ledger(before=T0 + 2 * HOUR, keep=0, max_rows=100, max_tasks=9)
    (unknown,) = await store.history(posted.id, "alice")
    assert unknown.id == lost.run.id and unknown.status is RunStatus.OUTCOME_UNKNOWN
    assert len(ids) == 6


async def test_two_stores_compacting_at_once_never_fold_a_row_twice(
    store_factory: StoreFactory,
) -> None:
    async with store_factory() as first, store_factory() as second:
        tasks = [await first.add_task(reminder_draft(every(MINUTE))) for _ in range(3)]
        for minute in range(12):
            now = T0 + minute * MINUTE
            claims = await first.claim_due(now, limit=10, lease=LEASE)
            outcomes = [
                RunOutcome(c.run.id, c.task.id, RunStatus.SUCCEEDED, now, now) for c in claims
            ]
            await first.finish_runs(outcomes, max_failures=10)

        async def compact(store: TaskStore) -> int:
            done = 0
            for _ in range(20):
                done += (
                    await store.compact_ledger(
                        before=T0 + HOUR,
                        keep=2,
                        max_rows=3,
                        max_tasks=1,
                        after_task="",
                    )
                ).folded
                await asyncio.sleep(0)
            return done

        folded = list(await asyncio.gather(compact(first), compact(second)))
        for _ in range(5):
            folded.append(
                (
                    await first.compact_ledger(before=T0 + HOUR, keep=2, max_rows=100, max_tasks=10)
                ).folded
            )
        summaries = [await first.ledger_summary(t.id, "alice") for t in tasks]
        left = [len(await first.history(t.id, "alice", limit=100)) for t in tasks]

    assert sum(folded) == 30 and left == [2, 2, 2]
    assert [s.runs if s else 0 for s in summaries] == [10, 10, 10]


async def _ran_once(store: TaskStore, task: Task, status: RunStatus, error: str | None) -> None:
    """Claim the one-time task at its time and finish its run with ``status``."""
    assert task.next_run is not None
    (claim,) = await store.claim_due(task.next_run, limit=1, lease=LEASE)
    assert claim.task.id == task.id
    ended = RunOutcome(claim.run.id, task.id, status, task.next_run, task.next_run, error=error)
    await store.finish_runs([ended], max_failures=5)


async def test_finished_tasks_past_the_age_go_into_their_owners_summary(store: TaskStore) -> None:
    done = await store.add_task(reminder_draft(once_at(T0), message="call mom"))
    await _ran_once(store, done, RunStatus.SUCCEEDED, None)
    failed = await store.add_task(reminder_draft(once_at(T0 + MINUTE), message="water plants"))
    await _ran_once(store, failed, RunStatus.FAILED, "the chat is gone")
    cancelled = await store.add_task(reminder_draft(once_at(T0 + 5 * HOUR), message="never"))
    cancel = TaskChange(status=TaskStatus.CANCELLED, next_run=None)
    await store.update_task(
        cancelled.id, "alice", cancel, allowed_from=set(TaskStatus), action="x", now=T0
    )
    recurring = await store.add_task(reminder_draft(every(HOUR, anchor=T0 + 3 * HOUR)))
    young = await store.add_task(reminder_draft(once_at(T0 + 2 * HOUR), message="young"))
    await _ran_once(store, young, RunStatus.SUCCEEDED, None)
    bobs = await store.add_task(reminder_draft(once_at(T0 + 2 * MINUTE), owner="bob"))
    await _ran_once(store, bobs, RunStatus.SUCCEEDED, None)
    before = T0 + HOUR  # done at T0, T0 + 1 and 2 min, cancelled (made at T0): old enough

    first = await store.remove_finished(before=before, max_tasks=2, max_rows=100)
    second = await store.remove_finished(before=before, max_tasks=2, max_rows=100)
    last = await store.remove_finished(before=before, max_tasks=2, max_rows=100)

    assert (first.tasks, first.complete) == (2, False)
    assert (second.tasks + last.tasks, last.complete) == (2, True)
    for gone in (done, failed, cancelled, bobs):
        assert await store.get_task(gone.id) is None
        with pytest.raises(TaskNotFoundError):
            await store.history(gone.id, gone.owner_id)
    assert await store.get_task(recurring.id) is not None
    assert await store.get_task(young.id) is not None
    alice = await store.owner_summary("alice")
    assert alice is not None and (alice.tasks, alice.runs) == (3, 2)
    assert alice.counts == {RunStatus.SUCCEEDED: 1, RunStatus.FAILED: 1}
    assert alice.last_status is RunStatus.FAILED and alice.last_scheduled == T0 + MINUTE
    assert alice.last_failure == "the chat is gone" and alice.last_failure_task == "water plants"
    assert alice.last_failure_at == T0 + MINUTE
    bob = await store.owner_summary("bob")
    assert bob is not None and (bob.tasks, bob.runs, bob.last_failure) == (1, 1, None)
    sizes = await store.sizes()
    assert (sizes.live_tasks, sizes.finished_tasks, sizes.ledger_rows) == (1, 1, 1)
    assert (sizes.owner_summaries, sizes.removed_tasks) == (2, 4)


async def test_a_finished_monitor_goes_with_its_observation(store: TaskStore) -> None:
    # Its observation's row refers to the task: PostgreSQL refused the removal (and every
    # later one, oldest first), SQLite left the row behind for `assistant migrate` to trip on.
    task = await store.add_task(reminder_draft(once_at(T0), message="watch the shop"))
    await store.save_observation(task.id, Observation("in stock", T0, T0, checks=1))
    cancel = TaskChange(status=TaskStatus.CANCELLED, next_run=None)
    await store.update_task(
        task.id, "alice", cancel, allowed_from=set(TaskStatus), action="x", now=T0
    )

    removal = await store.remove_finished(before=T0 + HOUR, max_tasks=10, max_rows=100)

    assert removal.tasks == 1 and await store.get_task(task.id) is None
    assert await store.observation(task.id) is None


async def test_a_finished_task_with_a_run_in_flight_stays_until_the_run_ends(
    store: TaskStore,
) -> None:
    task = await store.add_task(reminder_draft(once_at(T0)))
    (claim,) = await store.claim_due(T0, limit=1, lease=LEASE)
    cancel = TaskChange(status=TaskStatus.CANCELLED, next_run=None)
    await store.update_task(
        task.id, "alice", cancel, allowed_from=set(TaskStatus), action="x", now=T0
    )

    while_running = await store.remove_finished(before=T0 + HOUR, max_tasks=10, max_rows=100)
    ended = RunOutcome(claim.run.id, task.id, RunStatus.SUCCEEDED, T0, T0)
    await store.finish_runs([ended], max_failures=5)
    after = await store.remove_finished(before=T0 + HOUR, max_tasks=10, max_rows=100)

    assert (while_running.tasks, while_running.complete) == (0, True)
    assert after.tasks == 1 and await store.get_task(task.id) is None


async def test_two_stores_removing_at_once_never_remove_a_task_twice(
    store_factory: StoreFactory,
) -> None:
    async with store_factory() as first, store_factory() as second:
        for minute in range(12):
            task = await first.add_task(reminder_draft(once_at(T0 + minute * MINUTE)))
            await _ran_once(first, task, RunStatus.SUCCEEDED, None)

        async def remove(store: TaskStore) -> int:
            removed = 0
            for _ in range(10):
                removal = await store.remove_finished(before=T0 + HOUR, max_tasks=2, max_rows=9)
                removed += removal.tasks
                await asyncio.sleep(0)
            return removed

        removed = list(await asyncio.gather(remove(first), remove(second)))
        while (
            rest := await first.remove_finished(before=T0 + HOUR, max_tasks=20, max_rows=99)
        ).tasks:
            removed.append(rest.tasks)  # what a round that found the other at it left
        summary = await first.owner_summary("alice")

    assert sum(removed) == 12
    assert summary is not None and (summary.tasks, summary.runs) == (12, 12)


async def test_run_ids_are_never_reused_after_the_newest_runs_were_removed(
    store: TaskStore,
) -> None:
    # A held "Later" message names its run by id: an id of a removed task's run given to a
    # new run would let that message act on another task's run.
    first = await store.add_task(reminder_draft(once_at(T0), message="first"))
    await _ran_once(store, first, RunStatus.SUCCEEDED, None)
    removed = await store.add_task(reminder_draft(once_at(T0 + MINUTE), message="removed"))
    await _ran_once(store, removed, RunStatus.SUCCEEDED, None)
    (newest,) = await store.history(removed.id, "alice")

    removal = await store.remove_finished(before=T0 + HOUR, max_tasks=10, max_rows=100)
    assert removal.tasks == 2 and (await store.sizes()).ledger_rows == 0
    later = await store.add_task(reminder_draft(once_at(T0 + 2 * MINUTE), message="later"))
    (claim,) = await store.claim_due(T0 + 2 * MINUTE, limit=1, lease=LEASE)
    other = await store.add_task(reminder_draft(once_at(T0 + HOUR), message="other"))
    extra = await store.claim_now(other.id, "alice", T0 + 2 * MINUTE, lease=LEASE)

    assert claim.task.id == later.id and newest.id < claim.run.id < extra.run.id


async def test_a_claim_given_back_is_due_again_as_if_never_claimed(store: TaskStore) -> None:
    once = await store.add_task(reminder_draft(once_at(T0 + MINUTE), message="once"))
    daily = await store.add_task(reminder_draft(every(24 * HOUR, anchor=T0 + MINUTE)))
    claims = await store.claim_due(T0, limit=10, lease=LEASE, ahead=MINUTE)
    assert len(claims) == 2

    given = await store.give_back([c.run.id for c in claims])
    again = await store.give_back([c.run.id for c in claims])  # gone: nothing left to give

    assert sorted(given) == sorted(c.run.id for c in claims) and again == []
    for task in (once, daily):
        back = await store.get_task(task.id)
        assert back is not None and await store.history(task.id, "alice") == []
        assert (back.status, back.next_run, back.finished_at) == (
            TaskStatus.ACTIVE,
            T0 + MINUTE,
            None,
        )
    assert await store.next_wakeup() == T0 + MINUTE
    reclaimed = await store.claim_due(T0 + MINUTE, limit=10, lease=LEASE)
    assert {c.run.scheduled_for for c in reclaimed} == {T0 + MINUTE}
    assert all(c.run.misfire is MisfireAction.ON_TIME for c in reclaimed)
    kept = await store.get_task(daily.id)
    assert kept is not None and kept.next_run == T0 + MINUTE + 24 * HOUR  # computed again


async def test_a_recurring_tasks_claims_are_given_back_latest_first(store: TaskStore) -> None:
    task = await store.add_task(reminder_draft(every(MINUTE, anchor=T0 + MINUTE)))
    first = await store.claim_due(T0, limit=10, lease=LEASE, ahead=MINUTE)
    second = await store.claim_due(T0, limit=10, lease=LEASE, ahead=2 * MINUTE)

    given = await store.give_back([first[0].run.id, second[0].run.id])

    back = await store.get_task(task.id)
    assert len(given) == 2 and back is not None and back.next_run == T0 + MINUTE


async def test_a_claim_whose_next_occurrence_was_claimed_since_is_not_given_back(
    store: TaskStore,
) -> None:
    # Another scheduler claimed (and started) the next occurrence: stepping the task back
    # would run that one twice, so the run is left claimed; having never started, it is
    # retried once its lease runs out (a POST too), and no occurrence is lost.
    task = await store.add_task(api_call_draft(every(MINUTE, anchor=T0 + MINUTE)))
    (mine,) = await store.claim_due(T0, limit=10, lease=LEASE, ahead=MINUTE)
    (theirs,) = await store.claim_due(T0, limit=10, lease=LEASE, ahead=2 * MINUTE)
    assert await store.mark_started(theirs.run.id, T0 + 2 * MINUTE)

    assert await store.give_back([mine.run.id, theirs.run.id]) == []
    (retry,), (lost,) = await store.reclaim_expired(T0 + LEASE + 3 * MINUTE, limit=10, lease=LEASE)

    assert retry.run.scheduled_for == T0 + MINUTE and retry.run.attempt == 2
    assert lost.run.id == theirs.run.id and lost.run.status is RunStatus.OUTCOME_UNKNOWN
    kept = await store.get_task(task.id)
    assert kept is not None and kept.next_run == T0 + 3 * MINUTE


async def test_started_extra_and_stopped_tasks_runs_are_given_back_as_they_stand(
    store: TaskStore,
) -> None:
    started = await store.add_task(reminder_draft(once_at(T0), message="started"))
    cancelled = await store.add_task(reminder_draft(once_at(T0), message="cancelled"))
    (one, two) = await store.claim_due(T0, limit=10, lease=LEASE)
    run_of = {c.task.id: c.run.id for c in (one, two)}
    assert await store.mark_started(run_of[started.id], T0)
    cancel = TaskChange(status=TaskStatus.CANCELLED, next_run=None)
    await store.update_task(
        cancelled.id, "alice", cancel, allowed_from=set(TaskStatus), action="x", now=T0
    )
    later = await store.add_task(reminder_draft(once_at(T0 + HOUR), message="extra"))
    extra = await store.claim_now(later.id, "alice", T0, lease=LEASE)

    given = await store.give_back([run_of[started.id], run_of[cancelled.id], extra.run.id])

    assert sorted(given) == sorted([run_of[cancelled.id], extra.run.id])
    (still,) = await store.history(started.id, "alice")
    assert still.status is RunStatus.CLAIMED and still.started_at == T0
    for kept, status, next_run in (
        (cancelled, TaskStatus.CANCELLED, None),
        (later, TaskStatus.ACTIVE, T0 + HOUR),
    ):
        task = await store.get_task(kept.id)
        assert task is not None and (task.status, task.next_run) == (status, next_run)
        assert await store.history(kept.id, "alice") == []


async def test_a_post_lost_before_it_started_is_retried_and_a_late_start_is_refused(
    store: TaskStore,
) -> None:
    task = await store.add_task(api_call_draft(once_at(T0), method="POST"))
    (claim,) = await store.claim_due(T0, limit=10, lease=LEASE)

    (retry,), given_up = await store.reclaim_expired(T0 + LEASE, limit=10, lease=LEASE)

    assert given_up == [] and retry.task.id == task.id and retry.run.attempt == 2
    # The first claim's manager wakes up: its run is no longer its own to start.
    assert not await store.mark_started(claim.run.id, T0 + LEASE)
    assert await store.mark_started(retry.run.id, T0 + LEASE)
    (started, abandoned) = await store.history(task.id, "alice")
    assert started.started_at == T0 + LEASE and abandoned.started_at is None

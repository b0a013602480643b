"""What only the PostgreSQL store promises: many schedulers at once, chat scopes, LISTEN.

The contract every store keeps is ``test_store_contract``; these tests are about several
stores (each its own connection pool, as several processes would have) on one database.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import timedelta

import asyncpg
import pytest

from common import ManualClock
from tasks import (
    ChatScope,
    MisfirePolicy,
    MisfireRule,
    PostgresTaskStore,
    RunOutcome,
    RunStatus,
    TaskError,
    TaskManager,
    TaskStatus,
    TaskStore,
)
from tasks.store import TaskChange
from tests.tasks.conftest import T0, RecordingNotifier, every, once_at, reminder_draft

LEASE = timedelta(minutes=2)
SECOND = timedelta(seconds=1)
SCHEDULERS = 4


@pytest.fixture
async def stores(postgres_url: str) -> AsyncIterator[list[PostgresTaskStore]]:
    """Four stores on one database, as four scheduler processes would be."""
    opened = [PostgresTaskStore(postgres_url) for _ in range(SCHEDULERS)]
    for store in opened:
        await store.open()
    yield opened
    for store in opened:
        await store.close()


async def drain(store: TaskStore, now_at: list[timedelta]) -> list[tuple[str, int]]:
    """Claim everything due at each moment, a small batch at a time; finish what was claimed."""
    fired: list[tuple[str, int]] = []
    for offset in now_at:
        now = T0 + offset
        while claims := await store.claim_due(now, limit=25, lease=LEASE):
            fired += [(c.task.id, c.run.id) for c in claims]
            await store.finish_runs(
                [RunOutcome(c.run.id, c.task.id, RunStatus.SUCCEEDED, now, now) for c in claims],
                max_failures=5,
            )
    return fired


async def test_schedulers_racing_claim_every_run_exactly_once(
    stores: list[PostgresTaskStore],
) -> None:
    ids = await stores[0].add_tasks(
        [reminder_draft(once_at(T0 + timedelta(milliseconds=n))) for n in range(2000)]
    )
    # Catching up run by run, each occurrence is claimed once whichever store gets there first.
    late = MisfireRule(MisfirePolicy.RUN_LATE, grace=SECOND)
    recurring = await stores[1].add_task(reminder_draft(every(SECOND), misfire=late))
    moments = [timedelta(milliseconds=500 * n) for n in range(11)]

    fired = await asyncio.gather(*(drain(store, moments) for store in stores))

    every_run = [run for runs in fired for run in runs]
    assert len({run_id for _, run_id in every_run}) == len(every_run)
    once = Counter(task_id for task_id, _ in every_run if task_id != recurring.id)
    assert sorted(once) == sorted(ids) and set(once.values()) == {1}
    history = await stores[0].history(recurring.id, "alice", limit=100)
    assert sorted(r.scheduled_for for r in history) == [T0 + n * SECOND for n in range(6)]
    assert all(runs for runs in fired), "every scheduler got a share"


async def test_expired_runs_are_taken_over_once(stores: list[PostgresTaskStore]) -> None:
    await stores[0].add_tasks([reminder_draft(once_at(T0)) for _ in range(200)])
    held = await stores[0].claim_due(T0, limit=500, lease=LEASE)

    results = await asyncio.gather(
        *(store.reclaim_expired(T0 + LEASE, limit=30, lease=LEASE) for store in stores[1:]),
        *(store.reclaim_expired(T0 + LEASE, limit=500, lease=LEASE) for store in stores[1:]),
    )

    retried = [claim for claims, _ in results for claim in claims]
    assert sorted(c.task.id for c in retried) == sorted(c.task.id for c in held)
    assert {c.run.attempt for c in retried} == {2}
    assert await stores[0].renew_leases([c.run.id for c in held], T0 + LEASE, lease=LEASE) == set()


async def test_a_store_claims_only_the_chats_in_its_scope(postgres_url: str) -> None:
    terminal = PostgresTaskStore(postgres_url, scope=ChatScope.just(["chat-alice"]))
    bot = PostgresTaskStore(postgres_url, scope=ChatScope.all_but(["chat-alice"]))
    async with terminal, bot:
        mine = await terminal.add_task(reminder_draft(once_at(T0)))
        theirs = await terminal.add_task(reminder_draft(once_at(T0 + SECOND), owner="bob"))
        assert await terminal.next_wakeup() == T0
        assert await bot.next_wakeup() == T0 + SECOND

        claimed_here = await terminal.claim_due(T0 + LEASE, limit=9, lease=LEASE)
        assert [c.task.id for c in claimed_here] == [mine.id]
        assert await terminal.next_wakeup() == T0 + 2 * LEASE  # its own run's lease only
        assert await bot.next_wakeup() == T0 + SECOND
        (claimed,) = await bot.claim_due(T0 + LEASE, limit=9, lease=LEASE)
        assert claimed.task.id == theirs.id

        later = T0 + 3 * LEASE
        retried, _ = await bot.reclaim_expired(later, limit=9, lease=LEASE)
        assert [c.task.id for c in retried] == [theirs.id]
        retried, _ = await terminal.reclaim_expired(later, limit=9, lease=LEASE)
        assert [c.task.id for c in retried] == [mine.id]


async def test_watching_stores_hear_every_change_another_process_commits(
    stores: list[PostgresTaskStore],
) -> None:
    heard = asyncio.Event()
    watcher, writer = stores[0], stores[1]
    assert await watcher.watch(heard.set)

    async def hears() -> None:
        async with asyncio.timeout(5):
            await heard.wait()
        heard.clear()

    task = await writer.add_task(reminder_draft(once_at(T0 + timedelta(hours=1))))
    await hears()
    snooze = TaskChange(next_run=T0)
    await writer.update_task(
        task.id, "alice", snooze, allowed_from={TaskStatus.ACTIVE}, action="x", now=T0
    )
    await hears()
    (claim,) = await writer.claim_due(T0, limit=9, lease=LEASE)
    retry = RunOutcome(claim.run.id, task.id, RunStatus.FAILED, T0, T0, retry_at=T0 + SECOND)
    await writer.finish_runs([retry], max_failures=5)
    await hears()


async def test_a_manager_fires_a_task_another_process_added_without_polling(
    postgres_url: str,
) -> None:
    clock = ManualClock(T0)
    notifier = RecordingNotifier()
    manager = TaskManager(
        store=PostgresTaskStore(postgres_url),
        notifier=notifier,
        clock=clock,
        recheck_every=timedelta(days=1),  # the clock never gets there: only a NOTIFY wakes it
    )
    async with manager, PostgresTaskStore(postgres_url) as elsewhere:
        await manager.run_due()
        await elsewhere.add_task(reminder_draft(once_at(T0), message="from afar"))

        await notifier.wait_for(1)

    assert notifier.texts() == ["from afar"]


async def test_a_newer_schema_is_refused(postgres_url: str) -> None:
    async with PostgresTaskStore(postgres_url):
        pass
    conn = await asyncpg.connect(postgres_url)
    try:
        await conn.execute("UPDATE schema_versions SET version = 99 WHERE component = 'tasks'")
    finally:
        await conn.close()

    with pytest.raises(TaskError, match="tasks schema version 99"):
        await PostgresTaskStore(postgres_url).open()


async def test_scopes_by_prefix_split_the_chats_between_front_ends(postgres_url: str) -> None:
    web = PostgresTaskStore(postgres_url, scope=ChatScope.just(prefixes=["web:"]))
    bot = PostgresTaskStore(postgres_url, scope=ChatScope.all_but(["local"], prefixes=["web:"]))
    async with web, bot:
        for owner in ("web:1", "web_2", "local", "123"):
            draft = reminder_draft(once_at(T0), owner=owner)
            await web.add_task(replace(draft, chat_id=owner))

        web_claims = await web.claim_due(T0, limit=9, lease=LEASE)
        bot_claims = await bot.claim_due(T0, limit=9, lease=LEASE)

    assert [c.task.chat_id for c in web_claims] == ["web:1"]
    assert sorted(c.task.chat_id for c in bot_claims) == ["123", "web_2"]
    assert ChatScope.just(prefixes=["web:"]).covers("web:1")
    assert not ChatScope.all_but(["local"], prefixes=["web:"]).covers("web:9")
    with pytest.raises(ValueError, match="claims nothing"):
        ChatScope.just()

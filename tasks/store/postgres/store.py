"""The PostgreSQL task store: the same contract as SQLite's, for several schedulers at once.

Each operation is one async function run on a pooled connection (``common.PostgresDatabase``):
a write is one transaction. Claims lock the due rows with ``FOR UPDATE SKIP LOCKED`` (see
``claims``), so schedulers in any number of processes claim disjoint runs. A store claims only
the runs of the chats its process can deliver to (its ``ChatScope``). Adding or changing a task
sends a NOTIFY in the same transaction; ``watch`` LISTENs, so a scheduler learns of another
process's change when it commits, without polling. Task reads and changes, ledger reads and
compaction are the steps both SQL stores share (``tasks.store.steps``), awaited statement by
statement by ``db.run_steps``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Sequence
from datetime import datetime, timedelta

from common import (
    Listener,
    PgConnection,
    PostgresDatabase,
    PostgresFailures,
    notify,
    require_aware,
)
from tasks.errors import TaskError
from tasks.limits import TaskLimits
from tasks.models import (
    Claim,
    FinishedRun,
    RunOutcome,
    StoreSizes,
    Task,
    TaskDraft,
    new_task_id,
)
from tasks.store.base import GivenUp, HeldDelivery
from tasks.store.postgres import claims, proactive, runs
from tasks.store.postgres.db import run_steps
from tasks.store.postgres.dialect import CHANGES_CHANNEL, POSTGRES
from tasks.store.postgres.schema import migrate
from tasks.store.proactive import SqlProactive
from tasks.store.rows import TaskStoreError, draft_values
from tasks.store.scope import ChatScope
from tasks.store.steps import Steps, T, sizes

__all__ = ["PostgresTaskStore"]

_ID_ATTEMPTS = 8
_OWNER_HOLDS = (
    "SELECT count(*)::int, coalesce(sum(octet_length(description)"
    " + octet_length(execution_data)), 0)::bigint"
    " FROM scheduled_tasks WHERE owner_id = $1 AND status NOT IN ('done', 'cancelled')"
)
_INSERT_TASKS = (
    "INSERT INTO scheduled_tasks (id, owner_id, chat_id, task_type, description, schedule, "
    "execution_data, status, enabled, misfire_policy, misfire_grace, created_at, next_run) "
    "SELECT id, owner_id, chat_id, task_type, description, schedule, execution_data, "
    "'active', true, misfire_policy, misfire_grace, created_at, next_run "
    "FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], "
    "$7::text[], $8::text[], $9::float8[], $10::timestamptz[], $11::timestamptz[]) "
    "AS d(id, owner_id, chat_id, task_type, description, schedule, execution_data, "
    "misfire_policy, misfire_grace, created_at, next_run) "
    "ON CONFLICT (id) DO NOTHING RETURNING id"
)


async def read_sizes(conn: PgConnection) -> StoreSizes:
    """Count what the task tables hold, on a connection of the caller's (``assistant doctor``
    reads them, changing nothing).

    Raises:
        asyncpg.PostgresError: when the tables are not there (yet), or are of an older schema.
    """
    return await run_steps(conn, sizes(POSTGRES))


async def _migrate(db: PostgresDatabase) -> None:
    """The task tables, then the proactive features' (which refer to them)."""
    await migrate(db)
    await proactive.migrate(db)


def _not_open(where: str) -> TaskError:
    return TaskError(
        f"the task store {where!r} is not open; call 'await store.open()' "
        "(or start the TaskManager) first"
    )


_FAILURES = PostgresFailures("the task database", TaskStoreError, _not_open)


class PostgresTaskStore(SqlProactive):
    """Tasks and their run ledger in a PostgreSQL database, shared by any number of schedulers.

    Args:
        url: ``postgresql://user:password@host:5432/database``.
        scope: The chats whose runs this store claims (the ones its process delivers to).
        pool_size: Connections the store opens at most (plus one to LISTEN, when watching).
        new_id: Draws a fresh task id (tests pass one that repeats itself).
    """

    dialect = POSTGRES

    def __init__(
        self,
        url: str,
        *,
        scope: ChatScope | None = None,
        pool_size: int = 4,
        new_id: Callable[[], str] = new_task_id,
    ) -> None:
        self._db = PostgresDatabase(
            url, failures=_FAILURES, max_size=pool_size, application_name="assistant-tasks"
        )
        self.scope = scope or ChatScope.every()
        self._new_id = new_id
        self._listener: Listener | None = None

    @property
    def where(self) -> str:
        """The database URL, without its password."""
        return self._db.where

    async def open(self) -> None:
        """Connect and create or migrate the task tables (and the proactive features')."""
        await self._db.open(migrate=_migrate)

    async def close(self) -> None:
        """Stop listening and close the connections."""
        listener, self._listener = self._listener, None
        if listener is not None:
            await listener.close()
        await self._db.close()

    async def watch(self, changed: Callable[[], None]) -> bool:
        """LISTEN for tasks added or changed by any process; call ``changed`` for each."""
        if self._listener is None:
            self._listener = await self._db.listen(CHANGES_CHANNEL, changed)
        return True

    async def add_task(self, draft: TaskDraft, *, limits: TaskLimits | None = None) -> Task:
        """Insert ``draft`` under a fresh id (a new id is drawn if one is taken); with
        ``limits``, after counting its owner's live tasks under a lock per owner held until
        the commit (another scheduler's insert for that owner waits for it)."""

        async def insert(conn: PgConnection) -> list[str]:
            if limits is not None:
                await conn.execute(
                    "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))",
                    f"tasks of {draft.owner_id}",
                )
                live, used = await conn.fetchrow(_OWNER_HOLDS, draft.owner_id) or (0, 0)
                limits.check_room(live=live, used=used, draft=draft)
            return await self._insert(conn, [draft])

        (task_id,) = await self._db.write(insert)
        return draft.to_task(task_id)

    async def add_tasks(self, drafts: Sequence[TaskDraft]) -> list[str]:
        """Insert many drafts in one transaction."""
        if not drafts:
            return []
        return await self._db.write(functools.partial(self._insert, drafts=drafts))

    async def claim_due(
        self, now: datetime, *, limit: int, lease: timedelta, ahead: timedelta = timedelta(0)
    ) -> list[Claim]:
        """Claim due tasks of this store's chats, earliest first, skipping rows being claimed."""
        now = require_aware(now, "now")
        work = functools.partial(
            claims.claim_due, now=now, limit=limit, lease=lease, ahead=ahead, scope=self.scope
        )
        return await self._db.write(work)

    async def reclaim_expired(
        self, now: datetime, *, limit: int, lease: timedelta, orphaned: bool = False
    ) -> tuple[list[Claim], list[GivenUp]]:
        """Retry once, or give up, runs (of this store's chats) whose lease ran out.

        ``orphaned`` is for a caller that knows no other scheduler shares the database; with
        several (the reason to use PostgreSQL) only expired leases prove a run orphaned, so
        the application never passes it here.
        """
        now = require_aware(now, "now")
        # A cheap indexed read first: most of the time no lease ran out.
        expired = functools.partial(
            claims.any_expired, now=now, scope=self.scope, orphaned=orphaned
        )
        if not await self._db.read(expired):
            return [], []
        work = functools.partial(
            claims.reclaim_expired,
            now=now,
            limit=limit,
            lease=lease,
            scope=self.scope,
            orphaned=orphaned,
        )
        return await self._db.write(work)

    async def renew_leases(
        self, run_ids: Collection[int], now: datetime, *, lease: timedelta
    ) -> set[int]:
        """Extend the leases of those runs that are still claimed, in one statement."""
        until = require_aware(now, "now") + lease
        ids = sorted(set(run_ids))
        if not ids:
            return set()
        return await self._db.write(
            functools.partial(claims.renew_leases, run_ids=ids, until=until)
        )

    async def claim_now(
        self, task_id: str, owner_id: str, now: datetime, *, lease: timedelta
    ) -> Claim:
        """Claim an extra run of the task now, in one transaction (whatever its chat)."""
        now = require_aware(now, "now")
        work = functools.partial(
            claims.claim_now, task_id=task_id, owner_id=owner_id, now=now, lease=lease
        )
        return await self._db.write(work)

    async def next_wakeup(self) -> datetime | None:
        """Return the earliest enabled next run or lease expiry of this store's chats."""
        return await self._db.read(functools.partial(claims.next_wakeup, scope=self.scope))

    async def count_due(self, until: datetime, *, limit: int) -> int:
        """Count the enabled tasks of this store's chats due by ``until`` (at most ``limit``)."""
        until = require_aware(until, "until")
        work = functools.partial(
            claims.count_due, until=until, limit=max(limit, 0), scope=self.scope
        )
        return await self._db.read(work)

    async def count_overdue(self, before: datetime) -> int:
        """Count the enabled tasks of this store's chats due before ``before``: the ones this
        scheduler is behind on (another process's chats are not its to fire)."""
        before = require_aware(before, "before")
        work = functools.partial(claims.count_overdue, before=before, scope=self.scope)
        return await self._db.read(work)

    async def finish_runs(
        self, outcomes: Sequence[RunOutcome], *, max_failures: int
    ) -> list[FinishedRun]:
        """Record outcomes and update their tasks, all in one transaction."""
        if not outcomes:
            return []
        work = functools.partial(
            runs.finish_runs, outcomes=list(outcomes), max_failures=max_failures
        )
        return await self._db.write(work)

    async def claim_held(
        self, now: datetime, *, limit: int, lease: timedelta
    ) -> list[HeldDelivery]:
        """Take due held deliveries of this store's chats under a lease, skipping rows
        another scheduler is taking."""
        now = require_aware(now, "now")
        work = functools.partial(
            proactive.claim_held, now=now, limit=limit, lease=lease, scope=self.scope
        )
        return await self._db.write(work)

    async def next_release(self) -> datetime | None:
        """Return when the earliest held delivery of this store's chats is due."""
        return await self._db.read(functools.partial(proactive.next_release, scope=self.scope))

    async def _read(self, steps: Steps[T]) -> T:
        return await self._db.read(functools.partial(run_steps, steps=steps))

    async def _write(self, steps: Steps[T]) -> T:
        return await self._db.write(functools.partial(run_steps, steps=steps))

    async def _insert(self, conn: PgConnection, drafts: Sequence[TaskDraft]) -> list[str]:
        """Insert the drafts under fresh ids; an id another task holds is drawn again.

        ``ON CONFLICT DO NOTHING`` makes the check and the insert one step, so two
        processes drawing the same id at the same moment cannot both take it.
        """
        rows = [draft_values(d, POSTGRES) for d in drafts]
        chosen: list[str | None] = [None] * len(rows)
        seen: set[str] = set()
        for _ in range(_ID_ATTEMPTS):
            waiting = [i for i, c in enumerate(chosen) if c is None]
            drawn = self._draw(len(waiting), seen)
            tried = dict(zip(waiting, drawn, strict=False))
            if tried:
                columns = list(zip(*(rows[i] for i in tried), strict=True))
                taken = await conn.fetch(_INSERT_TASKS, list(tried.values()), *map(list, columns))
                stored = {r["id"] for r in taken}
                for index, task_id in tried.items():
                    if task_id in stored:
                        chosen[index] = task_id
            if all(c is not None for c in chosen):
                await notify(conn, CHANGES_CHANNEL)
                return [c for c in chosen if c is not None]
        missing = sum(c is None for c in chosen)
        raise TaskError(f"could not find {missing} free task ids after {_ID_ATTEMPTS} rounds")

    def _draw(self, count: int, seen: set[str]) -> list[str]:
        """Up to ``count`` ids never drawn before (a few tries each)."""
        drawn: list[str] = []
        for _ in range(4 * count):
            if len(drawn) == count:
                break
            candidate = self._new_id()
            if candidate not in seen:
                seen.add(candidate)
                drawn.append(candidate)
        return drawn

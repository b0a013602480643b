"""What the proactive features keep, written once as steps for both SQL databases.

    monitor_observations   each monitor's last observation (one row per task)
    held_deliveries        deliveries waiting for the end of quiet hours, or snoozed
    task_runs              acknowledgements are ledger rows of status ``acknowledged``

Their tables belong to the ``proactive`` component of ``schema_versions`` (each database's
``proactive_schema`` migrates them), so they never take a version number of the task tables.
``SqlProactive`` is ``SqlTaskStore`` with these operations; each database adds how it takes
held deliveries that are due (SQLite's write lock, PostgreSQL's ``SKIP LOCKED`` in its scope).
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Collection, Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from common import require_aware
from tasks.models import MisfireAction, RunStatus, Task, TaskStatus
from tasks.monitors import Observation
from tasks.protocols import Delivery, DeliveryKind
from tasks.store.base import (
    HeldDelivery,
    HoldReason,
    RecentRun,
    TaskChange,
    WatchedChange,
    not_found,
    release_note,
    zone_of,
)
from tasks.store.dialect import Dialect
from tasks.store.rows import (
    RUN_COLUMNS,
    TASK_COLUMNS,
    Row,
    run_from_row,
    seconds_opt,
    span_opt,
    task_from_row,
)
from tasks.store.steps import SqlTaskStore, Steps, owned_row, single, store_state
from tasks.store.transitions import changed

COMPONENT = "proactive"
"""The row of these tables in ``schema_versions``."""

OBSERVATION_COLUMNS = "value, observed_at, changed_at, holds, pending, checks, changes"
HELD_COLUMNS = (
    "id, task_id, run_id, owner_id, chat_id, kind, text, late_by, run_again, nags, reason, "
    "held_at, release_at, repeats, zone"
)
_TASK = ", ".join(f"t.{column.strip()}" for column in TASK_COLUMNS.split(","))
_RUN = ", ".join(f"r.{column.strip()}" for column in RUN_COLUMNS.split(","))
_OBSERVATION = ", ".join(f"o.{column.strip()}" for column in OBSERVATION_COLUMNS.split(","))
_RUN_WIDTH = len(RUN_COLUMNS.split(","))
_OBSERVATION_WIDTH = len(OBSERVATION_COLUMNS.split(","))


def observation_from_row(row: Row, d: Dialect, start: int = 0) -> Observation:
    """An ``Observation`` from a row's ``OBSERVATION_COLUMNS``, from position ``start``."""
    holds = row[start + 3]
    return Observation(
        value=row[start],
        observed_at=d.read_time(row[start + 1]),
        changed_at=d.read_time(row[start + 2]),
        holds=None if holds is None else bool(holds),
        pending=row[start + 4],
        checks=int(row[start + 5]),
        changes=int(row[start + 6]),
    )


def held_from_row(row: Row, d: Dialect) -> HeldDelivery:
    """A ``HeldDelivery`` from a row selected with ``HELD_COLUMNS``."""
    delivery = Delivery(
        task_id=row[1],
        run_id=row[2],
        owner_id=row[3],
        chat_id=row[4],
        kind=DeliveryKind(row[5]),
        text=row[6],
        late_by=span_opt(row[7]),
        run_again=bool(row[8]),
        nags=bool(row[9]),
    )
    return HeldDelivery(
        id=int(row[0]),
        delivery=delivery,
        reason=HoldReason(row[10]),
        held_at=d.read_time(row[11]),
        release_at=d.read_time(row[12]),
        repeats=int(row[13]),
        zone=row[14],
    )


def get_observation(d: Dialect, task_id: str) -> Steps[Observation | None]:
    """The monitor's last observation."""
    row = yield d.statement(
        f"SELECT {OBSERVATION_COLUMNS} FROM monitor_observations WHERE task_id = ?",
        task_id,
        want="one",
    )
    return None if row is None else observation_from_row(row, d)


def save_observation(d: Dialect, task_id: str, seen: Observation) -> Steps[None]:
    """Keep ``seen`` as the monitor's last observation."""
    yield d.statement(
        f"INSERT INTO monitor_observations (task_id, {OBSERVATION_COLUMNS}) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (task_id) DO UPDATE SET "
        "value = excluded.value, observed_at = excluded.observed_at, "
        "changed_at = excluded.changed_at, holds = excluded.holds, "
        "pending = excluded.pending, checks = excluded.checks, changes = excluded.changes",
        task_id, seen.value, d.time(seen.observed_at), d.time(seen.changed_at), seen.holds,
        seen.pending, seen.checks, seen.changes,
    )  # fmt: skip


def hold(
    d: Dialect, delivery: Delivery, reason: HoldReason, now: datetime, release_at: datetime
) -> Steps[HeldDelivery]:
    """Keep ``delivery`` until ``release_at`` (a message snoozed again moves its waiting
    snooze; a repeated reminder replaces its waiting one)."""
    zone = zone_of(release_at)
    if reason is HoldReason.SNOOZED:
        # Not one being released right now. Run ids start at 1: 0 stands for none.
        found = yield d.statement(
            f"SELECT {HELD_COLUMNS} FROM held_deliveries WHERE task_id = ? AND reason = ? "
            "AND coalesce(run_id, 0) = ? AND text = ? AND lease_until IS NULL "
            "ORDER BY id LIMIT 1" + d.lock_rows,
            delivery.task_id, reason.value, delivery.run_id or 0, delivery.text, want="one",
        )  # fmt: skip
        if found is not None:
            earlier = held_from_row(found, d)
            yield d.statement(
                "UPDATE held_deliveries SET held_at = ?, release_at = ?, zone = ? WHERE id = ?",
                d.time(now), d.time(release_at), zone, earlier.id,
            )  # fmt: skip
            return replace(
                earlier, held_at=now, release_at=release_at, zone=zone,
                moved_from=earlier.release_at,
            )  # fmt: skip
    if delivery.nags and delivery.kind is DeliveryKind.REMINDER:
        found = yield d.statement(
            f"SELECT {HELD_COLUMNS} FROM held_deliveries WHERE task_id = ? AND reason = ? "
            "AND kind = 'reminder' ORDER BY id LIMIT 1" + d.lock_rows,
            delivery.task_id, reason.value, want="one",
        )  # fmt: skip
        if found is not None:
            earlier = held_from_row(found, d)
            yield d.statement(
                "UPDATE held_deliveries SET text = ?, run_id = ?, repeats = repeats + 1 "
                "WHERE id = ?",
                delivery.text, delivery.run_id, earlier.id,
            )  # fmt: skip
            return replace(earlier, delivery=delivery, repeats=earlier.repeats + 1)
    held_id = yield d.statement(
        "INSERT INTO held_deliveries (task_id, run_id, owner_id, chat_id, kind, text, late_by, "
        "run_again, nags, reason, held_at, release_at, repeats, zone) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?) RETURNING id",
        delivery.task_id, delivery.run_id, delivery.owner_id, delivery.chat_id,
        delivery.kind.value, delivery.text, seconds_opt(delivery.late_by), delivery.run_again,
        delivery.nags, reason.value, d.time(now), d.time(release_at), zone, want="value",
    )  # fmt: skip
    return HeldDelivery(int(held_id), delivery, reason, now, release_at, zone=zone)


def claim_held(
    d: Dialect, now: datetime, limit: int, lease: timedelta, *, where: str = "", lock: str = ""
) -> Steps[list[HeldDelivery]]:
    """Take the due held deliveries under a lease (``where`` narrows them, ``lock`` ends the
    select)."""
    rows = yield d.statement(
        f"SELECT {HELD_COLUMNS} FROM held_deliveries WHERE release_at <= ? "
        f"AND (lease_until IS NULL OR lease_until <= ?){where} "
        f"ORDER BY release_at, id LIMIT ?{lock}",
        d.time(now), d.time(now), limit, want="all",
    )  # fmt: skip
    taken = [held_from_row(row, d) for row in rows]
    for chunk in d.chunks([held.id for held in taken]):
        ids, params = d.any_of("id", chunk, "bigint[]")
        yield d.statement(
            f"UPDATE held_deliveries SET lease_until = ? WHERE {ids}", d.time(now + lease), *params
        )
    return taken


def release_held(d: Dialect, released: Sequence[HeldDelivery], now: datetime) -> Steps[None]:
    """Forget the released deliveries and add each note to its run's ledger row."""
    for chunk in d.chunks([held.id for held in released]):
        ids, params = d.any_of("id", chunk, "bigint[]")
        yield d.statement(f"DELETE FROM held_deliveries WHERE {ids}", *params)
    for held in released:
        if held.delivery.run_id is not None:
            yield d.statement(
                "UPDATE task_runs SET result = coalesce(result, '') || ? WHERE id = ?",
                release_note(held, now), held.delivery.run_id,
            )  # fmt: skip


def next_release(d: Dialect, *, where: str = "") -> Steps[datetime | None]:
    """When the earliest held delivery is due, or its lease runs out."""
    value = yield d.statement(
        "SELECT min(CASE WHEN lease_until IS NULL OR lease_until < release_at "
        f"THEN release_at ELSE lease_until END) FROM held_deliveries WHERE true{where}",
        want="value",
    )
    return None if value is None else d.read_time(value)


def held_of(d: Dialect, owner_id: str) -> Steps[list[HeldDelivery]]:
    """The owner's held deliveries, oldest first."""
    rows = yield d.statement(
        f"SELECT {HELD_COLUMNS} FROM held_deliveries WHERE owner_id = ? ORDER BY id",
        owner_id,
        want="all",
    )
    return [held_from_row(row, d) for row in rows]


def release_owner(d: Dialect, owner_id: str, now: datetime, reason: HoldReason) -> Steps[int]:
    """Make the owner's deliveries held for ``reason`` due now."""
    rows = yield d.statement(
        "UPDATE held_deliveries SET release_at = ? WHERE owner_id = ? AND reason = ? "
        "AND release_at > ? RETURNING id",
        d.time(now), owner_id, reason.value, d.time(now), want="all",
    )  # fmt: skip
    return len(rows)


def acknowledge(
    d: Dialect,
    task_id: str,
    owner_id: str,
    now: datetime,
    note: str,
    change: TaskChange | None,
    allowed_from: frozenset[TaskStatus],
) -> Steps[Task]:
    """Record the acknowledgement as a ledger row and apply ``change``."""
    row = yield owned_row(d, task_id, owner_id, lock=True)
    if row is None:
        raise not_found(task_id)
    task = task_from_row(row, d)
    if change is not None:
        task = changed(task, change, allowed_from=allowed_from, action="acknowledge", now=now)
        yield store_state(d, task)
    yield d.statement(
        "INSERT INTO task_runs (task_id, scheduled_for, claimed_at, started_at, finished_at, "
        "status, misfire, missed, attempt, result) VALUES (?, ?, ?, ?, ?, ?, ?, 0, 1, ?)",
        task.id, d.time(now), d.time(now), d.time(now), d.time(now),
        RunStatus.ACKNOWLEDGED.value, MisfireAction.MANUAL.value, note,
    )  # fmt: skip
    announce = d.announce()
    if change is not None and announce is not None:
        yield announce
    return task


def last_acknowledged(d: Dialect, task_id: str) -> Steps[datetime | None]:
    """When the task was last acknowledged."""
    value = yield d.statement(
        "SELECT claimed_at FROM task_runs WHERE task_id = ? AND status = ? "
        "ORDER BY id DESC LIMIT 1",
        task_id, RunStatus.ACKNOWLEDGED.value, want="value",
    )  # fmt: skip
    return None if value is None else d.read_time(value)


def runs_since(d: Dialect, owner_id: str, since: datetime, limit: int) -> Steps[list[RecentRun]]:
    """The owner's runs finished since ``since``, newest first."""
    rows = yield d.statement(
        f"SELECT {_RUN}, {_TASK} FROM task_runs AS r JOIN scheduled_tasks AS t "
        "ON t.id = r.task_id WHERE t.owner_id = ? AND r.finished_at >= ? "
        "ORDER BY r.finished_at DESC, r.id DESC LIMIT ?",
        owner_id, d.time(since), limit, want="all",
    )  # fmt: skip
    return [RecentRun(task_from_row(row[_RUN_WIDTH:], d), run_from_row(row, d)) for row in rows]


def changes_since(d: Dialect, owner_id: str, since: datetime) -> Steps[list[WatchedChange]]:
    """The owner's monitors whose observation changed since ``since`` (after a first look)."""
    rows = yield d.statement(
        f"SELECT {_OBSERVATION}, {_TASK} FROM monitor_observations AS o "
        "JOIN scheduled_tasks AS t ON t.id = o.task_id "
        "WHERE t.owner_id = ? AND o.changed_at >= ? AND o.changes > 0 "
        "ORDER BY o.changed_at DESC, t.id",
        owner_id, d.time(since), want="all",
    )  # fmt: skip
    return [
        WatchedChange(task_from_row(_tail(row), d), observation_from_row(row, d)) for row in rows
    ]


def _tail(row: Row) -> Any:
    return row[_OBSERVATION_WIDTH:]


class SqlProactive(SqlTaskStore):
    """A SQL task store with the proactive features' operations (``TaskStore``'s).

    A database's store adds ``claim_held`` and ``next_release`` (how it takes due rows).
    """

    async def observation(self, task_id: str) -> Observation | None:
        """Return the monitor's last observation."""
        return await self._read(get_observation(self.dialect, task_id))

    async def save_observation(self, task_id: str, observation: Observation) -> None:
        """Keep the monitor's observation."""
        await self._write(save_observation(self.dialect, task_id, observation))

    async def hold(
        self, delivery: Delivery, *, reason: HoldReason, now: datetime, release_at: datetime
    ) -> HeldDelivery:
        """Keep ``delivery`` until ``release_at``."""
        require_aware(now, "now")
        require_aware(release_at, "release_at")  # kept in its zone: its name is stored
        return await self._write(hold(self.dialect, delivery, reason, now, release_at))

    @abstractmethod
    async def claim_held(
        self, now: datetime, *, limit: int, lease: timedelta
    ) -> list[HeldDelivery]:
        """Take due held deliveries under a lease."""

    async def release_held(self, released: Sequence[HeldDelivery], now: datetime) -> None:
        """Forget what went out and note it in the ledger."""
        if released:
            await self._write(release_held(self.dialect, released, require_aware(now, "now")))

    async def held(self, owner_id: str) -> list[HeldDelivery]:
        """Return the owner's held deliveries."""
        return await self._read(held_of(self.dialect, owner_id))

    async def release_owner(self, owner_id: str, now: datetime, *, reason: HoldReason) -> int:
        """Make the owner's deliveries held for ``reason`` due now."""
        return await self._write(
            release_owner(self.dialect, owner_id, require_aware(now, "now"), reason)
        )

    async def acknowledge(
        self,
        task_id: str,
        owner_id: str,
        now: datetime,
        *,
        note: str,
        change: TaskChange | None,
        allowed_from: Collection[TaskStatus],
    ) -> Task:
        """Record the acknowledgement and apply ``change`` in one transaction."""
        steps = acknowledge(
            self.dialect,
            task_id,
            owner_id,
            require_aware(now, "now"),
            note,
            change,
            frozenset(allowed_from),
        )
        return await self._write(steps)

    async def acknowledged_since(self, task_id: str, since: datetime) -> bool:
        """Whether the task was acknowledged at ``since`` or later."""
        last = await self.last_acknowledged(task_id)
        return last is not None and last >= since

    async def last_acknowledged(self, task_id: str) -> datetime | None:
        """When the task was last acknowledged."""
        return await self._read(last_acknowledged(self.dialect, task_id))

    async def runs_since(self, owner_id: str, since: datetime, *, limit: int) -> list[RecentRun]:
        """Return the owner's runs finished since ``since``."""
        return await self._read(
            runs_since(self.dialect, owner_id, require_aware(since, "since"), max(limit, 0))
        )

    async def changes_since(self, owner_id: str, since: datetime) -> list[WatchedChange]:
        """Return the owner's monitors that changed since ``since``."""
        return await self._read(
            changes_since(self.dialect, owner_id, require_aware(since, "since"))
        )


__all__ = [
    "COMPONENT",
    "HELD_COLUMNS",
    "SqlProactive",
    "claim_held",
    "next_release",
    "single",
]

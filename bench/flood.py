"""Another user's reminders under one user's flood, within the limits (issue 24, item 8).

Run with ``.venv/bin/python -m bench.flood`` (``--minutes 3``, ``--store postgres`` for the
embedded PostgreSQL server instead of a SQLite file). The user ``flood`` adds as many
reminders as one person may (``TaskLimits``: 500 live tasks, each at most once a minute; the
501st is refused) and ``bob`` adds five, all every minute and all due at the same second,
the worst case. The real clock and the whole engine (claims, leases, group-committed ledger)
fire them: ``--minutes`` + 1 bursts, the first 15 s in. Printed: how late bob's and the
flood's reminders were delivered (p50 / p99 / max), the most ``health()`` reported while
they were, and the ledger rows the flood wrote.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from common import SystemClock
from tasks import (
    Delivery,
    DeliveryStatus,
    IntervalSchedule,
    PostgresTaskStore,
    SqliteTaskStore,
    TaskLimitError,
    TaskLimits,
    TaskManager,
    TaskStore,
)
from testing.pg_server import EmbeddedPostgres

MINUTE = timedelta(minutes=1)
UTC_ZONE = ZoneInfo("UTC")


class Recorder:
    """A notifier that notes when each user's deliveries arrive, against their due time."""

    def __init__(self, anchor: datetime) -> None:
        self.anchor = anchor
        self.late: dict[str, list[float]] = {"bob": [], "flood": []}

    async def deliver(self, delivery: Delivery) -> DeliveryStatus:
        now = datetime.now(UTC)
        since = (now - self.anchor).total_seconds() % 60
        self.late[delivery.owner_id].append(since * 1000)
        return DeliveryStatus.DELIVERED


def figures(values: list[float]) -> str:
    if not values:
        return "none"
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return (
        f"p50 {statistics.median(ordered):.1f} ms, p99 {p99:.1f} ms, max {ordered[-1]:.1f} ms "
        f"({len(ordered)} deliveries)"
    )


async def flood(store: TaskStore, minutes: int) -> None:
    anchor = (datetime.now(UTC) + timedelta(seconds=15)).replace(microsecond=0)
    recorder = Recorder(anchor)
    schedule = IntervalSchedule(every=MINUTE, anchor=anchor, tz=UTC_ZONE)
    manager = TaskManager(store=store, notifier=recorder, clock=SystemClock(), limits=TaskLimits())
    await manager.start()
    try:
        refused = ""
        for number in range(501):
            try:
                await manager.add_task(
                    owner_id="flood", chat_id="chat-flood", task_type="reminder",
                    schedule=schedule, execution_data={"message": f"flood {number}"},
                )  # fmt: skip
            except TaskLimitError as error:
                refused = str(error)
        for number in range(5):
            await manager.add_task(
                owner_id="bob", chat_id="chat-bob", task_type="reminder",
                schedule=schedule, execution_data={"message": f"bob {number}"},
            )  # fmt: skip
        print(f"the 501st task of the flood was refused: {refused!r}")
        until = anchor + minutes * MINUTE + timedelta(seconds=5)
        worst_health = timedelta(0)
        while datetime.now(UTC) < until:
            state = await manager.health()
            worst_health = max(worst_health, state.late)
            await asyncio.sleep(0.1)
        await manager.wait_idle()
        rows = 0
        for task_id in await manager.active_task_ids("flood"):
            rows += len(await manager.history(task_id, "flood", limit=1000))
    finally:
        await manager.stop()
    print(f"bob's reminders (5 a minute):     {figures(recorder.late['bob'])}")
    print(f"the flood's (500 a minute):       {figures(recorder.late['flood'])}")
    print(f"health() said at worst:           {worst_health.total_seconds() * 1000:.0f} ms late")
    print(f"ledger rows the flood wrote:      {rows} ({rows / (minutes + 1):.0f} a burst)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--minutes", type=int, default=3, help="bursts to measure")
    parser.add_argument("--store", choices=["sqlite", "postgres"], default="sqlite")
    args = parser.parse_args()
    started = time.perf_counter()
    if args.store == "postgres":
        server = EmbeddedPostgres.start()
        try:
            asyncio.run(flood(PostgresTaskStore(server.url()), args.minutes))
        finally:
            server.stop()
    else:
        with tempfile.TemporaryDirectory() as folder:
            asyncio.run(flood(SqliteTaskStore(Path(folder) / "assistant.db"), args.minutes))
    print(f"({time.perf_counter() - started:.0f} s in all, store: {args.store})")


if __name__ == "__main__":
    main()

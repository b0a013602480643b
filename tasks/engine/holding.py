"""Quiet hours and snoozed messages: deliveries held in the store, released when their time comes.

``HoldingNotifier`` stands where every delivery of the scheduler passes (the ``Deliverer``
hands it each one): a delivery that falls in its owner's quiet hours, unless it is an alarm
they marked urgent, is kept in the task store until the quiet hours end, and reported
``HELD`` (its run's ledger row says so). ``HeldReleaser`` wakes when the earliest held
delivery is due, takes the due ones under a lease (so two schedulers never both send one,
and one that dies before sending leaves them to be taken again) and delivers them together,
in the order they came, each marked as held; a delivered one is forgotten and its run's row
says when it went out. Nothing held is lost across a restart: it is in the store.

The same path brings back a message its owner snoozed ("show me this again in an hour").
A nagging reminder's message whose reminder was marked done after it last went off is
dropped when its time comes, not delivered: it would nag about what is done.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace
from datetime import timedelta
from zoneinfo import ZoneInfo

from common import Clock, cancel_and_wait
from tasks.engine.changes import acknowledged_since_it_went_off
from tasks.protocols import Delivery, DeliveryStatus, Notifier, QuietHours
from tasks.schedule.model import format_local
from tasks.store.base import HeldDelivery, HoldReason, TaskStore

log = logging.getLogger(__name__)

RELEASE_LEASE = timedelta(minutes=1)
"""How long a releaser holds the deliveries it took before another may take them again."""
RELEASE_BATCH = 200
IDLE_PAUSE = timedelta(seconds=1)
"""The least a releaser waits after a round that found due rows but took none (another
scheduler's, or leased)."""


class HoldingNotifier:
    """Delivers through ``inner``, but keeps what falls in its owner's quiet hours.

    Args:
        inner: Delivers what is not held (and, later, what is released).
        store: Where held deliveries wait.
        quiet: Each owner's quiet hours.
        clock: The current time.
        held: Set when a delivery was held (the releaser learns its time).
    """

    def __init__(
        self,
        inner: Notifier,
        *,
        store: TaskStore,
        quiet: QuietHours,
        clock: Clock,
        held: asyncio.Event,
    ) -> None:
        self.inner = inner
        self._store = store
        self._quiet = quiet
        self._clock = clock
        self._held = held

    async def deliver(self, delivery: Delivery) -> DeliveryStatus:
        """Deliver now, or hold until the owner's quiet hours end (``HELD``)."""
        if delivery.urgent:
            return await self.inner.deliver(delivery)
        now = self._clock.now()
        try:
            until = await self._quiet.quiet_until(delivery.owner_id, now)
        except Exception:
            # Unknown quiet hours never swallow a message: it goes out now.
            log.exception("could not read the quiet hours of %s", delivery.owner_id)
            until = None
        if until is None:
            return await self.inner.deliver(delivery)
        try:
            await self._store.hold(delivery, reason=HoldReason.QUIET, now=now, release_at=until)
        except Exception:
            log.exception("could not hold task %s's message for quiet hours", delivery.task_id)
            return DeliveryStatus.FAILED  # the deliverer tries again
        self._held.set()
        return DeliveryStatus.HELD


def marked(held: HeldDelivery) -> Delivery:
    """A held delivery as it goes out: marked, under its text, as held (since when, and how
    often it came) or snoozed."""
    delivery = held.delivery
    since = format_local(held.held_at, ZoneInfo(held.zone)).split(" ")[-1]
    if held.reason is HoldReason.QUIET:
        mark = f"(held during your quiet hours since {since})"
        if held.repeats:
            mark = f"(held during your quiet hours since {since}; it came {held.repeats + 1} times)"
    else:
        mark = f"(snoozed at {since})"
    return replace(delivery, text=f"{delivery.text}\n{mark}")


class HeldReleaser:
    """Delivers held deliveries when they are due; see the module's docstring.

    Args:
        store: Where they wait.
        notifier: Delivers them (not the ``HoldingNotifier``: they are never held again).
        clock: The source of time; the releaser sleeps on it.
        wake: Set when a delivery was held or its owner's quiet hours ended.
        recheck_every: The longest it sleeps without asking the store (another scheduler may
            have held something).
    """

    def __init__(
        self,
        *,
        store: TaskStore,
        notifier: Notifier,
        clock: Clock,
        wake: asyncio.Event,
        recheck_every: timedelta = timedelta(seconds=30),
    ) -> None:
        self._store = store
        self._notifier = notifier
        self._clock = clock
        self._wake = wake
        self._recheck = recheck_every
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start releasing (no-op when it runs)."""
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._loop(), name="held-deliveries")

    async def stop(self) -> None:
        """Stop releasing (what it took and did not send is taken again later)."""
        task, self._task = self._task, None
        await cancel_and_wait(task)

    async def release_due(self) -> int:
        """Deliver every held delivery due now, together, in the order they were held;
        return how many went out."""
        sent = 0
        while True:
            now = self._clock.now()
            taken = await self._store.claim_held(now, limit=RELEASE_BATCH, lease=RELEASE_LEASE)
            gone: list[HeldDelivery] = []
            dropped = 0
            for held in sorted(taken, key=lambda h: (h.held_at, h.id)):
                if await self._stale(held):
                    # Forgotten unsent, and its run's row is left as it was.
                    gone.append(replace(held, delivery=replace(held.delivery, run_id=None)))
                    dropped += 1
                    continue
                status = await self._send(held)
                if status in (DeliveryStatus.DELIVERED, DeliveryStatus.BLOCKED):
                    gone.append(held)  # a blocked chat will not take it later either
            await self._store.release_held(gone, now)
            sent += len(gone) - dropped
            if len(taken) < RELEASE_BATCH:
                return sent

    async def _stale(self, held: HeldDelivery) -> bool:
        """Whether ``held`` is a nagging reminder's message and the reminder was marked done
        after it last went off: it would nag about what is done, so it is dropped."""
        if not held.delivery.nags:
            return False
        task = await self._store.get_task(held.delivery.task_id)
        if task is None:
            return False
        return acknowledged_since_it_went_off(task, await self._store.last_acknowledged(task.id))

    async def _send(self, held: HeldDelivery) -> DeliveryStatus:
        try:
            status = await self._notifier.deliver(marked(held))
        except Exception:
            log.exception("the notifier raised releasing task %s's message", held.delivery.task_id)
            return DeliveryStatus.FAILED
        if status is DeliveryStatus.FAILED:
            log.warning(
                "could not deliver task %s's held message; trying again in %s",
                held.delivery.task_id,
                RELEASE_LEASE,
            )
        return status

    async def _loop(self) -> None:
        while True:
            self._wake.clear()
            now = self._clock.now()
            try:
                sent = await self.release_due()
                upcoming = await self._store.next_release()
            except Exception:
                log.exception("could not release held deliveries; trying again shortly")
                sent, upcoming = 0, now + IDLE_PAUSE
            deadline = now + self._recheck
            if upcoming is not None:
                # Due rows it could not take (leased): not before the pause, never a spin.
                floor = now + IDLE_PAUSE if upcoming <= now and not sent else upcoming
                deadline = min(deadline, max(upcoming, floor))
            await self._clock.sleep_until(deadline, self._wake)

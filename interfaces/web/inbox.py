"""``WebInbox``: the scheduler's Notifier for web chats, and what open pages read from.

A reminder for a web chat is kept in its owner's inbox (the latest ``keep`` deliveries) and
handed to every page of that owner that listens (``GET /events``); a page that opens later,
or reconnects, asks for what came after the last item it saw. Each delivery is also written
to ``record`` (the JSON Lines file) first, so none is lost when no page is open or the server
restarts: the inbox itself lives in memory.

Item ids are ``BOOT.SEQ``: an id from before a restart (another ``BOOT``) asks for everything
still held.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import secrets
from collections import deque
from dataclasses import dataclass
from datetime import datetime

from common import Clock, SystemClock
from interfaces.notifiers import WEB_CHAT_PREFIX
from tasks import Delivery, DeliveryStatus, Notifier

logger = logging.getLogger(__name__)


def web_chat(name: str) -> str:
    """The chat id of the web conversation ``name``."""
    return WEB_CHAT_PREFIX + name


@dataclass(frozen=True, slots=True)
class InboxItem:
    """One delivery held for a user's pages."""

    id: str
    delivery: Delivery
    delivered_at: datetime


class WebInbox:
    """Holds each user's deliveries to web chats for their pages.

    Args:
        clock: Stamps each delivery.
        record: Gets every delivery first (the JSON Lines file); its failure fails the
            delivery, so the scheduler retries it.
        keep: How many deliveries to hold per user.
    """

    def __init__(
        self, *, clock: Clock | None = None, record: Notifier | None = None, keep: int = 100
    ) -> None:
        self._clock = clock or SystemClock()
        self._record = record
        self._keep = keep
        self._boot = secrets.token_hex(4)
        self._seq = itertools.count(1)
        self._held: dict[str, deque[tuple[int, InboxItem]]] = {}
        self._signals: dict[str, asyncio.Event] = {}

    async def deliver(self, delivery: Delivery) -> DeliveryStatus:
        """Record ``delivery`` and hand it to its owner's pages."""
        if self._record is not None:
            status = await self._record.deliver(delivery)
            if status is not DeliveryStatus.DELIVERED:
                return status
        seq = next(self._seq)
        item = InboxItem(f"{self._boot}.{seq}", delivery, self._clock.now())
        held = self._held.setdefault(delivery.owner_id, deque(maxlen=self._keep))
        held.append((seq, item))
        signal = self._signals.pop(delivery.owner_id, None)
        if signal is not None:
            signal.set()
        return DeliveryStatus.DELIVERED

    def after(self, user_id: str, last_id: str | None) -> list[InboxItem]:
        """The user's held items after ``last_id`` (all of them for ``None`` or an id from
        before a restart)."""
        held = self._held.get(user_id, ())
        boot, _, seq = (last_id or "").partition(".")
        if boot != self._boot or not seq.isdigit():
            return [item for _, item in held]
        last = int(seq)
        return [item for number, item in held if number > last]

    def find(self, user_id: str, item_id: str) -> InboxItem | None:
        """The user's held item ``item_id`` (``None``: not theirs, or no longer held)."""
        return next((item for _, item in self._held.get(user_id, ()) if item.id == item_id), None)

    def latest_id(self, user_id: str) -> str:
        """The id of the user's newest item (what a page that wants only new ones starts at)."""
        held = self._held.get(user_id)
        return held[-1][1].id if held else f"{self._boot}.0"

    async def wait(self, user_id: str, last_id: str | None, *, until: asyncio.Event) -> None:
        """Return once the user has items after ``last_id`` or ``until`` is set."""
        if self.after(user_id, last_id) or until.is_set():
            return
        signal = self._signals.setdefault(user_id, asyncio.Event())
        waiters = {asyncio.ensure_future(signal.wait()), asyncio.ensure_future(until.wait())}
        try:
            await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiter in waiters:
                waiter.cancel()

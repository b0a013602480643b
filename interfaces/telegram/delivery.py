"""The scheduler's Notifier for Telegram: every delivery with Snooze 10 min / 1 h / Tomorrow
morning, reminders with Done, notices about a run whose outcome is unknown with Run again
(``interfaces.deliveries``)."""

from __future__ import annotations

import logging

from telegram import Bot

from common import Clock
from interfaces.deliveries import delivery_buttons
from interfaces.telegram.queue import OutgoingQueue, RateLimits
from tasks import Delivery, DeliveryKind, DeliveryStatus

logger = logging.getLogger(__name__)

DEFAULT_BASE_URL = "https://api.telegram.org/bot"


REMINDER_MARK = "⏰ Reminder: "
NOTICE_MARK = "ℹ️ "


def delivery_text(delivery: Delivery) -> str:
    """The text a delivery is shown with: a marker by kind (a late run's text says so itself)."""
    if delivery.kind is DeliveryKind.REMINDER:
        text = f"{REMINDER_MARK}{delivery.text}"
    elif delivery.kind is DeliveryKind.NOTICE:
        text = f"{NOTICE_MARK}{delivery.text}"
    else:
        text = delivery.text
    return text


class TelegramNotifier:
    """The scheduler's ``Notifier`` for Telegram chats.

    Every delivery arrives with [Snooze 10 min] [Snooze 1 h] [Tomorrow morning]; a
    reminder with [Done] too, a notice about a run whose outcome is unknown with [Run again].

    Args:
        queue: The outgoing queue shared with the bot's own replies.
    """

    def __init__(self, queue: OutgoingQueue) -> None:
        self.queue = queue

    @classmethod
    def create(
        cls,
        *,
        token: str,
        base_url: str = DEFAULT_BASE_URL,
        limits: RateLimits | None = None,
        clock: Clock | None = None,
    ) -> TelegramNotifier:
        """Return a notifier with its own bot and queue (the bot initializes on first send).

        Args:
            token: The bot token.
            base_url: The Bot API base URL (python-telegram-bot's ``base_url``).
            limits: Pacing and retry settings.
            clock: Time source and sleeper.
        """
        bot = Bot(token, base_url=base_url, base_file_url=file_url(base_url))
        return cls(OutgoingQueue(bot, limits=limits, clock=clock))

    async def aclose(self) -> None:
        """Stop sending and disconnect the bot (for a notifier used without the bot's app)."""
        await self.queue.shutdown()

    async def deliver(self, delivery: Delivery) -> DeliveryStatus:
        """Send ``delivery`` to its chat and say how it went; never raises for send failures."""
        try:
            chat_id = int(delivery.chat_id)
        except ValueError:
            logger.error(
                "task %s: chat %r is not a Telegram chat id; it cannot be delivered here",
                delivery.task_id,
                delivery.chat_id,
            )
            return DeliveryStatus.BLOCKED
        buttons = delivery_buttons(delivery)
        outcome = await self.queue.send(chat_id, delivery_text(delivery), buttons=buttons)
        if outcome.status is not DeliveryStatus.DELIVERED:
            logger.warning(
                "task %s run %s to chat %s: %s (%s)",
                delivery.task_id,
                delivery.run_id,
                chat_id,
                outcome.status,
                outcome.error,
            )
        return outcome.status


def file_url(base_url: str) -> str:
    """Where files are downloaded from, for the Bot API at ``base_url``: ``.../file/bot``
    beside ``.../bot`` (Telegram's own, and a local Bot API server's, layout)."""
    head, bot, tail = base_url.rstrip("/").rpartition("/bot")
    if not bot or tail:
        return "https://api.telegram.org/file/bot"
    return f"{head}/file/bot"

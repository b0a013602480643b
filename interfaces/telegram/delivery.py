"""The scheduler's Notifier for Telegram: reminders with Snooze/Done, results, notices (with
Run again when a run's outcome is unknown)."""

from __future__ import annotations

import logging

from telegram import Bot

from common import Clock
from interfaces.messages import Action, ActionKind, Button, ButtonRows
from interfaces.telegram.queue import OutgoingQueue, RateLimits
from tasks import DEFAULT_SNOOZE, Delivery, DeliveryKind, DeliveryStatus

logger = logging.getLogger(__name__)

DEFAULT_BASE_URL = "https://api.telegram.org/bot"


def reminder_buttons(task_id: str) -> ButtonRows:
    """The buttons under a delivered reminder: Snooze 10 min and Done."""
    return (
        (
            Button("Snooze 10 min", Action(ActionKind.SNOOZE, task_id, DEFAULT_SNOOZE)),
            Button("Done", Action(ActionKind.DONE, task_id)),
        ),
    )


def run_again_buttons(task_id: str, run_id: int | None) -> ButtonRows:
    """The button under a notice about a run whose outcome is unknown: Run again (bound to
    that run, so that a second tap does not run it a third time)."""
    bound = "" if run_id is None else str(run_id)
    return ((Button("Run again", Action(ActionKind.RUN_AGAIN, task_id, bound)),),)


def delivery_buttons(delivery: Delivery) -> ButtonRows:
    """The buttons a delivery arrives with."""
    if delivery.kind is DeliveryKind.REMINDER:
        return reminder_buttons(delivery.task_id)
    if delivery.run_again:
        return run_again_buttons(delivery.task_id, delivery.run_id)
    return ()


def delivery_text(delivery: Delivery) -> str:
    """The text a delivery is shown with: a marker by kind (a late run's text says so itself)."""
    if delivery.kind is DeliveryKind.REMINDER:
        text = f"⏰ Reminder: {delivery.text}"
    elif delivery.kind is DeliveryKind.NOTICE:
        text = f"ℹ️ {delivery.text}"
    else:
        text = delivery.text
    return text


class TelegramNotifier:
    """The scheduler's ``Notifier`` for Telegram chats.

    Reminders arrive with [Snooze 10 min] [Done]; a notice about a run whose outcome is
    unknown with [Run again]; results and other notices as plain messages.

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

"""The Telegram interface: the bot, the scheduler's Telegram notifier and the outgoing queue."""

from __future__ import annotations

from interfaces.telegram.bot import (
    ChatAgent,
    TelegramInterface,
    TelegramSetupError,
    WebhookConfig,
)
from interfaces.telegram.delivery import DEFAULT_BASE_URL, TelegramNotifier
from interfaces.telegram.queue import OutgoingQueue, RateLimits, SendOutcome, Timekeeper

__all__ = [
    "DEFAULT_BASE_URL",
    "ChatAgent",
    "OutgoingQueue",
    "RateLimits",
    "SendOutcome",
    "TelegramInterface",
    "TelegramNotifier",
    "TelegramSetupError",
    "Timekeeper",
    "WebhookConfig",
]

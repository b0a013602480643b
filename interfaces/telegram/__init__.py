"""The Telegram interface: the bot, the scheduler's Telegram notifier and the outgoing queue."""

from __future__ import annotations

from interfaces.telegram.bot import (
    TelegramInterface,
    TelegramSetupError,
    WebhookConfig,
)
from interfaces.telegram.delivery import DEFAULT_BASE_URL, TelegramNotifier
from interfaces.telegram.queue import OutgoingQueue, RateLimits, SendOutcome

__all__ = [
    "DEFAULT_BASE_URL",
    "OutgoingQueue",
    "RateLimits",
    "SendOutcome",
    "TelegramInterface",
    "TelegramNotifier",
    "TelegramSetupError",
    "WebhookConfig",
]

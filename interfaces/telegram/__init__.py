"""The Telegram interface: the bot, the scheduler's Telegram notifier, the outgoing queue, and
replies that grow in place while the model writes them."""

from __future__ import annotations

from interfaces.telegram.bot import (
    TelegramInterface,
    TelegramSetupError,
    WebhookConfig,
)
from interfaces.telegram.delivery import DEFAULT_BASE_URL, TelegramNotifier
from interfaces.telegram.live import LIVE_INTERVAL, DraftSupport, LiveReply
from interfaces.telegram.queue import OutgoingQueue, RateLimits, SendOutcome

__all__ = [
    "DEFAULT_BASE_URL",
    "LIVE_INTERVAL",
    "DraftSupport",
    "LiveReply",
    "OutgoingQueue",
    "RateLimits",
    "SendOutcome",
    "TelegramInterface",
    "TelegramNotifier",
    "TelegramSetupError",
    "WebhookConfig",
]

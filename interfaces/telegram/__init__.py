"""The Telegram interface: the bot, the scheduler's Telegram notifier, the outgoing queue, and
replies that grow in place while the model writes them."""

from __future__ import annotations

from interfaces.telegram.bot import (
    INVALID_BUTTON,
    TelegramInterface,
    TelegramSetupError,
    WebhookConfig,
)
from interfaces.telegram.delivery import DEFAULT_BASE_URL, TelegramNotifier
from interfaces.telegram.live import LIVE_INTERVAL, DraftSupport, LiveReply
from interfaces.telegram.queue import OutgoingQueue, RateLimits, SendOutcome
from interfaces.telegram.rendering import (
    MAX_CALLBACK_DATA,
    decode_action,
    encode_action,
    keyboard,
    split_text,
    truncate,
    utf16_len,
)

__all__ = [
    "DEFAULT_BASE_URL",
    "INVALID_BUTTON",
    "LIVE_INTERVAL",
    "MAX_CALLBACK_DATA",
    "DraftSupport",
    "LiveReply",
    "OutgoingQueue",
    "RateLimits",
    "SendOutcome",
    "TelegramInterface",
    "TelegramNotifier",
    "TelegramSetupError",
    "WebhookConfig",
    "decode_action",
    "encode_action",
    "keyboard",
    "split_text",
    "truncate",
    "utf16_len",
]

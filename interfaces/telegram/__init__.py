"""The Telegram interface: the bot, the scheduler's Telegram notifier and the outgoing queue."""

from __future__ import annotations

from interfaces.telegram.bot import (
    INVALID_BUTTON,
    TelegramInterface,
    TelegramSetupError,
    WebhookConfig,
)
from interfaces.telegram.delivery import DEFAULT_BASE_URL, TelegramNotifier
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
    "MAX_CALLBACK_DATA",
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

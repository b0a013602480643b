"""The outgoing queue: every message to Telegram goes out under Telegram's limits.

Telegram allows about 30 messages a second overall and one a second per chat, tolerating
short bursts; beyond that it answers 429 with ``retry_after``. ``OutgoingQueue`` paces sends
with token buckets (per chat and overall), keeps each chat's messages in order, waits out a
429 for exactly as long as Telegram asks, retries network errors with backoff, and reports
a user who blocked the bot as ``BLOCKED`` instead of retrying forever.
"""

from __future__ import annotations

import asyncio
import logging
import warnings
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import partial
from typing import TypeVar

from telegram import Bot
from telegram.error import (
    BadRequest,
    Forbidden,
    InvalidToken,
    NetworkError,
    RetryAfter,
    TelegramError,
)
from telegram.warnings import PTBDeprecationWarning

from common import Clock, SystemClock
from interfaces.messages import ButtonRows
from interfaces.telegram.rendering import keyboard, split_text
from tasks import DeliveryStatus

logger = logging.getLogger(__name__)
T = TypeVar("T")

_EPSILON = 1e-3  # of a token
_MIN_WAIT = 0.001  # seconds
_UNREACHABLE = ("chat not found", "user is deactivated", "peer_id_invalid")


@dataclass(frozen=True, slots=True)
class RateLimits:
    """How fast and how persistently the queue sends.

    Attributes:
        overall_per_second: Messages per second across all chats.
        per_chat_per_second: Messages per second to one chat.
        per_chat_burst: Messages one chat may get back to back before pacing starts.
        network_retries: Retries after a network error before giving up.
        backoff: The first wait after a network error, doubled on each retry.
        max_backoff: The longest wait between network retries.
        max_retry_after: The longest 429 wait honoured; a longer one fails the send.
        rate_limit_retries: How many 429 answers in a row one message may get.
    """

    overall_per_second: float = 30.0
    per_chat_per_second: float = 1.0
    per_chat_burst: int = 3
    network_retries: int = 4
    backoff: float = 1.0
    max_backoff: float = 30.0
    max_retry_after: float = 120.0
    rate_limit_retries: int = 5


@dataclass(slots=True)
class _Bucket:
    rate: float
    capacity: float
    tokens: float
    stamp: datetime

    def wait(self, now: datetime) -> float:
        """Refill to ``now``; return the seconds until one token is available."""
        elapsed = max(0.0, (now - self.stamp).total_seconds())
        self.tokens = min(self.capacity, self.tokens + elapsed * self.rate)
        self.stamp = now
        # Clocks count in microseconds: allow for rounding, or a waiter could spin forever.
        return 0.0 if self.tokens >= 1 - _EPSILON else (1 - self.tokens) / self.rate


@dataclass(slots=True)
class _Lane:
    bucket: _Bucket
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    hold_until: datetime | None = None  # a 429 asked us to wait until then


@dataclass(frozen=True, slots=True)
class SendOutcome:
    """How sending one text went.

    Attributes:
        status: Delivered, failed (may be retried later) or blocked (unreachable).
        message_ids: The ids of the messages sent (one per chunk that went out).
        error: What went wrong, for the log and the ledger.
    """

    status: DeliveryStatus
    message_ids: tuple[int, ...] = ()
    error: str | None = None


class _SendFailed(Exception):
    def __init__(self, status: DeliveryStatus, error: str, *, unchanged: bool = False) -> None:
        super().__init__(error)
        self.status = status
        self.error = error
        self.unchanged = unchanged


def _bad_request(error: BadRequest) -> _SendFailed:
    """Classify a 400: an unreachable chat is BLOCKED, anything else FAILED."""
    text = error.message.lower()
    if any(s in text for s in _UNREACHABLE):
        return _SendFailed(
            DeliveryStatus.BLOCKED, f"Telegram cannot reach the chat: {error.message}"
        )
    return _SendFailed(
        DeliveryStatus.FAILED,
        f"Telegram rejected the message: {error.message}",
        unchanged="message is not modified" in text,
    )


class OutgoingQueue:
    """Sends text to chats under Telegram's limits.

    Args:
        bot: The python-telegram-bot ``Bot`` to send with (initialized by its owner).
        limits: Pacing and retry settings.
        clock: Time source and sleeper (tests pass a manual clock).
    """

    _MAX_IDLE_LANES = 1000

    def __init__(
        self, bot: Bot, *, limits: RateLimits | None = None, clock: Clock | None = None
    ) -> None:
        self._bot = bot
        self._limits = limits or RateLimits()
        self._clock = clock or SystemClock()
        now = self._clock.now()
        self._overall = _Bucket(
            self._limits.overall_per_second,
            self._limits.overall_per_second,
            self._limits.overall_per_second,
            now,
        )
        self._lanes: dict[int, _Lane] = {}
        self._closed = False

    @property
    def bot(self) -> Bot:
        """The bot the queue sends with."""
        return self._bot

    @property
    def clock(self) -> Clock:
        """The queue's time source."""
        return self._clock

    async def close(self) -> None:
        """Stop sending: later sends fail (and the scheduler retries them later)."""
        self._closed = True

    async def shutdown(self) -> None:
        """Stop sending and release the bot's connections (``Bot.shutdown`` is idempotent)."""
        self._closed = True
        await self._bot.shutdown()

    async def send(self, chat_id: int, text: str, *, buttons: ButtonRows = ()) -> SendOutcome:
        """Send ``text`` (split at 4096 on paragraph boundaries), buttons on the last chunk.

        Never raises for Telegram or network failures; the outcome says what happened.
        """
        chunks = split_text(text) or ["(empty message)"]
        markup = keyboard(buttons)
        lane = self._lane(chat_id)
        sent: list[int] = []
        async with lane.lock:
            for index, chunk in enumerate(chunks):
                reply_markup = markup if index == len(chunks) - 1 else None
                try:
                    message = await self._attempt(
                        chat_id,
                        lane,
                        partial(self._bot.send_message, chat_id, chunk, reply_markup=reply_markup),
                    )
                except _SendFailed as failure:
                    return SendOutcome(failure.status, tuple(sent), failure.error)
                sent.append(message.message_id)
        return SendOutcome(DeliveryStatus.DELIVERED, tuple(sent))

    async def edit(
        self, chat_id: int, message_id: int, text: str, *, buttons: ButtonRows = ()
    ) -> SendOutcome:
        """Replace a message's text and buttons (text cut to one message's length).

        An edit that changes nothing counts as done.
        """
        chunks = split_text(text) or ["(empty message)"]
        markup = keyboard(buttons)
        lane = self._lane(chat_id)
        async with lane.lock:
            try:
                await self._attempt(
                    chat_id,
                    lane,
                    lambda: self._bot.edit_message_text(
                        chunks[0], chat_id=chat_id, message_id=message_id, reply_markup=markup
                    ),
                )
            except _SendFailed as failure:
                if failure.unchanged:
                    return SendOutcome(DeliveryStatus.DELIVERED, (message_id,))
                return SendOutcome(failure.status, (), failure.error)
        return SendOutcome(DeliveryStatus.DELIVERED, (message_id,))

    async def draft(self, chat_id: int, draft_id: int, text: str) -> SendOutcome:
        """Show ``text`` as the chat's message draft ``draft_id`` (Bot API ``sendMessageDraft``:
        a reply growing in a private chat); the text is cut to one message's length.

        Paced like every send. Never raises; a Bot API server without the method fails.
        """
        shown = (split_text(text) or ["…"])[0]
        lane = self._lane(chat_id)
        async with lane.lock:
            try:
                await self._attempt(
                    chat_id, lane, partial(self._bot.send_message_draft, chat_id, draft_id, shown)
                )
            except _SendFailed as failure:
                return SendOutcome(failure.status, (), failure.error)
        return SendOutcome(DeliveryStatus.DELIVERED)

    async def delete(self, chat_id: int, message_id: int) -> SendOutcome:
        """Delete a message the bot sent. Paced like every send; never raises."""
        lane = self._lane(chat_id)
        async with lane.lock:
            try:
                await self._attempt(
                    chat_id, lane, partial(self._bot.delete_message, chat_id, message_id)
                )
            except _SendFailed as failure:
                return SendOutcome(failure.status, (), failure.error)
        return SendOutcome(DeliveryStatus.DELIVERED, (message_id,))

    async def chat_action(self, chat_id: int, action: str = "typing") -> None:
        """Show "typing..." (or another action) once; failures only go to the log."""
        if self._closed:
            return
        try:
            await self._ready()
            await self._bot.send_chat_action(chat_id, action)
        except TelegramError as error:
            logger.info("could not show %r in chat %s: %s", action, chat_id, error)

    async def _ready(self) -> None:
        """Initialize the bot on first use (idempotent in python-telegram-bot)."""
        await self._bot.initialize()

    async def _attempt(self, chat_id: int, lane: _Lane, call: Callable[[], Awaitable[T]]) -> T:
        """Run one Bot API call under the limits, retrying what can be retried."""
        if self._closed:
            raise _SendFailed(DeliveryStatus.FAILED, "the Telegram bot is stopped")
        network_failures = 0
        rate_limited = 0
        while True:
            await self._pace(lane)
            try:
                await self._ready()
                return await call()
            except RetryAfter as error:
                rate_limited += 1
                self._hold(chat_id, lane, error, rate_limited)
            except Forbidden as error:
                raise _SendFailed(
                    DeliveryStatus.BLOCKED, f"Telegram refused: {error.message}"
                ) from error
            except BadRequest as error:
                raise _bad_request(error) from error
            except InvalidToken:
                # Its message quotes the token: keep it out of the ledger and the logs.
                raise _SendFailed(
                    DeliveryStatus.FAILED, "Telegram did not accept the bot token"
                ) from None
            except NetworkError as error:
                network_failures += 1
                await self._back_off(chat_id, error, network_failures)
            except TelegramError as error:
                raise _SendFailed(
                    DeliveryStatus.FAILED, f"Telegram error: {error.message}"
                ) from error

    def _hold(self, chat_id: int, lane: _Lane, error: RetryAfter, count: int) -> None:
        """Record a 429: this chat waits as long as Telegram asked."""
        seconds = _retry_after_seconds(error)
        if seconds > self._limits.max_retry_after or count > self._limits.rate_limit_retries:
            raise _SendFailed(
                DeliveryStatus.FAILED,
                f"Telegram rate-limited chat {chat_id} (retry after {seconds:g} s, "
                f"{count} times in a row); giving up for now",
            )
        logger.info("429 for chat %s: waiting %s s as Telegram asked", chat_id, seconds)
        lane.hold_until = self._clock.now() + timedelta(seconds=seconds)

    async def _back_off(self, chat_id: int, error: NetworkError, count: int) -> None:
        if count > self._limits.network_retries:
            raise _SendFailed(
                DeliveryStatus.FAILED,
                f"network error sending to chat {chat_id} after {count} attempts: {error.message}",
            )
        delay = min(self._limits.max_backoff, self._limits.backoff * 2 ** (count - 1))
        logger.warning(
            "network error sending to chat %s (%s); retry in %s s", chat_id, error, delay
        )
        await self._clock.sleep(delay)

    async def _pace(self, lane: _Lane) -> None:
        """Wait until this chat's bucket, the overall bucket and any 429 hold allow a send."""
        while True:
            now = self._clock.now()
            held = (lane.hold_until - now).total_seconds() if lane.hold_until else 0.0
            wait = max(held, lane.bucket.wait(now), self._overall.wait(now))
            if wait <= 0:
                lane.bucket.tokens = max(0.0, lane.bucket.tokens - 1)
                self._overall.tokens = max(0.0, self._overall.tokens - 1)
                lane.hold_until = None
                return
            await self._clock.sleep(max(wait, _MIN_WAIT))

    def _lane(self, chat_id: int) -> _Lane:
        lane = self._lanes.get(chat_id)
        if lane is None:
            if len(self._lanes) >= self._MAX_IDLE_LANES:
                self._forget_idle_lanes()
            limits = self._limits
            bucket = _Bucket(
                limits.per_chat_per_second,
                limits.per_chat_burst,
                limits.per_chat_burst,
                self._clock.now(),
            )
            lane = self._lanes[chat_id] = _Lane(bucket)
        return lane

    def _forget_idle_lanes(self) -> None:
        now = self._clock.now()
        for chat_id, lane in list(self._lanes.items()):
            idle = not lane.lock.locked() and lane.bucket.wait(now) == 0
            if idle and lane.bucket.tokens >= lane.bucket.capacity and lane.hold_until is None:
                del self._lanes[chat_id]


def _retry_after_seconds(error: RetryAfter) -> float:
    """Read ``retry_after`` as seconds whichever type python-telegram-bot gives.

    python-telegram-bot 22 warns on reading it unless PTB_TIMEDELTA opts into timedeltas;
    both types are handled here, so the warning says nothing we need.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PTBDeprecationWarning)
        value = error.retry_after
    return value.total_seconds() if isinstance(value, timedelta) else float(value)

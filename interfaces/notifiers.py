"""Notifiers that deliver the scheduler's messages, whichever front end runs.

    RoutingNotifier   each delivery to the interface its chat belongs to
    JsonlNotifier     appends deliveries to a JSON Lines file (headless servers, tests)
    LoggingNotifier   for processes that deliver nothing (``assistant ask``): says so, fails
    ChatRecorder      writes each delivered message into its chat's conversation

The terminal's and Telegram's own notifiers live with their interfaces.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Protocol

from common import Clock, SystemClock, make_private_dir, open_private
from memory import FROM_OUTSIDE, MessageRole, StoredMessage
from tasks import Delivery, DeliveryKind, DeliveryStatus, Notifier

logger = logging.getLogger(__name__)

DELIVERY = "delivery"
"""The ``name`` of a delivered message in a conversation (``ChatRecorder``): the page's
history leaves these out, since the page shows deliveries from its inbox."""

WEB_CHAT_PREFIX = "web:"
"""The chat ids of the web page's conversations start with this (``web:main``): their
deliveries go to the web front end when it runs, else to the fallback file."""
WEB_MAIN_CHAT = "main"
"""The name of the web page's default conversation (its chat id is ``web:main``)."""


def home_chat(user_id: str, *, local_user: str = "local", local_chat: str = "local") -> str:
    """The chat a user's deliveries go to when they act from outside every chat (over MCP).

    A numeric id is a Telegram user's, whose private chat with the bot has the same id; the
    terminal's user (``local_user``) has ``local_chat``; anyone else (a user of an API token)
    has the web page's default conversation, ``web:main``.
    """
    if user_id.isascii() and user_id.isdigit():
        return user_id
    if user_id == local_user:
        return local_chat
    return WEB_CHAT_PREFIX + WEB_MAIN_CHAT


def front_end_of(chat_id: str, *, local_chat: str = "local") -> str:
    """Which front end a chat belongs to, in words: ``Telegram``, ``the page``,
    ``the terminal`` (what an acknowledgement's record says it came from)."""
    if chat_id.startswith(WEB_CHAT_PREFIX):
        return "the page"
    if chat_id == local_chat:
        return "the terminal"
    if chat_id.lstrip("-").isdigit():
        return "Telegram"
    return f"chat {chat_id}"


class RoutingNotifier:
    """Delivers the terminal's chat locally and every other chat through ``remote``.

    Whatever front end runs the scheduler, a reminder reaches the place it was made for: the
    terminal prints only the terminal user's messages, and a Telegram user's reminder goes to
    Telegram even while only ``assistant chat`` runs. A chat no attached interface serves goes
    to ``fallback`` (a JSON Lines file), never nowhere.

    Args:
        local_chat: The chat id of the terminal.
        local: Delivers the terminal's messages (the terminal, or the fallback file).
        remote: Delivers every other chat's messages (Telegram), if configured.
        fallback: Where messages go that no attached interface serves.
        prefixed: Notifiers for the chats whose ids start with a prefix (``"web:"``: the web
            page's chats), asked before the others.
    """

    def __init__(
        self,
        *,
        local_chat: str,
        local: Notifier,
        remote: Notifier | None,
        fallback: Notifier,
        prefixed: Mapping[str, Notifier] | None = None,
    ) -> None:
        self._local_chat = local_chat
        self._local = local
        self._remote = remote
        self._fallback = fallback
        self._prefixed = dict(prefixed or {})
        self._told: set[str] = set()  # the chats the log already named as not served

    @property
    def remote(self) -> Notifier | None:
        """The notifier of the other chats (Telegram's), if configured."""
        return self._remote

    async def deliver(self, delivery: Delivery) -> DeliveryStatus:
        for prefix, notifier in self._prefixed.items():
            if delivery.chat_id.startswith(prefix):
                return await notifier.deliver(delivery)
        if delivery.chat_id == self._local_chat:
            return await self._local.deliver(delivery)
        if self._remote is not None:
            return await self._remote.deliver(delivery)
        if delivery.chat_id not in self._told:
            self._told.add(delivery.chat_id)
            logger.warning(
                "chat %s is not served by this process: its messages go to the fallback file "
                "(set TELEGRAM_BOT_TOKEN to deliver them to Telegram)",
                delivery.chat_id,
            )
        return await self._fallback.deliver(delivery)


DEFAULT_SINK_BYTES = 10_000_000
"""How large a JSON Lines delivery file grows before it is rotated."""
DEFAULT_SINK_KEEP = 3
"""How many rotated delivery files are kept."""


class JsonlNotifier:
    """Appends each delivery as one JSON object per line, flushed to disk before it counts.

    Each line holds ``task_id``, ``run_id``, ``owner_id``, ``chat_id``, ``kind``, ``text``,
    ``late_by_seconds`` (or null) and ``delivered_at`` (ISO 8601, UTC). The file is private
    to its user (0600). A line that would take the file over ``max_bytes`` starts a new one:
    the file becomes ``NAME.1`` (``NAME.1`` becomes ``NAME.2`` ...), and only ``keep`` such
    older files are kept, so the files never hold more than ``(keep + 1) * max_bytes``.

    Args:
        path: The file.
        clock: Stamps each line.
        max_bytes: How large the file grows before it is rotated.
        keep: How many rotated files are kept (0: none).
    """

    def __init__(
        self,
        path: Path,
        *,
        clock: Clock | None = None,
        max_bytes: int = DEFAULT_SINK_BYTES,
        keep: int = DEFAULT_SINK_KEEP,
    ) -> None:
        self.path = path
        self._clock = clock or SystemClock()
        self._max_bytes = max_bytes
        self._keep = keep
        self._lock = asyncio.Lock()

    async def deliver(self, delivery: Delivery) -> DeliveryStatus:
        line = json.dumps(
            {
                "task_id": delivery.task_id,
                "run_id": delivery.run_id,
                "owner_id": delivery.owner_id,
                "chat_id": delivery.chat_id,
                "kind": delivery.kind.value,
                "text": delivery.text,
                "late_by_seconds": (
                    delivery.late_by.total_seconds() if delivery.late_by is not None else None
                ),
                "delivered_at": self._clock.now().isoformat(),
            },
            ensure_ascii=False,
        )
        async with self._lock:
            try:
                await asyncio.to_thread(self._append, line)
            except OSError:
                logger.exception("could not append a delivery to %s", self.path)
                return DeliveryStatus.FAILED
        return DeliveryStatus.DELIVERED

    def _append(self, line: str) -> None:
        make_private_dir(self.path.parent)
        self._rotate_for(len(line.encode()) + 1)
        with open_private(self.path) as sink:
            sink.write(line + "\n")
            sink.flush()
            os.fsync(sink.fileno())

    def _rotate_for(self, size: int) -> None:
        """Start a new file when ``size`` more bytes would take this one over the limit."""
        try:
            held = self.path.stat().st_size
        except FileNotFoundError:
            return
        if held == 0 or held + size <= self._max_bytes:
            return
        if self._keep == 0:
            self.path.unlink()
            return
        self._older(self._keep).unlink(missing_ok=True)
        for number in range(self._keep - 1, 0, -1):
            if self._older(number).exists():
                self._older(number).rename(self._older(number + 1))
        self.path.rename(self._older(1))
        logger.info("%s reached %d bytes: it is now %s", self.path, held, self._older(1).name)

    def _older(self, number: int) -> Path:
        return self.path.with_name(f"{self.path.name}.{number}")


class LoggingNotifier:
    """The notifier of processes that deliver nothing (``ask``, ``tasks``): it says so in the
    log and reports the delivery as failed, so the ledger never claims a delivery."""

    async def deliver(self, delivery: Delivery) -> DeliveryStatus:
        logger.warning(
            "no interface is attached to deliver task %s's message to chat %s",
            delivery.task_id,
            delivery.chat_id,
        )
        return DeliveryStatus.FAILED


class Conversations(Protocol):
    """Where a chat's conversation is kept (``memory.MemoryStore``)."""

    async def append_turn(
        self, user_id: str, chat_id: str, messages: Sequence[StoredMessage]
    ) -> int: ...

    async def load_conversation(self, user_id: str, chat_id: str) -> list[StoredMessage]: ...


class ChatRecorder:
    """Delivers through ``inner``, then writes what was delivered into the chat's
    conversation, as the assistant's message.

    A reminder that went off is part of the chat: "snooze it" right after it means that
    reminder, whether the offline planner or a model reads the conversation. The record
    names the task ("Reminder (task k3m9xa): stretch"). A delivery that failed is not
    recorded (it is retried); a record that cannot be written is logged and the delivery
    still counts, so nothing is sent twice. What it recorded is what the task manager
    shows again when a task that is not a reminder is snoozed (``last_delivered``).

    Args:
        inner: Delivers the messages.
        conversations: Where the chats' conversations are kept.
    """

    def __init__(self, inner: Notifier, *, conversations: Conversations) -> None:
        self._inner = inner
        self._conversations = conversations

    async def deliver(self, delivery: Delivery) -> DeliveryStatus:
        status = await self._inner.deliver(delivery)
        if status is DeliveryStatus.DELIVERED:
            # A task's result or a notice about it (which may quote a server's answer) is
            # text from outside: later turns must know (``FROM_OUTSIDE``). A reminder is the
            # user's own words.
            outside = delivery.kind is not DeliveryKind.REMINDER
            name = f"{DELIVERY},{FROM_OUTSIDE}" if outside else DELIVERY
            said = StoredMessage(MessageRole.ASSISTANT, recorded_text(delivery), name=name)
            try:
                await self._conversations.append_turn(delivery.owner_id, delivery.chat_id, [said])
            except Exception:
                logger.exception(
                    "task %s was delivered, but its message could not be added to chat %s",
                    delivery.task_id,
                    delivery.chat_id,
                )
        return status

    async def last_delivered(
        self, *, task_id: str, owner_id: str, chat_id: str, since: datetime
    ) -> Delivery | None:
        """The task's newest message recorded in the chat at ``since`` or later, as it was
        delivered (``tasks.DeliveredMessages``)."""
        said = await self._conversations.load_conversation(owner_id, chat_id)
        for message in reversed(said):
            recorded = message.created_at is None or message.created_at >= since
            if not recorded:
                return None  # older still, turn by turn
            if not (message.name or "").startswith(DELIVERY):
                continue
            found = delivered_of(message.content, task_id=task_id)
            if found is not None:
                kind, text = found
                return Delivery(task_id, None, owner_id, chat_id, kind, text)
        return None


def recorded_text(delivery: Delivery) -> str:
    """A delivered message as its chat's conversation keeps it, naming its task."""
    return dict(_recorded_heads(delivery.task_id))[delivery.kind] + delivery.text


def _recorded_heads(task_id: str) -> tuple[tuple[DeliveryKind, str], ...]:
    """How ``recorded_text`` begins a message of the task, by kind."""
    return (
        (DeliveryKind.REMINDER, f"Reminder (task {task_id}): "),
        (DeliveryKind.RESULT, f"Result of task {task_id}:\n"),
        (DeliveryKind.NOTICE, f"Notice about task {task_id}: "),
    )


def delivered_of(recorded: str, *, task_id: str) -> tuple[DeliveryKind, str] | None:
    """The kind and text of a message ``recorded_text`` wrote for the task, or ``None``
    when ``recorded`` is not one of its messages."""
    for kind, head in _recorded_heads(task_id):
        if recorded.startswith(head):
            return kind, recorded.removeprefix(head)
    return None

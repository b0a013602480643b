"""The Telegram bot: python-telegram-bot's Application wired to the agent and the commands.

The bot shares the event loop with the TaskManager: ``start`` runs the Application's
``initialize``/``start`` and its updater (long polling, or a webhook), ``stop`` undoes them.
The order of handlers is the bot's security model: the allowlist gate runs first and stops
everything for a stranger (one short reply, nothing stored, no tool run). A reply grows in
place while the model writes it (``interfaces.telegram.live``).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import re
import secrets
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from telegram import BotCommand, CallbackQuery, Document, Message, Update
from telegram.constants import ChatType
from telegram.error import BadRequest, InvalidToken, NetworkError, TelegramError
from telegram.ext import (
    Application,
    ApplicationBuilder,
    ApplicationHandlerStop,
    CallbackQueryHandler,
    MessageHandler,
    TypeHandler,
    filters,
)

from calendars import Calendars
from common import AsyncLifecycle, Clock, KeyedLocks
from interfaces.commands import SlashCommands
from interfaces.messages import Action, ActionKind, ActionOutcome, Reply
from interfaces.protocols import ChatAgent
from interfaces.quiet import QuietHoursBook
from interfaces.telegram.delivery import DEFAULT_BASE_URL, NOTICE_MARK, TelegramNotifier
from interfaces.telegram.live import LIVE_INTERVAL, DraftSupport, LiveReply
from interfaces.telegram.rendering import decode_action, truncate
from interfaces.views import agent_replies
from memory import MemoryStore
from tasks import Delivery, DeliveryKind, TaskManager

logger = logging.getLogger(__name__)

TYPING_REFRESH = 4.0  # seconds; Telegram shows "typing..." for about 5 s
STRANGER_COOLDOWN = timedelta(minutes=10)
_MAX_ALERT = 200  # answerCallbackQuery text limit
_MAX_TRACKED = 1000
INVALID_BUTTON = "This button is not valid (any more). Send /tasks or /approvals for fresh ones."
NOT_TEXT = "I can only read text messages. Write what you need, or send /help."
NOT_A_CALENDAR = (
    "I read text messages, and calendar files (.ics) to turn their events with alarms into "
    "reminders; this file is neither. Write what you need, or send /help."
)

AnyApplication = Application[Any, Any, Any, Any, Any, Any]


class TelegramSetupError(Exception):
    """The bot cannot start: bad token, unreachable Bot API, or a missing webhook extra."""


@dataclass(frozen=True, slots=True)
class WebhookConfig:
    """Receive updates by webhook (a server behind HTTPS) instead of long polling.

    Attributes:
        url: The public HTTPS URL Telegram posts updates to.
        listen: The address the local web server binds.
        port: The port it listens on.
        path: The URL path it serves (usually the path part of ``url``).
        secret_token: Checked on every request, so only Telegram can post updates.
    """

    url: str
    listen: str = "0.0.0.0"  # a webhook server must accept Telegram's requests
    port: int = 8443
    path: str = ""
    secret_token: str | None = None


def stranger_text(user_id: int) -> str:
    """The one reply a user who is not allowed gets."""
    return (
        f"Sorry, this is a private assistant. Your Telegram user id is {user_id}. "
        f"If this is your bot, add {user_id} to TELEGRAM_ALLOWED_USERS (comma-separated ids) "
        "and restart it."
    )


class TelegramInterface(AsyncLifecycle):
    """The assistant as a Telegram bot.

    Args:
        token: The bot token from @BotFather.
        base_url: The Bot API base URL (python-telegram-bot's ``base_url``).
        allowed_users: Telegram user ids that may use the bot; everyone else is refused.
        agent: Answers messages and decides approvals.
        tasks: The task manager (for /tasks and the buttons).
        memory: The memory store (zones, notes, approval requests).
        notifier: The scheduler's Telegram notifier, whose queue the bot's replies share;
            made from ``token`` and ``base_url`` when not given.
        commands: The slash commands; built from ``tasks``, ``memory``, ``agent`` and
            ``calendars`` by default.
        calendars: The calendars: ``/calendar``, and .ics files sent to the bot.
        webhook: Receive updates by webhook instead of long polling.
        poll_timeout: The long-polling timeout, in seconds.
        clock: Time for the stranger-reply cooldown (the notifier's queue clock by default).
        live_interval: The least time between two updates of a reply growing in place.
        quiet: The users' quiet hours (the scheduler's book), for the default commands.
    """

    def __init__(
        self,
        *,
        token: str,
        base_url: str = DEFAULT_BASE_URL,
        allowed_users: Iterable[int | str],
        agent: ChatAgent,
        tasks: TaskManager,
        memory: MemoryStore,
        notifier: TelegramNotifier | None = None,
        commands: SlashCommands | None = None,
        calendars: Calendars | None = None,
        webhook: WebhookConfig | None = None,
        poll_timeout: float = 10.0,
        clock: Clock | None = None,
        live_interval: float = LIVE_INTERVAL,
        quiet: QuietHoursBook | None = None,
    ) -> None:
        self.notifier = notifier or TelegramNotifier.create(token=token, base_url=base_url)
        self._queue = self.notifier.queue
        if self._queue.bot.token != token:
            raise ValueError("the notifier's bot uses a different token than the interface")
        self._base_url = base_url
        self._allowed = frozenset(str(user).strip() for user in allowed_users)
        self._agent = agent
        self._commands = commands or SlashCommands(
            tasks=tasks, memory=memory, agent=agent, quiet=quiet, calendars=calendars
        )
        self._webhook = webhook
        self._poll_timeout = poll_timeout
        self._clock = clock or self._queue.clock
        self._told: dict[int, datetime] = {}
        self._chat_locks: KeyedLocks[int] = KeyedLocks()
        self._drafts = DraftSupport()
        self._draft_ids = itertools.count(1)
        self._live_interval = live_interval
        self.app: AnyApplication = self._build()

    # --- lifecycle ---------------------------------------------------------------------------

    def _build(self) -> AnyApplication:
        app: AnyApplication = (
            ApplicationBuilder().bot(self._queue.bot).concurrent_updates(True).build()
        )
        app.add_handler(TypeHandler(Update, self._gate), group=-1)
        app.add_handler(MessageHandler(filters.COMMAND, self._on_command))
        app.add_handler(MessageHandler(filters.TEXT & ~filters.COMMAND, self._on_text))
        app.add_handler(CallbackQueryHandler(self._on_button))
        app.add_handler(MessageHandler(filters.Document.ALL, self._on_document))
        app.add_handler(MessageHandler(filters.ALL, self._on_other))
        app.add_error_handler(self._on_error)
        return app

    async def start(self) -> None:
        """Connect, register the commands menu, and start receiving updates.

        Raises:
            TelegramSetupError: when the token is refused, the Bot API cannot be reached, or
                webhook mode lacks its extra dependency.
        """
        try:
            await self.app.initialize()
        except InvalidToken:
            await self._queue.bot.shutdown()
            # python-telegram-bot's message quotes the token: keep it out of logs.
            raise TelegramSetupError(
                "Telegram did not accept the bot token: check TELEGRAM_BOT_TOKEN (the token "
                "@BotFather gave you)"
            ) from None
        except NetworkError as error:
            await self._queue.bot.shutdown()
            raise TelegramSetupError(
                f"cannot reach the Telegram Bot API at {self._base_url!r}: {error.message}; "
                "check the network, or TELEGRAM_BASE_URL for a self-hosted Bot API server"
            ) from error
        try:
            await self._register_commands()
            await self.app.start()
            await self._receive()
        except BaseException:
            await self.stop()
            raise
        logger.info("Telegram bot @%s started", self.app.bot.username)

    async def _receive(self) -> None:
        updater = self.app.updater
        if updater is None:
            raise TelegramSetupError("the Telegram application was built without an updater")
        allowed = [Update.MESSAGE, Update.CALLBACK_QUERY]
        if self._webhook is None:
            await updater.start_polling(
                timeout=timedelta(seconds=self._poll_timeout),
                allowed_updates=allowed,
                error_callback=self._polling_error,
            )
            return
        hook = self._webhook
        try:
            await updater.start_webhook(
                listen=hook.listen,
                port=hook.port,
                url_path=hook.path,
                webhook_url=hook.url,
                secret_token=hook.secret_token,
                allowed_updates=allowed,
            )
        except RuntimeError as error:
            if "webhooks" not in str(error):
                raise
            raise TelegramSetupError(
                "webhook mode needs python-telegram-bot's webhook extra: "
                "pip install 'python-telegram-bot[webhooks]' (or use long polling)"
            ) from error

    async def stop(self) -> None:
        """Stop receiving updates, finish the ones in progress, and disconnect."""
        updater = self.app.updater
        if updater is not None and updater.running:
            await updater.stop()
        if self.app.running:
            await self.app.stop()
        await self.app.shutdown()
        await self._queue.close()

    async def _enter(self) -> None:
        await self.start()

    async def _exit(self) -> None:
        await self.stop()

    async def _register_commands(self) -> None:
        menu = [BotCommand(spec.name, spec.description) for spec in self._commands.specs]
        try:
            await self.app.bot.set_my_commands(menu)
        except TelegramError as error:
            logger.warning("could not register the commands menu: %s", error)

    def _polling_error(self, error: TelegramError) -> None:
        logger.warning("polling for updates failed (retrying): %s", error)

    # --- the gate ----------------------------------------------------------------------------

    async def _gate(self, update: Update, context: Any) -> None:
        """Let allowed users through; refuse everyone else and stop all other handlers."""
        user = update.effective_user
        if user is not None and str(user.id) in self._allowed:
            return
        if user is not None:
            logger.info("refused an update from user %s (not in the allowlist)", user.id)
            await self._refuse(update, user.id)
        raise ApplicationHandlerStop

    async def _refuse(self, update: Update, user_id: int) -> None:
        if update.callback_query is not None:
            await _answer(update.callback_query, stranger_text(user_id), alert=True)
            return
        chat = update.effective_chat
        now = self._clock.now()
        last = self._told.get(user_id)
        if chat is None or (last is not None and now - last < STRANGER_COOLDOWN):
            return
        if len(self._told) >= _MAX_TRACKED:
            self._told.clear()
        self._told[user_id] = now
        await self._queue.send(chat.id, stranger_text(user_id))

    # --- messages ----------------------------------------------------------------------------

    async def _on_command(self, update: Update, context: Any) -> None:
        message, user_id, chat_id = _where(update)
        text = message.text or ""
        head = text.split(maxsplit=1)[0] if text.split() else ""
        _, _, addressee = head.partition("@")
        if addressee and addressee.lower() != (self.app.bot.username or "").lower():
            return  # "/tasks@other_bot" in a group is for another bot
        async with self._chat_lock(chat_id):
            reply = await self._commands.handle(text, user_id=user_id, chat_id=str(chat_id))
            if reply is None:
                reply = self._commands.help(unknown=text.split()[0])
            await self._send_all(chat_id, await self._with_zone_note(user_id, reply.replies))

    async def _on_text(self, update: Update, context: Any) -> None:
        message, user_id, chat_id = _where(update)
        async with self._chat_lock(chat_id), self._typing(chat_id):
            live = LiveReply(
                queue=self._queue,
                chat_id=chat_id,
                private=message.chat.type == ChatType.PRIVATE,
                drafts=self._drafts,
                draft_ids=self._draft_ids,
                interval=self._live_interval,
            )
            try:
                reply = await self._agent.handle_message(
                    message.text or "",
                    user_id=user_id,
                    chat_id=str(chat_id),
                    profile=_profile(update),
                    on_event=live,
                )
            except BaseException:
                await live.finish(())  # no half-written reply stays behind
                raise
            zone = await self._agent.user_zone(user_id)
            replies = await self._with_zone_note(user_id, agent_replies(reply, zone))
            await self._send_all(chat_id, await live.finish(replies))

    async def _on_document(self, update: Update, context: Any) -> None:
        """A calendar file: what it would become, with Import and Cancel buttons."""
        message, user_id, chat_id = _where(update)
        document = message.document
        calendar = self._commands.calendar
        if document is None or calendar is None or not _is_calendar_file(document):
            await self._queue.send(chat_id, NOT_A_CALENDAR)
            return
        limit = calendar.max_file_bytes
        async with self._chat_lock(chat_id), self._typing(chat_id):
            if document.file_size is not None and document.file_size > limit:
                text = f"That calendar file is larger than {limit:,} bytes; send a shorter one."
                await self._queue.send(chat_id, text)
                return
            file = await self._queue.bot.get_file(document.file_id)
            data = bytes(await file.download_as_bytearray())
            zone = await self._agent.user_zone(user_id)
            reply = await calendar.preview(data, user_id=user_id, chat_id=str(chat_id), zone=zone)
            await self._send_all(chat_id, reply.replies)

    async def _on_other(self, update: Update, context: Any) -> None:
        if update.effective_message is not None and update.effective_chat is not None:
            await self._queue.send(update.effective_chat.id, NOT_TEXT)

    # --- buttons -----------------------------------------------------------------------------

    async def _on_button(self, update: Update, context: Any) -> None:
        query = update.callback_query
        if query is None:
            return
        action = decode_action(query.data)
        message = query.message if isinstance(query.message, Message) else None
        if action is None or message is None:
            logger.info("ignored a button with data %r", query.data)
            await _answer(query, INVALID_BUTTON, alert=True)
            return
        chat_id = message.chat.id
        user_id = str(query.from_user.id)
        shown = _shown(message, action, user_id) if action.kind is ActionKind.LATER else None
        async with self._chat_lock(chat_id), self._typing(chat_id):
            outcome = await self._commands.press(
                action, user_id=user_id, chat_id=str(chat_id), shown=shown
            )
            await _answer(query, outcome.notice, alert=outcome.alert)
            await self._show_outcome(message, outcome)

    async def _show_outcome(self, message: Message, outcome: ActionOutcome) -> None:
        chat_id = message.chat.id
        if outcome.update is not None:
            update = outcome.update
            await self._queue.edit(chat_id, message.message_id, update.text, buttons=update.buttons)
        elif outcome.mark is not None:
            text = f"{message.text or ''}\n\n{outcome.mark}".strip()
            await self._queue.edit(chat_id, message.message_id, text)
        await self._send_all(chat_id, outcome.follow_ups)

    # --- errors ------------------------------------------------------------------------------

    async def _on_error(self, update: object, context: Any) -> None:
        """The one error path: log the traceback, tell the user briefly, never raise."""
        error_id = secrets.token_hex(3)
        error = getattr(context, "error", None)
        where = (
            f"update {update.update_id} from user "
            f"{update.effective_user.id if update.effective_user else '?'}"
            if isinstance(update, Update)
            else type(update).__name__
        )
        logger.error(
            "%s failed (error id %s)",
            where,
            error_id,
            exc_info=error if isinstance(error, BaseException) else None,
        )
        if not isinstance(update, Update) or update.effective_chat is None:
            return
        apology = f"Sorry, something went wrong on my side (error id {error_id}). Please try again."
        try:
            if update.callback_query is not None:
                await _answer(update.callback_query, apology, alert=True)
            else:
                await self._queue.send(update.effective_chat.id, apology)
        except Exception:
            logger.exception("could not send the apology for error %s", error_id)

    # --- helpers -----------------------------------------------------------------------------

    async def _with_zone_note(self, user_id: str, replies: Sequence[Reply]) -> tuple[Reply, ...]:
        """``replies``, the last one ending with the question which zone on first contact,
        or how to set one (``ZoneGuide.note``); a card with buttons keeps them."""
        shown = "\n\n".join(reply.text for reply in replies)
        note = await self._commands.zones.note(user_id, shown)
        if note is None:
            return tuple(replies)
        if not replies:
            return (Reply(note),)
        *before, last = replies
        return (*before, replace(last, text=f"{last.text}\n\n{note}"))

    async def _send_all(self, chat_id: int, replies: Iterable[Reply]) -> None:
        for reply in replies:
            outcome = await self._queue.send(chat_id, reply.text, buttons=reply.buttons)
            if outcome.error is not None:
                logger.warning("reply to chat %s not delivered: %s", chat_id, outcome.error)

    def _chat_lock(self, chat_id: int) -> AbstractAsyncContextManager[None]:
        """One update at a time per chat, in arrival order (python-telegram-bot runs
        updates concurrently; different chats do not wait for each other)."""
        return self._chat_locks.hold(chat_id)

    @asynccontextmanager
    async def _typing(self, chat_id: int) -> AsyncIterator[None]:
        """Show "typing..." at once and keep it up until the block ends."""
        await self._queue.chat_action(chat_id)
        refresher = asyncio.create_task(self._keep_typing(chat_id))
        try:
            yield
        finally:
            refresher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await refresher

    async def _keep_typing(self, chat_id: int) -> None:
        while True:
            await asyncio.sleep(TYPING_REFRESH)
            await self._queue.chat_action(chat_id)


_MARKS = re.compile(r"(?:\n\n(?:💤|✅|❌|⌛|▶️)[^\n]*)+$")


def _shown(message: Message, action: Action, user_id: str) -> Delivery:
    """The delivery a message shows (what its Snooze shows again): its text without the
    marker of its kind and without what presses added under it."""
    text = _MARKS.sub("", message.text or "")
    kind = DeliveryKind.RESULT
    if text.startswith(NOTICE_MARK):
        kind, text = DeliveryKind.NOTICE, text.removeprefix(NOTICE_MARK)
    return Delivery(
        task_id=action.target,
        run_id=None,
        owner_id=user_id,
        chat_id=str(message.chat.id),
        kind=kind,
        text=text,
    )


def _is_calendar_file(document: Document) -> bool:
    name = (document.file_name or "").lower()
    return name.endswith((".ics", ".ical", ".ifb")) or document.mime_type == "text/calendar"


def _where(update: Update) -> tuple[Message, str, int]:
    """The message, its sender's id and its chat id (the handlers' filters guarantee them)."""
    message = update.effective_message
    user = update.effective_user
    if message is None or user is None:
        raise ValueError(f"update {update.update_id} has no message or no sender")
    return message, str(user.id), message.chat.id


def _profile(update: Update) -> dict[str, str]:
    """What Telegram says about the sender, for tools that ask who is calling."""
    user = update.effective_user
    if user is None:
        return {}
    fields = {
        "first_name": user.first_name,
        "last_name": user.last_name,
        "username": user.username,
        "language_code": user.language_code,
    }
    return {name: value for name, value in fields.items() if value}


async def _answer(query: CallbackQuery, text: str, *, alert: bool) -> None:
    """Answer a button press; a press answered too late is only logged."""
    try:
        await query.answer(truncate(text, _MAX_ALERT), show_alert=alert)
    except BadRequest as error:
        logger.info("could not answer button press %s: %s", query.id, error)

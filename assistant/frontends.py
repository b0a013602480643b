"""Start the assistant behind one of its front ends: terminal chat, Telegram, or headless.

Whichever front end runs the scheduler, every delivery goes to the interface its chat belongs
to (see ``interfaces.RoutingNotifier``): the terminal's own chat to the terminal (or, when only
the bot or ``serve`` runs, to the JSON Lines file), Telegram chats to Telegram when a token is
configured, and anything no interface serves to the file.
"""

from __future__ import annotations

import asyncio
import secrets
import signal
import sys
from contextlib import AsyncExitStack
from pathlib import Path
from typing import TYPE_CHECKING, TextIO
from urllib.parse import urlsplit

from assistant.agent.events import AgentEvent
from assistant.app import LOCAL_CHAT, LOCAL_USER, open_app
from assistant.config import ConfigError, Settings
from common import Clock, SystemClock
from interfaces import (
    Console,
    JsonlNotifier,
    RoutingNotifier,
    SlashCommands,
    TerminalChat,
    TerminalNotifier,
)
from tasks import Notifier

if TYPE_CHECKING:
    from interfaces.telegram import TelegramNotifier, WebhookConfig


def default_sink(settings: Settings) -> Path:
    """The JSON Lines file for deliveries no attached interface serves."""
    return settings.data_dir / "deliveries.jsonl"


async def chat(
    settings: Settings,
    *,
    input: TextIO | None = None,
    output: TextIO | None = None,
    clock: Clock | None = None,
) -> int:
    """Run the terminal chat with the scheduler, until ``/quit`` or the end of input."""
    clock = clock or SystemClock()
    console = Console(output)
    terminal: list[TerminalChat] = []

    def on_event(event: AgentEvent) -> None:
        if terminal:
            terminal[0].on_event(event)

    async with AsyncExitStack() as stack:
        notifier = await _routing(settings, stack, clock, local=TerminalNotifier(console))
        app = await stack.enter_async_context(
            open_app(
                settings, notifier=notifier, clock=clock, on_event=on_event, run_scheduler=True
            )
        )
        commands = SlashCommands(
            tasks=app.tasks, memory=app.memory, agent=app.agent, clock=clock, buttons=False
        )
        terminal.append(
            TerminalChat(
                agent=app.agent,
                commands=commands,
                user_id=LOCAL_USER,
                chat_id=LOCAL_CHAT,
                input=input,
                output=output,
            )
        )
        await terminal[0].run()
    return 0


async def serve(settings: Settings, *, sink: Path, clock: Clock | None = None) -> int:
    """Run only the scheduler; the terminal's deliveries are appended to ``sink``.

    Prints ``ready`` once due tasks are being fired, and stops cleanly on SIGINT or SIGTERM.
    """
    clock = clock or SystemClock()
    stop = _stop_on_signals()
    async with AsyncExitStack() as stack:
        local = JsonlNotifier(sink, clock=clock)
        notifier = await _routing(settings, stack, clock, local=local, sink=sink)
        await stack.enter_async_context(
            open_app(settings, notifier=notifier, clock=clock, run_scheduler=True)
        )
        print(f"ready: delivering to {sink}", flush=True)
        await stop.wait()
    print("stopped", file=sys.stderr, flush=True)
    return 0


async def telegram(
    settings: Settings, *, webhook_url: str | None = None, clock: Clock | None = None
) -> int:
    """Run the Telegram bot and the scheduler on one event loop until SIGINT or SIGTERM.

    Raises:
        ConfigError: when the token is missing or malformed, or the webhook settings are bad.
    """
    token = settings.telegram_token()
    from interfaces.telegram import TelegramInterface, TelegramNotifier

    webhook = _webhook(settings, webhook_url or settings.telegram_webhook_url)
    clock = clock or SystemClock()
    stop = _stop_on_signals()
    bot_notifier = TelegramNotifier.create(
        token=token, base_url=settings.telegram_base_url, clock=clock
    )
    sink = JsonlNotifier(default_sink(settings), clock=clock)
    notifier = RoutingNotifier(
        local_chat=LOCAL_CHAT, local=sink, remote=bot_notifier, fallback=sink
    )
    if not settings.telegram_allowed_users:
        print(
            "warning: TELEGRAM_ALLOWED_USERS is empty, so the bot answers nobody; message it "
            "once to learn your user id, then set TELEGRAM_ALLOWED_USERS=<that id>",
            file=sys.stderr,
        )
    async with open_app(settings, notifier=notifier, clock=clock, run_scheduler=True) as app:
        interface = TelegramInterface(
            token=token,
            base_url=settings.telegram_base_url,
            allowed_users=settings.telegram_allowed_users,
            agent=app.agent,
            tasks=app.tasks,
            memory=app.memory,
            notifier=bot_notifier,
            webhook=webhook,
            clock=clock,
        )
        await interface.start()
        try:
            mode = f"webhook at {webhook.url}" if webhook else "long polling"
            print(f"ready: Telegram bot running ({mode}); Ctrl-C stops it", flush=True)
            await stop.wait()
        finally:
            # The scheduler drains its runs while the bot can still send them.
            await app.tasks.stop()
            await interface.stop()
    return 0


async def _routing(
    settings: Settings,
    stack: AsyncExitStack,
    clock: Clock,
    *,
    local: Notifier,
    sink: Path | None = None,
) -> RoutingNotifier:
    """Route the terminal's chat to ``local`` and Telegram chats to Telegram when configured."""
    fallback = JsonlNotifier(sink or default_sink(settings), clock=clock)
    remote: TelegramNotifier | None = None
    if settings.telegram_bot_token is not None:
        from interfaces.telegram import TelegramNotifier

        remote = TelegramNotifier.create(
            token=settings.telegram_token(), base_url=settings.telegram_base_url, clock=clock
        )
        stack.push_async_callback(remote.aclose)
    return RoutingNotifier(local_chat=LOCAL_CHAT, local=local, remote=remote, fallback=fallback)


def _stop_on_signals() -> asyncio.Event:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    return stop


def _webhook(settings: Settings, url: str | None) -> WebhookConfig | None:
    from interfaces.telegram import WebhookConfig

    if url is None:
        return None
    parts = urlsplit(url)
    if parts.scheme != "https" or not parts.hostname:
        raise ConfigError(
            f"TELEGRAM_WEBHOOK_URL {url!r} must be a public https:// URL (Telegram only posts "
            "to HTTPS), e.g. https://bot.example.org/telegram"
        )
    host, _, port = settings.telegram_webhook_listen.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ConfigError(
            f"TELEGRAM_WEBHOOK_LISTEN {settings.telegram_webhook_listen!r} must be HOST:PORT, "
            "e.g. 0.0.0.0:8443"
        )
    return WebhookConfig(
        url=url,
        listen=host,
        port=int(port),
        path=parts.path.lstrip("/"),
        secret_token=secrets.token_urlsafe(24),
    )

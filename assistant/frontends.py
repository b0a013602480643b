"""Start the assistant behind one of its front ends: terminal chat, Telegram, the web (with
MCP at ``/mcp``), MCP on stdio, or headless.

Whichever front end runs the scheduler, every delivery goes to the interface its chat belongs
to (see ``interfaces.RoutingNotifier``): the terminal's own chat to the terminal (or, when only
the bot, the web or ``serve`` runs, to the JSON Lines file), Telegram chats to Telegram when a
token is configured, web chats to the open pages when ``web`` runs (and always to the file),
and anything no interface serves to the file.

On PostgreSQL several front ends fire tasks from one database, so each claims only the runs of
the chats it delivers to itself (``_serves``) and leaves the others to a process that can:
Telegram chats to processes with the bot token, web chats to ``assistant web`` (whose open
pages they belong to), the terminal's chat to ``assistant chat`` or ``assistant serve`` (whose
JSON Lines file is its terminal). Nothing goes to a fallback file while some other process
could deliver it for real.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import signal
import sys
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO
from urllib.parse import urlsplit

from agent.llm import LLMBackend
from assistant.app import LOCAL_CHAT, LOCAL_USER, App, open_app
from assistant.asking import IN_PROCESS, Answerer
from assistant.askserver import AskServer, answering_ask
from assistant.config import SCHEDULER_COMMANDS, ConfigError, Settings
from common import PRIVATE_FILE_MODE, Clock, SystemClock
from interfaces import (
    WEB_CHAT_PREFIX,
    WEB_MAIN_CHAT,
    Console,
    JsonlNotifier,
    RoutingNotifier,
    TerminalChat,
    TerminalNotifier,
    UserSlots,
    home_chat,
    turn_slots,
)
from tasks import ChatScope, Notifier

if TYPE_CHECKING:
    from interfaces.mcp import McpAssistant, McpHttp
    from interfaces.telegram import TelegramInterface, TelegramNotifier, WebhookConfig
    from interfaces.web import WebInterface, WebServer


def sink_notifier(settings: Settings, path: Path, clock: Clock) -> JsonlNotifier:
    """The JSON Lines file of deliveries at ``path``, rotated by size as configured."""
    return JsonlNotifier(
        path,
        clock=clock,
        max_bytes=settings.deliveries_max_bytes,
        keep=settings.deliveries_keep,
    )


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
    async with AsyncExitStack() as stack:
        printed = TerminalNotifier(console)
        notifier = await _routing(settings, stack, clock, local=printed)
        serves = _serves(settings, local=True)
        app = await stack.enter_async_context(_front_app(settings, notifier, clock, serves))
        in_chat = Answerer(True, "type /approve {id} or /deny {id} in the running `assistant chat`")
        await stack.enter_async_context(_answering_ask(settings, app, in_chat))
        # The terminal's user is this machine's: /calendar import PATH.
        commands = app.slash_commands(buttons=False, local_files=True)
        terminal = TerminalChat(
            agent=app.agent,
            commands=commands,
            user_id=LOCAL_USER,
            chat_id=LOCAL_CHAT,
            input=input,
            output=output,
            zones=commands.zones,
            deliveries=printed,
        )
        await terminal.run()
    return 0


async def serve(settings: Settings, *, sink: Path, clock: Clock | None = None) -> int:
    """Run only the scheduler; the terminal's deliveries are appended to ``sink``.

    Prints ``ready`` once due tasks are being fired, and stops cleanly on SIGINT or SIGTERM.
    """
    clock = clock or SystemClock()
    stop = _stop_on_signals()
    async with AsyncExitStack() as stack:
        local = sink_notifier(settings, sink, clock)
        notifier = await _routing(settings, stack, clock, local=local, sink=sink)
        serves = _serves(settings, local=True)
        app = await stack.enter_async_context(_front_app(settings, notifier, clock, serves))
        serving = Answerer.holding_the_scheduler("assistant serve", fires_here=True)
        await stack.enter_async_context(_answering_ask(settings, app, serving))
        print(f"ready: delivering to {sink}", flush=True)
        await stop.wait()
    print("stopped", file=sys.stderr, flush=True)
    return 0


MCP_SCHEDULER_NOTE = (
    f"Scheduled tasks fire while {SCHEDULER_COMMANDS} runs on the same data; this MCP server "
    "only adds them (one that runs notices them within a second)."
)
"""What ``assistant mcp`` says with every call that scheduled something: it fires nothing."""


async def mcp(settings: Settings, *, user: str, chat: str | None = None) -> int:
    """Serve the assistant over MCP on stdin and stdout, as ``user``, until the client leaves.

    The scheduler does not run here: what the client schedules is delivered to ``chat`` (by
    default the user's home chat) by the front end that runs it, as with ``assistant ask``.
    Nothing but the protocol is written to stdout; logs go to stderr.
    """
    from interfaces.mcp import Caller, build_server, claim_stdio, serve_stdio

    caller = Caller(user, chat or home_chat(user, local_user=LOCAL_USER, local_chat=LOCAL_CHAT))
    stop = _stop_on_signals()
    # Claimed before the app is built: what a custom tool prints as it loads is not protocol.
    with claim_stdio() as wire:
        async with open_app(settings) as app, _answering_ask(settings, app):
            assistant = _mcp_assistant(settings, app, scheduler_note=MCP_SCHEDULER_NOTE)
            server = build_server(assistant, caller=lambda context: caller)
            serving = asyncio.create_task(serve_stdio(server, wire))
            stopping = asyncio.create_task(stop.wait())
            await asyncio.wait({serving, stopping}, return_when=asyncio.FIRST_COMPLETED)
            for task in (serving, stopping):
                task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await serving
    return 0


def _mcp_assistant(
    settings: Settings,
    app: App,
    *,
    scheduler_note: str | None = None,
    notifier: Notifier | None = None,
    turns: UserSlots | None = None,
) -> McpAssistant:
    """The application's tools and tasks for MCP callers."""
    from interfaces.mcp import McpAssistant

    return McpAssistant(
        agent=app.agent,
        executor=app.executor,
        tasks=app.tasks,
        clock=app.clock,
        scheduler_note=scheduler_note,
        notifier=notifier,
        turns=turns,
        max_message_chars=settings.max_message_chars,
    )


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
    sink = sink_notifier(settings, default_sink(settings), clock)
    notifier = RoutingNotifier(
        local_chat=LOCAL_CHAT,
        local=sink,
        remote=bot_notifier,
        fallback=sink,
        prefixed={WEB_CHAT_PREFIX: sink},
    )
    if not settings.telegram_allowed_users:
        print(
            "warning: TELEGRAM_ALLOWED_USERS is empty, so the bot answers nobody; message it "
            "once to learn your user id, then set TELEGRAM_ALLOWED_USERS=<that id>",
            file=sys.stderr,
        )
    # The terminal's and the web's chats are left to the front ends that show them.
    telegram_chats = _serves(settings, telegram=True)
    async with (
        _front_app(settings, notifier, clock, telegram_chats) as app,
        _answering_ask(
            settings, app, Answerer.holding_the_scheduler("assistant telegram", fires_here=False)
        ),
    ):
        interface = TelegramInterface(
            token=token,
            base_url=settings.telegram_base_url,
            allowed_users=settings.telegram_allowed_users,
            agent=app.agent,
            tasks=app.tasks,
            memory=app.memory,
            notifier=bot_notifier,
            calendars=app.calendars,
            webhook=webhook,
            clock=clock,
            quiet=app.quiet,
            commands=app.slash_commands(buttons=True),
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


@dataclass(frozen=True, slots=True)
class WebFront:
    """The web front end while it runs: the app, the HTTP interface and its server, the
    Telegram bot when one is configured, and, without API tokens, this start's own token."""

    app: App
    interface: WebInterface
    server: WebServer
    bot: TelegramInterface | None
    local_token: str | None = None
    warnings: tuple[str, ...] = ()

    @property
    def page_url(self) -> str:
        """The page's address to open; without API tokens it carries this start's token in
        its fragment (``#token=``), which browsers never send to a server or a log."""
        base = f"{self.server.url}/"
        return base if self.local_token is None else f"{base}#token={self.local_token}"


LOCAL_TOKEN_FILE = "web-token"
"""Under the data directory (0700), the token of the running ``assistant web`` without API
tokens, at 0600: for scripts of the same user; removed when the server stops."""


@asynccontextmanager
async def open_web(
    settings: Settings,
    *,
    host: str | None = None,
    port: int | None = None,
    clock: Clock | None = None,
    backend: LLMBackend | None = None,
) -> AsyncIterator[WebFront]:
    """Start the HTTP API, the web page and the scheduler (and the Telegram bot when a token
    is configured) on the running loop; stop them all on exit.

    Args:
        settings: The configuration (ASSISTANT_WEB_HOST, ASSISTANT_WEB_PORT,
            ASSISTANT_API_TOKENS among them).
        host: The address to listen on, instead of the setting.
        port: The port, instead of the setting (0: any free one).
        clock: The one clock of the whole graph.
        backend: The model, instead of the configured one (tests, benchmarks).

    Raises:
        ConfigError: when the web extra is missing, the tokens are malformed, the server would
            listen beyond 127.0.0.1 without tokens, or the address cannot be bound.
    """
    try:
        from interfaces.web import (
            ApiTokens,
            TokenError,
            WebInbox,
            WebInterface,
            WebServer,
            scope_user,
        )
    except ImportError as error:
        raise ConfigError(
            f"the web front end needs the 'web' extra ({error.name} is missing): "
            "pip install 'assistant[web]', or run ./scripts/run web, which installs it"
        ) from None
    host = host or settings.web_host
    port = settings.web_port if port is None else port
    try:
        tokens = ApiTokens.parse(settings.api_tokens_text(), min_bits=settings.api_token_min_bits)
    except TokenError as error:
        raise ConfigError(str(error)) from None
    local_token = None if len(tokens) else secrets.token_urlsafe(32)
    if not len(tokens) and host not in _LOOPBACK:
        # Port 0 is any free port: the address is then the host alone.
        reached = f"{host}:{port}" if port else host
        raise ConfigError(
            f"ASSISTANT_API_TOKENS is empty, so anyone who reaches {reached} could act as "
            "you: without tokens the web server only listens on 127.0.0.1. Set "
            "ASSISTANT_API_TOKENS=<token>:<user> (make a token with: python3 -c 'import "
            "secrets; print(secrets.token_urlsafe(32))'), or use --host 127.0.0.1"
        )
    clock = clock or SystemClock()
    async with AsyncExitStack() as stack:
        sink = sink_notifier(settings, default_sink(settings), clock)
        inbox = WebInbox(clock=clock, record=sink)
        notifier = await _routing(settings, stack, clock, local=sink, web_notifier=inbox)
        serves = _serves(settings, web=True)
        app = await stack.enter_async_context(
            _front_app(settings, notifier, clock, serves, backend=backend)
        )
        web = Answerer.holding_the_scheduler("assistant web", fires_here=False)
        await stack.enter_async_context(_answering_ask(settings, app, web))
        # A turn over /mcp takes one of its user's turns, as one on the page does.
        turns = turn_slots(settings.max_turns_per_user)
        mcp_http = _mcp_http(settings, app, notifier, scope_user, turns)
        await stack.enter_async_context(mcp_http.running())
        interface = WebInterface(
            agent=app.agent,
            tasks=app.tasks,
            memory=app.memory,
            scheduler=app.tasks,
            inbox=inbox,
            calendars=app.calendars,
            mounts={"/mcp": mcp_http},
            # Without API tokens the server has one owner: whoever started it gets this
            # start's token, and every other account on the machine gets 401.
            tokens=tokens if local_token is None else ApiTokens({local_token: LOCAL_USER}),
            loopback_only=local_token is not None,
            clock=clock,
            max_message_chars=settings.max_message_chars,
            turns=turns,
            max_event_streams=settings.max_event_streams,
            health_max_late=timedelta(seconds=settings.health_max_late_seconds),
            quiet=app.quiet,
            commands=app.slash_commands(buttons=False),
        )
        server = WebServer(
            interface.app,
            host=host,
            port=port,
            on_stop=interface.close,
            head_timeout=settings.web_head_timeout,
            body_timeout=settings.web_body_timeout,
            max_connections=settings.web_max_connections,
        )
        try:
            await server.start()
        except (OSError, OverflowError) as error:
            reason = error.strerror if isinstance(error, OSError) else None
            raise ConfigError(
                f"cannot listen on {host}:{port} ({reason or error}); pick another "
                "ASSISTANT_WEB_PORT or --port, or stop what uses it"
            ) from None
        stack.push_async_callback(server.stop)
        # Feeds' addresses start with where this server really listens (port 0: any).
        app.calendars.local_url = server.url
        if local_token is not None:
            _keep_local_token(settings.data_dir / LOCAL_TOKEN_FILE, local_token, stack)
        bot = await _start_bot(settings, app, notifier)
        if bot is not None:
            stack.push_async_callback(bot.stop)
        # Stopping runs these backwards: the scheduler drains while the bot and pages deliver.
        stack.push_async_callback(app.tasks.stop)
        warnings = _clear_text_warnings(host, server.url)
        yield WebFront(
            app=app,
            interface=interface,
            server=server,
            bot=bot,
            local_token=local_token,
            warnings=warnings,
        )


def _mcp_http(
    settings: Settings,
    app: App,
    notifier: Notifier,
    user_of: Callable[[Mapping[str, Any]], str | None],
    turns: UserSlots,
) -> McpHttp:
    """MCP over HTTP for the web front end: its caller is the user of the request's token,
    in their home chat, where this process's scheduler delivers what they schedule (the
    web's one owner without API tokens, ``local``, has the page's chat); a call that waits
    for approval is also told there."""
    from interfaces.mcp import McpHttp, build_server, http_caller

    def home(user: str) -> str:
        return home_chat(user, local_user=LOCAL_USER, local_chat=WEB_CHAT_PREFIX + WEB_MAIN_CHAT)

    assistant = _mcp_assistant(settings, app, notifier=notifier, turns=turns)
    return McpHttp(build_server(assistant, caller=http_caller(user_of=user_of, home=home)))


async def web(
    settings: Settings,
    *,
    host: str | None = None,
    port: int | None = None,
    clock: Clock | None = None,
) -> int:
    """Run the web front end (``open_web``) until SIGINT or SIGTERM.

    Raises:
        ConfigError: as ``open_web``.
    """
    stop = _stop_on_signals()
    async with open_web(settings, host=host, port=port, clock=clock) as front:
        if front.local_token is None:
            who = "API tokens"
        else:
            who = (
                "only you: this start's token is in the address (and in "
                f"{settings.data_dir / LOCAL_TOKEN_FILE}); the page keeps it"
            )
        also = "; the Telegram bot runs too" if front.bot is not None else ""
        for warning in front.warnings:
            print(f"warning: {warning}", file=sys.stderr, flush=True)
        print(f"ready: {front.page_url} ({who}){also}; Ctrl-C stops it", flush=True)
        await stop.wait()
    return 0


_LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})


def _clear_text_warnings(host: str, url: str) -> tuple[str, ...]:
    """What to say when the tokens would cross a network unencrypted."""
    if host in _LOOPBACK:
        return ()
    return (
        f"{url} serves plain HTTP on {host}, so every request's token crosses the network in "
        "clear and anyone on the way can copy it: put a TLS proxy (Caddy, nginx) in front and "
        "keep this server on 127.0.0.1 (docs/web-api.md: 'Behind a reverse proxy with HTTPS')",
    )


def _keep_local_token(path: Path, token: str, stack: AsyncExitStack) -> None:
    """Write this start's token to ``path`` (0600, replacing an old one) until the stop."""
    path.unlink(missing_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE_MODE)
    with os.fdopen(fd, "w", encoding="utf-8") as file:
        file.write(token + "\n")

    stack.callback(path.unlink, missing_ok=True)


async def _start_bot(
    settings: Settings, app: App, notifier: RoutingNotifier
) -> TelegramInterface | None:
    """Start the Telegram bot next to another front end, when a token is configured."""
    if settings.telegram_bot_token is None:
        return None
    from interfaces.telegram import TelegramInterface, TelegramNotifier

    bot_notifier = notifier.remote
    if not isinstance(bot_notifier, TelegramNotifier):
        return None
    interface = TelegramInterface(
        token=settings.telegram_token(),
        base_url=settings.telegram_base_url,
        allowed_users=settings.telegram_allowed_users,
        agent=app.agent,
        tasks=app.tasks,
        memory=app.memory,
        notifier=bot_notifier,
        calendars=app.calendars,
        webhook=_webhook(settings, settings.telegram_webhook_url),
        clock=app.clock,
        quiet=app.quiet,
        commands=app.slash_commands(buttons=True),
    )
    await interface.start()
    return interface


async def _routing(
    settings: Settings,
    stack: AsyncExitStack,
    clock: Clock,
    *,
    local: Notifier,
    sink: Path | None = None,
    web_notifier: Notifier | None = None,
) -> RoutingNotifier:
    """Route the terminal's chat to ``local``, Telegram chats to Telegram when configured, and
    web chats to ``web_notifier`` (the file when the web front end does not run)."""
    fallback = sink_notifier(settings, sink or default_sink(settings), clock)
    remote: TelegramNotifier | None = None
    if settings.telegram_bot_token is not None:
        from interfaces.telegram import TelegramNotifier

        remote = TelegramNotifier.create(
            token=settings.telegram_token(), base_url=settings.telegram_base_url, clock=clock
        )
        stack.push_async_callback(remote.aclose)
    web = {WEB_CHAT_PREFIX: web_notifier or fallback}
    return RoutingNotifier(
        local_chat=LOCAL_CHAT, local=local, remote=remote, fallback=fallback, prefixed=web
    )


def _front_app(
    settings: Settings,
    notifier: Notifier,
    clock: Clock,
    serves: ChatScope,
    *,
    backend: LLMBackend | None = None,
) -> AbstractAsyncContextManager[App]:
    """The application a front end runs on: its scheduler firing, the model made ready in
    the background, delivering itself to the chats in ``serves``."""
    return open_app(
        settings,
        notifier=notifier,
        clock=clock,
        backend=backend,
        run_scheduler=True,
        preload_model=True,
        serves=serves,
    )


def _answering_ask(
    settings: Settings, app: App, answerer: Answerer = IN_PROCESS
) -> AbstractAsyncContextManager[AskServer]:
    """``assistant ask`` answered by this front end on the data directory's socket, as long
    as it runs (``assistant.askserver``)."""
    return answering_ask(
        app, data_dir=settings.data_dir, secrets=settings.secret_values(), answerer=answerer
    )


def _serves(
    settings: Settings, *, local: bool = False, web: bool = False, telegram: bool = False
) -> ChatScope:
    """The chats a front end delivers to itself: the terminal's (``local``), the web's, and
    Telegram's when it runs the bot or the bot token is configured (every other chat)."""
    if telegram or settings.telegram_bot_token is not None:
        return ChatScope.all_but(
            chats=[] if local else [LOCAL_CHAT], prefixes=[] if web else [WEB_CHAT_PREFIX]
        )
    return ChatScope.just(
        chats=[LOCAL_CHAT] if local else [], prefixes=[WEB_CHAT_PREFIX] if web else []
    )


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

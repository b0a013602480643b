"""The Telegram bot on the real composed app (``assistant.app.open_app``), against the stand-in.

The bot is wired the way ``assistant.frontends.telegram`` wires it (settings -> token check ->
``TelegramNotifier`` -> ``open_app`` -> ``TelegramInterface``), with three test seams that
production leaves at their defaults: the scheduler's clock is a ``ManualClock`` (tests fire
due tasks with ``run_due``), the outgoing queue's clock is a ``FakeTime`` (its pacing waits
pass at once), and long polls last one second (so stopping is quick).
"""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Iterable, Mapping
from contextlib import asynccontextmanager, closing
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from agent import AgentEvent, AgentEventKind
from assistant.app import App, open_app
from assistant.config import Settings
from common import ManualClock
from interfaces.telegram import TelegramInterface, TelegramNotifier
from testing.botapi_standin import BotApiStandin, SentMessage
from tests.interfaces.fakes import FakeTime
from tests.interfaces.telegram_harness import ALICE, BOB

__all__ = [
    "ALICE",
    "BOB",
    "T0",
    "TOKEN",
    "AppBot",
    "app_settings",
    "running_app_bot",
    "table_counts",
    "utf16_units",
]

T0 = datetime(2025, 3, 10, 12, 0, tzinfo=UTC)
"""Monday 13:00 in Berlin."""
TOKEN = "123456789:AAE" + "x" * 32
"""A token of the shape ``Settings.telegram_token`` accepts (the stand-in's default has not)."""

_UNVERSIONED = "schema_versions"


def app_settings(
    data_dir: Path,
    api: BotApiStandin,
    *,
    allowed_users: Iterable[int] = (ALICE, BOB),
    more: Mapping[str, str] | None = None,
) -> Settings:
    """Settings for an app on ``data_dir`` talking to ``api``, offline planner, Berlin time
    (``more``: other variables, e.g. ``ASSISTANT_HTTP_ALLOW_HOSTS``).

    The values go in under their environment names: ``Settings(data_dir=...)`` ignores
    field names (see the report of ``tests/interfaces/test_telegram_app.py``).
    """
    return Settings.model_validate(
        {
            "ASSISTANT_DATA_DIR": str(data_dir),
            "ASSISTANT_TIMEZONE": "Europe/Berlin",
            "ASSISTANT_LLM_BASE_URL": "",  # the offline planner, whatever the environment says
            "TELEGRAM_BOT_TOKEN": api.token,
            "TELEGRAM_BASE_URL": api.base_url,
            "TELEGRAM_ALLOWED_USERS": ",".join(str(user) for user in allowed_users),
            **(more or {}),
        }
    )


@dataclass
class AppBot:
    """A running bot on the composed app, and the stand-in playing Telegram."""

    api: BotApiStandin
    app: App
    interface: TelegramInterface
    clock: ManualClock
    queue_time: FakeTime
    events: list[AgentEvent] = field(default_factory=list)

    @property
    def database(self) -> Path:
        """The app's SQLite file."""
        return self.app.settings.database_path

    def tool_runs(self) -> list[str]:
        """The names of the tools the agent started, in order."""
        return [
            event.call.tool_name
            for event in self.events
            if event.kind is AgentEventKind.TOOL_STARTED and event.call is not None
        ]

    def tool_calls_counted(self) -> int:
        """Calls the executor's telemetry counted, over all tools."""
        return sum(stats.calls for stats in self.app.executor.stats().values())

    async def say(
        self, user: int, text: str, *, chat: int | None = None, replies: int = 1
    ) -> list[str]:
        """Send ``text`` as ``user`` and return the texts of the next ``replies`` messages."""
        return [m.text for m in await self.say_messages(user, text, chat=chat, replies=replies)]

    async def say_messages(
        self, user: int, text: str, *, chat: int | None = None, replies: int = 1
    ) -> list[SentMessage]:
        """Send ``text`` as ``user`` and return the next ``replies`` messages themselves."""
        where = chat if chat is not None else user
        before = len(self.api.sent_to(where))
        self.api.send_text(user, text, chat_id=chat)
        sent = await self.api.wait_for_messages(where, before + replies)
        return sent[before:]


@asynccontextmanager
async def running_app_bot(
    api: BotApiStandin,
    data_dir: Path,
    *,
    clock: ManualClock,
    allowed_users: Iterable[int] = (ALICE, BOB),
    run_scheduler: bool = False,
    more: Mapping[str, str] | None = None,
) -> AsyncIterator[AppBot]:
    """Open the app on ``data_dir`` with the bot polling ``api``; close both afterwards."""
    settings = app_settings(data_dir, api, allowed_users=allowed_users, more=more)
    token = settings.telegram_token()
    queue_time = FakeTime(clock.now())
    notifier = TelegramNotifier.create(
        token=token, base_url=settings.telegram_base_url, clock=queue_time
    )
    events: list[AgentEvent] = []
    async with (
        open_app(
            settings,
            notifier=notifier,
            clock=clock,
            on_event=events.append,
            run_scheduler=run_scheduler,
        ) as app,
        TelegramInterface(
            token=token,
            base_url=settings.telegram_base_url,
            allowed_users=settings.telegram_allowed_users,
            agent=app.agent,
            tasks=app.tasks,
            memory=app.memory,
            notifier=notifier,
            poll_timeout=1.0,
            quiet=app.quiet,
        ) as interface,
    ):
        yield AppBot(api, app, interface, clock, queue_time, events)


def table_counts(database: Path) -> dict[str, int]:
    """Rows per table of the SQLite file, except the schema version bookkeeping."""
    with closing(sqlite3.connect(database)) as connection:
        names = [
            row[0]
            for row in connection.execute(
                "SELECT name FROM sqlite_master WHERE type='table' ORDER BY name"
            )
        ]
        return {
            name: connection.execute(f'SELECT COUNT(*) FROM "{name}"').fetchone()[0]
            for name in names
            if name != _UNVERSIONED
        }


def utf16_units(text: str) -> int:
    """The length of ``text`` as Telegram counts it (UTF-16 code units)."""
    return len(text.encode("utf-16-le")) // 2

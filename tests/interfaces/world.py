"""Real components wired for the interface tests: SQLite stores, a manual clock, an agent.

The agent's model is scripted (a function of the conversation) and its tools are small ones
with observable effects, including one that needs approval, so the tests exercise the real
task manager, memory store, executor and agent without depending on the LLM's wording.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from agent import DialogAgent
from agent.llm import ChatMessage, LLMResponse, ScriptedBackend, ToolMode
from calendars import Calendars
from common import ManualClock
from interfaces import SlashCommands
from memory import MemoryStore
from tasks import (
    Delivery,
    DeliveryStatus,
    HttpSender,
    Notifier,
    OnceSchedule,
    SqliteTaskStore,
    Task,
    TaskManager,
)
from tools import ToolContext, ToolExecutor, ToolRegistry, tool

T0 = datetime(2025, 3, 10, 12, 0, tzinfo=UTC)
BERLIN = ZoneInfo("Europe/Berlin")

Script = Callable[[Sequence[ChatMessage]], str | LLMResponse]


def fence(name: str, **args: Any) -> str:
    """A tool call in the text contract."""
    return f"```json\n{json.dumps({'tool': name, 'args': args})}\n```"


class RecordingNotifier:
    """A notifier that keeps what it was given (for command tests without Telegram)."""

    def __init__(self) -> None:
        self.deliveries: list[Delivery] = []

    async def deliver(self, delivery: Delivery) -> DeliveryStatus:
        self.deliveries.append(delivery)
        return DeliveryStatus.DELIVERED


class Gadgets:
    """Tools with observable effects: a reminder setter and a POST that needs approval."""

    def __init__(self, clock: ManualClock) -> None:
        self.posts: list[str] = []
        self._clock = clock

    @tool
    async def add_reminder(self, ctx: ToolContext, seconds: int, message: str) -> str:
        """Remind the user after a number of seconds.

        Args:
            seconds: How many seconds from now.
            message: What to remind of.
        """
        manager = ctx.service(TaskManager)
        at = self._clock.now() + timedelta(seconds=seconds)
        task = await manager.add_task(
            owner_id=ctx.user_id,
            chat_id=ctx.chat_id,
            task_type="reminder",
            schedule=OnceSchedule(at=at, tz=ctx.timezone),
            execution_data={"message": message},
        )
        return f"I'll remind you at {at.astimezone(ctx.timezone):%H:%M:%S} ({task.id})"

    @tool
    def whoami(self, ctx: ToolContext) -> str:
        """Say what the interface told about the user."""
        return ", ".join(f"{key}={value}" for key, value in sorted(ctx.profile.items()))

    @tool(requires_approval=True, risk_level="high")
    def post(self, url: str) -> str:
        """POST to a URL.

        Args:
            url: Where to post.
        """
        self.posts.append(url)
        return f"POST {url} -> 200"


def default_script(messages: Sequence[ChatMessage]) -> str:
    """A model that sets reminders, posts, splits long answers and echoes the rest."""
    last = messages[-1]
    text = last.content
    if last.role.value != "user":
        # A tool result came back ("- tool [ok]: output"): answer with the output.
        return text.splitlines()[-1].partition("]: ")[2] if text else "Done."
    if text.startswith("remind "):
        _, seconds, message = text.split(" ", 2)
        return fence("add_reminder", seconds=int(seconds), message=message)
    if text == "who am i":
        return fence("whoami")
    if text.startswith("post "):
        return fence("post", url=text.removeprefix("post "))
    if text.startswith("long "):
        count = int(text.removeprefix("long "))
        return "\n\n".join(f"Paragraph {i}: " + "words " * 150 for i in range(count))
    if text == "crash":
        raise RuntimeError("the model exploded")
    return f"You said: {text}"


@dataclass
class World:
    """The wired components; the tests drive time with ``clock``."""

    clock: ManualClock
    manager: TaskManager
    memory: MemoryStore
    agent: DialogAgent
    gadgets: Gadgets
    commands: SlashCommands
    notifier: Notifier
    path: Path

    def recorded(self) -> list[Delivery]:
        """What a ``RecordingNotifier`` was given (fails for other notifiers)."""
        assert isinstance(self.notifier, RecordingNotifier)
        return self.notifier.deliveries

    async def remind(self, owner: str, after: timedelta, message: str = "stretch") -> Task:
        """Add a reminder for ``owner`` directly through the manager."""
        return await self.manager.add_task(
            owner_id=owner,
            chat_id=owner,
            task_type="reminder",
            schedule=OnceSchedule(at=self.clock.now() + after, tz=BERLIN),
            execution_data={"message": message},
        )


@asynccontextmanager
async def open_world(
    path: Path,
    *,
    notifier: Notifier | None = None,
    script: Script = default_script,
    clock: ManualClock | None = None,
) -> AsyncIterator[World]:
    """Build the components on SQLite files under ``path`` and close them afterwards."""
    clock = clock or ManualClock(T0)
    notifier = notifier or RecordingNotifier()
    store = SqliteTaskStore(path / "tasks.sqlite")
    manager = TaskManager(store=store, notifier=notifier, clock=clock)
    memory = await MemoryStore.open(path / "memory.sqlite", clock=clock)
    gadgets = Gadgets(clock)
    registry = ToolRegistry([gadgets])
    executor = ToolExecutor(registry, approvals=memory, clock=clock)
    agent = DialogAgent(
        backend=ScriptedBackend(script, mode=ToolMode.CONTRACT),
        registry=registry,
        executor=executor,
        memory=memory,
        clock=clock,
        services={TaskManager: manager, MemoryStore: memory},
    )
    commands = SlashCommands(tasks=manager, memory=memory, agent=agent, clock=clock)
    await manager.start(timer=False)
    try:
        yield World(clock, manager, memory, agent, gadgets, commands, notifier, path)
    finally:
        await manager.stop()
        await memory.close()


def calendar_commands(
    world: World,
    *,
    http: HttpSender | None = None,
    public_url: str | None = None,
    local_files: bool = False,
) -> SlashCommands:
    """The world's slash commands with ``/calendar``: calendars over its manager and memory
    (``http``: how calendars are read by address)."""
    calendars = Calendars(
        memory=world.memory,
        tasks=world.manager,
        clock=world.clock,
        zone_of=world.agent.user_zone,
        http=http,
        public_url=public_url,
    )
    return SlashCommands(
        tasks=world.manager,
        memory=world.memory,
        agent=world.agent,
        clock=world.clock,
        calendars=calendars,
        local_files=local_files,
    )

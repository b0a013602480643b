"""The Telegram bot running for real against the Bot API stand-in, over real components."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from agent import DialogAgent
from common import ManualClock
from interfaces import ZONE_ASKED, ChatAgent
from interfaces.telegram import TelegramInterface, TelegramNotifier
from testing.botapi_standin import BotApiStandin
from tests.interfaces.fakes import FakeTime
from tests.interfaces.world import (
    Script,
    World,
    calendar_commands,
    default_script,
    open_world,
)

ALICE = 111
BOB = 222
STRANGER = 999
GROUP = -100500


@dataclass
class Harness:
    """A running bot, the world behind it, and the stand-in playing Telegram."""

    api: BotApiStandin
    world: World
    interface: TelegramInterface
    queue_time: FakeTime

    async def say(
        self, user: int, text: str, *, chat: int | None = None, replies: int = 1
    ) -> list[str]:
        """Send ``text`` as ``user`` and return the texts of the next ``replies`` messages."""
        where = chat if chat is not None else user
        before = len(self.api.sent_to(where))
        self.api.send_text(user, text, chat_id=chat)
        sent = await self.api.wait_for_messages(where, before + replies)
        return [message.text for message in sent[before:]]


@asynccontextmanager
async def running_bot(
    api: BotApiStandin,
    path: Path,
    *,
    clock: ManualClock | None = None,
    agent: ChatAgent | None = None,
    wrap_agent: Callable[[DialogAgent], ChatAgent] | None = None,
    script: Script = default_script,
    queue_time: FakeTime | None = None,
    calendars: bool = False,
) -> AsyncIterator[Harness]:
    """Start the whole bot (real python-telegram-bot, polling the stand-in) and stop it after.

    ``agent`` replaces the world's agent; ``wrap_agent`` makes the bot's agent from it.
    ``queue_time`` is the outgoing queue's clock (the stand-in may stamp calls with it).
    ``calendars``: the bot has ``/calendar`` and reads .ics files sent to it.
    """
    queue_time = queue_time or FakeTime()
    notifier = TelegramNotifier.create(token=api.token, base_url=api.base_url, clock=queue_time)
    async with open_world(path, notifier=notifier, clock=clock, script=script) as world:
        if agent is None and wrap_agent is not None:
            agent = wrap_agent(world.agent)
        commands = calendar_commands(world) if calendars else world.commands
        interface = TelegramInterface(
            token=api.token,
            base_url=api.base_url,
            allowed_users=[ALICE, BOB],
            agent=agent or world.agent,
            tasks=world.manager,
            memory=world.memory,
            notifier=notifier,
            commands=commands,
            poll_timeout=1.0,
        )
        for user in (ALICE, BOB):  # they started the bot before, and were asked their zone
            await world.memory.set_setting(str(user), ZONE_ASKED, "yes")
        await interface.start()
        try:
            yield Harness(api, world, interface, queue_time)
        finally:
            await interface.stop()

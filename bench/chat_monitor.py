"""Watch what the bot sends to the Bot API stand-in, sorted per chat into replies and reminders.

One watcher reads the stand-in's new messages as they arrive (one cheap check per change,
however many users wait), stamps each with its arrival time, and hands replies to the chat's
queue; reminders (the ``⏰ Reminder:`` marker the Telegram notifier adds) are kept apart.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import defaultdict
from dataclasses import dataclass, field

from testing.botapi_standin import BotApiStandin

REMINDER_MARK = "⏰ Reminder:"


@dataclass(frozen=True, slots=True)
class Arrival:
    """A message the bot sent, with when the watcher saw it (``time.perf_counter``)."""

    chat_id: int
    text: str
    at: float


@dataclass
class ChatMonitor:
    """Sorts the stand-in's sent messages per chat; run ``watch`` as a task."""

    api: BotApiStandin
    reminders: dict[int, list[Arrival]] = field(default_factory=lambda: defaultdict(list))
    _replies: dict[int, asyncio.Queue[Arrival]] = field(
        default_factory=lambda: defaultdict(asyncio.Queue)
    )
    _seen: int = 0

    async def watch(self) -> None:
        """Route every new message until cancelled."""
        while True:
            with contextlib.suppress(AssertionError):
                await self.api.wait_until(lambda: len(self.api.state.messages) > self._seen)
            self._route_new()

    async def next_reply(self, chat_id: int, *, within: float) -> Arrival | None:
        """Return the chat's next reply, or ``None`` when none arrives ``within`` seconds."""
        try:
            return await asyncio.wait_for(self._replies[chat_id].get(), within)
        except TimeoutError:
            return None

    def unclaimed_replies(self) -> int:
        """Count replies nobody waited for (extra messages)."""
        return sum(queue.qsize() for queue in self._replies.values())

    def _route_new(self) -> None:
        messages = list(self.api.state.messages.values())
        now = time.perf_counter()
        for message in messages[self._seen :]:
            arrival = Arrival(message.chat_id, message.text, now)
            if message.text.startswith(REMINDER_MARK):
                self.reminders[message.chat_id].append(arrival)
            else:
                self._replies[message.chat_id].put_nowait(arrival)
        self._seen = len(messages)

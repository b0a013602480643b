"""What the agent needs from memory, and how its messages are stored there.

``memory.MemoryStore`` satisfies ``ConversationStore``; ``InMemoryConversations`` is the
same contract in a dict, for tests and for running without a database.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol

from agent.llm.base import ChatMessage, Role
from common import Clock, SystemClock
from memory import (
    DEFAULT_MAX_CHARS,
    DEFAULT_MAX_TURNS,
    ConversationContext,
    MessageRole,
    StoredMessage,
    UserProfile,
    turn_size,
    within_budget,
)


class ConversationStore(Protocol):
    """Conversations per (user, chat) and the users' profiles (their time zone)."""

    async def append_turn(
        self, user_id: str, chat_id: str, messages: Sequence[StoredMessage]
    ) -> int:
        """Store one whole turn atomically and return its id."""
        ...

    async def load_context(
        self,
        user_id: str,
        chat_id: str,
        *,
        max_chars: int = DEFAULT_MAX_CHARS,
        max_turns: int | None = DEFAULT_MAX_TURNS,
    ) -> ConversationContext:
        """Return the user's profile and the newest whole turns that fit, oldest first."""
        ...

    async def clear_conversation(self, user_id: str, chat_id: str, *, forget: bool = False) -> int:
        """Start a fresh conversation; return how many turns it held."""
        ...

    async def get_user(self, user_id: str) -> UserProfile | None:
        """Return what is known about the user, or ``None``."""
        ...


def to_stored(message: ChatMessage) -> StoredMessage:
    """Return ``message`` as memory stores it (structured results are not kept; a message
    carrying several results keeps their tools' names, joined by commas, so a later turn
    knows what the conversation read)."""
    names = sorted({result.call.tool_name for result in message.results})
    name = ",".join(names) if names else None
    return StoredMessage(
        role=MessageRole(message.role.value),
        content=message.content,
        tool_calls=message.tool_calls,
        tool_call_id=message.tool_call_id,
        name=name,
    )


def from_stored(message: StoredMessage) -> ChatMessage:
    """Return a stored message as the agent's ``ChatMessage``."""
    return ChatMessage(
        role=Role(message.role.value),
        content=message.content,
        tool_calls=message.tool_calls,
        tool_call_id=message.tool_call_id,
    )


class InMemoryConversations:
    """A ``ConversationStore`` held in dicts, with the SQLite store's contract.

    Turns are loaded newest first within the same budget (``memory.turn_size``), stamped
    with their turn id and time; clearing archives a chat's turns, forgetting deletes them.

    Args:
        zones: IANA zone names per user id, as ``/tz`` would have set them.
        clock: Stamps turns and users (the system clock by default).
    """

    def __init__(self, *, zones: dict[str, str] | None = None, clock: Clock | None = None) -> None:
        self._clock = clock or SystemClock()
        self._turns: dict[tuple[str, str], list[tuple[int, list[StoredMessage]]]] = {}
        self._archived: dict[tuple[str, str], int] = {}
        self._last_turn = 0
        created = self._clock.now()
        self._users = {
            user_id: UserProfile(user_id=user_id, timezone=zone, created_at=created)
            for user_id, zone in (zones or {}).items()
        }

    async def append_turn(
        self, user_id: str, chat_id: str, messages: Sequence[StoredMessage]
    ) -> int:
        """Store one whole turn and return its id (ids grow across every chat)."""
        size = turn_size(messages)  # checks the messages as the SQLite store does
        self._last_turn += 1
        now = self._clock.now()
        stamped = [replace(m, turn_id=self._last_turn, created_at=now) for m in messages]
        self._turns.setdefault((user_id, chat_id), []).append((size, stamped))
        return self._last_turn

    async def load_conversation(
        self,
        user_id: str,
        chat_id: str,
        *,
        max_chars: int = DEFAULT_MAX_CHARS,
        max_turns: int | None = DEFAULT_MAX_TURNS,
    ) -> list[StoredMessage]:
        """Return the newest whole turns that fit the budget, oldest first."""
        turns = reversed(self._turns.get((user_id, chat_id), []))
        kept = within_budget(turns, max_chars=max_chars, max_turns=max_turns)
        return [message for turn in kept for message in turn]

    async def load_context(
        self,
        user_id: str,
        chat_id: str,
        *,
        max_chars: int = DEFAULT_MAX_CHARS,
        max_turns: int | None = DEFAULT_MAX_TURNS,
    ) -> ConversationContext:
        """Return the user's profile and the newest whole turns that fit, oldest first."""
        messages = await self.load_conversation(
            user_id, chat_id, max_chars=max_chars, max_turns=max_turns
        )
        return ConversationContext(await self.get_user(user_id), tuple(messages))

    async def clear_conversation(self, user_id: str, chat_id: str, *, forget: bool = False) -> int:
        """Start a fresh conversation; return how many turns it held (``forget``: every turn
        the chat ever held, archived ones too, all deleted)."""
        key = (user_id, chat_id)
        live = len(self._turns.pop(key, []))
        archived = self._archived.pop(key, 0)
        if forget:
            return live + archived
        self._archived[key] = archived + live
        return live

    async def get_user(self, user_id: str) -> UserProfile | None:
        """Return the user's profile when a zone was given for them, else ``None``."""
        return self._users.get(user_id)

"""What the agent needs from memory, and how its messages are stored there.

``memory.MemoryStore`` satisfies ``ConversationStore``; ``InMemoryConversations`` is the
same contract in a dict, for tests and for running without a database.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Protocol

from assistant.llm.base import ChatMessage, Role
from memory import (
    DEFAULT_MAX_CHARS,
    DEFAULT_MAX_TURNS,
    ConversationContext,
    MessageRole,
    StoredMessage,
    UserProfile,
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
    """Return ``message`` as memory stores it (structured results are not kept)."""
    name = message.results[0].call.tool_name if len(message.results) == 1 else None
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
    """A ``ConversationStore`` held in dicts; turns are dropped oldest first past a budget."""

    def __init__(self, *, zones: dict[str, str] | None = None) -> None:
        """Create an empty store.

        Args:
            zones: IANA zone names per user id, as ``/tz`` would have set them.
        """
        self._turns: dict[tuple[str, str], list[list[StoredMessage]]] = {}
        self._zones = dict(zones or {})

    async def append_turn(
        self, user_id: str, chat_id: str, messages: Sequence[StoredMessage]
    ) -> int:
        if not messages:
            raise ValueError("a turn needs at least one message, got none")
        turns = self._turns.setdefault((user_id, chat_id), [])
        turns.append(list(messages))
        return len(turns)

    async def load_conversation(
        self,
        user_id: str,
        chat_id: str,
        *,
        max_chars: int = DEFAULT_MAX_CHARS,
        max_turns: int | None = DEFAULT_MAX_TURNS,
    ) -> list[StoredMessage]:
        turns = self._turns.get((user_id, chat_id), [])
        kept: list[list[StoredMessage]] = []
        total = 0
        for turn in reversed(turns):
            total += sum(len(m.content) for m in turn)
            if total > max_chars or (max_turns is not None and len(kept) >= max_turns):
                break
            kept.append(turn)
        return [message for turn in reversed(kept) for message in turn]

    async def load_context(
        self,
        user_id: str,
        chat_id: str,
        *,
        max_chars: int = DEFAULT_MAX_CHARS,
        max_turns: int | None = DEFAULT_MAX_TURNS,
    ) -> ConversationContext:
        messages = await self.load_conversation(
            user_id, chat_id, max_chars=max_chars, max_turns=max_turns
        )
        return ConversationContext(await self.get_user(user_id), tuple(messages))

    async def clear_conversation(self, user_id: str, chat_id: str, *, forget: bool = False) -> int:
        return len(self._turns.pop((user_id, chat_id), []))

    async def get_user(self, user_id: str) -> UserProfile | None:
        zone = self._zones.get(user_id)
        if zone is None:
            return None
        return UserProfile(user_id=user_id, timezone=zone, created_at=datetime.now(UTC))

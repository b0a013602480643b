"""Where ``MemoryStore`` keeps things: one repository per kind of record, behind protocols.

``MemoryStore`` checks nothing and stores nothing itself: it merges search results and hands
every call to the repositories of its backend. Two backends keep the same contract (the memory
suites run against both): ``memory.sqlite`` (one file, FTS5) and ``memory.postgres`` (one
shared database, tsvector + GIN). Both are a ``SqlBackend``: the same repositories, written
once (``memory.sql``), on a ``Database`` of their kind, so both refuse the same values with
the same messages.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from common import Clock
from memory.approvals import ApprovalRepository
from memory.calendars import CalendarRepository
from memory.conversations import ConversationRepository, RankedMessage
from memory.models import (
    CalendarFeed,
    CalendarLink,
    CalendarSource,
    ConversationContext,
    Note,
    SettingHolder,
    StoredMessage,
    UserProfile,
)
from memory.notes import NoteLimits, NoteRepository, RankedNote
from memory.sql import Database, Steps
from memory.users import UserRepository
from tools import ApprovalRequest, ApprovalStatus


class Notes(Protocol):
    """Notes, scoped to their user."""

    async def add(
        self,
        user_id: str,
        content: str,
        tags: list[str] | None,
        *,
        limits: NoteLimits | None = None,
    ) -> Note: ...
    async def newest(self, user_id: str, limit: int, offset: int = 0) -> list[Note]: ...
    async def tagged(self, user_id: str, tags: Sequence[str], limit: int) -> list[Note]: ...
    async def search(self, user_id: str, query: str, limit: int) -> list[RankedNote]: ...


class Conversations(Protocol):
    """Conversations per (user, chat), stored and loaded by whole turns."""

    async def append_turn(
        self, user_id: str, chat_id: str, messages: Sequence[StoredMessage]
    ) -> int: ...
    async def load(
        self, user_id: str, chat_id: str, *, max_chars: int, max_turns: int | None
    ) -> list[StoredMessage]: ...
    async def clear(self, user_id: str, chat_id: str, *, forget: bool) -> int: ...
    async def search(self, user_id: str, query: str, limit: int) -> list[RankedMessage]: ...


class Users(Protocol):
    """Users: their zone and settings."""

    async def get(self, user_id: str) -> UserProfile | None: ...
    async def set_timezone(self, user_id: str, timezone: str) -> None: ...
    async def set_setting(self, user_id: str, key: str, value: str) -> None: ...
    async def get_setting(self, user_id: str, key: str) -> str | None: ...
    async def holding(self, key: str) -> list[SettingHolder]: ...
    async def delete_setting(self, user_id: str, key: str) -> bool: ...


class Approvals(Protocol):
    """Approval requests (``tools.ApprovalStore``'s records)."""

    async def save(self, request: ApprovalRequest) -> None: ...
    async def get(self, request_id: str) -> ApprovalRequest | None: ...
    async def decide(
        self, request_id: str, status: ApprovalStatus, by: str, at: datetime
    ) -> ApprovalRequest | None: ...
    async def for_user(
        self, user_id: str, status: ApprovalStatus | None
    ) -> list[ApprovalRequest]: ...


class Calendars(Protocol):
    """Feeds (by hashed token), the CalDAV sync's links and the calendars read."""

    async def make_feed(self, user_id: str, token_hash: str, at: datetime) -> CalendarFeed: ...
    async def feed(self, user_id: str) -> CalendarFeed | None: ...
    async def feed_owner(self, token_hash: str) -> str | None: ...
    async def revoke_feed(self, user_id: str) -> bool: ...
    async def links(self, user_id: str) -> list[CalendarLink]: ...
    async def save_links(
        self, links: list[CalendarLink], removed: list[tuple[str, str]]
    ) -> None: ...
    async def sources(self, user_id: str) -> list[CalendarSource]: ...
    async def save_source(self, source: CalendarSource) -> None: ...
    async def delete_source(self, user_id: str, name: str) -> bool: ...


class MemoryBackend(Protocol):
    """An open database and its repositories."""

    @property
    def notes(self) -> Notes: ...
    @property
    def conversations(self) -> Conversations: ...
    @property
    def users(self) -> Users: ...
    @property
    def approvals(self) -> Approvals: ...
    @property
    def calendars(self) -> Calendars: ...

    async def load_context(
        self, user_id: str, chat_id: str, *, max_chars: int, max_turns: int | None
    ) -> ConversationContext:
        """The user's profile and the chat's window, read from one snapshot."""
        ...

    async def close(self) -> None:
        """Close the connections."""
        ...


class SqlBackend:
    """The repositories on one database (either kind), built by its backend's ``open``."""

    def __init__(self, db: ClosableDatabase, clock: Clock) -> None:
        self._db = db
        self.notes = NoteRepository(db, clock)
        self.conversations = ConversationRepository(db, clock)
        self.users = UserRepository(db, clock)
        self.approvals = ApprovalRepository(db)
        self.calendars = CalendarRepository(db)

    async def load_context(
        self, user_id: str, chat_id: str, *, max_chars: int, max_turns: int | None
    ) -> ConversationContext:
        """The profile and the window read from one snapshot, in one operation."""
        read_user = self.users.profile_reader(user_id)
        read_window = self.conversations.window_reader(
            user_id, chat_id, max_chars=max_chars, max_turns=max_turns
        )
        return await self._db.read(_context(read_user, read_window), snapshot=True)

    async def close(self) -> None:
        """Close the connections."""
        await self._db.close()


class ClosableDatabase(Database, Protocol):
    """A ``Database`` its backend closes."""

    async def close(self) -> None:
        """Close the connections."""
        ...


def _context(
    read_user: Steps[UserProfile | None], read_window: Steps[list[StoredMessage]]
) -> Steps[ConversationContext]:
    user = yield from read_user
    window = yield from read_window
    return ConversationContext(user, tuple(window))

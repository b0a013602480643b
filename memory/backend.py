"""Where ``MemoryStore`` keeps things: one repository per kind of record, behind protocols.

``MemoryStore`` checks nothing and stores nothing itself: it merges search results and hands
every call to the repositories of its backend. Two backends keep the same contract (the memory
suites run against both): ``SqliteBackend`` (one file, FTS5) and the PostgreSQL one in
``memory.postgres`` (one shared database, tsvector + GIN). Repositories check their arguments
with the same helpers, so both refuse the same values with the same messages.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Protocol

from common import Clock
from memory._db import Database
from memory.approvals import ApprovalRepository
from memory.conversations import ConversationRepository, RankedMessage
from memory.models import ConversationContext, Note, StoredMessage, UserProfile
from memory.notes import NoteLimits, NoteRepository, RankedNote
from memory.schema import migrate
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

    async def load_context(
        self, user_id: str, chat_id: str, *, max_chars: int, max_turns: int | None
    ) -> ConversationContext:
        """The user's profile and the chat's window, read from one snapshot."""
        ...

    async def close(self) -> None:
        """Close the connections."""
        ...


class SqliteBackend:
    """The repositories on one SQLite connection (``memory._db.Database``).

    Use ``await SqliteBackend.open(path, ...)``.
    """

    def __init__(self, db: Database, clock: Clock) -> None:
        self._db = db
        self.notes = NoteRepository(db, clock)
        self.conversations = ConversationRepository(db, clock)
        self.users = UserRepository(db, clock)
        self.approvals = ApprovalRepository(db)

    @classmethod
    async def open(cls, path: Path, *, clock: Clock, busy_timeout: float) -> SqliteBackend:
        """Connect and create or migrate the tables.

        Raises:
            MemoryStoreError: when the file cannot be used (not SQLite, newer schema, ...).
        """
        db = await Database.connect(path, busy_timeout=busy_timeout)
        try:
            await migrate(db)
        except BaseException:
            await db.close()
            raise
        return cls(db, clock)

    async def load_context(
        self, user_id: str, chat_id: str, *, max_chars: int, max_turns: int | None
    ) -> ConversationContext:
        """The profile and the window in one snapshot, in one trip to the connection's thread."""
        read_user = self.users.profile_reader(user_id)
        read_window = self.conversations.window_reader(
            user_id, chat_id, max_chars=max_chars, max_turns=max_turns
        )
        return await self._db.read(
            lambda tx: ConversationContext(read_user(tx), tuple(read_window(tx))), snapshot=True
        )

    async def close(self) -> None:
        """Close the connection."""
        await self._db.close()

"""The memory repositories on a PostgreSQL database (``memory.backend.MemoryBackend``)."""

from __future__ import annotations

from common import Clock, PgConnection, PostgresDatabase, PostgresFailures
from memory.errors import MemoryStoreError, StoreClosedError
from memory.models import ConversationContext
from memory.postgres.approvals import PgApprovalRepository
from memory.postgres.conversations import PgConversationRepository
from memory.postgres.notes import PgNoteRepository
from memory.postgres.schema import migrate
from memory.postgres.users import PgUserRepository


def _closed(where: str) -> StoreClosedError:
    return StoreClosedError(f"the memory store on {where!r} is closed")


_FAILURES = PostgresFailures("the memory database", MemoryStoreError, _closed)


class PostgresBackend:
    """The repositories on one connection pool. Use ``await PostgresBackend.open(url, ...)``."""

    def __init__(self, db: PostgresDatabase, clock: Clock) -> None:
        self._db = db
        self.notes = PgNoteRepository(db, clock)
        self.conversations = PgConversationRepository(db, clock)
        self.users = PgUserRepository(db, clock)
        self.approvals = PgApprovalRepository(db)

    @classmethod
    async def open(cls, url: str, *, clock: Clock, pool_size: int = 4) -> PostgresBackend:
        """Connect and create or migrate the tables.

        Raises:
            MemoryStoreError: when the server cannot be reached or holds a newer schema.
        """
        db = PostgresDatabase(
            url, failures=_FAILURES, max_size=pool_size, application_name="assistant-memory"
        )
        await db.open(migrate=migrate)
        return cls(db, clock)

    async def load_context(
        self, user_id: str, chat_id: str, *, max_chars: int, max_turns: int | None
    ) -> ConversationContext:
        """The profile and the window from one snapshot (one REPEATABLE READ transaction)."""
        read_user = self.users.profile_reader(user_id)
        read_window = self.conversations.window_reader(
            user_id, chat_id, max_chars=max_chars, max_turns=max_turns
        )

        async def both(conn: PgConnection) -> ConversationContext:
            return ConversationContext(await read_user(conn), tuple(await read_window(conn)))

        return await self._db.read(both, snapshot=True)

    async def close(self) -> None:
        """Close the connections."""
        await self._db.close()

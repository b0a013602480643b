"""Conversations in PostgreSQL: whole turns stored atomically, loaded within a budget.

The same checks, encoding and budget as the SQLite repository (``memory.conversations``);
the decoded turns each chat's last load returned are kept for the next one the same way
(turn ids come from an identity column and are never reused).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime

from common import Clock, PgConnection, PostgresDatabase
from memory._db import from_db_time, to_db_time
from memory._validate import require_id, require_limit
from memory._windows import ChatWindows, Turns
from memory.conversations import (
    MESSAGE_COLUMNS,
    RankedMessage,
    check_budget,
    check_messages,
    decode_message,
    encode_message,
    turn_size,
    within_budget,
)
from memory.models import StoredMessage
from memory.postgres.schema import TEXT_SEARCH
from memory.postgres.search import all_then_any, build_tsquery

_INSERT_MESSAGES = (
    "INSERT INTO conversation_messages"
    " (turn_id, seq, role, content, tool_calls, tool_call_id, name)"
    " SELECT $1, m.seq - 1, m.role, m.content, m.tool_calls, m.tool_call_id, m.name"
    " FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[])"
    " WITH ORDINALITY AS m(role, content, tool_calls, tool_call_id, name, seq)"
)
# The turns of a chat newest first while their sizes fit the budget: the running total only
# bounds what is read; ``within_budget`` makes the decision, as in SQLite.
_NEWEST_TURNS = (
    "SELECT id, created_at, chars FROM ("
    " SELECT id, created_at, chars, sum(chars) OVER (ORDER BY id DESC) AS total"
    " FROM conversation_turns WHERE user_id = $1 AND chat_id = $2 AND NOT archived"
    " ORDER BY id DESC LIMIT $3) AS newest"
    " WHERE total - chars <= $4 ORDER BY id DESC"
)


class PgConversationRepository:
    """Reads and writes ``conversation_turns`` and ``conversation_messages``."""

    def __init__(self, db: PostgresDatabase, clock: Clock) -> None:
        self._db = db
        self._clock = clock
        self._windows = ChatWindows()

    async def append_turn(
        self, user_id: str, chat_id: str, messages: Sequence[StoredMessage]
    ) -> int:
        """Store one turn's messages in one transaction and return the turn id."""
        require_id(user_id, "user_id")
        require_id(chat_id, "chat_id")
        rows = [encode_message(message) for message in check_messages(messages)]
        chars = turn_size(messages)
        created = from_db_time(to_db_time(self._clock.now()))
        columns = [list(column) for column in zip(*rows, strict=True)]

        async def store(conn: PgConnection) -> int:
            turn_id = int(
                await conn.fetchval(
                    "INSERT INTO conversation_turns (user_id, chat_id, chars, created_at)"
                    " VALUES ($1, $2, $3, $4) RETURNING id",
                    user_id,
                    chat_id,
                    chars,
                    created,
                )
            )
            await conn.execute(_INSERT_MESSAGES, turn_id, *columns)
            return int(turn_id)

        return await self._db.write(store)

    async def load(
        self, user_id: str, chat_id: str, *, max_chars: int, max_turns: int | None
    ) -> list[StoredMessage]:
        """Return the newest whole turns whose total size fits ``max_chars``, oldest first."""
        read = self.window_reader(user_id, chat_id, max_chars=max_chars, max_turns=max_turns)
        return await self._db.read(read, snapshot=True)

    def window_reader(
        self, user_id: str, chat_id: str, *, max_chars: int, max_turns: int | None
    ) -> Callable[[PgConnection], Awaitable[list[StoredMessage]]]:
        """Check the arguments; return what reads the window (inside one snapshot)."""
        require_id(user_id, "user_id")
        require_id(chat_id, "chat_id")
        check_budget(max_chars, max_turns)
        key = (user_id, chat_id)

        async def window(conn: PgConnection) -> list[StoredMessage]:
            rows = await conn.fetch(_NEWEST_TURNS, user_id, chat_id, max_turns, max_chars)
            turns = within_budget(
                ((row["chars"], row) for row in rows), max_chars=max_chars, max_turns=max_turns
            )
            kept = self._windows.get(key)
            found = {int(row["id"]): kept[row["id"]] for row in turns if row["id"] in kept}
            missing = {int(row["id"]): row["created_at"] for row in turns if row["id"] not in kept}
            found.update(await _read_turns(conn, missing))
            self._windows.put(key, found)
            return [message for row in turns for message in found.get(row["id"], ())]

        return window

    async def clear(self, user_id: str, chat_id: str, *, forget: bool) -> int:
        """Start a fresh conversation; with ``forget`` delete it. Return the turns affected."""
        require_id(user_id, "user_id")
        require_id(chat_id, "chat_id")

        async def archive(conn: PgConnection) -> int:
            self._windows.drop((user_id, chat_id))
            rows = await conn.fetch(
                "UPDATE conversation_turns SET archived = true"
                " WHERE user_id = $1 AND chat_id = $2 AND NOT archived RETURNING id",
                user_id,
                chat_id,
            )
            return len(rows)

        async def delete(conn: PgConnection) -> int:
            self._windows.drop((user_id, chat_id))
            rows = await conn.fetch(
                "DELETE FROM conversation_turns WHERE user_id = $1 AND chat_id = $2 RETURNING id",
                user_id,
                chat_id,
            )  # its messages go with it (ON DELETE CASCADE)
            return len(rows)

        return await self._db.write(delete if forget else archive)

    async def search(self, user_id: str, query: str, limit: int) -> list[RankedMessage]:
        """Return the user's past user/assistant messages (every chat) matching ``query``."""
        require_id(user_id, "user_id")
        require_limit(limit)
        ts = build_tsquery(query)
        if ts is None:
            return []

        async def both(conn: PgConnection) -> list[RankedMessage]:
            def match(text: str, most: int, every: bool) -> Awaitable[list[RankedMessage]]:
                return _match(conn, user_id, text, most, matched_all=every)

            return await all_then_any(ts, limit, match, key=lambda hit: hit.id)

        return await self._db.read(both, snapshot=True)


async def _match(
    conn: PgConnection, user_id: str, query: str, limit: int, *, matched_all: bool
) -> list[RankedMessage]:
    rows = await conn.fetch(
        f"SELECT {MESSAGE_COLUMNS}, ts_rank(m.search, q) AS score"
        " FROM conversation_messages AS m JOIN conversation_turns AS t ON t.id = m.turn_id,"
        f" to_tsquery('{TEXT_SEARCH}', $1) AS q"
        " WHERE m.search @@ q AND t.user_id = $2 ORDER BY score DESC, m.id DESC LIMIT $3",
        query,
        user_id,
        limit,
    )
    return [
        RankedMessage(
            id=int(row["id"]),
            chat_id=str(row["chat_id"]),
            message=decode_message(row, row["created_at"]),
            created_at=row["created_at"],
            score=float(row["score"]),
            matched_all=matched_all,
        )
        for row in rows
    ]


async def _read_turns(conn: PgConnection, created: dict[int, datetime]) -> Turns:
    """Read and decode the messages of the turns ``created`` maps to their stored time."""
    if not created:
        return {}
    rows = await conn.fetch(
        "SELECT turn_id, role, content, tool_calls, tool_call_id, name"
        " FROM conversation_messages WHERE turn_id = ANY($1::bigint[]) ORDER BY turn_id, seq",
        list(created),
    )
    turns: dict[int, list[StoredMessage]] = {}
    for row in rows:
        turn_id = int(row["turn_id"])
        turns.setdefault(turn_id, []).append(decode_message(row, created[turn_id]))
    return {turn_id: tuple(messages) for turn_id, messages in turns.items()}

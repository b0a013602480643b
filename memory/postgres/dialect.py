"""PostgreSQL's side of the memory repositories' SQL: ``$n`` marks, ``timestamptz``, arrays,
a lock per user, tsvector search.

Instants are bound and read as aware datetimes (UTC, to the microsecond, as SQLite keeps
them). Full-text search uses the generated ``tsvector`` columns and their GIN indexes,
ranked by ``ts_rank``. Several processes share the database, so an insert that numbers a
user's notes takes a lock per user until the commit.
"""

from __future__ import annotations

import functools
import itertools
import re
import sys
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from memory.fts import FtsQuery
from memory.postgres.schema import TEXT_SEARCH
from memory.postgres.search import build_tsquery
from memory.sql import Dialect, Searched, Statement, stored_time

_MARK = re.compile(r"\?")

_FULL_TEXT = {
    "notes": (
        f"notes AS n, to_tsquery('{TEXT_SEARCH}', ?) AS q",
        "n.search @@ q",
        "ts_rank(n.search, q)",
    ),
    "messages": (
        "conversation_messages AS m JOIN conversation_turns AS t ON t.id = m.turn_id,"
        f" to_tsquery('{TEXT_SEARCH}', ?) AS q",
        "m.search @@ q",
        "ts_rank(m.search, q)",
    ),
}
# The turns of a chat newest first while their sizes fit the budget: the running total only
# bounds what is read; ``within_budget`` makes the decision, as in SQLite.
_NEWEST_TURNS = (
    "SELECT id, created_at, chars FROM ("
    " SELECT id, created_at, chars, sum(chars) OVER (ORDER BY id DESC) AS total"
    " FROM conversation_turns WHERE user_id = ? AND chat_id = ? AND NOT archived"
    " ORDER BY id DESC LIMIT ?) AS newest"
    " WHERE total - chars <= ? ORDER BY id DESC"
)
_INSERT_MESSAGES = (
    "INSERT INTO conversation_messages"
    " (turn_id, seq, role, content, tool_calls, tool_call_id, name)"
    " SELECT ?, m.seq - 1, m.role, m.content, m.tool_calls, m.tool_call_id, m.name"
    " FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[])"
    " WITH ORDINALITY AS m(role, content, tool_calls, tool_call_id, name, seq)"
)


@functools.lru_cache(maxsize=256)
def _numbered(sql: str) -> str:
    counter = itertools.count(1)
    return _MARK.sub(lambda _: f"${next(counter)}", sql)


class PostgresDialect(Dialect):
    """The repositories' statements as PostgreSQL runs them."""

    list_chunk = sys.maxsize  # one array parameter holds any number

    def marks(self, sql: str) -> str:
        """``sql`` with ``$1``, ``$2``, ... for its ``?`` marks (the repositories' statements
        hold no other ``?``)."""
        return _numbered(sql)

    def time(self, moment: datetime, *, what: str = "time") -> datetime:
        """``moment`` in UTC, to the microsecond (``timestamptz``)."""
        return stored_time(moment, what=what)

    def read_time(self, value: Any) -> datetime:
        """A ``timestamptz`` comes back as an aware datetime already."""
        result: datetime = value
        return result

    def byte_length(self, column: str) -> str:
        """The length of ``column``'s UTF-8 bytes."""
        return f"octet_length({column})"

    def any_of(self, column: str, values: Sequence[int]) -> tuple[str, tuple[Any, ...]]:
        """``column = ANY(?::bigint[])`` and the values as one array."""
        return f"{column} = ANY(?::bigint[])", (list(values),)

    def lock_user(self, user_id: str) -> Statement:
        """A transaction-level advisory lock on the user's id."""
        return self.statement("SELECT pg_advisory_xact_lock(hashtextextended(?, 0))", user_id)

    def search_query(self, text: str) -> FtsQuery | None:
        """``to_tsquery`` texts that are never a syntax error (``search``)."""
        return build_tsquery(text)

    def full_text(self, searched: Searched) -> tuple[str, str, str]:
        """The table with its ``to_tsquery``, ``@@``, and ``ts_rank``."""
        return _FULL_TEXT[searched]

    def newest_turns(
        self, user_id: str, chat_id: str, max_turns: int | None, max_chars: int
    ) -> Statement:
        """The chat's current turns newest first, bounded by a running total of sizes."""
        return self.statement(_NEWEST_TURNS, user_id, chat_id, max_turns, max_chars, want="all")

    def insert_messages(self, turn_id: int, rows: Sequence[tuple[Any, ...]]) -> Statement:
        """One ``INSERT`` of the messages as arrays, column by column."""
        columns = [list(column) for column in zip(*rows, strict=True)]
        return self.statement(_INSERT_MESSAGES, turn_id, *columns)


POSTGRES = PostgresDialect()

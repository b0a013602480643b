"""SQLite's side of the memory repositories' SQL: ``?`` marks, instants as text, FTS5.

Instants are stored as fixed-width UTC text (``common.to_db_time``). Full-text search goes
through the FTS5 tables the schema keeps in step with ``notes`` and ``conversation_messages``
(porter stemming), ranked by bm25. A chat's newest turns are read as they are wanted, so the
budget stops the reading. One write transaction holds the whole file, so writers for one user
need no lock of their own. A row that cannot be read (a damaged page) is skipped with one
warning, not allowed to take the rest with it.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import Any, TypeVar

from common import UnreadableText, from_db_time, to_db_time
from memory.errors import MemoryInputError
from memory.fts import FtsQuery, build_query
from memory.sql import Dialect, Searched, Statement

T = TypeVar("T")
logger = logging.getLogger("memory")

_FULL_TEXT = {
    "notes": (
        "notes_fts JOIN notes AS n ON n.id = notes_fts.rowid",
        "notes_fts MATCH ?",
        "-bm25(notes_fts)",
    ),
    "messages": (
        "conversation_messages_fts"
        " JOIN conversation_messages AS m ON m.id = conversation_messages_fts.rowid"
        " JOIN conversation_turns AS t ON t.id = m.turn_id",
        "conversation_messages_fts MATCH ?",
        "-bm25(conversation_messages_fts)",
    ),
}


class SqliteDialect(Dialect):
    """The repositories' statements as SQLite runs them (one per connection: it remembers
    the unreadable rows it warned about)."""

    # Bound parameters per query stay far below SQLite's limit (999 before 3.32).
    list_chunk = 500

    def __init__(self) -> None:
        self.reported: set[str] = set()
        """The unreadable rows already warned about (``decode_rows``)."""

    def time(self, moment: datetime, *, what: str = "time") -> str:
        """``moment`` as fixed-width UTC text."""
        return to_db_time(moment, what=what, error=MemoryInputError)

    def read_time(self, value: Any) -> datetime:
        """A stored instant's text as an aware datetime."""
        return from_db_time(value)

    def byte_length(self, column: str) -> str:
        """The length of ``column``'s UTF-8 bytes."""
        return f"length(CAST({column} AS BLOB))"

    def any_of(self, column: str, values: Sequence[int]) -> tuple[str, tuple[Any, ...]]:
        """``column IN (?, ?, ...)`` and the values."""
        return f"{column} IN ({', '.join('?' * len(values))})", tuple(values)

    def decode(self, rows: Iterable[Any], decode: Callable[[Any], T], what: str) -> list[T]:
        """Decode ``rows``, skipping those that cannot be read (``decode_rows``)."""
        return decode_rows(rows, decode, what, reported=self.reported)

    def search_query(self, text: str) -> FtsQuery | None:
        """FTS5 queries: quoted words, prefixes when long enough."""
        return build_query(text)

    def full_text(self, searched: Searched) -> tuple[str, str, str]:
        """The FTS5 table joined to its rows, ``MATCH``, and bm25 negated (bm25 is lower for
        better matches)."""
        return _FULL_TEXT[searched]

    def newest_turns(
        self, user_id: str, chat_id: str, max_turns: int | None, max_chars: int
    ) -> Statement:
        """The chat's current turns newest first, read as they are wanted."""
        return self.statement(
            "SELECT id, created_at, chars FROM conversation_turns"
            " WHERE user_id = ? AND chat_id = ? AND archived = 0 ORDER BY id DESC LIMIT ?",
            user_id, chat_id, -1 if max_turns is None else max_turns, want="rows",
        )  # fmt: skip

    def insert_messages(self, turn_id: int, rows: Sequence[tuple[Any, ...]]) -> Statement:
        """One ``INSERT`` per message (``executemany``)."""
        return Statement(
            "INSERT INTO conversation_messages"
            " (turn_id, seq, role, content, tool_calls, tool_call_id, name)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(turn_id, seq, *row) for seq, row in enumerate(rows)],
            want="many",
        )


# What decoding a damaged row raises: text that is not UTF-8, JSON that does not parse, a
# role or an instant that is not one.
_UNREADABLE = (ValueError, KeyError, TypeError, IndexError)


def decode_rows(
    rows: Iterable[sqlite3.Row],
    decode: Callable[[sqlite3.Row], T],
    what: str,
    *,
    reported: set[str],
) -> list[T]:
    """Decode ``rows``, skipping each row that cannot be read, with one warning for all.

    A damaged page can leave a value that is not UTF-8 (``UnreadableText``) or not what its
    column holds while ``quick_check`` still passes; one such row must not take the rest of
    the history with it. A row is warned about once per store (``reported`` remembers).
    """
    kept: list[T] = []
    skipped: list[str] = []
    for row in rows:
        try:
            if any(isinstance(value, UnreadableText) for value in row):
                raise ValueError("text that is not UTF-8")
            kept.append(decode(row))
        except _UNREADABLE as exc:
            names = row.keys()
            key = f"{what} {row['id'] if 'id' in names else '?'}"
            if key not in reported:
                reported.add(key)
                skipped.append(f"{key}: {exc}")
    if skipped:
        logger.warning(
            "skipped %d stored %s(s) that cannot be read (%s): the database file is damaged; "
            "run `assistant doctor` to see what is wrong and what to do",
            len(skipped),
            what,
            ", ".join(skipped[:5]),
        )
    return kept

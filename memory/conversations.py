"""Conversations per (user, chat): whole turns stored atomically, loaded within a budget."""

from __future__ import annotations

import functools
import itertools
import json
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from common import Clock, clean_text
from memory._db import Database, Session, decode_rows, from_db_time, to_db_time
from memory._validate import require_id, require_limit
from memory._windows import ChatWindows, Turns
from memory.errors import MemoryInputError
from memory.fts import build_query
from memory.models import MessageRole, StoredMessage
from tools import ToolCall

DEFAULT_MAX_CHARS = 16_000
"""How much history ``load`` returns by default (about 4,000 tokens)."""

DEFAULT_MAX_TURNS = 100
"""How many turns ``load`` considers at most by default (bounds the work per load)."""

T = TypeVar("T")

# Bound parameters per query stay far below SQLite's limit (999 before 3.32).
_IDS_PER_QUERY = 500

_ROLES = frozenset(role.value for role in MessageRole)

_MESSAGE_COLUMNS = (
    "m.id, m.turn_id, m.role, m.content, m.tool_calls, m.tool_call_id, m.name,"
    " t.chat_id, t.created_at"
)


@dataclass(frozen=True, slots=True)
class RankedMessage:
    """A past message found by a search, with its relevance."""

    id: int
    chat_id: str
    message: StoredMessage
    created_at: datetime
    score: float
    matched_all: bool


class ConversationRepository:
    """Reads and writes ``conversation_turns`` and ``conversation_messages``."""

    def __init__(self, db: Database, clock: Clock) -> None:
        self._db = db
        self._clock = clock
        # Touched only inside functions that run on the connection's thread.
        self._windows = ChatWindows()

    async def append_turn(
        self, user_id: str, chat_id: str, messages: Sequence[StoredMessage]
    ) -> int:
        """Store one turn's messages in one transaction and return the turn id."""
        require_id(user_id, "user_id")
        require_id(chat_id, "chat_id")
        rows = [_encode(message) for message in _check_messages(messages)]
        chars = sum(_size(row) for row in rows)
        created = to_db_time(self._clock.now())

        def store(tx: Session) -> int:
            turn_id = tx.insert(
                "INSERT INTO conversation_turns (user_id, chat_id, chars, created_at)"
                " VALUES (?, ?, ?, ?)",
                (user_id, chat_id, chars, created),
            )
            tx.execute_many(
                "INSERT INTO conversation_messages"
                " (turn_id, seq, role, content, tool_calls, tool_call_id, name)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(turn_id, seq, *row) for seq, row in enumerate(rows)],
            )
            return turn_id

        return await self._db.write(store)

    async def load(
        self, user_id: str, chat_id: str, *, max_chars: int, max_turns: int | None
    ) -> list[StoredMessage]:
        """Return the newest whole turns whose total size fits ``max_chars``, oldest first."""
        read = self.window_reader(user_id, chat_id, max_chars=max_chars, max_turns=max_turns)
        # One snapshot, so a turn deleted by another connection between the two queries
        # cannot leave a hole.
        return await self._db.read(read, snapshot=True)

    def window_reader(
        self, user_id: str, chat_id: str, *, max_chars: int, max_turns: int | None
    ) -> Callable[[Session], list[StoredMessage]]:
        """Check the arguments; return what reads the window on the connection's thread.

        The reader's queries belong in one snapshot (``Database.read(..., snapshot=True)``).
        """
        require_id(user_id, "user_id")
        require_id(chat_id, "chat_id")
        _check_budget(max_chars, max_turns)
        key = (user_id, chat_id)

        def window(tx: Session) -> list[StoredMessage]:
            turns = _newest_turns(tx, user_id, chat_id, max_chars, max_turns)
            kept = self._windows.get(key)
            found = {int(row["id"]): kept[row["id"]] for row in turns if row["id"] in kept}
            missing = {int(row["id"]): row["created_at"] for row in turns if row["id"] not in kept}
            found.update(_read_turns(tx, missing, self._db.reported))
            self._windows.put(key, found)
            return [message for row in turns for message in found.get(row["id"], ())]

        return window

    async def clear(self, user_id: str, chat_id: str, *, forget: bool) -> int:
        """Start a fresh conversation; with ``forget`` delete it. Return the turns affected."""
        require_id(user_id, "user_id")
        require_id(chat_id, "chat_id")

        def archive(tx: Session) -> int:
            self._windows.drop((user_id, chat_id))
            return tx.execute(
                "UPDATE conversation_turns SET archived = 1"
                " WHERE user_id = ? AND chat_id = ? AND archived = 0",
                (user_id, chat_id),
            )

        def delete(tx: Session) -> int:
            self._windows.drop((user_id, chat_id))
            tx.execute(
                "DELETE FROM conversation_messages WHERE turn_id IN ("
                " SELECT id FROM conversation_turns WHERE user_id = ? AND chat_id = ?)",
                (user_id, chat_id),
            )
            return tx.execute(
                "DELETE FROM conversation_turns WHERE user_id = ? AND chat_id = ?",
                (user_id, chat_id),
            )

        return await self._db.write(delete if forget else archive)

    async def search(self, user_id: str, query: str, limit: int) -> list[RankedMessage]:
        """Return the user's past user/assistant messages (every chat) matching ``query``."""
        require_id(user_id, "user_id")
        require_limit(limit)
        fts = build_query(query)
        if fts is None:
            return []

        def both(tx: Session) -> list[RankedMessage]:
            found = _match(tx, user_id, fts.all_terms, limit, self._db.reported, matched_all=True)
            if len(found) < limit and fts.any_terms is not None:
                seen = {hit.id for hit in found}
                more = _match(
                    tx, user_id, fts.any_terms, limit + len(seen), self._db.reported,
                    matched_all=False,
                )  # fmt: skip
                found += [hit for hit in more if hit.id not in seen]
            return found[:limit]

        return await self._db.read(both)


def _match(
    tx: Session, user_id: str, match: str, limit: int, reported: set[str], *, matched_all: bool
) -> list[RankedMessage]:
    rows = tx.fetch_all(
        f"SELECT {_MESSAGE_COLUMNS}, bm25(conversation_messages_fts) AS score"
        " FROM conversation_messages_fts"
        " JOIN conversation_messages AS m ON m.id = conversation_messages_fts.rowid"
        " JOIN conversation_turns AS t ON t.id = m.turn_id"
        " WHERE conversation_messages_fts MATCH ? AND t.user_id = ?"
        " ORDER BY score, m.id DESC LIMIT ?",
        (match, user_id, limit),
    )
    return decode_rows(
        rows,
        lambda row: RankedMessage(
            id=int(row["id"]),
            chat_id=str(row["chat_id"]),
            message=_decode(row, from_db_time(row["created_at"])),
            created_at=from_db_time(row["created_at"]),
            score=-float(row["score"]),
            matched_all=matched_all,
        ),
        "message",
        reported=reported,
    )


def turn_size(messages: Sequence[StoredMessage]) -> int:
    """How much of the history budget a turn takes: its text plus its native tool-call JSON.

    The one measure of the budget (``max_chars``): stores that keep conversations elsewhere
    count with it too.

    Raises:
        MemoryInputError: for a message that cannot be stored (see ``append_turn``).
    """
    return sum(_size(_encode(message)) for message in _check_messages(messages))


def _size(row: tuple[str, str, str, str | None, str | None]) -> int:
    _, content, calls, _, _ = row
    return len(content) + len(calls)


def _check_messages(messages: Sequence[StoredMessage]) -> Sequence[StoredMessage]:
    if not messages:
        raise MemoryInputError("a turn needs at least one message, got none")
    for message in messages:
        if not isinstance(message, StoredMessage):
            raise MemoryInputError(f"a turn holds StoredMessage values, got {message!r}")
        if not isinstance(message.content, str):
            raise MemoryInputError(f"message content must be a string, got {message.content!r}")
        if message.role not in _ROLES:
            raise MemoryInputError(
                f"message role must be one of {sorted(_ROLES)}, got {message.role!r}"
            )
    return messages


def _encode(message: StoredMessage) -> tuple[str, str, str, str | None, str | None]:
    calls = [
        {"id": c.id, "name": c.tool_name, "arguments": c.arguments} for c in message.tool_calls
    ]
    try:
        calls_json = json.dumps(calls, ensure_ascii=False) if calls else ""
    except (TypeError, ValueError) as exc:
        raise MemoryInputError(
            f"tool call arguments must be JSON values (strings, numbers, lists, objects): {exc}"
        ) from exc
    role = MessageRole(message.role).value
    # The store's own edge: text that cannot be UTF-8 (a lone surrogate) would fail the insert
    # and lose the whole turn.
    name = None if message.name is None else clean_text(message.name)
    call_id = None if message.tool_call_id is None else clean_text(message.tool_call_id)
    return role, clean_text(message.content), clean_text(calls_json), call_id, name


def within_budget(
    turns: Iterable[tuple[int, T]], *, max_chars: int, max_turns: int | None
) -> list[T]:
    """The newest turns that fit the history budget, oldest first.

    ``turns`` are (size, turn) pairs, newest first, sized by ``turn_size``. Counting from the
    newest turn backwards, the turns that fit are a suffix: reading stops at the first turn
    that no longer fits (a newest turn larger than the budget alone leaves nothing), or after
    ``max_turns`` turns (``None``: no turn limit).

    Raises:
        MemoryInputError: for a negative ``max_chars`` or a ``max_turns`` outside 1..1000.
    """
    _check_budget(max_chars, max_turns)
    fitting: list[T] = []
    total = 0
    for size, turn in itertools.islice(turns, max_turns):
        total += size
        if total > max_chars:
            break
        fitting.append(turn)
    fitting.reverse()
    return fitting


def _check_budget(max_chars: int, max_turns: int | None) -> None:
    if isinstance(max_chars, bool) or not isinstance(max_chars, int) or max_chars < 0:
        raise MemoryInputError(f"max_chars must be an integer >= 0, got {max_chars!r}")
    if max_turns is not None:
        require_limit(max_turns)


def _newest_turns(
    tx: Session, user_id: str, chat_id: str, max_chars: int, max_turns: int | None
) -> list[sqlite3.Row]:
    """Return the newest turns (id, created_at) within the budget, oldest first."""
    rows = tx.iterate(
        "SELECT id, created_at, chars FROM conversation_turns"
        " WHERE user_id = ? AND chat_id = ? AND archived = 0 ORDER BY id DESC LIMIT ?",
        (user_id, chat_id, -1 if max_turns is None else max_turns),
    )
    return within_budget(
        ((row["chars"], row) for row in rows), max_chars=max_chars, max_turns=max_turns
    )


def _read_turns(tx: Session, created: dict[int, str], reported: set[str]) -> Turns:
    """Read and decode the messages of the turns ``created`` maps to their stored time."""
    turns: dict[int, list[StoredMessage]] = {}
    ids = list(created)
    for start in range(0, len(ids), _IDS_PER_QUERY):
        chunk = ids[start : start + _IDS_PER_QUERY]
        rows = tx.fetch_all(
            "SELECT id, turn_id, role, content, tool_calls, tool_call_id, name"
            f" FROM conversation_messages WHERE turn_id IN ({', '.join('?' * len(chunk))})"
            " ORDER BY turn_id, seq",
            chunk,
        )
        times = {turn_id: from_db_time(created[turn_id]) for turn_id in chunk}
        decode = functools.partial(_decode_in, times=times)
        readable = decode_rows(rows, decode, "message", reported=reported)
        for message in readable:
            assert message.turn_id is not None
            turns.setdefault(message.turn_id, []).append(message)
    return {turn_id: tuple(messages) for turn_id, messages in turns.items()}


def _decode_in(row: sqlite3.Row, times: dict[int, datetime]) -> StoredMessage:
    return _decode(row, times[int(row["turn_id"])])


def _decode(row: sqlite3.Row, created_at: datetime) -> StoredMessage:
    raw_calls: list[dict[str, Any]] = json.loads(row["tool_calls"]) if row["tool_calls"] else []
    return StoredMessage(
        role=MessageRole(row["role"]),
        content=str(row["content"]),
        tool_calls=tuple(
            ToolCall(tool_name=str(c["name"]), arguments=dict(c["arguments"]), id=str(c["id"]))
            for c in raw_calls
        ),
        tool_call_id=row["tool_call_id"],
        name=row["name"],
        turn_id=int(row["turn_id"]),
        created_at=created_at,
    )

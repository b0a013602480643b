"""Conversations per (user, chat): whole turns stored atomically, loaded within a budget (in
either database)."""

from __future__ import annotations

import functools
import itertools
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from common import Clock, clean_text
from memory._rows import NamedRow
from memory._validate import require_id, require_limit
from memory._windows import ChatWindows, Turns
from memory.errors import MemoryInputError
from memory.models import MessageRole, StoredMessage
from memory.sql import Database, Statement, Steps, full_text_search
from tools import ToolCall

DEFAULT_MAX_CHARS = 16_000
"""How much history ``load`` returns by default (about 4,000 tokens)."""

DEFAULT_MAX_TURNS = 100
"""How many turns ``load`` considers at most by default (bounds the work per load)."""

T = TypeVar("T")

_ROLES = frozenset(role.value for role in MessageRole)

MESSAGE_COLUMNS = (
    "m.id, m.turn_id, m.role, m.content, m.tool_calls, m.tool_call_id, m.name,"
    " t.chat_id, t.created_at"
)
"""What a search reads of a message (``m``) and its turn (``t``), in both databases."""


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
        self._d = db.dialect
        self._clock = clock
        # Touched only by steps, which run one at a time (on SQLite's connection thread).
        self._windows = ChatWindows()

    async def append_turn(
        self, user_id: str, chat_id: str, messages: Sequence[StoredMessage]
    ) -> int:
        """Store one turn's messages in one transaction and return the turn id."""
        require_id(user_id, "user_id")
        require_id(chat_id, "chat_id")
        rows = [encode_message(message) for message in check_messages(messages)]
        chars = sum(_size(row) for row in rows)
        turn = self._d.statement(
            "INSERT INTO conversation_turns (user_id, chat_id, chars, created_at)"
            " VALUES (?, ?, ?, ?) RETURNING id",
            user_id, chat_id, chars, self._d.time(self._clock.now()), want="value",
        )  # fmt: skip
        return await self._db.write(self._store(turn, rows))

    def _store(self, turn: Statement, rows: Sequence[tuple[Any, ...]]) -> Steps[int]:
        turn_id = int((yield turn))
        yield self._d.insert_messages(turn_id, rows)
        return turn_id

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
    ) -> Steps[list[StoredMessage]]:
        """Check the arguments; return the steps that read the window (their queries
        belong in one snapshot)."""
        require_id(user_id, "user_id")
        require_id(chat_id, "chat_id")
        check_budget(max_chars, max_turns)
        return self._window(user_id, chat_id, max_chars, max_turns)

    def _window(
        self, user_id: str, chat_id: str, max_chars: int, max_turns: int | None
    ) -> Steps[list[StoredMessage]]:
        key = (user_id, chat_id)
        rows = yield self._d.newest_turns(user_id, chat_id, max_turns, max_chars)
        turns = within_budget(
            ((row["chars"], row) for row in rows), max_chars=max_chars, max_turns=max_turns
        )
        kept = self._windows.get(key)
        found = {int(row["id"]): kept[row["id"]] for row in turns if row["id"] in kept}
        missing = {
            int(row["id"]): self._d.read_time(row["created_at"])
            for row in turns
            if row["id"] not in kept
        }
        found.update((yield from self._read_turns(missing)))
        self._windows.put(key, found)
        return [message for row in turns for message in found.get(row["id"], ())]

    def _read_turns(self, created: dict[int, datetime]) -> Steps[Turns]:
        """Read and decode the messages of the turns ``created`` maps to their time."""
        turns: dict[int, list[StoredMessage]] = {}
        for chunk in self._d.chunks(list(created)):
            ids, params = self._d.any_of("turn_id", chunk)
            rows = yield self._d.statement(
                "SELECT id, turn_id, role, content, tool_calls, tool_call_id, name"
                f" FROM conversation_messages WHERE {ids} ORDER BY turn_id, seq",
                *params,
                want="all",
            )
            decode = functools.partial(_decode_in, times=created)
            for message in self._d.decode(rows, decode, "message"):
                assert message.turn_id is not None
                turns.setdefault(message.turn_id, []).append(message)
        return {turn_id: tuple(messages) for turn_id, messages in turns.items()}

    async def clear(self, user_id: str, chat_id: str, *, forget: bool) -> int:
        """Start a fresh conversation; with ``forget`` delete it. Return the turns affected."""
        require_id(user_id, "user_id")
        require_id(chat_id, "chat_id")
        return await self._db.write(self._clear(user_id, chat_id, forget))

    def _clear(self, user_id: str, chat_id: str, forget: bool) -> Steps[int]:
        self._windows.drop((user_id, chat_id))
        if not forget:
            archived = yield self._d.statement(
                "UPDATE conversation_turns SET archived = true"
                " WHERE user_id = ? AND chat_id = ? AND archived = false",
                user_id, chat_id, want="count",
            )  # fmt: skip
            return int(archived)
        yield self._d.statement(
            "DELETE FROM conversation_messages WHERE turn_id IN ("
            " SELECT id FROM conversation_turns WHERE user_id = ? AND chat_id = ?)",
            user_id, chat_id,
        )  # fmt: skip
        deleted = yield self._d.statement(
            "DELETE FROM conversation_turns WHERE user_id = ? AND chat_id = ?",
            user_id, chat_id, want="count",
        )  # fmt: skip
        return int(deleted)

    async def search(self, user_id: str, query: str, limit: int) -> list[RankedMessage]:
        """Return the user's past user/assistant messages (every chat) matching ``query``."""
        require_id(user_id, "user_id")
        require_limit(limit)
        return await full_text_search(
            self._db, "messages", MESSAGE_COLUMNS, user_id, query, limit,
            hit=self._ranked, key=lambda found: found.id,
        )  # fmt: skip

    def _ranked(self, row: NamedRow, score: float, matched_all: bool) -> RankedMessage:
        created_at = self._d.read_time(row["created_at"])
        return RankedMessage(
            id=int(row["id"]),
            chat_id=str(row["chat_id"]),
            message=decode_message(row, created_at),
            created_at=created_at,
            score=score,
            matched_all=matched_all,
        )


def turn_size(messages: Sequence[StoredMessage]) -> int:
    """How much of the history budget a turn takes: its text plus its native tool-call JSON.

    The one measure of the budget (``max_chars``): stores that keep conversations elsewhere
    count with it too.

    Raises:
        MemoryInputError: for a message that cannot be stored (see ``append_turn``).
    """
    return sum(_size(encode_message(message)) for message in check_messages(messages))


def _size(row: tuple[str, str, str, str | None, str | None]) -> int:
    _, content, calls, _, _ = row
    return len(content) + len(calls)


def check_messages(messages: Sequence[StoredMessage]) -> Sequence[StoredMessage]:
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


def encode_message(message: StoredMessage) -> tuple[str, str, str, str | None, str | None]:
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
    check_budget(max_chars, max_turns)
    fitting: list[T] = []
    total = 0
    for size, turn in itertools.islice(turns, max_turns):
        total += size
        if total > max_chars:
            break
        fitting.append(turn)
    fitting.reverse()
    return fitting


def check_budget(max_chars: int, max_turns: int | None) -> None:
    if isinstance(max_chars, bool) or not isinstance(max_chars, int) or max_chars < 0:
        raise MemoryInputError(f"max_chars must be an integer >= 0, got {max_chars!r}")
    if max_turns is not None:
        require_limit(max_turns)


def _decode_in(row: NamedRow, times: dict[int, datetime]) -> StoredMessage:
    return decode_message(row, times[int(row["turn_id"])])


def decode_message(row: NamedRow, created_at: datetime) -> StoredMessage:
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

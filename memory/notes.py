"""Notes: short texts a user asked to keep, with tags and ranked full-text search (in either
database; each searches with its own full-text index)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from common import Clock, clean_text
from memory._rows import NamedRow
from memory._validate import require_id, require_limit
from memory.errors import MemoryInputError, MemoryLimitError
from memory.models import Note
from memory.sql import Database, Steps, full_text_search, single, stored_time

MAX_NOTE_CHARS = 20_000
MAX_TAGS = 20
MAX_TAG_CHARS = 50


@dataclass(frozen=True, slots=True)
class NoteLimits:
    """How much one user may keep in notes.

    Attributes:
        max_notes: Notes per user.
        max_bytes: The bytes of their texts together (UTF-8).
    """

    max_notes: int = 5000
    max_bytes: int = 5_000_000

    def check_room(self, *, count: int, used: int, text: str) -> None:
        """Refuse ``text`` when its user holds ``count`` notes of ``used`` bytes and it does
        not fit.

        Raises:
            MemoryLimitError: saying which limit, which setting raises it, and what to do.
        """
        if count >= self.max_notes:
            raise MemoryLimitError(
                f"you keep {count} notes, the most one person may "
                f"(ASSISTANT_MAX_NOTES_PER_USER={self.max_notes}); the note was not saved"
            )
        size = len(text.encode())
        if used + size > self.max_bytes:
            raise MemoryLimitError(
                f"this note ({size:,} bytes) does not fit: your {count} notes hold {used:,} of "
                f"the {self.max_bytes:,} bytes one person may keep "
                "(ASSISTANT_MAX_NOTE_BYTES_PER_USER); the note was not saved"
            )


@dataclass(frozen=True, slots=True)
class RankedNote:
    """A note found by a search, with its relevance."""

    note: Note
    score: float
    matched_all: bool


_COLUMNS = "n.id, n.user_id, n.number, n.content, n.tags, n.created_at"


class NoteRepository:
    """Reads and writes the ``notes`` table, always scoped to one user."""

    def __init__(self, db: Database, clock: Clock) -> None:
        self._db = db
        self._d = db.dialect
        self._clock = clock

    async def add(
        self,
        user_id: str,
        content: str,
        tags: list[str] | None,
        *,
        limits: NoteLimits | None = None,
    ) -> Note:
        """Store a note and return it with its id; with ``limits``, after counting the
        user's notes in the same write transaction.

        Raises:
            MemoryLimitError: when it does not fit the user's ``limits``.
        """
        require_id(user_id, "user_id")
        text = clean_content(content)
        clean_tags = normalize_tags(tags)
        created = stored_time(self._clock.now())
        tags_json = json.dumps(clean_tags, ensure_ascii=False)
        note_id, number = await self._db.write(
            self._insert(user_id, text, tags_json, created, limits)
        )
        return Note(note_id, user_id, text, clean_tags, created, number)

    def _insert(
        self, user_id: str, text: str, tags: str, created: datetime, limits: NoteLimits | None
    ) -> Steps[tuple[int, int]]:
        # One insert per user at a time (SQLite's write lock, PostgreSQL's lock per user):
        # the user's next number cannot be taken twice, nor the user's room counted twice.
        lock = self._d.lock_user(user_id)
        if lock is not None:
            yield lock
        if limits is not None:
            held = yield self._d.statement(
                f"SELECT count(*), coalesce(sum({self._d.byte_length('content')}), 0)"
                " FROM notes WHERE user_id = ?",
                user_id,
                want="one",
            )
            limits.check_room(count=int(held[0]), used=int(held[1]), text=text)
        row = yield self._d.statement(
            "INSERT INTO notes (user_id, number, content, tags, created_at)"
            " VALUES (?, (SELECT COALESCE(MAX(number), 0) + 1 FROM notes WHERE user_id = ?),"
            " ?, ?, ?) RETURNING id, number",
            user_id, user_id, text, tags, self._d.time(created), want="one",
        )  # fmt: skip
        return int(row["id"]), int(row["number"])

    async def newest(self, user_id: str, limit: int, offset: int = 0) -> list[Note]:
        """Return the user's newest notes first (``limit`` of them after ``offset``)."""
        require_id(user_id, "user_id")
        statement = self._d.statement(
            f"SELECT {_COLUMNS} FROM notes AS n WHERE n.user_id = ?"
            " ORDER BY n.id DESC LIMIT ? OFFSET ?",
            user_id, require_limit(limit), max(offset, 0), want="all",
        )  # fmt: skip
        rows = await self._db.read(single(statement))
        return self._d.decode(rows, self._note, "note")

    async def tagged(self, user_id: str, tags: Sequence[str], limit: int) -> list[Note]:
        """Return the user's newest notes that carry any of ``tags`` (as ``normalize_tags``
        keeps them), newest first."""
        require_id(user_id, "user_id")
        wanted = normalize_tags(list(tags))
        if not wanted:
            return []
        # The tags column is a JSON list of strings: a tag matches as its quoted JSON form.
        either = " OR ".join("n.tags LIKE ? ESCAPE '\\'" for _ in wanted)
        patterns = [f"%{_like(json.dumps(tag, ensure_ascii=False))}%" for tag in wanted]
        statement = self._d.statement(
            f"SELECT {_COLUMNS} FROM notes AS n WHERE n.user_id = ? AND ({either})"
            " ORDER BY n.id DESC LIMIT ?",
            user_id, *patterns, require_limit(limit), want="all",
        )  # fmt: skip
        rows = await self._db.read(single(statement))
        return self._d.decode(rows, self._note, "note")

    async def search(self, user_id: str, query: str, limit: int) -> list[RankedNote]:
        """Return the user's notes matching ``query``: all-words matches first, then by
        relevance (bm25 in SQLite, ts_rank in PostgreSQL)."""
        require_id(user_id, "user_id")
        require_limit(limit)
        return await full_text_search(
            self._db, "notes", _COLUMNS, user_id, query, limit,
            hit=lambda row, score, every: RankedNote(self._note(row), score, every),
            key=lambda found: found.note.id,
        )  # fmt: skip

    def _note(self, row: NamedRow) -> Note:
        return Note(
            id=int(row["id"]),
            user_id=str(row["user_id"]),
            content=str(row["content"]),
            tags=tuple(str(tag) for tag in json.loads(row["tags"])),
            created_at=self._d.read_time(row["created_at"]),
            number=int(row["number"]),
        )


def _like(text: str) -> str:
    """``text`` as a LIKE pattern matches it literally (``\\`` escapes)."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def normalize_tags(tags: list[str] | None) -> tuple[str, ...]:
    """Return tags stripped of blanks and a leading '#', lower-cased, without duplicates.

    Raises:
        MemoryInputError: when ``tags`` is not a list of strings or holds too many/long tags.
    """
    if tags is None:
        return ()
    given: object = tags  # models send a bare string where a list belongs
    if not isinstance(given, list) or not all(isinstance(tag, str) for tag in given):
        raise MemoryInputError(f"tags must be a list of strings such as ['home'], got {tags!r}")
    kept: list[str] = []
    for raw in tags:
        tag = " ".join(clean_text(raw).strip().lstrip("#").split()).lower()
        if len(tag) > MAX_TAG_CHARS:
            raise MemoryInputError(
                f"the tag {raw!r} is longer than {MAX_TAG_CHARS} characters; use a short word"
            )
        if tag and tag not in kept:
            kept.append(tag)
    if len(kept) > MAX_TAGS:
        raise MemoryInputError(f"a note takes at most {MAX_TAGS} tags, got {len(kept)}")
    return tuple(kept)


def clean_content(content: str) -> str:
    """The note's text as it is stored (without NUL or lone surrogates), checked.

    Raises:
        MemoryInputError: when it is empty or too long.
    """
    if isinstance(content, str):
        content = clean_text(content)
    if not isinstance(content, str) or not content.strip():
        raise MemoryInputError(f"a note needs some text, got {content!r}")
    if len(content) > MAX_NOTE_CHARS:
        raise MemoryInputError(
            f"a note holds at most {MAX_NOTE_CHARS} characters, got {len(content)}; "
            "split it into several notes"
        )
    return content

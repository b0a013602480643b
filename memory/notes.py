"""Notes: short texts a user asked to keep, with tags and ranked full-text search."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass

from common import Clock, clean_text
from memory._db import Database, Session, decode_rows, from_db_time, to_db_time
from memory._validate import require_id, require_limit
from memory.errors import MemoryInputError, MemoryLimitError
from memory.fts import build_query
from memory.models import Note

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


_USER_HOLDS = (
    "SELECT count(*), coalesce(sum(length(CAST(content AS BLOB))), 0) FROM notes WHERE user_id = ?"
)


class NoteRepository:
    """Reads and writes the ``notes`` table, always scoped to one user."""

    def __init__(self, db: Database, clock: Clock) -> None:
        self._db = db
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
        created = self._clock.now()
        tags_json = json.dumps(clean_tags, ensure_ascii=False)

        def insert(tx: Session) -> tuple[int, int]:
            # One write transaction at a time: the user's next number cannot be taken twice,
            # nor the user's room counted twice.
            if limits is not None:
                held = tx.fetch_one(_USER_HOLDS, (user_id,))
                assert held is not None
                limits.check_room(count=int(held[0]), used=int(held[1]), text=text)
            row = tx.fetch_one(
                "SELECT COALESCE(MAX(number), 0) + 1 AS next FROM notes WHERE user_id = ?",
                (user_id,),
            )
            number = int(row["next"]) if row is not None else 1
            note_id = tx.insert(
                "INSERT INTO notes (user_id, number, content, tags, created_at)"
                " VALUES (?, ?, ?, ?, ?)",
                (user_id, number, text, tags_json, to_db_time(created)),
            )
            return note_id, number

        note_id, number = await self._db.write(insert)
        return Note(note_id, user_id, text, clean_tags, from_db_time(to_db_time(created)), number)

    async def newest(self, user_id: str, limit: int, offset: int = 0) -> list[Note]:
        """Return the user's newest notes first (``limit`` of them after ``offset``)."""
        require_id(user_id, "user_id")
        rows = await self._db.fetch_all(
            "SELECT id, user_id, number, content, tags, created_at FROM notes"
            " WHERE user_id = ? ORDER BY id DESC LIMIT ? OFFSET ?",
            (user_id, require_limit(limit), max(offset, 0)),
        )
        return decode_rows(rows, _note, "note", reported=self._db.reported)

    async def search(self, user_id: str, query: str, limit: int) -> list[RankedNote]:
        """Return the user's notes matching ``query``: all-words matches first, then by bm25."""
        require_id(user_id, "user_id")
        require_limit(limit)
        fts = build_query(query)
        if fts is None:
            return []

        def both(tx: Session) -> list[RankedNote]:
            found = _match(tx, user_id, fts.all_terms, limit, self._db.reported, matched_all=True)
            if len(found) < limit and fts.any_terms is not None:
                seen = {hit.note.id for hit in found}
                more = _match(
                    tx, user_id, fts.any_terms, limit + len(seen), self._db.reported,
                    matched_all=False,
                )  # fmt: skip
                found += [hit for hit in more if hit.note.id not in seen]
            return found[:limit]

        return await self._db.read(both)


def _match(
    tx: Session, user_id: str, match: str, limit: int, reported: set[str], *, matched_all: bool
) -> list[RankedNote]:
    rows = tx.fetch_all(
        "SELECT n.id, n.user_id, n.number, n.content, n.tags, n.created_at,"
        " bm25(notes_fts) AS score"
        " FROM notes_fts JOIN notes AS n ON n.id = notes_fts.rowid"
        " WHERE notes_fts MATCH ? AND n.user_id = ? ORDER BY score, n.id DESC LIMIT ?",
        (match, user_id, limit),
    )
    return decode_rows(
        rows,
        lambda row: RankedNote(_note(row), -float(row["score"]), matched_all),
        "note",
        reported=reported,
    )


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


def _note(row: sqlite3.Row) -> Note:
    tags = json.loads(row["tags"])
    return Note(
        id=int(row["id"]),
        user_id=str(row["user_id"]),
        content=str(row["content"]),
        tags=tuple(str(tag) for tag in tags),
        created_at=from_db_time(row["created_at"]),
        number=int(row["number"]),
    )

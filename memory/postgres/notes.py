"""Notes in PostgreSQL: the same checks as in SQLite, searched with tsvector + GIN, ranked."""

from __future__ import annotations

import json
from collections.abc import Awaitable

from common import Clock, PgConnection, PostgresDatabase
from memory._db import from_db_time, to_db_time
from memory._rows import NamedRow
from memory._validate import require_id, require_limit
from memory.models import Note
from memory.notes import NoteLimits, RankedNote, clean_content, normalize_tags
from memory.postgres.schema import TEXT_SEARCH
from memory.postgres.search import all_then_any, build_tsquery

_COLUMNS = "n.id, n.user_id, n.number, n.content, n.tags, n.created_at"


class PgNoteRepository:
    """Reads and writes the ``notes`` table, always scoped to one user."""

    def __init__(self, db: PostgresDatabase, clock: Clock) -> None:
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
        user's notes under a lock per user held until the commit.

        Raises:
            MemoryLimitError: when it does not fit the user's ``limits``.
        """
        require_id(user_id, "user_id")
        text = clean_content(content)
        clean_tags = normalize_tags(tags)
        created = from_db_time(to_db_time(self._clock.now()))
        tags_json = json.dumps(clean_tags, ensure_ascii=False)

        async def insert(conn: PgConnection) -> tuple[int, int]:
            # One insert per user at a time, so the user's next number is taken once and
            # the user's room counted once.
            await conn.execute("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", user_id)
            if limits is not None:
                count, used = await conn.fetchrow(
                    "SELECT count(*)::int, coalesce(sum(octet_length(content)), 0)::bigint"
                    " FROM notes WHERE user_id = $1",
                    user_id,
                ) or (0, 0)
                limits.check_room(count=count, used=used, text=text)
            row = await conn.fetchrow(
                "INSERT INTO notes (user_id, number, content, tags, created_at)"
                " VALUES ($1, (SELECT COALESCE(MAX(number), 0) + 1 FROM notes"
                " WHERE user_id = $1), $2, $3, $4) RETURNING id, number",
                user_id,
                text,
                tags_json,
                created,
            )
            assert row is not None  # an INSERT ... RETURNING returns its row
            return int(row["id"]), int(row["number"])

        note_id, number = await self._db.write(insert)
        return Note(note_id, user_id, text, clean_tags, created, number)

    async def newest(self, user_id: str, limit: int, offset: int = 0) -> list[Note]:
        """Return the user's newest notes first (``limit`` of them after ``offset``)."""
        require_id(user_id, "user_id")
        wanted = require_limit(limit)

        async def read(conn: PgConnection) -> list[Note]:
            rows = await conn.fetch(
                f"SELECT {_COLUMNS} FROM notes AS n WHERE n.user_id = $1"
                " ORDER BY n.id DESC LIMIT $2 OFFSET $3",
                user_id,
                wanted,
                max(offset, 0),
            )
            return [_note(row) for row in rows]

        return await self._db.read(read)

    async def search(self, user_id: str, query: str, limit: int) -> list[RankedNote]:
        """Return the user's notes matching ``query``: all-words matches first, then by rank."""
        require_id(user_id, "user_id")
        require_limit(limit)
        ts = build_tsquery(query)
        if ts is None:
            return []

        async def both(conn: PgConnection) -> list[RankedNote]:
            def match(text: str, most: int, every: bool) -> Awaitable[list[RankedNote]]:
                return _match(conn, user_id, text, most, matched_all=every)

            return await all_then_any(ts, limit, match, key=lambda hit: hit.note.id)

        return await self._db.read(both, snapshot=True)


async def _match(
    conn: PgConnection, user_id: str, query: str, limit: int, *, matched_all: bool
) -> list[RankedNote]:
    rows = await conn.fetch(
        f"SELECT {_COLUMNS}, ts_rank(n.search, q) AS score"
        f" FROM notes AS n, to_tsquery('{TEXT_SEARCH}', $1) AS q"
        " WHERE n.search @@ q AND n.user_id = $2 ORDER BY score DESC, n.id DESC LIMIT $3",
        query,
        user_id,
        limit,
    )
    return [RankedNote(_note(row), float(row["score"]), matched_all) for row in rows]


def _note(row: NamedRow) -> Note:
    return Note(
        id=int(row["id"]),
        user_id=str(row["user_id"]),
        content=str(row["content"]),
        tags=tuple(str(tag) for tag in json.loads(row["tags"])),
        created_at=row["created_at"],
        number=int(row["number"]),
    )

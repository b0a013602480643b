"""Calendars: each user's feed token (only its hash), the CalDAV sync's links between tasks
and events, and the calendars read for the user's days, in either database."""

from __future__ import annotations

from datetime import datetime

from common import clean_text
from memory._rows import NamedRow
from memory._validate import require_id
from memory.errors import MemoryInputError
from memory.models import CalendarFeed, CalendarLink, CalendarSource
from memory.sql import Database, Steps, single

_LINK_COLUMNS = "user_id, uid, task_id, href, etag, local_state, remote_state, conflict, updated_at"
_SOURCE_COLUMNS = "user_id, name, url, ics, fetched_at, error"
_HASH_CHARS = 64
MAX_SOURCE_NAME = 100


class CalendarRepository:
    """Reads and writes ``calendar_feeds``, ``calendar_links`` and ``calendar_sources``."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self._d = db.dialect

    # -- feeds --

    async def make_feed(self, user_id: str, token_hash: str, at: datetime) -> CalendarFeed:
        """Give the user a feed under ``token_hash`` (a SHA-256 hex digest), replacing the
        one they had: the old address stops working at once."""
        require_id(user_id, "user_id")
        if len(token_hash) != _HASH_CHARS or not all(c in "0123456789abcdef" for c in token_hash):
            raise MemoryInputError("a feed's token is kept as its SHA-256 hex digest")
        statement = self._d.statement(
            "INSERT INTO calendar_feeds (user_id, token_hash, created_at) VALUES (?, ?, ?)"
            " ON CONFLICT (user_id) DO UPDATE SET token_hash = excluded.token_hash,"
            " created_at = excluded.created_at",
            user_id, token_hash, self._d.time(at),
        )  # fmt: skip
        await self._db.write(single(statement))
        return CalendarFeed(user_id=user_id, created_at=at)

    async def feed(self, user_id: str) -> CalendarFeed | None:
        """The user's feed, or ``None``."""
        require_id(user_id, "user_id")
        statement = self._d.statement(
            "SELECT created_at FROM calendar_feeds WHERE user_id = ?", user_id, want="one"
        )
        row = await self._db.read(single(statement))
        return None if row is None else CalendarFeed(user_id, self._d.read_time(row["created_at"]))

    async def feed_owner(self, token_hash: str) -> str | None:
        """Whose feed ``token_hash`` opens, or ``None``."""
        statement = self._d.statement(
            "SELECT user_id FROM calendar_feeds WHERE token_hash = ?", token_hash, want="value"
        )
        found = await self._db.read(single(statement))
        return None if found is None else str(found)

    async def revoke_feed(self, user_id: str) -> bool:
        """End the user's feed; return whether there was one."""
        require_id(user_id, "user_id")
        statement = self._d.statement(
            "DELETE FROM calendar_feeds WHERE user_id = ? RETURNING user_id", user_id, want="all"
        )
        return bool(await self._db.write(single(statement)))

    # -- links --

    async def links(self, user_id: str) -> list[CalendarLink]:
        """The user's links, by UID."""
        require_id(user_id, "user_id")
        statement = self._d.statement(
            f"SELECT {_LINK_COLUMNS} FROM calendar_links WHERE user_id = ? ORDER BY uid",
            user_id,
            want="all",
        )
        rows = await self._db.read(single(statement))
        return [self._link(row) for row in rows]

    async def save_links(self, links: list[CalendarLink], removed: list[tuple[str, str]]) -> None:
        """Store ``links`` (replacing those of the same user and UID) and delete the
        ``(user_id, uid)`` pairs of ``removed``, in one transaction."""
        for link in links:
            require_id(link.user_id, "user_id")
            require_id(link.uid, "uid")
        await self._db.write(self._save_links(links, removed))

    def _save_links(self, links: list[CalendarLink], removed: list[tuple[str, str]]) -> Steps[None]:
        for user_id, uid in removed:
            yield self._d.statement(
                "DELETE FROM calendar_links WHERE user_id = ? AND uid = ?", user_id, uid
            )
        for link in links:
            yield self._d.statement(
                f"INSERT INTO calendar_links ({_LINK_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (user_id, uid) DO UPDATE SET task_id = excluded.task_id,"
                " href = excluded.href, etag = excluded.etag,"
                " local_state = excluded.local_state, remote_state = excluded.remote_state,"
                " conflict = excluded.conflict, updated_at = excluded.updated_at",
                link.user_id, clean_text(link.uid), link.task_id, clean_text(link.href),
                clean_text(link.etag), link.local_state, link.remote_state,
                None if link.conflict is None else clean_text(link.conflict),
                self._d.time(link.updated_at),
            )  # fmt: skip

    def _link(self, row: NamedRow) -> CalendarLink:
        return CalendarLink(
            user_id=str(row["user_id"]),
            uid=str(row["uid"]),
            task_id=str(row["task_id"]),
            href=str(row["href"]),
            etag=str(row["etag"]),
            local_state=str(row["local_state"]),
            remote_state=str(row["remote_state"]),
            conflict=None if row["conflict"] is None else str(row["conflict"]),
            updated_at=self._d.read_time(row["updated_at"]),
        )

    # -- sources --

    async def sources(self, user_id: str) -> list[CalendarSource]:
        """The calendars read for the user, by name."""
        require_id(user_id, "user_id")
        statement = self._d.statement(
            f"SELECT {_SOURCE_COLUMNS} FROM calendar_sources WHERE user_id = ? ORDER BY name",
            user_id,
            want="all",
        )
        rows = await self._db.read(single(statement))
        return [self._source(row) for row in rows]

    async def save_source(self, source: CalendarSource) -> None:
        """Store ``source``, replacing the user's source of that name."""
        require_id(source.user_id, "user_id")
        if not source.name.strip() or len(source.name) > MAX_SOURCE_NAME:
            raise MemoryInputError(
                f"a calendar's name is 1 to {MAX_SOURCE_NAME} characters, got {source.name!r:.80}"
            )
        fetched = None if source.fetched_at is None else self._d.time(source.fetched_at)
        statement = self._d.statement(
            f"INSERT INTO calendar_sources ({_SOURCE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (user_id, name) DO UPDATE SET url = excluded.url, ics = excluded.ics,"
            " fetched_at = excluded.fetched_at, error = excluded.error",
            source.user_id, clean_text(source.name), clean_text(source.url),
            clean_text(source.ics), fetched,
            None if source.error is None else clean_text(source.error),
        )  # fmt: skip
        await self._db.write(single(statement))

    async def delete_source(self, user_id: str, name: str) -> bool:
        """Stop reading the user's calendar ``name``; return whether it was read."""
        require_id(user_id, "user_id")
        statement = self._d.statement(
            "DELETE FROM calendar_sources WHERE user_id = ? AND name = ? RETURNING name",
            user_id, name, want="all",
        )  # fmt: skip
        return bool(await self._db.write(single(statement)))

    def _source(self, row: NamedRow) -> CalendarSource:
        fetched = row["fetched_at"]
        return CalendarSource(
            user_id=str(row["user_id"]),
            name=str(row["name"]),
            url=str(row["url"]),
            ics=str(row["ics"]),
            fetched_at=None if fetched is None else self._d.read_time(fetched),
            error=None if row["error"] is None else str(row["error"]),
        )

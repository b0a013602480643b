"""``MemoryStore``: the one object the rest of the program uses to remember things."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from common import AsyncLifecycle, Clock, SystemClock, redact_url
from memory._validate import MAX_LIMIT
from memory.backend import MemoryBackend
from memory.conversations import DEFAULT_MAX_CHARS, DEFAULT_MAX_TURNS
from memory.errors import MemoryStoreError, StoreClosedError
from memory.models import (
    CalendarFeed,
    CalendarLink,
    CalendarSource,
    ConversationContext,
    HitKind,
    MemoryHit,
    Note,
    SettingHolder,
    StoredMessage,
    UserProfile,
)
from memory.notes import NoteLimits, RankedNote
from memory.postgres import open_postgres
from memory.sqlite import open_sqlite
from tools import ApprovalRequest, ApprovalStatus


class MemoryStore(AsyncLifecycle):
    """Conversations, notes, users and approval requests, in SQLite or in PostgreSQL.

    With a ``path`` it keeps them in that SQLite file, which may be shared with other stores
    (the task store opens its own connection): the connection runs in WAL mode with a busy
    timeout, and writes are short transactions. With a ``database_url`` it keeps them in that
    PostgreSQL database, which any number of processes may share. Everything a user owns is
    scoped by ``user_id``; no call returns another user's data.

    Use ``store = await MemoryStore.open(path)`` ... ``await store.close()``, or
    ``async with MemoryStore(path) as store:``. It implements ``tools.ApprovalStore``.

    Args:
        path: The SQLite database file; its directory is created when missing.
        database_url: A ``postgresql://`` URL instead of ``path``.
        clock: The source of time; stamps notes, turns and users (the system clock by default).
        busy_timeout: Seconds to wait for another SQLite connection's write lock.
        pool_size: PostgreSQL connections the store opens at most.
        note_limits: How many notes (and bytes of them) one user may keep; ``None`` (the
            default) limits nothing. The composition root passes the configured ones.
    """

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        database_url: str | None = None,
        clock: Clock | None = None,
        busy_timeout: float = 5.0,
        pool_size: int = 4,
        note_limits: NoteLimits | None = None,
    ) -> None:
        if (path is None) == (database_url is None):
            raise MemoryStoreError("give a MemoryStore either a SQLite path or a database_url")
        self._path = None if path is None else Path(path)
        self._url = database_url
        self._clock = clock or SystemClock()
        self._busy_timeout = busy_timeout
        self._pool_size = pool_size
        self._note_limits = note_limits
        self._backend: MemoryBackend | None = None
        self._closed = False

    @classmethod
    async def open(
        cls,
        path: str | Path | None = None,
        *,
        database_url: str | None = None,
        clock: Clock | None = None,
        busy_timeout: float = 5.0,
        pool_size: int = 4,
    ) -> MemoryStore:
        """Open (creating or migrating) the store at ``path`` or ``database_url``."""
        store = cls(
            path,
            database_url=database_url,
            clock=clock,
            busy_timeout=busy_timeout,
            pool_size=pool_size,
        )
        await store.start()
        return store

    async def start(self) -> None:
        """Connect and create or migrate the tables; starting twice is harmless.

        Raises:
            MemoryStoreError: when the database cannot be used (not SQLite, unreachable,
                newer schema, ...).
            StoreClosedError: when the store was already closed.
        """
        if self._closed:
            raise StoreClosedError(f"the memory store on {self.where!r} was closed")
        if self._backend is not None:
            return
        if self._path is not None:
            self._backend = await open_sqlite(
                self._path, clock=self._clock, busy_timeout=self._busy_timeout
            )
        else:
            assert self._url is not None
            self._backend = await open_postgres(
                self._url, clock=self._clock, pool_size=self._pool_size
            )

    async def close(self) -> None:
        """Close the connections; closing twice is harmless, using it afterwards raises."""
        self._closed = True
        if self._backend is not None:
            await self._backend.close()

    async def _enter(self) -> None:
        await self.start()

    async def _exit(self) -> None:
        await self.close()

    @property
    def path(self) -> Path | None:
        """The SQLite database file (``None`` on PostgreSQL)."""
        return self._path

    @property
    def where(self) -> str:
        """The database file, or the PostgreSQL URL without its password."""
        if self._path is not None:
            return str(self._path)
        return redact_url(self._url or "")

    def _ready(self) -> MemoryBackend:
        if self._closed:
            raise StoreClosedError(f"the memory store on {self.where!r} is closed")
        if self._backend is None:
            raise StoreClosedError(
                f"the memory store on {self.where!r} is not open; "
                "use 'await MemoryStore.open(path)' or 'async with MemoryStore(path)'"
            )
        return self._backend

    # Conversations

    async def append_turn(
        self, user_id: str, chat_id: str, messages: Sequence[StoredMessage]
    ) -> int:
        """Store one whole turn atomically (all its messages or none); return its id."""
        return await self._ready().conversations.append_turn(user_id, chat_id, messages)

    async def load_conversation(
        self,
        user_id: str,
        chat_id: str,
        *,
        max_chars: int = DEFAULT_MAX_CHARS,
        max_turns: int | None = DEFAULT_MAX_TURNS,
    ) -> list[StoredMessage]:
        """Return the newest whole turns of this chat, oldest first, within the budget.

        Turns are never cut: the oldest are dropped until the rest fit ``max_chars`` (message
        text plus native tool-call JSON) and ``max_turns`` (``None``: no turn limit). A
        newest turn larger than the budget alone leaves nothing to return.
        """
        return await self._ready().conversations.load(
            user_id, chat_id, max_chars=max_chars, max_turns=max_turns
        )

    async def load_context(
        self,
        user_id: str,
        chat_id: str,
        *,
        max_chars: int = DEFAULT_MAX_CHARS,
        max_turns: int | None = DEFAULT_MAX_TURNS,
    ) -> ConversationContext:
        """Return the user's profile and ``load_conversation``'s messages, read in one go.

        Both come from one snapshot of the database: what an agent reads before every turn.
        """
        return await self._ready().load_context(
            user_id, chat_id, max_chars=max_chars, max_turns=max_turns
        )

    async def clear_conversation(self, user_id: str, chat_id: str, *, forget: bool = False) -> int:
        """Start a fresh conversation in this chat and return how many turns it held.

        By default old turns stay searchable through ``search_memory``; ``forget=True``
        deletes them.
        """
        return await self._ready().conversations.clear(user_id, chat_id, forget=forget)

    # Notes

    async def add_note(self, user_id: str, content: str, tags: list[str] | None = None) -> Note:
        """Store a note (tags lower-cased, de-duplicated) and return it with its id.

        Raises:
            MemoryLimitError: when the user keeps as many notes (or bytes) as allowed.
        """
        return await self._ready().notes.add(user_id, content, tags, limits=self._note_limits)

    async def list_notes(self, user_id: str, limit: int = 20, offset: int = 0) -> list[Note]:
        """Return the user's newest notes first (``limit`` of them after ``offset``)."""
        return await self._ready().notes.newest(user_id, limit, offset)

    async def tagged_notes(self, user_id: str, tags: Sequence[str], limit: int = 20) -> list[Note]:
        """Return the user's newest notes that carry any of ``tags`` (``#`` and case do not
        matter), newest first."""
        return await self._ready().notes.tagged(user_id, tags, limit)

    async def search_memory(self, user_id: str, query: str, limit: int = 5) -> list[MemoryHit]:
        """Search the user's notes and past conversation messages (every chat), best first.

        Hits holding every word come first; among equals, notes before messages, then by
        relevance (bm25 in SQLite, ts_rank in PostgreSQL). A message that merely repeats a
        note found too (the "note: ..." request that saved it, the reply that confirmed it)
        is left out. Words are quoted, so query syntax in ``query`` is just text and never
        an error.
        """
        backend = self._ready()
        notes = await backend.notes.search(user_id, query, limit)
        # Echoes of the notes are dropped below; ask for enough messages to make up for them.
        wanted = min(limit + len(notes), MAX_LIMIT)
        messages = await backend.conversations.search(user_id, query, wanted)
        hits = [_note_hit(hit) for hit in notes]
        hits += [
            MemoryHit(
                kind=HitKind.MESSAGE,
                id=hit.id,
                text=hit.message.content,
                score=hit.score,
                matched_all=hit.matched_all,
                created_at=hit.created_at,
                role=hit.message.role,
                chat_id=hit.chat_id,
            )
            for hit in messages
        ]
        hits.sort(key=lambda h: (h.matched_all, h.kind is HitKind.NOTE, h.score), reverse=True)
        return _without_echoes(hits)[:limit]

    async def search_notes(self, user_id: str, query: str, limit: int = 5) -> list[MemoryHit]:
        """Search the user's notes only, best first (as ``search_memory`` ranks them).

        What was said in a conversation is never among the hits: an answer that says it
        comes from the notes reads only these.
        """
        notes = await self._ready().notes.search(user_id, query, limit)
        return [_note_hit(hit) for hit in notes]

    # Users

    async def get_user(self, user_id: str) -> UserProfile | None:
        """Return what memory knows about the user, or ``None``."""
        return await self._ready().users.get(user_id)

    async def set_timezone(self, user_id: str, timezone: str) -> UserProfile:
        """Set the user's IANA time zone (creating the user) and return the profile.

        Raises:
            MemoryInputError: when ``timezone`` is not an IANA name, e.g. 'Europe/Berlin'.
        """
        await self._ready().users.set_timezone(user_id, timezone)
        return await self._profile(user_id)

    async def set_setting(self, user_id: str, key: str, value: str) -> None:
        """Store one string setting for the user (creating the user)."""
        await self._ready().users.set_setting(user_id, key, value)

    async def get_setting(self, user_id: str, key: str, default: str | None = None) -> str | None:
        """Return one setting of the user, or ``default``."""
        found = await self._ready().users.get_setting(user_id, key)
        return default if found is None else found

    async def users_with_setting(self, key: str) -> list[SettingHolder]:
        """Return every user who has the setting ``key``, with its value and their zone."""
        return await self._ready().users.holding(key)

    async def delete_setting(self, user_id: str, key: str) -> bool:
        """Remove one setting; return whether it was set."""
        return await self._ready().users.delete_setting(user_id, key)

    async def _profile(self, user_id: str) -> UserProfile:
        profile = await self._ready().users.get(user_id)
        if profile is None:
            raise MemoryStoreError(f"user {user_id!r} vanished right after being stored")
        return profile

    # Calendars

    async def make_calendar_feed(self, user_id: str, token_hash: str) -> CalendarFeed:
        """Give the user a calendar feed under ``token_hash`` (the SHA-256 hex digest of
        its token, which memory never sees), replacing the one they had."""
        return await self._ready().calendars.make_feed(user_id, token_hash, self._clock.now())

    async def calendar_feed(self, user_id: str) -> CalendarFeed | None:
        """The user's calendar feed, or ``None``."""
        return await self._ready().calendars.feed(user_id)

    async def calendar_feed_owner(self, token_hash: str) -> str | None:
        """Whose feed the token with this SHA-256 hex digest opens, or ``None``."""
        return await self._ready().calendars.feed_owner(token_hash)

    async def revoke_calendar_feed(self, user_id: str) -> bool:
        """End the user's calendar feed (its address answers 404); return whether one was."""
        return await self._ready().calendars.revoke_feed(user_id)

    async def calendar_links(self, user_id: str) -> list[CalendarLink]:
        """The user's tasks kept in step with CalDAV events, as the last sync left them."""
        return await self._ready().calendars.links(user_id)

    async def save_calendar_links(
        self, links: Sequence[CalendarLink], removed: Sequence[tuple[str, str]] = ()
    ) -> None:
        """Store ``links`` and delete the ``(user_id, uid)`` links of ``removed`` at once."""
        await self._ready().calendars.save_links(list(links), list(removed))

    async def calendar_sources(self, user_id: str) -> list[CalendarSource]:
        """The calendars read for the user's days."""
        return await self._ready().calendars.sources(user_id)

    async def save_calendar_source(self, source: CalendarSource) -> None:
        """Store a calendar read for the user (replacing the one of that name)."""
        await self._ready().calendars.save_source(source)

    async def delete_calendar_source(self, user_id: str, name: str) -> bool:
        """Stop reading the user's calendar ``name``; return whether it was read."""
        return await self._ready().calendars.delete_source(user_id, name)

    # Approvals (the tools.ApprovalStore protocol)

    async def save_approval(self, request: ApprovalRequest) -> None:
        """Insert or replace ``request`` (keyed by its id)."""
        await self._ready().approvals.save(request)

    async def get_approval(self, request_id: str) -> ApprovalRequest | None:
        """Return the request with this id, or ``None``."""
        return await self._ready().approvals.get(request_id)

    async def decide_approval(
        self, request_id: str, status: ApprovalStatus, by: str, at: datetime
    ) -> ApprovalRequest | None:
        """Atomically move a PENDING request to ``status``; ``None`` when it was not pending.

        One UPDATE guarded by ``status = 'pending'`` decides, so of two racing deciders (even
        in two processes) exactly one wins. Approving or denying after ``expires_at`` returns
        ``None`` too.
        """
        return await self._ready().approvals.decide(request_id, status, by, at)

    async def list_approvals(
        self, user_id: str, *, status: ApprovalStatus | None = ApprovalStatus.PENDING
    ) -> list[ApprovalRequest]:
        """Return the user's requests, newest first, optionally filtered by status."""
        return await self._ready().approvals.for_user(user_id, status)


def _note_hit(hit: RankedNote) -> MemoryHit:
    return MemoryHit(
        kind=HitKind.NOTE,
        id=hit.note.id,
        text=hit.note.content,
        score=hit.score,
        matched_all=hit.matched_all,
        created_at=hit.note.created_at,
        tags=hit.note.tags,
        number=hit.note.number,
    )


def _without_echoes(hits: list[MemoryHit]) -> list[MemoryHit]:
    """Drop message hits whose text contains the whole text of a note hit."""
    notes = [_squash(hit.text) for hit in hits if hit.kind is HitKind.NOTE]
    return [
        hit
        for hit in hits
        if hit.kind is HitKind.NOTE or not any(note in _squash(hit.text) for note in notes)
    ]


def _squash(text: str) -> str:
    return " ".join(text.casefold().split())

"""The memory package's tables in SQLite, created and migrated under a schema version.

The version lives in ``schema_versions`` (shared with other packages, one row per
component). Each entry of ``MIGRATIONS`` moves the schema up one version; the runner in
``common.sqlite`` runs them in one write transaction, so two processes opening the same new
file migrate it once.
"""

from __future__ import annotations

from memory.errors import MemoryStoreError
from memory.sqlite.db import Connection

COMPONENT = "memory"

_TOKENIZER = "porter unicode61 remove_diacritics 2"

# Only the words of people and the assistant are searchable; tool output is noise.
_SEARCHABLE_ROLES = "('user', 'assistant')"

_V1 = (
    """CREATE TABLE users (
        user_id TEXT PRIMARY KEY,
        timezone TEXT,
        created_at TEXT NOT NULL
    )""",
    """CREATE TABLE user_settings (
        user_id TEXT NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
        key TEXT NOT NULL,
        value TEXT NOT NULL,
        PRIMARY KEY (user_id, key)
    ) WITHOUT ROWID""",
    """CREATE TABLE conversation_turns (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        user_id TEXT NOT NULL,
        chat_id TEXT NOT NULL,
        chars INTEGER NOT NULL,
        archived INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL
    )""",
    "CREATE INDEX conversation_turns_by_chat"
    " ON conversation_turns (user_id, chat_id, archived, id)",
    """CREATE TABLE conversation_messages (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        turn_id INTEGER NOT NULL REFERENCES conversation_turns (id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        role TEXT NOT NULL,
        content TEXT NOT NULL,
        tool_calls TEXT NOT NULL,
        tool_call_id TEXT,
        name TEXT,
        UNIQUE (turn_id, seq)
    )""",
    f"""CREATE VIRTUAL TABLE conversation_messages_fts USING fts5(
        content, content='conversation_messages', content_rowid='id', tokenize='{_TOKENIZER}'
    )""",
    f"""CREATE TRIGGER conversation_messages_ai AFTER INSERT ON conversation_messages
        WHEN new.role IN {_SEARCHABLE_ROLES} BEGIN
        INSERT INTO conversation_messages_fts (rowid, content) VALUES (new.id, new.content);
    END""",
    f"""CREATE TRIGGER conversation_messages_ad AFTER DELETE ON conversation_messages
        WHEN old.role IN {_SEARCHABLE_ROLES} BEGIN
        INSERT INTO conversation_messages_fts (conversation_messages_fts, rowid, content)
        VALUES ('delete', old.id, old.content);
    END""",
    """CREATE TABLE notes (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        user_id TEXT NOT NULL,
        content TEXT NOT NULL,
        tags TEXT NOT NULL,
        created_at TEXT NOT NULL
    )""",
    "CREATE INDEX notes_by_user ON notes (user_id, id)",
    f"""CREATE VIRTUAL TABLE notes_fts USING fts5(
        content, tags, content='notes', content_rowid='id', tokenize='{_TOKENIZER}'
    )""",
    """CREATE TRIGGER notes_ai AFTER INSERT ON notes BEGIN
        INSERT INTO notes_fts (rowid, content, tags) VALUES (new.id, new.content, new.tags);
    END""",
    """CREATE TRIGGER notes_ad AFTER DELETE ON notes BEGIN
        INSERT INTO notes_fts (notes_fts, rowid, content, tags)
        VALUES ('delete', old.id, old.content, old.tags);
    END""",
    """CREATE TRIGGER notes_au AFTER UPDATE ON notes BEGIN
        INSERT INTO notes_fts (notes_fts, rowid, content, tags)
        VALUES ('delete', old.id, old.content, old.tags);
        INSERT INTO notes_fts (rowid, content, tags) VALUES (new.id, new.content, new.tags);
    END""",
    """CREATE TABLE approvals (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL,
        chat_id TEXT NOT NULL,
        tool_name TEXT NOT NULL,
        arguments TEXT NOT NULL,
        call_id TEXT NOT NULL,
        risk_level TEXT NOT NULL,
        status TEXT NOT NULL,
        created_at TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        decided_by TEXT,
        decided_at TEXT
    )""",
    "CREATE INDEX approvals_by_user ON approvals (user_id, status, created_at)",
    "CREATE INDEX approvals_by_expiry ON approvals (status, expires_at)",
)

_V2 = (
    # Each user's notes are numbered 1, 2, 3... of their own ("note #1" is a new user's first).
    "ALTER TABLE notes ADD COLUMN number INTEGER NOT NULL DEFAULT 0",
    "UPDATE notes SET number = (SELECT COUNT(*) FROM notes AS earlier"
    " WHERE earlier.user_id = notes.user_id AND earlier.id <= notes.id)",
    "CREATE UNIQUE INDEX notes_by_number ON notes (user_id, number)",
)

_V3 = (
    # Why a request asks, when more than the tool's own rule asks (tools.provenance).
    "ALTER TABLE approvals ADD COLUMN reason TEXT NOT NULL DEFAULT ''",
)

_V4 = (
    # Calendars (issue 27): a feed per user under a hashed token, the CalDAV sync's links,
    # and the calendars read for the user's days.
    """CREATE TABLE calendar_feeds (
        user_id TEXT PRIMARY KEY,
        token_hash TEXT NOT NULL UNIQUE,
        created_at TEXT NOT NULL
    )""",
    """CREATE TABLE calendar_links (
        user_id TEXT NOT NULL,
        uid TEXT NOT NULL,
        task_id TEXT NOT NULL,
        href TEXT NOT NULL,
        etag TEXT NOT NULL,
        local_state TEXT NOT NULL,
        remote_state TEXT NOT NULL,
        conflict TEXT,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (user_id, uid)
    ) WITHOUT ROWID""",
    """CREATE TABLE calendar_sources (
        user_id TEXT NOT NULL,
        name TEXT NOT NULL,
        url TEXT NOT NULL,
        ics TEXT NOT NULL,
        fetched_at TEXT,
        error TEXT,
        PRIMARY KEY (user_id, name)
    )""",
)

MIGRATIONS: tuple[tuple[str, ...], ...] = (_V1, _V2, _V3, _V4)
"""Statement lists; entry ``i`` moves the schema from version ``i`` to ``i + 1``."""

SCHEMA_VERSION = len(MIGRATIONS)


async def migrate(db: Connection) -> int:
    """Bring the memory tables up to ``SCHEMA_VERSION`` and return the version found before.

    Raises:
        MemoryStoreError: when the file holds a newer schema than this program knows, or
            SQLite lacks FTS5.
    """
    return await db.migrate(component=COMPONENT, migrations=MIGRATIONS, error=MemoryStoreError)

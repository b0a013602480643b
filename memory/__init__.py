"""Memory: conversations, notes with full-text search, users and approval requests, in SQLite
or in PostgreSQL.

The public surface is ``MemoryStore`` and the typed values it takes and returns.

store          ``MemoryStore``: merges search results, hands every call to a backend
backend        the repositories' protocols and ``SqlBackend``, the repositories on a database
notes, conversations, users, approvals, calendars
               the repositories, written once for both databases, with their checks,
               encodings and row decoders
sql            ``Statement``, ``Dialect`` and the ``Database`` the repositories' steps run on
models, errors, fts, _validate, _windows, _rows
               values, the exception tree, query words, argument checks, the window cache
sqlite         the SQLite backend: its connection, dialect (FTS5) and schema
postgres       the PostgreSQL backend: its pool, dialect (tsvector) and schema, table copies

``sqlite`` and ``postgres`` stand beside each other over the shared core and never import
each other (an import contract in ``pyproject.toml`` says so).
"""

from memory.conversations import (
    DEFAULT_MAX_CHARS,
    DEFAULT_MAX_TURNS,
    turn_size,
    within_budget,
)
from memory.errors import MemoryInputError, MemoryLimitError, MemoryStoreError, StoreClosedError
from memory.models import (
    FROM_OUTSIDE,
    CalendarFeed,
    CalendarLink,
    CalendarSource,
    ConversationContext,
    HitKind,
    MemoryHit,
    MessageRole,
    Note,
    SettingHolder,
    StoredMessage,
    UserProfile,
)
from memory.notes import NoteLimits
from memory.postgres import MEMORY_TABLES
from memory.sqlite import SCHEMA_VERSION
from memory.store import MemoryStore
from memory.users import validate_timezone

__all__ = [
    "DEFAULT_MAX_CHARS",
    "DEFAULT_MAX_TURNS",
    "FROM_OUTSIDE",
    "MEMORY_TABLES",
    "SCHEMA_VERSION",
    "CalendarFeed",
    "CalendarLink",
    "CalendarSource",
    "ConversationContext",
    "HitKind",
    "MemoryHit",
    "MemoryInputError",
    "MemoryLimitError",
    "MemoryStore",
    "MemoryStoreError",
    "MessageRole",
    "Note",
    "NoteLimits",
    "SettingHolder",
    "StoreClosedError",
    "StoredMessage",
    "UserProfile",
    "turn_size",
    "validate_timezone",
    "within_budget",
]

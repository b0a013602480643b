"""Memory: conversations, notes with full-text search, users and approval requests, in SQLite
or in PostgreSQL.

The public surface is ``MemoryStore`` and the typed values it takes and returns.
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
    ConversationContext,
    HitKind,
    MemoryHit,
    MessageRole,
    Note,
    StoredMessage,
    UserProfile,
)
from memory.notes import NoteLimits
from memory.postgres import MEMORY_TABLES
from memory.schema import SCHEMA_VERSION
from memory.store import MemoryStore
from memory.users import validate_timezone

__all__ = [
    "DEFAULT_MAX_CHARS",
    "DEFAULT_MAX_TURNS",
    "FROM_OUTSIDE",
    "MEMORY_TABLES",
    "SCHEMA_VERSION",
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
    "StoreClosedError",
    "StoredMessage",
    "UserProfile",
    "turn_size",
    "validate_timezone",
    "within_budget",
]

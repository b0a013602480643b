"""Memory in PostgreSQL: the same repositories as in SQLite, for several processes at once.

backend        PostgresBackend: the pool and the repositories, one snapshot per context read
schema         the tables and their migrations; full-text search with tsvector + GIN
search         what a person typed -> tsquery text that is never a syntax error
notes, conversations, users, approvals   the repositories
copy           the tables as ``assistant migrate`` copies them from SQLite
"""

from memory.postgres.backend import PostgresBackend
from memory.postgres.copy import MEMORY_TABLES

__all__ = ["MEMORY_TABLES", "PostgresBackend"]

"""Memory in PostgreSQL: the repositories of ``memory``, for several processes at once.

backend   open_postgres: the pool, the migrations, and the repositories on it
db        runs the repositories' steps on a pooled connection
dialect   $n marks, timestamptz, arrays, a lock per user, tsvector search, bulk inserts
schema    the tables and their migrations; full-text search with tsvector + GIN
search    what a person typed -> tsquery text that is never a syntax error
copy      the tables as ``assistant migrate`` copies them from SQLite

It imports the shared core of ``memory`` and never ``memory.sqlite``.
"""

from memory.postgres.backend import open_postgres
from memory.postgres.copy import MEMORY_TABLES

__all__ = ["MEMORY_TABLES", "open_postgres"]

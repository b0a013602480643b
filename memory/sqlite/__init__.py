"""Memory in SQLite: the repositories of ``memory`` on one database file.

backend   open_sqlite: connect, migrate, and the repositories on the file
db        the ``common.sqlite`` connection with memory errors; runs the repositories' steps
dialect   ? marks, instants as text, FTS5 and bm25, unreadable rows skipped
schema    the tables, FTS5 tables kept in step by triggers, their migrations

It imports the shared core of ``memory`` and never ``memory.postgres``.
"""

from memory.sqlite.backend import open_sqlite
from memory.sqlite.schema import SCHEMA_VERSION

__all__ = ["SCHEMA_VERSION", "open_sqlite"]

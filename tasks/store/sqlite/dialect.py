"""SQLite's side of the shared statements: ``?`` marks, instants as fixed-width UTC text.

Instants are stored as ``2026-03-01T09:00:00.000000+00:00`` (``common.to_db_time``), which
sorts like the instants it names, so ``next_run`` is indexable and compares exactly. One
write transaction holds the whole file, so rows need no locks of their own.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from common import to_db_time
from tasks.store.dialect import Dialect


@functools.lru_cache(maxsize=4096)
def cached_instant(text: str) -> datetime:
    """Read a stored instant; many rows of a burst share one, and so share one object."""
    return datetime.fromisoformat(text)


class SqliteDialect(Dialect):
    """The shared statements as SQLite runs them."""

    no_limit = -1
    lock_rows = ""
    # Bound parameters per statement stay far below SQLite's limit (999 before 3.32).
    list_chunk = 500

    def time(self, instant: datetime) -> str:
        """``instant`` as fixed-width UTC text."""
        return to_db_time(instant)

    def read_time(self, value: Any) -> datetime:
        """A stored instant's text as an aware datetime."""
        return datetime.fromisoformat(value)

    def read_shared_time(self, value: Any) -> datetime:
        """A stored instant many rows share, read once (``cached_instant``)."""
        return cached_instant(value)

    def any_of(self, column: str, values: Sequence[Any], array: str) -> tuple[str, tuple[Any, ...]]:
        """``column IN (?, ?, ...)`` and the values."""
        return f"{column} IN ({', '.join('?' * len(values))})", tuple(values)


SQLITE = SqliteDialect()

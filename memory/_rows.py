"""What the repositories' shared decoders read: a row by column name, from either database."""

from __future__ import annotations

from typing import Any, Protocol


class NamedRow(Protocol):
    """A result row read by column name (``sqlite3.Row``, ``asyncpg.Record``)."""

    def __getitem__(self, key: str, /) -> Any: ...

"""What differs between the task store's SQL in SQLite and in PostgreSQL, and nothing more.

The statements the two stores share (``tasks.store.steps``) are written once, with ``?`` for
each parameter, and a ``Dialect`` turns them into the database's own: numbered ``$1`` marks,
instants as stored (SQLite's fixed-width UTC text, PostgreSQL's ``timestamptz``), ``IN``
lists or arrays, ``LIMIT`` without a bound, row locks and change notifications. Both
databases take ``true``/``false``, ``NULLS LAST``, ``ON CONFLICT ... DO UPDATE`` and
``RETURNING`` as they are, and a bound ``bool`` as a flag (SQLite stores it as 1 or 0).
The claim paths are not written here: each database claims in its own way, on purpose.
"""

from __future__ import annotations

import itertools
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

Want = Literal["all", "one", "value", "none"]


@dataclass(frozen=True, slots=True)
class Statement:
    """One statement in the database's own syntax, its parameters, and what it returns.

    ``want``: every row (``all``), the first row or ``None`` (``one``), the first column of
    the first row or ``None`` (``value``), or nothing (``none``).
    """

    sql: str
    params: tuple[Any, ...] = ()
    want: Want = "none"


class Dialect(ABC):
    """The differences the shared statements need (one instance per database)."""

    no_limit: Any
    """What ``LIMIT ?`` takes for "no limit"."""

    lock_rows: str
    """What a ``SELECT`` ends with to lock the rows it reads until the commit ("" when the
    write transaction already holds the whole database)."""

    list_chunk: int
    """How many values one ``any_of`` list holds at most."""

    def statement(self, sql: str, *params: Any, want: Want = "none") -> Statement:
        """``sql`` written with ``?`` marks, in this database's syntax."""
        return Statement(self.marks(sql), params, want)

    def marks(self, sql: str) -> str:
        """``sql`` with this database's parameter marks (``?`` by default)."""
        return sql

    @abstractmethod
    def time(self, instant: datetime) -> Any:
        """``instant`` as a parameter of a time column."""

    def time_opt(self, instant: datetime | None) -> Any:
        """Like ``time``, passing ``None`` through."""
        return None if instant is None else self.time(instant)

    @abstractmethod
    def read_time(self, value: Any) -> datetime:
        """A time column's value as an aware datetime."""

    def read_shared_time(self, value: Any) -> datetime:
        """Like ``read_time``, for values many rows hold (a burst's creation times): equal
        values may come back as one object."""
        return self.read_time(value)

    def read_time_opt(self, value: Any) -> datetime | None:
        """Like ``read_time``, passing ``None`` through."""
        return None if value is None else self.read_time(value)

    @abstractmethod
    def any_of(self, column: str, values: Sequence[Any], array: str) -> tuple[str, tuple[Any, ...]]:
        """A condition that ``column`` is one of ``values`` (at most ``list_chunk``), with ``?``
        marks, and its parameters; ``array`` is the values' SQL array type."""

    def chunks(self, values: Sequence[Any]) -> Iterator[Sequence[Any]]:
        """``values`` in slices ``any_of`` takes."""
        iterator = iter(values)
        while chunk := list(itertools.islice(iterator, self.list_chunk)):
            yield chunk

    def try_lock(self, key: int) -> Statement | None:
        """A statement that takes a lock only one writer holds, returning whether it did;
        ``None`` when writers take turns anyway."""
        return None

    def announce(self) -> Statement | None:
        """A statement that tells other schedulers a task changed (``None``: none can hear)."""
        return None

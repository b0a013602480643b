"""The memory repositories' SQL, written once for SQLite and PostgreSQL.

A repository operation is a generator of steps: it yields each ``Statement`` (written with
``?`` marks and put into the database's own syntax by its ``Dialect``) and is sent back what
the statement returned. It does no I/O, so one operation runs on SQLite's connection thread
and on a PostgreSQL connection alike, inside the one transaction a ``Database`` opened for it.

What differs between the databases is in the dialect: parameter marks, how instants are
stored (SQLite's fixed-width UTC text, ``timestamptz``), ``IN`` lists or arrays, a lock per
user, byte lengths, full-text search (FTS5 and bm25, tsvector and ts_rank), how a chat's
newest turns are read within the budget, and how a turn's messages are inserted at once.
"""

from __future__ import annotations

import functools
from abc import ABC, abstractmethod
from collections.abc import Callable, Generator, Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, Protocol, TypeVar

from common import from_db_time, to_db_time
from memory.errors import MemoryInputError
from memory.fts import FtsQuery

T = TypeVar("T")
Hit = TypeVar("Hit")

Want = Literal["all", "rows", "one", "value", "count", "many", "none"]
Steps = Generator["Statement", Any, T]
"""An operation: yields statements, is sent their results, returns its value."""

Searched = Literal["notes", "messages"]
_SEARCHED = {"notes": ("n.user_id", "n.id", "note"), "messages": ("t.user_id", "m.id", "message")}
"""Per searched table: its owner column, its id, what a row is called in warnings."""


@dataclass(frozen=True, slots=True)
class Statement:
    """One statement in the database's own syntax, its parameters, and what it returns.

    ``want``: every row (``all``); the rows as they are read, for a reader that may stop
    early (``rows``); the first row or ``None`` (``one``); the first column of the first row
    or ``None`` (``value``); how many rows it changed (``count``); nothing, run once per
    parameter row in ``params`` (``many``) or once (``none``).
    """

    sql: str
    params: Sequence[Any] = ()
    want: Want = "none"


class Database(Protocol):
    """Where a repository's steps run: one transaction per operation."""

    @property
    def dialect(self) -> Dialect: ...

    async def read(self, steps: Steps[T], *, snapshot: bool = False) -> T:
        """Run ``steps``' queries (with ``snapshot``, all of them see one state)."""
        ...

    async def write(self, steps: Steps[T]) -> T:
        """Run ``steps`` in one write transaction."""
        ...


def stored_time(moment: datetime, *, what: str = "time") -> datetime:
    """``moment`` as either database keeps it: UTC, to the microsecond.

    Raises:
        MemoryInputError: when ``moment`` has no time zone.
    """
    return from_db_time(to_db_time(moment, what=what, error=MemoryInputError))


class Dialect(ABC):
    """What differs between the databases, as far as the repositories need it."""

    def statement(self, sql: str, *params: Any, want: Want = "none") -> Statement:
        """``sql`` written with ``?`` marks, in this database's syntax."""
        return Statement(self.marks(sql), params, want)

    def marks(self, sql: str) -> str:
        """``sql`` with this database's parameter marks (``?`` by default)."""
        return sql

    @abstractmethod
    def time(self, moment: datetime, *, what: str = "time") -> Any:
        """``moment`` as a parameter of a time column.

        Raises:
            MemoryInputError: when ``moment`` has no time zone.
        """

    @abstractmethod
    def read_time(self, value: Any) -> datetime:
        """A time column's value as an aware datetime."""

    @abstractmethod
    def byte_length(self, column: str) -> str:
        """An expression for the UTF-8 length of a text column."""

    @abstractmethod
    def any_of(self, column: str, values: Sequence[int]) -> tuple[str, tuple[Any, ...]]:
        """A condition that ``column`` (a bigint) is one of ``values`` (at most
        ``list_chunk``), with ``?`` marks, and its parameters."""

    list_chunk: int
    """How many values one ``any_of`` list holds at most."""

    def chunks(self, values: Sequence[int]) -> Iterator[Sequence[int]]:
        """``values`` in slices ``any_of`` takes."""
        for start in range(0, len(values), self.list_chunk):
            yield values[start : start + self.list_chunk]

    def lock_user(self, user_id: str) -> Statement | None:
        """A statement that makes other writers for this user wait until the commit
        (``None`` when writers take turns anyway)."""
        return None

    def decode(self, rows: Iterable[Any], decode: Callable[[Any], T], what: str) -> list[T]:
        """Decode ``rows`` (a ``what`` each) with ``decode``."""
        return [decode(row) for row in rows]

    @abstractmethod
    def search_query(self, text: str) -> FtsQuery | None:
        """What a person typed as this database's full-text queries (``None``: no words)."""

    @abstractmethod
    def full_text(self, searched: Searched) -> tuple[str, str, str]:
        """The ``FROM`` source, the ``WHERE`` match (its one ``?`` is the query, the first
        mark of the statement) and the rank (higher is better) of a full-text search in
        ``searched`` (notes as ``n``; messages as ``m`` with their turns as ``t``)."""

    @abstractmethod
    def newest_turns(
        self, user_id: str, chat_id: str, max_turns: int | None, max_chars: int
    ) -> Statement:
        """A chat's current turns (``id, created_at, chars``), newest first: at least those
        that fit ``max_chars`` and ``max_turns``."""

    @abstractmethod
    def insert_messages(self, turn_id: int, rows: Sequence[tuple[Any, ...]]) -> Statement:
        """Insert a turn's messages (``role, content, tool_calls, tool_call_id, name`` each),
        numbered from 0 in order."""


def single(statement: Statement) -> Steps[Any]:
    """The steps of one statement, returning its result."""
    return (yield statement)


async def full_text_search(
    db: Database,
    searched: Searched,
    columns: str,
    user_id: str,
    query: str,
    limit: int,
    *,
    hit: Callable[[Any, float, bool], Hit],
    key: Callable[[Hit], Hashable],
) -> list[Hit]:
    """Up to ``limit`` of the user's hits for what a person typed, read from one snapshot:
    those matching every word first, then those matching any (none when it holds no words).

    Args:
        db: Where to search.
        searched: The notes (``n``) or the messages (``m``, with their turns ``t``).
        columns: What a hit reads of its row (the rank comes as ``score``).
        user_id: Whose rows.
        query: What the person typed.
        limit: How many hits at most.
        hit: Makes a hit of a row, its score (higher is better) and whether it matched
            every word.
        key: What makes two hits the same (the second query finds the first's again).
    """
    found = db.dialect.search_query(query)
    if found is None:
        return []
    match = functools.partial(_match, db.dialect, searched, columns, user_id, hit=hit)
    return await db.read(_all_then_any(found, limit, match, key), snapshot=True)


def _match(
    d: Dialect,
    searched: Searched,
    columns: str,
    user_id: str,
    query: str,
    limit: int,
    matched_all: bool,
    *,
    hit: Callable[[Any, float, bool], Hit],
) -> Steps[list[Hit]]:
    source, matches, rank = d.full_text(searched)
    owner, newest, what = _SEARCHED[searched]
    rows = yield d.statement(
        f"SELECT {columns}, {rank} AS score FROM {source}"
        f" WHERE {matches} AND {owner} = ? ORDER BY score DESC, {newest} DESC LIMIT ?",
        query, user_id, limit, want="all",
    )  # fmt: skip
    return d.decode(rows, lambda row: hit(row, float(row["score"]), matched_all), what)


def _all_then_any(
    query: FtsQuery,
    limit: int,
    match: Callable[[str, int, bool], Steps[list[Hit]]],
    key: Callable[[Hit], Hashable],
) -> Steps[list[Hit]]:
    found = yield from match(query.all_terms, limit, True)
    if len(found) < limit and query.any_terms is not None:
        seen = {key(hit) for hit in found}
        more = yield from match(query.any_terms, limit + len(seen), False)
        found += [hit for hit in more if key(hit) not in seen]
    return found[:limit]

"""PostgreSQL's side of the shared statements: ``$n`` marks, ``timestamptz``, arrays, locks.

Instants are bound and read as aware datetimes. Several schedulers share one database, so
a task row read to be changed is locked (``FOR UPDATE``) until the commit, compaction runs
under a lock only one holder takes, and every change to a task is announced on
``CHANGES_CHANNEL`` for the others (they LISTEN).
"""

from __future__ import annotations

import functools
import itertools
import re
import sys
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from common import require_aware
from tasks.store.dialect import Dialect, Statement

CHANGES_CHANNEL = "assistant_tasks"
"""Where a store announces (NOTIFY) that a task was added or changed; schedulers LISTEN."""

_MARK = re.compile(r"\?")


@functools.lru_cache(maxsize=512)
def _numbered(sql: str) -> str:
    counter = itertools.count(1)
    return _MARK.sub(lambda _: f"${next(counter)}", sql)


class PostgresDialect(Dialect):
    """The shared statements as PostgreSQL runs them."""

    no_limit = None
    lock_rows = " FOR UPDATE"
    list_chunk = sys.maxsize  # one array parameter holds any number

    def marks(self, sql: str) -> str:
        """``sql`` with ``$1``, ``$2``, ... for its ``?`` marks (the shared statements hold
        no other ``?``)."""
        return _numbered(sql)

    def time(self, instant: datetime) -> datetime:
        """``instant`` itself (``timestamptz``), once it is known to be aware."""
        return require_aware(instant, "instant")

    def read_time(self, value: Any) -> datetime:
        """A ``timestamptz`` comes back as an aware datetime already."""
        result: datetime = value
        return result

    def any_of(self, column: str, values: Sequence[Any], array: str) -> tuple[str, tuple[Any, ...]]:
        """``column = ANY(?::array)`` and the values as one array."""
        return f"{column} = ANY(?::{array})", (list(values),)

    def try_lock(self, key: int) -> Statement:
        """A transaction-level advisory lock, taken only if free."""
        return self.statement("SELECT pg_try_advisory_xact_lock(?)", key, want="value")

    def announce(self) -> Statement:
        """NOTIFY the schedulers that LISTEN (sent when the transaction commits)."""
        return self.statement("SELECT pg_notify(?, '')", CHANGES_CHANNEL)


POSTGRES = PostgresDialect()

"""Where tasks and their run ledger live: the ``TaskStore`` contract and its three stores.

base         the ``TaskStore`` contract every store keeps (one test suite runs against all)
planning     misfire decisions: what a claim does with a due task, as a pure function
transitions  how claims and finished runs change a task's state, as pure functions
retention    which ledger rows may be folded into a summary, and the folding (pure)
scope        ``ChatScope``: the chats whose runs a scheduler claims
memory       ``MemoryTaskStore``: dictionaries (tests, throwaway sessions)

What the proactive features keep (monitors' observations, held deliveries, acknowledgements)
is part of the contract; ``proactive`` writes it once for both SQL databases, under a
``schema_versions`` component of its own.

The two SQL stores stand beside each other over a neutral core they share:

rows         the tables' columns, rows <-> values, the store and schema errors
dialect      ``Dialect``: what differs between their SQL (marks, instants, lists, locks)
steps        the operations written once as statement steps (task reads and changes,
             ledger reads, compaction) and ``SqlTaskStore``, the store built on them
sqlite       ``SqliteTaskStore``: the embedded default, one database file
postgres     ``PostgresTaskStore``: one database shared by several schedulers

Each SQL store keeps its own inserts, claims, leases and finished runs (SQLite's write lock
and PostgreSQL's ``FOR UPDATE SKIP LOCKED`` differ on purpose). ``sqlite`` and ``postgres``
never import each other (an import contract in ``pyproject.toml`` says so).
"""

from tasks.store.base import (
    LEASE_LOST_ERROR,
    OUTCOME_UNKNOWN_ERROR,
    UNSET,
    GivenUp,
    HeldDelivery,
    HoldReason,
    RecentRun,
    TaskChange,
    TaskStore,
    WatchedChange,
)
from tasks.store.memory import MemoryTaskStore
from tasks.store.postgres import TASK_TABLES, PostgresTaskStore
from tasks.store.postgres import read_sizes as read_postgres_sizes
from tasks.store.rows import TaskStoreError
from tasks.store.scope import ChatScope
from tasks.store.sqlite import SchedulerBusyError, SqliteTaskStore, scheduler_lock
from tasks.store.sqlite import read_sizes as read_sqlite_sizes

__all__ = [
    "LEASE_LOST_ERROR",
    "OUTCOME_UNKNOWN_ERROR",
    "TASK_TABLES",
    "UNSET",
    "ChatScope",
    "GivenUp",
    "HeldDelivery",
    "HoldReason",
    "MemoryTaskStore",
    "PostgresTaskStore",
    "RecentRun",
    "SchedulerBusyError",
    "SqliteTaskStore",
    "TaskChange",
    "TaskStore",
    "TaskStoreError",
    "WatchedChange",
    "read_postgres_sizes",
    "read_sqlite_sizes",
    "scheduler_lock",
]

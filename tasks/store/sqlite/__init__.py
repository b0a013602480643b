"""The task store in SQLite.

store       SqliteTaskStore: the operations, new tasks; the shared steps (``tasks.store.steps``)
            for task reads and changes, ledger reads and compaction
claims      claims, leases, retries of expired runs (transactions)
runs        finished runs: outcomes recorded, tasks updated (transactions)
db          TaskDatabase: the shared ``common.sqlite`` connection, raising task errors; runs
            the shared steps on the connection's thread
dialect     ? marks, instants as fixed-width UTC text
schema      the tables and their migrations
checkpoint  WAL checkpoints on a connection of their own, off the hot path
lock        one scheduler per database file

It imports the neutral core of ``tasks.store`` and never the PostgreSQL store.
"""

from tasks.store.sqlite.db import TaskDatabase, TaskStoreError
from tasks.store.sqlite.lock import SchedulerBusyError, scheduler_lock
from tasks.store.sqlite.schema import MIGRATIONS
from tasks.store.sqlite.store import SqliteTaskStore, read_sizes

__all__ = [
    "MIGRATIONS",
    "SchedulerBusyError",
    "SqliteTaskStore",
    "TaskDatabase",
    "TaskStoreError",
    "read_sizes",
    "scheduler_lock",
]

"""The task store in SQLite.

store       SqliteTaskStore: the operations; the task rows' own transactions
claims      claims, leases, retries of expired runs (transactions)
runs        finished runs, the ledger's reads, task-row helpers (transactions)
schema      the tables, their migrations, rows <-> values
db          TaskDatabase: the shared ``common.sqlite`` connection, raising task errors
checkpoint  WAL checkpoints on a connection of their own, off the hot path
lock        one scheduler per database file
"""

from tasks.store.sqlite.db import TaskDatabase, TaskStoreError
from tasks.store.sqlite.lock import SchedulerBusyError, scheduler_lock
from tasks.store.sqlite.store import SqliteTaskStore

__all__ = [
    "SchedulerBusyError",
    "SqliteTaskStore",
    "TaskDatabase",
    "TaskStoreError",
    "scheduler_lock",
]

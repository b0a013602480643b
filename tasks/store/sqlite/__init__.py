"""The task store in SQLite: one connection on its own thread, the schema and its migrations,
the ledger's transactions and WAL checkpoints off the hot path."""

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

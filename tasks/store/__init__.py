"""Where tasks and their run ledger live: the ``TaskStore`` contract and its two stores.

base         the ``TaskStore`` contract every store keeps (one test suite runs against all)
planning     misfire decisions: what a claim does with a due task, as a pure function
transitions  how claims and finished runs change a task's state, as pure functions
memory       ``MemoryTaskStore``: dictionaries (tests, throwaway sessions)
sqlite       ``SqliteTaskStore``: the embedded default, one database file
"""

from tasks.store.base import (
    LEASE_LOST_ERROR,
    OUTCOME_UNKNOWN_ERROR,
    UNSET,
    GivenUp,
    TaskChange,
    TaskStore,
)
from tasks.store.memory import MemoryTaskStore
from tasks.store.sqlite import (
    SchedulerBusyError,
    SqliteTaskStore,
    TaskStoreError,
    scheduler_lock,
)

__all__ = [
    "LEASE_LOST_ERROR",
    "OUTCOME_UNKNOWN_ERROR",
    "UNSET",
    "GivenUp",
    "MemoryTaskStore",
    "SchedulerBusyError",
    "SqliteTaskStore",
    "TaskChange",
    "TaskStore",
    "TaskStoreError",
    "scheduler_lock",
]

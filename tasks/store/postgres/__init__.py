"""The task store in PostgreSQL: several schedulers, on several hosts, on one database.

store    PostgresTaskStore: the operations, LISTEN for changes
claims   claims with FOR UPDATE SKIP LOCKED, leases, retries of expired runs
runs     finished runs, the ledger's reads, task-row helpers
schema   the tables, their migrations, rows <-> values
copy     the tables as ``assistant migrate`` copies them from SQLite
"""

from tasks.store.postgres.copy import TASK_TABLES
from tasks.store.postgres.schema import CHANGES_CHANNEL
from tasks.store.postgres.store import PostgresTaskStore

__all__ = ["CHANGES_CHANNEL", "TASK_TABLES", "PostgresTaskStore"]

"""The task store in PostgreSQL: several schedulers, on several hosts, on one database.

store    PostgresTaskStore: the operations, LISTEN for changes; the shared steps
         (``tasks.store.steps``) for task reads and changes, ledger reads and compaction
claims   claims with FOR UPDATE SKIP LOCKED, leases, retries of expired runs
runs     finished runs: outcomes recorded, tasks updated, a batch per statement
db       runs the shared steps on a pooled connection, statement by statement
dialect  $n marks, timestamptz, arrays, row locks, NOTIFY on change
schema   the tables and their migrations
copy     the tables as ``assistant migrate`` copies them from SQLite

It imports the neutral core of ``tasks.store`` and never the SQLite store.
"""

from tasks.store.postgres.copy import TASK_TABLES
from tasks.store.postgres.dialect import CHANGES_CHANNEL
from tasks.store.postgres.schema import MIGRATIONS
from tasks.store.postgres.store import PostgresTaskStore, read_sizes

__all__ = ["CHANGES_CHANNEL", "MIGRATIONS", "TASK_TABLES", "PostgresTaskStore", "read_sizes"]

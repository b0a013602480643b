"""What every package stands on and none owns: the clock, per-key locks, secret redaction,
the lifecycle of long-lived objects, one SQLite connection on its own thread with its
migration runner, and its PostgreSQL counterpart (a connection pool, LISTEN, migrations).

``common`` imports nothing from the project; every other package may import it.
"""

from common.clock import Clock, ManualClock, SystemClock, require_aware
from common.copying import TableCopy, copy_table, flag, instant, postgres_count, sqlite_count
from common.lifecycle import AsyncLifecycle
from common.locks import KeyedLocks
from common.postgres import (
    Listener,
    PgConnection,
    PostgresDatabase,
    PostgresFailures,
    is_postgres_url,
    notify,
)
from common.redaction import (
    REDACTED,
    RedactUrlFilter,
    install_log_redaction,
    is_secret_name,
    redact_headers,
    redact_secrets,
    redact_url,
    scrub,
)
from common.sqlite import Failures, SqliteDatabase, from_db_time, migrate, to_db_time

__all__ = [
    "REDACTED",
    "AsyncLifecycle",
    "Clock",
    "Failures",
    "KeyedLocks",
    "Listener",
    "ManualClock",
    "PgConnection",
    "PostgresDatabase",
    "PostgresFailures",
    "RedactUrlFilter",
    "SqliteDatabase",
    "SystemClock",
    "TableCopy",
    "copy_table",
    "flag",
    "from_db_time",
    "install_log_redaction",
    "instant",
    "is_postgres_url",
    "is_secret_name",
    "migrate",
    "notify",
    "postgres_count",
    "redact_headers",
    "redact_secrets",
    "redact_url",
    "require_aware",
    "scrub",
    "sqlite_count",
    "to_db_time",
]

"""What every package stands on and none owns: the clock, per-key locks, secret redaction,
the vocabulary of outgoing HTTP requests, the lifecycle of long-lived objects, and one SQLite
connection on its own thread with its migration runner.

``common`` imports nothing from the project; every other package may import it.
"""

from common.clock import Clock, ManualClock, SystemClock, require_aware
from common.http import (
    HTTP_METHODS,
    NOT_IDEMPOTENT_METHODS,
    SAFE_METHODS,
    HttpRequest,
    HttpRequestError,
    HttpResponse,
)
from common.lifecycle import AsyncLifecycle
from common.locks import KeyedLocks
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
    "HTTP_METHODS",
    "NOT_IDEMPOTENT_METHODS",
    "REDACTED",
    "SAFE_METHODS",
    "AsyncLifecycle",
    "Clock",
    "Failures",
    "HttpRequest",
    "HttpRequestError",
    "HttpResponse",
    "KeyedLocks",
    "ManualClock",
    "RedactUrlFilter",
    "SqliteDatabase",
    "SystemClock",
    "from_db_time",
    "install_log_redaction",
    "is_secret_name",
    "migrate",
    "redact_headers",
    "redact_secrets",
    "redact_url",
    "require_aware",
    "scrub",
    "to_db_time",
]

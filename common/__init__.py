"""What every package stands on and none owns: the clock, per-key locks, secret redaction,
the vocabulary of outgoing HTTP requests and the one guarded path that sends them (the SSRF
guard, pinned connections, redirects checked hop by hop), web pages read as text (HTML and
CSS selectors), files private to their user, the lifecycle of long-lived objects, one SQLite
connection on its own thread with its migration runner, and its PostgreSQL counterpart (a
connection pool, LISTEN, migrations) with table copying between them.

``common`` imports nothing from the project; every other package may import it.
"""

from common.clock import Clock, ManualClock, SystemClock, require_aware
from common.copying import TableCopy, copy_table, flag, instant, postgres_count, sqlite_count
from common.files import (
    PRIVATE_DIR_MODE,
    PRIVATE_FILE_MODE,
    create_private_file,
    make_private_dir,
    open_private,
    tighten,
)
from common.html import (
    NotText,
    SelectorError,
    check_selector,
    html_to_text,
    page_text,
    select_text,
)
from common.http import (
    HTTP_METHODS,
    NOT_IDEMPOTENT_METHODS,
    REDIRECT_CHECK,
    SAFE_METHODS,
    HttpRequest,
    HttpRequestError,
    HttpResponse,
)
from common.lifecycle import AsyncLifecycle, cancel_and_wait
from common.locks import KeyedLocks
from common.netguard import (
    BlockedAddressError,
    FetchError,
    GuardedHttp,
    IPAddress,
    NetGuard,
    Resolver,
    blocked_reason,
    parse_ip_host,
    parse_url,
    system_resolver,
    unresolvable,
)
from common.patterns import LazyPattern
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
    RedactingFilter,
    install_log_redaction,
    is_secret_name,
    redact_headers,
    redact_secrets,
    redact_text,
    redact_url,
    scrub,
    url_secrets,
)
from common.runtime import settle_process
from common.sqlite import (
    WAL_KEEP_BYTES,
    Failures,
    SqliteDatabase,
    UnreadableText,
    free_pages,
    from_db_time,
    migrate,
    to_db_time,
)
from common.steps import StepRun
from common.text import clean_text, clean_value, unstorable

__all__ = [
    "HTTP_METHODS",
    "NOT_IDEMPOTENT_METHODS",
    "PRIVATE_DIR_MODE",
    "PRIVATE_FILE_MODE",
    "REDACTED",
    "REDIRECT_CHECK",
    "SAFE_METHODS",
    "WAL_KEEP_BYTES",
    "AsyncLifecycle",
    "BlockedAddressError",
    "Clock",
    "Failures",
    "FetchError",
    "GuardedHttp",
    "HttpRequest",
    "HttpRequestError",
    "HttpResponse",
    "IPAddress",
    "KeyedLocks",
    "LazyPattern",
    "Listener",
    "ManualClock",
    "NetGuard",
    "NotText",
    "PgConnection",
    "PostgresDatabase",
    "PostgresFailures",
    "RedactingFilter",
    "Resolver",
    "SelectorError",
    "SqliteDatabase",
    "StepRun",
    "SystemClock",
    "TableCopy",
    "UnreadableText",
    "blocked_reason",
    "cancel_and_wait",
    "check_selector",
    "clean_text",
    "clean_value",
    "copy_table",
    "create_private_file",
    "flag",
    "free_pages",
    "from_db_time",
    "html_to_text",
    "install_log_redaction",
    "instant",
    "is_postgres_url",
    "is_secret_name",
    "make_private_dir",
    "migrate",
    "notify",
    "open_private",
    "page_text",
    "parse_ip_host",
    "parse_url",
    "postgres_count",
    "redact_headers",
    "redact_secrets",
    "redact_text",
    "redact_url",
    "require_aware",
    "scrub",
    "select_text",
    "settle_process",
    "sqlite_count",
    "system_resolver",
    "tighten",
    "to_db_time",
    "unresolvable",
    "unstorable",
    "url_secrets",
]

"""What every package stands on and none owns: the clock, per-key locks and secret redaction.

``common`` imports nothing from the project; every other package may import it.
"""

from common.clock import Clock, ManualClock, SystemClock, require_aware
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

__all__ = [
    "REDACTED",
    "Clock",
    "KeyedLocks",
    "ManualClock",
    "RedactUrlFilter",
    "SystemClock",
    "install_log_redaction",
    "is_secret_name",
    "redact_headers",
    "redact_secrets",
    "redact_url",
    "require_aware",
    "scrub",
]

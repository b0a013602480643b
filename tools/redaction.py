"""Keep secrets out of logs and replies: one notion of what looks secret, used everywhere."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

REDACTED = "[redacted]"
"""What a secret value is replaced with."""

_SECRET_NAME = re.compile(
    r"auth|cookie|token|key|secret|passw|pwd|session|signature|credential|bearer", re.IGNORECASE
)


def is_secret_name(name: str) -> bool:
    """Return whether a header, parameter or key name suggests that its value is a secret."""
    return bool(_SECRET_NAME.search(name))


def redact_headers(headers: Mapping[str, str] | Iterable[tuple[str, str]]) -> dict[str, str]:
    """Return a copy of ``headers`` whose secret-looking values are replaced by ``[redacted]``.

    Secret-looking names: Authorization, Proxy-Authorization, Cookie, Set-Cookie and any name
    containing token, key, secret, password, session, signature or credential (X-Api-Key...).
    """
    pairs = headers.items() if isinstance(headers, Mapping) else headers
    return {name: (REDACTED if is_secret_name(name) else value) for name, value in pairs}


def scrub(text: str, secrets: Iterable[str]) -> str:
    """Return ``text`` with every occurrence of each (non-trivial) secret replaced."""
    for secret in sorted({s for s in secrets if len(s) >= 4}, key=len, reverse=True):
        text = text.replace(secret, REDACTED)
    return text

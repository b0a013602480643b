"""Keep secrets out of logs and replies: one notion of what looks secret, used everywhere.

Every layer shows values through these functions: tool arguments in approval cards, stored
requests in task listings, URLs in logs and delivered results.
"""

from __future__ import annotations

import logging
import re
import sys
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypeGuard
from urllib.parse import unquote_plus, urlsplit, urlunsplit

if TYPE_CHECKING:
    import httpx

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


def redact_secrets(value: Any) -> Any:
    """Return a copy of ``value`` safe to show or log: at any depth, the values of
    secret-looking keys (``Authorization``, ``api_key``...) are ``[redacted]`` and URLs lose
    their passwords and secret-looking query values. For display only; what runs is unchanged.
    """
    if isinstance(value, Mapping):
        return {
            key: (
                REDACTED
                if is_secret_name(str(key)) and not isinstance(item, Mapping | list)
                else redact_secrets(item)
            )
            for key, item in value.items()
        }
    if isinstance(value, list | tuple):
        return [redact_secrets(item) for item in value]
    if isinstance(value, str) and _looks_like_url(value):
        return redact_url(value)
    return value


def redact_url(url: str | httpx.URL) -> str:
    """Return ``url`` as a person may see it: its password and the values of secret-looking
    query parameters (``api_key``, ``token``...) are ``[redacted]``, the rest as written.

    A value that is not a URL at all is replaced whole.
    """
    try:
        parts = urlsplit(str(url))
        password = parts.password
    except ValueError:
        return REDACTED
    netloc = parts.netloc
    if password is not None:
        user, _, host = netloc.rpartition("@")
        netloc = f"{user.partition(':')[0]}:{REDACTED}@{host}"
    query = "&".join(_redact_parameter(pair) for pair in parts.query.split("&"))
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def _redact_parameter(pair: str) -> str:
    name, equals, _ = pair.partition("=")
    return f"{name}={REDACTED}" if equals and is_secret_name(unquote_plus(name)) else pair


class RedactUrlFilter(logging.Filter):
    """Redacts secrets from third-party HTTP log records.

    httpx logs every request's full URL at INFO level, so an API that takes its key in the
    query (SerpApi's ``api_key``) would leak it; httpcore's DEBUG traces print header tuples
    such as ``(b'Set-Cookie', b'...')``. URL arguments go through ``redact_url`` and
    secret-looking header tuples lose their values.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str) and "(b'" in record.msg:
            record.msg = _HEADER_TUPLE.sub(_redact_header_tuple, record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(
                redact_url(a) if _is_httpx_url(a) or _looks_like_url(a) else a for a in record.args
            )
        return True


def _is_httpx_url(value: object) -> TypeGuard[httpx.URL]:
    # httpx is imported only by code that makes requests (a command that never goes online
    # starts without it); where it is not loaded, no value can be one of its URLs.
    loaded = sys.modules.get("httpx")
    return loaded is not None and isinstance(value, loaded.URL)


_HEADER_TUPLE = re.compile(r"\(b'([^']*)', b'([^']*)'\)")


def _redact_header_tuple(match: re.Match[str]) -> str:
    if is_secret_name(match.group(1)):
        return f"(b'{match.group(1)}', b'{REDACTED}')"
    return match.group(0)


def _looks_like_url(value: object) -> TypeGuard[str]:
    return isinstance(value, str) and value.startswith(("http://", "https://"))


def install_log_redaction(*logger_names: str) -> None:
    """Add a ``RedactUrlFilter`` to each named logger (default: httpx and httpcore's), once.

    A filter on a logger applies to records created by that very logger, so httpcore's
    loggers are named one by one.
    """
    names = logger_names or ("httpx", "httpcore.http11", "httpcore.http2", "httpcore.connection")
    for name in names:
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactUrlFilter) for f in logger.filters):
            logger.addFilter(RedactUrlFilter())

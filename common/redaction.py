"""Keep secrets out of logs and replies: one notion of what looks secret, used everywhere.

Every layer shows values through these functions: tool arguments in approval cards, stored
requests in task listings, URLs in logs and delivered results.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypeGuard
from urllib.parse import unquote_plus, urlsplit, urlunsplit

from common.patterns import LazyPattern

if TYPE_CHECKING:
    import httpx

REDACTED = "[redacted]"
"""What a secret value is replaced with."""

_SECRET_NAME = LazyPattern(
    r"auth|cookie|token|key|secret|passw|pwd|session|signature|credential|bearer", re.IGNORECASE
)


# A value that only names a secret (``${HOME_API_TOKEN}``, ``Bearer ${HOME_API_TOKEN}``): it
# holds none, and a person approving a request should see which one it names.
_REFERENCE_ONLY = LazyPattern(
    r"\s*(?:(?:Bearer|Basic|Token)\s+)?\$\{[A-Za-z_][A-Za-z0-9_]*\}\s*", re.IGNORECASE
)


def is_secret_name(name: str) -> bool:
    """Return whether a header, parameter or key name suggests that its value is a secret."""
    return bool(_SECRET_NAME.search(name))


def _hidden(name: str, value: object) -> bool:
    """Whether the value of ``name`` is shown as ``[redacted]``."""
    return is_secret_name(name) and not (
        isinstance(value, str) and _REFERENCE_ONLY.fullmatch(value)
    )


def redact_headers(headers: Mapping[str, str] | Iterable[tuple[str, str]]) -> dict[str, str]:
    """Return a copy of ``headers`` whose secret-looking values are replaced by ``[redacted]``.

    Secret-looking names: Authorization, Proxy-Authorization, Cookie, Set-Cookie and any name
    containing token, key, secret, password, session, signature or credential (X-Api-Key...).
    A value that only names a secret (``Bearer ${HOME_API_TOKEN}``) is shown: it holds none.
    """
    pairs = headers.items() if isinstance(headers, Mapping) else headers
    return {name: (REDACTED if _hidden(name, value) else value) for name, value in pairs}


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
                if _hidden(str(key), item) and not isinstance(item, Mapping | list)
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


def url_secrets(url: str | httpx.URL) -> list[str]:
    """The secret values a URL carries, as written and decoded: its password, and the values
    of its secret-looking query parameters (``?api_key=...``), to scrub them from whatever a
    server echoes back."""
    try:
        parts = urlsplit(str(url))
        password = parts.password
    except ValueError:
        return []
    found = [password, unquote_plus(password)] if password else []
    for pair in parts.query.split("&"):
        name, equals, value = pair.partition("=")
        if equals and value and is_secret_name(unquote_plus(name)):
            found += [value, unquote_plus(value)]
    return found


def _redact_parameter(pair: str) -> str:
    name, equals, value = pair.partition("=")
    hidden = equals and _hidden(unquote_plus(name), unquote_plus(value))
    return f"{name}={REDACTED}" if hidden else pair


_HEADER_TUPLE = LazyPattern(r"\(b'([^']*)', b'([^']*)'\)")
# A Telegram bot token (123456789:AAE...), wherever it stands (a Bot API URL's path).
_BOT_TOKEN = LazyPattern(r"(?<!\d)\d{5,16}:[A-Za-z0-9_-]{30,64}(?![A-Za-z0-9_-])")
# A credential after its scheme ("Bearer sk-...", "Basic dXNlcjpw..."), as servers echo them:
# token-like (8 characters or more, a digit or a sign among them), so "basic information" stays.
_CREDENTIAL = LazyPattern(
    r"\b(Bearer|Basic)(\s+|%20)(?=[^\s\"',;)}\]]*[0-9+/=_.-])[A-Za-z0-9+/=_.~-]{8,}",
    re.IGNORECASE,
)
# An OpenAI-style API key, as a 401 body quotes it ("Incorrect API key provided: sk-...").
_API_KEY = LazyPattern(r"\b(sk|pk|rk)-[A-Za-z0-9_-]{8,}")
_URL_IN_TEXT = LazyPattern(r"https?://[^\s\"'<>]+")


def redact_text(text: str, secrets: Iterable[str] = ()) -> str:
    """Return free text (a log line, an error from a server) safe to show or log.

    Hidden: each of ``secrets`` (values the program knows to be secret: its tokens and keys),
    anything shaped like a Telegram bot token, a credential after ``Bearer`` or ``Basic``, an
    ``sk-...`` API key, the passwords and secret-looking query values of URLs,
    and secret-looking header tuples of httpcore's traces.
    """
    text = scrub(text, secrets)
    text = _BOT_TOKEN.sub(REDACTED, text)
    text = _CREDENTIAL.sub(lambda m: f"{m.group(1)}{m.group(2)}{REDACTED}", text)
    text = _API_KEY.sub(REDACTED, text)
    text = _URL_IN_TEXT.sub(lambda m: redact_url(m.group(0)), text)
    if "(b'" in text:
        text = _HEADER_TUPLE.sub(_redact_header_tuple, text)
    return text


class RedactingFilter(logging.Filter):
    """Scrubs every record a handler emits, from whichever logger it comes (``redact_text``).

    It sits on handlers, not loggers: a filter on a logger sees only that logger's own
    records, so one on ``telegram`` missed ``telegram.Bot``'s "Set Bot API URL: .../bot<token>".
    The message is formatted once and replaced by its scrubbed text; a traceback is formatted
    and scrubbed too.

    Args:
        secrets: Values known to be secret (bot token, API keys); more can be added.
    """

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        super().__init__()
        self._secrets: set[str] = set()
        self.add_secrets(secrets)

    def add_secrets(self, secrets: Iterable[str]) -> None:
        """Hide these values too (empty and very short values are ignored); of a bot token,
        its secret half on its own too."""
        for secret in secrets:
            if secret and len(secret) >= 4:
                self._secrets.add(secret)
                if _BOT_TOKEN.fullmatch(secret):
                    self._secrets.add(secret.partition(":")[2])

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except (TypeError, ValueError):
            message = f"{record.msg!s} {record.args!r}"
        record.msg, record.args = redact_text(message, self._secrets), ()
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact_text(record.exc_text, self._secrets)
        if record.stack_info:
            record.stack_info = redact_text(record.stack_info, self._secrets)
        return True


def _redact_header_tuple(match: re.Match[str]) -> str:
    if is_secret_name(match.group(1)):
        return f"(b'{match.group(1)}', b'{REDACTED}')"
    return match.group(0)


def _looks_like_url(value: object) -> TypeGuard[str]:
    return isinstance(value, str) and value.startswith(("http://", "https://"))


def install_log_redaction(
    *secrets: str | None, logger: logging.Logger | None = None
) -> RedactingFilter:
    """Put a ``RedactingFilter`` on every handler of ``logger`` (the root logger), once.

    Calling it again adds ``secrets`` to the filters already in place, and covers handlers
    added since. Records of every logger reach the root's handlers, so every line the
    program writes is scrubbed.

    Returns:
        The filter of the first handler (a new one when there are no handlers yet).
    """
    known = [s for s in secrets if s]
    target = logger or logging.getLogger()
    filters: list[RedactingFilter] = []
    for handler in target.handlers:
        found = next((f for f in handler.filters if isinstance(f, RedactingFilter)), None)
        if found is None:
            found = RedactingFilter()
            handler.addFilter(found)
        found.add_secrets(known)
        filters.append(found)
    return filters[0] if filters else RedactingFilter(known)

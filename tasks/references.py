"""``${NAME}`` references: a scheduled request names its secret instead of containing it.

``Authorization: Bearer ${HOME_API_TOKEN}`` is stored, listed and approved exactly as
written; the value is looked up (``SecretSource``) only when the request is sent, and never
written back. A reference may stand only where a secret belongs and is hidden anyway: in the
value of a header or of a query parameter whose name looks secret (``Authorization``,
``X-Api-Key``, ``?api_key=``; ``common.is_secret_name``). So wherever the resolved request
could surface (a log line, an error, a trace of headers), the program's name-based redaction
hides the value. References in bodies are not resolved: a body is sent as written.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from urllib.parse import quote, unquote_plus, urlsplit, urlunsplit

from common import LazyPattern, is_secret_name
from tasks.errors import TaskDataError

REFERENCE = LazyPattern(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
"""``${NAME}``: a name of letters, digits and underscores, not starting with a digit."""

Lookup = Callable[[str], str]
"""Returns the value of a referenced name, or raises ``TaskError`` saying what to set."""

_WHERE = (
    "a reference like ${HOME_API_TOKEN} may stand only in the value of a header or query "
    "parameter whose name says it holds a secret (Authorization, X-Api-Key, api_key, "
    "token...), so that it is hidden wherever the request is shown"
)


def check_placement(headers: Mapping[str, str], url: str) -> None:
    """Refuse a reference that stands where its value would be shown.

    Raises:
        TaskDataError: naming the header or URL part, and saying where references may stand.
    """
    for name, value in headers.items():
        if REFERENCE.search(value) and not is_secret_name(name):
            raise TaskDataError(f"header {name!r} holds a reference; {_WHERE}")
    parts = urlsplit(url)
    if REFERENCE.search(f"{parts.scheme}://{parts.netloc}{parts.path}#{parts.fragment}"):
        raise TaskDataError(f"the URL {url!r} has a reference outside its query; {_WHERE}")
    for pair in parts.query.split("&"):
        name, _, value = pair.partition("=")
        if REFERENCE.search(name) or (
            REFERENCE.search(value) and not is_secret_name(unquote_plus(name))
        ):
            raise TaskDataError(
                f"the query parameter {unquote_plus(name)!r} holds a reference; {_WHERE}"
            )


def resolve_headers(headers: Mapping[str, str], lookup: Lookup) -> dict[str, str]:
    """The headers with each reference replaced by its value."""
    return {name: REFERENCE.sub(lambda m: lookup(m.group(1)), v) for name, v in headers.items()}


def resolve_url(url: str, lookup: Lookup) -> str:
    """The URL with each reference in its query replaced by its value, percent-encoded."""
    parts = urlsplit(url)
    if not REFERENCE.search(parts.query):
        return url
    query = REFERENCE.sub(lambda m: quote(lookup(m.group(1)), safe=""), parts.query)
    return urlunsplit(parts._replace(query=query))


def no_secrets(name: str) -> str:
    """The lookup of a runner that was given no ``SecretSource``: every reference fails."""
    raise TaskDataError(
        f"the request references ${{{name}}}, and no secrets are configured for the scheduler"
    )

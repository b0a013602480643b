"""The one vocabulary of outgoing HTTP: methods, a request, a response, and how a request fails.

The ``api_call`` tool and the scheduler's api_call runner make requests the same way: they
build an ``HttpRequest`` and hand it to one guarded client (``common.GuardedHttp``,
which the scheduler sees through ``tasks.HttpSender``). That client answers with an
``HttpResponse`` or raises an ``HttpRequestError`` that says whether the request may have
reached the server, which decides whether it may be sent again.

Errors:

    HttpRequestError   no answer; ``may_have_arrived`` and ``permanent`` say what it means
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # httpx loads when a request is sent (``netguard``), not with this module
    import httpx

HTTP_METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")
"""Every method a request may use."""
SAFE_METHODS = frozenset({"GET", "HEAD"})
"""Methods that only read: a call with one of them to a trusted host needs no approval."""
NOT_IDEMPOTENT_METHODS = frozenset({"POST", "PATCH"})
"""Methods whose repetition may act twice (order twice, append twice): a request with one of
them is never sent again once it may have reached the server."""


@dataclass(frozen=True, slots=True)
class HttpRequest:
    """One HTTP request, as the tool and the scheduler hand it to the guarded client.

    Attributes:
        method: The method, upper case, one of ``HTTP_METHODS``.
        url: The absolute http(s) URL.
        headers: The request headers.
        content: The body, or ``None``.
        timeout: Seconds the whole exchange (redirects included) may take.
        max_bytes: The most bytes of the answer's body that are read.
    """

    method: str
    url: str
    headers: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    content: bytes | None = None
    timeout: float = 15.0
    max_bytes: int = 1_000_000

    @property
    def idempotent(self) -> bool:
        """Whether sending it twice does what sending it once does."""
        return self.method not in NOT_IDEMPOTENT_METHODS


@dataclass(frozen=True, slots=True)
class HttpResponse:
    """A finished HTTP exchange, read up to a size cap.

    Attributes:
        url: The final URL, after redirects.
        status_code: The HTTP status.
        reason: The reason phrase.
        headers: The response headers.
        content: The body (decoded transfer/content encoding), at most the cap.
        truncated: Whether the body was cut at the cap.
        redirects: The URLs that redirected, in order.
    """

    url: str
    status_code: int
    reason: str
    headers: httpx.Headers
    content: bytes
    truncated: bool
    redirects: tuple[str, ...] = ()

    @property
    def media_type(self) -> str:
        """The media type without parameters, lower case ("" when absent)."""
        value: str = self.headers.get("content-type", "")
        return value.split(";", 1)[0].strip().lower()

    @property
    def text(self) -> str:
        """The body decoded with the declared charset (UTF-8 otherwise), never failing."""
        match = re.search(r"charset=([\w.:-]+)", self.headers.get("content-type", ""), re.I)
        encoding = match.group(1) if match else "utf-8"
        try:
            return self.content.decode(encoding, errors="replace")
        except LookupError:
            return self.content.decode("utf-8", errors="replace")


class HttpRequestError(Exception):
    """A request ended without an answer; the message says why and hides secrets.

    Args:
        message: What happened and what to do.
        may_have_arrived: Whether the server may have received the request (and acted on
            it): false only when it surely never left (a refused destination, a name that
            does not resolve, a connection that could not be made).
        permanent: Whether sending it again cannot help (a refused destination, an invalid
            URL, a redirect loop).
        reason: The cause without the URL, for a caller that names the request itself
            (the message, when not given).
    """

    def __init__(
        self,
        message: str,
        *,
        may_have_arrived: bool = False,
        permanent: bool = False,
        reason: str | None = None,
    ) -> None:
        super().__init__(message)
        self.may_have_arrived = may_have_arrived
        self.permanent = permanent
        self.reason = reason or message


REDIRECT_CHECK: ContextVar[Callable[[str], str | None] | None] = ContextVar(
    "redirect_check", default=None
)
"""While a checked call that sends out runs: why a redirect to a host may not be followed
(``None``: it may). The tool executor sets it; the guarded HTTP client (``common.netguard``)
asks it before each redirect to another host, so a host the user named cannot pass the
request on to one they did not."""

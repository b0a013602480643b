"""Outbound HTTP safety: the SSRF guard and pinned connections.

A URL from a model or a user is untrusted. Before any connection, ``NetGuard`` resolves its
host and refuses loopback, private, link-local, unique-local, multicast, unspecified, reserved,
shared (CGNAT) and cloud-metadata addresses, also when they hide inside IPv6 forms (IPv4-mapped,
6to4, Teredo, NAT64) or numeric tricks (``2130706433``, ``0x7f.1``). ``GuardedHttp`` then
connects to the vetted address itself (so DNS rebinding between check and connect gains
nothing), keeps the ``Host`` header and TLS server name of the original host, and follows
redirects by hand, vetting every hop and dropping secret-looking headers when the origin
changes. Hosts on the allow list skip the address checks, never the redirect rules.

``GuardedHttp`` is the one HTTP path of the program: the ``api_call`` and ``fetch_url`` tools
and the scheduler's api_call runner (as its ``tasks.HttpSender``) send ``common.HttpRequest``
values through one instance.

Errors (each is a ``common.HttpRequestError``, which the tool executor reports to the model
as a refusal, like a ``tools.ToolError``):

    HttpRequestError
    ├── BlockedAddressError   the destination is not allowed (SSRF guard); never sent
    └── FetchError            the request failed: bad URL, timeout, connection, too many redirects
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import re
import socket
import ssl
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from common.http import REDIRECT_CHECK, HttpRequest, HttpRequestError, HttpResponse
from common.patterns import LazyPattern
from common.redaction import is_secret_name, redact_url

if TYPE_CHECKING:
    import httpx

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
Resolver = Callable[[str], Awaitable[Sequence[IPAddress]]]

log = logging.getLogger(__name__)

REDIRECT_CODES = frozenset({301, 302, 303, 307, 308})
METADATA_HOSTS = frozenset({"metadata.google.internal", "metadata", "instance-data"})
METADATA_ADDRESSES = frozenset(
    ipaddress.ip_address(a) for a in ("169.254.169.254", "fd00:ec2::254", "100.100.100.200")
)
_CGNAT = ipaddress.ip_network("100.64.0.0/10")
_UNIQUE_LOCAL = ipaddress.ip_network("fc00::/7")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_NUMERIC_HOST = LazyPattern(r"^(0x[0-9a-f]+|[0-9]+)(\.(0x[0-9a-f]*|[0-9]+)){0,3}$", re.IGNORECASE)


class BlockedAddressError(HttpRequestError):
    """The destination is refused by the SSRF guard (nothing was sent; asking again fails)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, permanent=True)


class FetchError(HttpRequestError):
    """An HTTP request could not be made or completed (see ``HttpRequestError``)."""


# -- addresses -------------------------------------------------------------------------------


def parse_ip_host(host: str) -> IPAddress | None:
    """Return the address a host string denotes literally, or ``None`` for a name.

    Understands what ``inet_aton`` (and so the system resolver) accepts as well: decimal
    (``2130706433``), octal (``0177.0.0.1``), hex (``0x7f.1``) and short forms (``127.1``).
    """
    bare = host.strip().strip("[]").rstrip(".")
    try:
        return ipaddress.ip_address(bare)
    except ValueError:
        pass
    if _NUMERIC_HOST.match(bare):
        try:
            return ipaddress.IPv4Address(socket.inet_aton(bare))
        except OSError:
            return None
    return None


def _embedded_ipv4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip.teredo is not None:
        return ip.teredo[1]
    if ip in _NAT64:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def blocked_reason(ip: IPAddress) -> str | None:
    """Return why ``ip`` must not be contacted, or ``None`` when it is a public address."""
    if isinstance(ip, ipaddress.IPv6Address):
        inner = _embedded_ipv4(ip)
        if inner is not None:
            reason = blocked_reason(inner)
            return None if reason is None else f"{reason} (embedded in {ip})"
    checks: tuple[tuple[bool, str], ...] = (
        (ip in METADATA_ADDRESSES, "a cloud metadata address"),
        (ip.is_unspecified, "an unspecified address"),
        (ip.is_loopback, "a loopback address"),
        (ip.is_link_local, "a link-local address"),
        (ip.is_multicast, "a multicast address"),
        (ip in _CGNAT, "a shared (CGNAT) address"),
        (ip in _UNIQUE_LOCAL, "a unique-local address"),
        (ip.is_reserved, "a reserved address"),
        (ip.is_private, "a private address"),
        (not ip.is_global, "not a public address"),
    )
    return next((reason for hit, reason in checks if hit), None)


async def system_resolver(host: str) -> list[IPAddress]:
    """Resolve ``host`` with the operating system's resolver (``getaddrinfo``)."""
    loop = asyncio.get_running_loop()
    try:
        infos = await loop.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise unresolvable(host, exc.strerror or str(exc)) from exc

    addresses: list[IPAddress] = []
    for *_, sockaddr in infos:
        ip = ipaddress.ip_address(str(sockaddr[0]).split("%", 1)[0])
        if ip not in addresses:
            addresses.append(ip)
    return addresses


def unresolvable(host: str, reason: str) -> FetchError:
    """The error for a host name that does not resolve (nothing was sent)."""
    return FetchError(
        f"cannot resolve host {host!r} ({reason}); check the name, and that this machine "
        "can reach its DNS server"
    )


def _normal_host(host: str) -> str:
    return host.strip().strip("[]").rstrip(".").lower()


class NetGuard:
    """Decides which hosts may be contacted and which address to connect to.

    Args:
        resolver: Turns a host name into addresses; injectable so tests need no DNS.
        allow_hosts: Host names (or ``*.suffix`` patterns) trusted as they are, LAN names
            included; they skip the address checks.
        allow_networks: Address ranges that are accepted although not public.
    """

    def __init__(
        self,
        *,
        resolver: Resolver = system_resolver,
        allow_hosts: Iterable[str] = (),
        allow_networks: Iterable[str | IPNetwork] = (),
    ) -> None:
        self._resolver = resolver
        self._allow_hosts = frozenset(_normal_host(h) for h in allow_hosts if h.strip())
        self._allow_networks = tuple(ipaddress.ip_network(n) for n in allow_networks)

    @property
    def allow_hosts(self) -> frozenset[str]:
        """The normalised allow list."""
        return self._allow_hosts

    def is_allowed_host(self, host: str) -> bool:
        """Return whether ``host`` is on the allow list (exactly or by a ``*.`` pattern)."""
        name = _normal_host(host)
        if name in self._allow_hosts:
            return True
        return any(p.startswith("*.") and name.endswith(p[1:]) for p in self._allow_hosts)

    def check_address(self, host: str, ip: IPAddress) -> None:
        """Raise ``BlockedAddressError`` unless ``ip`` (an address of ``host``) may be used."""
        if any(ip in network for network in self._allow_networks):
            return
        reason = blocked_reason(ip)
        if reason is not None:
            written = _normal_host(host) == str(ip)
            shown = str(ip) if written else f"{host!r} resolves to {ip}, which"
            raise BlockedAddressError(
                f"refusing to connect: {shown} is {reason}; only public addresses are allowed "
                "unless the host is listed in ASSISTANT_HTTP_ALLOW_HOSTS"
            )

    def check_literal(self, host: str) -> None:
        """Refuse what ``vet`` refuses whatever DNS answers: a cloud metadata host name, or an
        address written out that is not allowed. A name is judged only when it is resolved.

        Raises:
            BlockedAddressError: with the reason ``vet`` gives.
        """
        name = _normal_host(host)
        if name in METADATA_HOSTS:
            raise BlockedAddressError(
                f"refusing to connect: {host!r} is a cloud metadata host; it is never fetched"
            )
        literal = parse_ip_host(name)
        if literal is not None:
            self.check_address(host, literal)

    async def vet(self, host: str) -> IPAddress:
        """Resolve ``host`` and return the address to connect to.

        Every address the name resolves to must pass, so a name that mixes public and private
        answers is refused as a whole.

        Raises:
            BlockedAddressError: when the host or one of its addresses is not allowed.
            FetchError: when the host cannot be resolved.
        """
        name = _normal_host(host)
        self.check_literal(host)
        literal = parse_ip_host(name)
        addresses = [literal] if literal is not None else list(await self._resolver(name))
        if not addresses:
            raise FetchError(f"cannot resolve host {host!r}: no addresses")
        for ip in addresses:
            self.check_address(host, ip)
        return addresses[0]


# -- requests --------------------------------------------------------------------------------


def parse_url(url: str) -> httpx.URL:
    """Parse an http(s) URL or raise ``FetchError`` saying what would work."""
    import httpx  # loaded when a request needs it (it costs a command's start 20 ms)

    try:
        parsed = httpx.URL(url.strip())
        host = parsed.host  # decodes an IDNA name: "xn--localhost" is not one
    except (httpx.InvalidURL, TypeError, UnicodeError, ValueError) as exc:
        raise FetchError(
            f"invalid URL {url!r}: {exc}; use a full URL like https://example.com/",
            permanent=True,
        ) from None
    if parsed.scheme not in ("http", "https") or not host:
        raise FetchError(
            f"invalid URL {url!r}: only http:// and https:// URLs with a host can be fetched",
            permanent=True,
        )
    return parsed


def _redirect_method(status: int, method: str) -> str:
    if status == 303 and method != "HEAD":
        return "GET"
    if status in (301, 302) and method == "POST":
        return "GET"
    return method


@dataclass(frozen=True, slots=True)
class _Hop:
    """One request of a chain of redirects."""

    method: str
    url: httpx.URL
    headers: dict[str, str]
    content: bytes | None

    def redirected(self, status: int, location: str) -> _Hop:
        """The request a redirect answer leads to.

        It uses the method a browser would; it drops the body and its ``Content-*`` headers
        when the method changes, and secret-looking headers when the origin changes.

        Raises:
            FetchError: when ``location`` is not an http(s) URL with a host.
        """
        target = parse_url(str(self.url.join(location)))
        method = _redirect_method(status, self.method)
        headers, content = self.headers, self.content
        if method != self.method:
            content = None
            headers = {k: v for k, v in headers.items() if not k.lower().startswith("content-")}
        if _origin(target) != _origin(self.url):
            headers = {k: v for k, v in headers.items() if not is_secret_name(k)}
        return _Hop(method, target, headers, content)


def _origin(url: httpx.URL) -> tuple[str, str, int | None]:
    return url.scheme, url.host, url.port


def _pinned(url: httpx.URL, ip: IPAddress) -> tuple[httpx.URL, dict[str, str]]:
    """Return ``url`` with its host replaced by the vetted ``ip``, and the request extensions
    that keep asking TLS for the original host name (none for plain http or an IP host)."""
    sni = {}
    if url.scheme == "https" and parse_ip_host(url.host) is None:
        sni["sni_hostname"] = url.raw_host.decode("ascii")
    return url.copy_with(host=str(ip)), sni


class GuardedHttp:
    """Makes HTTP requests through the SSRF guard, following redirects by hand.

    ``send`` takes an ``HttpRequest`` (the tools' and the scheduler's one request type);
    ``request`` builds one from its arguments.

    Args:
        guard: Decides which destinations are allowed.
        client: Used for hosts on the allow list; a default client is made on first use if
            omitted (and closed by ``aclose``).
        verify: TLS verification for guarded connections (``True``, or an ``ssl.SSLContext``).
        max_redirects: How many redirects one request may follow.
    """

    def __init__(
        self,
        *,
        guard: NetGuard,
        client: httpx.AsyncClient | None = None,
        verify: ssl.SSLContext | bool = True,
        max_redirects: int = 5,
    ) -> None:
        self._verify_with = verify
        self._verify: ssl.SSLContext | bool | None = None
        self._guard = guard
        self._given_client = client
        self._own_client: httpx.AsyncClient | None = None
        self._max_redirects = max_redirects

    def client(self) -> httpx.AsyncClient:
        """The client for allow-listed hosts: the one given, or one made on first use."""
        import httpx

        if self._given_client is not None:
            return self._given_client
        if self._own_client is None:
            self._own_client = httpx.AsyncClient(verify=self._tls())
        return self._own_client

    def _tls(self) -> ssl.SSLContext | bool:
        """The TLS verification, made once, on first use: a verifying context loads the CA
        bundle (a tenth of a second), which a command that never goes online should not
        wait for."""
        import httpx

        if self._verify is None:
            verify = self._verify_with
            self._verify = httpx.create_ssl_context() if verify is True else verify
        return self._verify

    async def aclose(self) -> None:
        """Close the client if this object made it."""
        if self._own_client is not None:
            await self._own_client.aclose()

    def refusal(self, url: str) -> HttpRequestError | None:
        """Why every request to ``url`` would be refused, known without sending one: not an
        http(s) URL, a metadata host, or a private, loopback or link-local address written
        out (unless its host is on the allow list); ``None`` when only a request can tell
        (a name is resolved when it is fetched)."""
        try:
            host = parse_url(url).host
            if not self._guard.is_allowed_host(host):
                self._guard.check_literal(host)
        except HttpRequestError as exc:
            return exc
        return None

    async def request(
        self,
        method: str,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        content: bytes | None = None,
        seconds: float = 15.0,
        max_bytes: int = 1_000_000,
    ) -> HttpResponse:
        """Send the ``HttpRequest`` these arguments describe (see ``send``)."""
        request = HttpRequest(method.upper(), url, dict(headers or {}), content, seconds, max_bytes)
        return await self.send(request)

    async def send(self, request: HttpRequest) -> HttpResponse:
        """Send ``request`` and return the final response, its body read up to the cap.

        Raises:
            BlockedAddressError: when any hop leads to a refused destination.
            FetchError: on a bad URL, timeout, connection failure or too many redirects;
                ``may_have_arrived`` says whether the server may have received a request.
        """
        first = _Hop(request.method.upper(), parse_url(request.url), dict(request.headers),
                     request.content)  # fmt: skip
        progress = _Progress()
        seconds = request.timeout
        try:
            async with asyncio.timeout(seconds):
                return await self._follow(first, seconds, request.max_bytes, progress)
        except TimeoutError:
            reason = f"no answer within {seconds:g} s"
            raise FetchError(
                f"{redact_url(first.url)} did not answer within {seconds:g} s",
                may_have_arrived=progress.sent,
                reason=reason,
            ) from None

    async def _follow(
        self, hop: _Hop, seconds: float, max_bytes: int, progress: _Progress
    ) -> HttpResponse:
        redirects: list[str] = []
        while True:
            response = await self._send_once(hop, seconds, max_bytes, progress)
            location = response.headers.get("location")
            if response.status_code not in REDIRECT_CODES or not location:
                return HttpResponse(
                    url=str(hop.url),
                    status_code=response.status_code,
                    reason=response.reason,
                    headers=response.headers,
                    content=response.content,
                    truncated=response.truncated,
                    redirects=tuple(redirects),
                )
            if len(redirects) >= self._max_redirects:
                reason = f"too many redirects (more than {self._max_redirects})"
                raise FetchError(
                    f"{reason} starting at {redact_url(redirects[0] if redirects else hop.url)}",
                    may_have_arrived=True,
                    permanent=True,
                    reason=reason,
                )
            redirects.append(str(hop.url))
            after = hop.redirected(response.status_code, location)
            self._may_follow(hop, after)
            log.info("redirect %s -> %s", redact_url(hop.url), redact_url(after.url))
            hop = after

    @staticmethod
    def _may_follow(hop: _Hop, after: _Hop) -> None:
        """Refuse a redirect to another host that the call's provenance does not allow (a
        host the user named passing the request on to one they did not)."""
        check = REDIRECT_CHECK.get()
        host = after.url.host.lower()
        if check is None or host == hop.url.host.lower() or (why := check(host)) is None:
            return
        reason = f"it redirects to {host}, which was not followed: {why}"
        raise FetchError(
            f"{redact_url(hop.url)} {reason}; fetch {redact_url(after.url)} itself so that "
            "the user can approve it",
            may_have_arrived=True,
            permanent=True,
            reason=reason,
        )

    async def _send_once(
        self, hop: _Hop, seconds: float, max_bytes: int, progress: _Progress
    ) -> _RawResponse:
        import httpx

        if self._guard.is_allowed_host(hop.url.host):
            return await _exchange(self.client(), hop, seconds, max_bytes, progress)
        ip = await self._guard.vet(hop.url.host)
        url, sni = _pinned(hop.url, ip)
        headers = {**hop.headers, "Host": hop.url.netloc.decode("ascii")}
        # A fresh client per hop: a pooled connection to this IP must not be reused for
        # another host name whose certificate it was never checked against.
        async with httpx.AsyncClient(verify=self._tls(), trust_env=False) as client:
            pinned = _Hop(hop.method, url, headers, hop.content)
            return await _exchange(client, pinned, seconds, max_bytes, progress, sni)


class _Progress:
    """How far a request got: once a hop is handed to the connection, it may have arrived."""

    __slots__ = ("sent",)

    def __init__(self) -> None:
        self.sent = False


@dataclass(frozen=True, slots=True)
class _RawResponse:
    status_code: int
    reason: str
    headers: httpx.Headers
    content: bytes
    truncated: bool


async def _exchange(
    client: httpx.AsyncClient,
    hop: _Hop,
    seconds: float,
    max_bytes: int,
    progress: _Progress,
    extensions: dict[str, str] | None = None,
) -> _RawResponse:
    import httpx

    # Failures after which the request surely never reached the server.
    not_sent = (
        httpx.ConnectError,
        httpx.ConnectTimeout,
        httpx.PoolTimeout,
        httpx.UnsupportedProtocol,
    )
    url = hop.url
    try:
        request = client.build_request(
            hop.method,
            url,
            headers=hop.headers,
            content=hop.content,
            timeout=seconds,
            extensions=extensions,
        )
    except (httpx.HTTPError, httpx.InvalidURL, ValueError) as exc:
        # A header value httpx cannot send (a non-ASCII or control character): say which
        # header, never its value, which may be a secret.
        raise FetchError(
            f"cannot send the request to {redact_url(url)}: {_header_problem(hop, exc)}",
            permanent=True,
        ) from None
    progress.sent = True
    try:
        response = await client.send(request, stream=True, follow_redirects=False)
        try:
            body, truncated = await _read_capped(response, max_bytes)
        finally:
            await response.aclose()
    except httpx.TimeoutException as exc:
        arrived = not isinstance(exc, not_sent)
        reason = f"no answer within {seconds:g} s"
        raise FetchError(
            f"{redact_url(url)} did not answer within {seconds:g} s",
            may_have_arrived=arrived,
            reason=reason,
        ) from None
    except httpx.HTTPError as exc:
        arrived = not isinstance(exc, not_sent)
        reason = str(exc) or type(exc).__name__
        raise FetchError(
            f"request to {redact_url(url)} failed: {reason}",
            may_have_arrived=arrived,
            reason=reason,
        ) from None
    log.info("%s %s -> %d", hop.method, redact_url(url), response.status_code)
    return _RawResponse(
        response.status_code, response.reason_phrase, response.headers, body, truncated
    )


def _header_problem(hop: _Hop, exc: Exception) -> str:
    import httpx

    for name, value in hop.headers.items():
        try:
            httpx.Headers({name: value})
        except (UnicodeEncodeError, ValueError, httpx.HTTPError):
            return f"the value of header {name!r} has characters HTTP cannot carry"
    return type(exc).__name__


async def _read_capped(response: httpx.Response, max_bytes: int) -> tuple[bytes, bool]:
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        chunks.append(chunk)
        size += len(chunk)
        if size > max_bytes:
            return b"".join(chunks)[:max_bytes], True
    return b"".join(chunks), False

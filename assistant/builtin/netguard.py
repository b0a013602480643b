"""Outbound HTTP safety: the SSRF guard and pinned connections.

A URL from a model or a user is untrusted. Before any connection, ``NetGuard`` resolves its
host and refuses loopback, private, link-local, unique-local, multicast, unspecified, reserved,
shared (CGNAT) and cloud-metadata addresses, also when they hide inside IPv6 forms (IPv4-mapped,
6to4, Teredo, NAT64) or numeric tricks (``2130706433``, ``0x7f.1``). ``GuardedHttp`` then
connects to the vetted address itself (so DNS rebinding between check and connect gains
nothing), keeps the ``Host`` header and TLS server name of the original host, and follows
redirects by hand, vetting every hop. Hosts on the allow list skip the guard.

Errors:

    ToolError
    ├── BlockedAddressError   the destination is not allowed (SSRF guard)
    └── FetchError            the request failed: bad URL, timeout, connection, too many redirects
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import re
import socket
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import httpx

from common import is_secret_name, redact_url
from tools import ToolError

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
_NUMERIC_HOST = re.compile(r"^(0x[0-9a-f]+|[0-9]+)(\.(0x[0-9a-f]*|[0-9]+)){0,3}$", re.IGNORECASE)


class BlockedAddressError(ToolError):
    """The destination is refused by the SSRF guard."""


class FetchError(ToolError):
    """An HTTP request could not be made or completed."""


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
        raise FetchError(f"cannot resolve host {host!r}: {exc.strerror}") from None
    addresses: list[IPAddress] = []
    for *_, sockaddr in infos:
        ip = ipaddress.ip_address(str(sockaddr[0]).split("%", 1)[0])
        if ip not in addresses:
            addresses.append(ip)
    return addresses


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
            shown = str(ip) if _normal_host(host) == str(ip) else f"{host!r} resolves to {ip}"
            raise BlockedAddressError(
                f"refusing to connect: {shown} is {reason}; only public addresses are allowed "
                "unless the host is listed in ASSISTANT_HTTP_ALLOW_HOSTS"
            )

    async def vet(self, host: str) -> IPAddress:
        """Resolve ``host`` and return the address to connect to.

        Every address the name resolves to must pass, so a name that mixes public and private
        answers is refused as a whole.

        Raises:
            BlockedAddressError: when the host or one of its addresses is not allowed.
            FetchError: when the host cannot be resolved.
        """
        name = _normal_host(host)
        if name in METADATA_HOSTS:
            raise BlockedAddressError(
                f"refusing to connect: {host!r} is a cloud metadata host; it is never fetched"
            )
        literal = parse_ip_host(name)
        addresses = [literal] if literal is not None else list(await self._resolver(name))
        if not addresses:
            raise FetchError(f"cannot resolve host {host!r}: no addresses")
        for ip in addresses:
            self.check_address(host, ip)
        return addresses[0]


# -- requests --------------------------------------------------------------------------------


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


def parse_url(url: str) -> httpx.URL:
    """Parse an http(s) URL or raise ``FetchError`` saying what would work."""
    try:
        parsed = httpx.URL(url.strip())
    except (httpx.InvalidURL, TypeError) as exc:
        raise FetchError(
            f"invalid URL {url!r}: {exc}; use a full URL like https://example.com/"
        ) from None
    if parsed.scheme not in ("http", "https") or not parsed.host:
        raise FetchError(
            f"invalid URL {url!r}: only http:// and https:// URLs with a host can be fetched"
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

    Args:
        guard: Decides which destinations are allowed.
        client: Used for hosts on the allow list; a default client is created if omitted.
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
        # Building a verifying TLS context costs a fraction of a second: do it once.
        self._verify = httpx.create_ssl_context() if verify is True else verify
        self._guard = guard
        self._own_client = client is None
        self._client = client or httpx.AsyncClient(verify=self._verify)
        self._max_redirects = max_redirects

    async def aclose(self) -> None:
        """Close the client if this object created it."""
        if self._own_client:
            await self._client.aclose()

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
        """Send a request and return the final response, read up to ``max_bytes``.

        Raises:
            BlockedAddressError: when any hop leads to a refused destination.
            FetchError: on a bad URL, timeout, connection failure or too many redirects.
        """
        first = _Hop(method.upper(), parse_url(url), dict(headers or {}), content)
        try:
            async with asyncio.timeout(seconds):
                return await self._follow(first, seconds, max_bytes)
        except TimeoutError:
            raise FetchError(
                f"{redact_url(first.url)} did not answer within {seconds:g} s"
            ) from None

    async def _follow(self, hop: _Hop, seconds: float, max_bytes: int) -> HttpResponse:
        redirects: list[str] = []
        while True:
            response = await self._send_once(hop, seconds, max_bytes)
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
                raise FetchError(
                    f"too many redirects (more than {self._max_redirects}) starting at "
                    f"{redact_url(redirects[0] if redirects else hop.url)}"
                )
            redirects.append(str(hop.url))
            after = hop.redirected(response.status_code, location)
            log.info("redirect %s -> %s", redact_url(hop.url), redact_url(after.url))
            hop = after

    async def _send_once(self, hop: _Hop, seconds: float, max_bytes: int) -> _RawResponse:
        if self._guard.is_allowed_host(hop.url.host):
            return await _exchange(self._client, hop, seconds, max_bytes)
        ip = await self._guard.vet(hop.url.host)
        url, sni = _pinned(hop.url, ip)
        headers = {**hop.headers, "Host": hop.url.netloc.decode("ascii")}
        # A fresh client per hop: a pooled connection to this IP must not be reused for
        # another host name whose certificate it was never checked against.
        async with httpx.AsyncClient(verify=self._verify, trust_env=False) as client:
            pinned = _Hop(hop.method, url, headers, hop.content)
            return await _exchange(client, pinned, seconds, max_bytes, sni)


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
    extensions: dict[str, str] | None = None,
) -> _RawResponse:
    url = hop.url
    request = client.build_request(
        hop.method,
        url,
        headers=hop.headers,
        content=hop.content,
        timeout=seconds,
        extensions=extensions,
    )
    try:
        response = await client.send(request, stream=True, follow_redirects=False)
        try:
            body, truncated = await _read_capped(response, max_bytes)
        finally:
            await response.aclose()
    except httpx.TimeoutException:
        raise FetchError(f"{redact_url(url)} did not answer within {seconds:g} s") from None
    except httpx.HTTPError as exc:
        raise FetchError(f"request to {redact_url(url)} failed: {exc}") from None
    log.info("%s %s -> %d", hop.method, redact_url(url), response.status_code)
    return _RawResponse(
        response.status_code, response.reason_phrase, response.headers, body, truncated
    )


async def _read_capped(response: httpx.Response, max_bytes: int) -> tuple[bytes, bool]:
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        chunks.append(chunk)
        size += len(chunk)
        if size > max_bytes:
            return b"".join(chunks)[:max_bytes], True
    return b"".join(chunks), False


# -- a transport for other clients -----------------------------------------------------------


class GuardedTransport(httpx.AsyncBaseTransport):
    """An httpx transport that applies the SSRF guard to every request it sends.

    For code that makes its own ``httpx.AsyncClient`` (the scheduler's api_call runner): with
    ``follow_redirects=True`` httpx sends each hop through the transport, so each hop is
    vetted. Guarded requests connect to the vetted address through a connection used for
    that one request, with the original ``Host`` header and TLS server name.

    Args:
        guard: Decides which destinations are allowed.
        verify: TLS verification (``True``, or an ``ssl.SSLContext``).
    """

    def __init__(self, *, guard: NetGuard, verify: ssl.SSLContext | bool = True) -> None:
        self._guard = guard
        self._verify_with = verify
        self._verify: ssl.SSLContext | bool | None = None
        self._trusted: httpx.AsyncHTTPTransport | None = None

    def _tls(self) -> ssl.SSLContext | bool:
        """The TLS verification, made on first use (a verifying context loads the CA bundle,
        a tenth of a second that a process which never sends a request should not spend)."""
        if self._verify is None:
            verify = self._verify_with
            self._verify = httpx.create_ssl_context() if verify is True else verify
        return self._verify

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Vet the destination, then send ``request`` to the vetted address."""
        url = request.url
        if self._guard.is_allowed_host(url.host):
            if self._trusted is None:
                self._trusted = httpx.AsyncHTTPTransport(verify=self._tls())
            return await self._trusted.handle_async_request(request)
        ip = await self._guard.vet(url.host)
        pinned_url, sni = _pinned(url, ip)
        pinned = httpx.Request(
            request.method,
            pinned_url,
            headers=request.headers,  # carries Host: the original name
            stream=request.stream,
            extensions={**request.extensions, **sni},
        )
        single = httpx.AsyncHTTPTransport(verify=self._tls(), retries=0)
        try:
            response = await single.handle_async_request(pinned)
        except BaseException:
            await single.aclose()
            raise
        return httpx.Response(
            response.status_code,
            headers=response.headers,
            stream=_ClosingStream(response, single),
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        """Close the pooled transport for allow-listed hosts."""
        if self._trusted is not None:
            await self._trusted.aclose()


class _ClosingStream(httpx.AsyncByteStream):
    """A response body that closes its one-request transport when it is closed."""

    def __init__(self, response: httpx.Response, transport: httpx.AsyncHTTPTransport) -> None:
        self._response = response
        self._transport = transport

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._response.aiter_raw():
            yield chunk

    async def aclose(self) -> None:
        try:
            await self._response.aclose()
        finally:
            await self._transport.aclose()

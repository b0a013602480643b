"""Tests for the SSRF guard, the pinned redirect-following client and secret redaction."""

from __future__ import annotations

import ipaddress
import socket
import ssl
import subprocess
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from common import (
    BlockedAddressError,
    FetchError,
    GuardedHttp,
    IPAddress,
    NetGuard,
    blocked_reason,
    parse_ip_host,
    redact_headers,
    redact_url,
    scrub,
)
from tests.assistant.builtin.serpapi_standin import LocalWebServer, Page

TLS = ssl.create_default_context()  # built once: a verifying context costs a fraction of a second


class FakeResolver:
    """Answers from a table and counts lookups; an answer list is consumed call by call."""

    def __init__(self, table: dict[str, list[list[str]]]) -> None:
        self._table = table
        self.calls: list[str] = []

    async def __call__(self, host: str) -> Sequence[IPAddress]:
        self.calls.append(host)
        answers = self._table[host]
        current = answers[0] if len(answers) == 1 else answers.pop(0)
        return [ipaddress.ip_address(a) for a in current]


@pytest.fixture
def server() -> Iterator[LocalWebServer]:
    with LocalWebServer({"/page": Page("hello")}) as running:
        yield running


@pytest.mark.parametrize(
    ("address", "words"),
    [
        ("127.0.0.1", "loopback"),
        ("::1", "loopback"),
        ("10.0.0.1", "private"),
        ("172.16.5.4", "private"),
        ("192.168.1.10", "private"),
        ("169.254.169.254", "metadata"),
        ("fd00:ec2::254", "metadata"),
        ("169.254.1.1", "link-local"),
        ("fe80::1", "link-local"),
        ("100.64.0.1", "CGNAT"),
        ("0.0.0.0", "unspecified"),
        ("::", "unspecified"),
        ("224.0.0.1", "multicast"),
        ("ff0e::1", "multicast"),
        ("fc00::1", "unique-local"),
        ("240.0.0.1", "reserved"),
        ("::ffff:127.0.0.1", "loopback"),
        ("::ffff:10.1.2.3", "private"),
        ("2002:a00:1::", "private"),
        ("64:ff9b::a00:1", "private"),
    ],
)
def test_non_public_addresses_are_blocked_with_a_reason(address: str, words: str) -> None:
    reason = blocked_reason(ipaddress.ip_address(address))
    assert reason is not None
    assert words in reason


@pytest.mark.parametrize("address", ["8.8.8.8", "93.184.216.34", "2606:4700:4700::1111"])
def test_public_addresses_pass(address: str) -> None:
    assert blocked_reason(ipaddress.ip_address(address)) is None


@pytest.mark.parametrize(
    ("host", "expected"),
    [
        ("2130706433", "127.0.0.1"),
        ("0177.0.0.1", "127.0.0.1"),
        ("0x7f.1", "127.0.0.1"),
        ("127.1", "127.0.0.1"),
        ("[::1]", "::1"),
        ("10.0.0.1.", "10.0.0.1"),
    ],
)
def test_numeric_host_tricks_are_recognised(host: str, expected: str) -> None:
    assert parse_ip_host(host) == ipaddress.ip_address(expected)


@pytest.mark.parametrize("host", ["example.com", "1.2.3.4.example", "cafe", "0x7g.1"])
def test_names_are_not_mistaken_for_addresses(host: str) -> None:
    assert parse_ip_host(host) is None


async def test_a_name_resolving_to_a_private_address_is_refused() -> None:
    guard = NetGuard(resolver=FakeResolver({"intranet.test": [["10.1.2.3"]]}))
    with pytest.raises(BlockedAddressError, match=r"'intranet.test' resolves to 10.1.2.3"):
        await guard.vet("intranet.test")


async def test_a_name_with_one_private_answer_among_public_ones_is_refused() -> None:
    guard = NetGuard(resolver=FakeResolver({"mixed.test": [["8.8.8.8", "127.0.0.1"]]}))
    with pytest.raises(BlockedAddressError, match="loopback"):
        await guard.vet("mixed.test")


async def test_metadata_host_names_are_refused_without_resolving() -> None:
    resolver = FakeResolver({})
    guard = NetGuard(resolver=resolver)
    with pytest.raises(BlockedAddressError, match="metadata"):
        await guard.vet("metadata.google.internal")
    assert resolver.calls == []


async def test_a_public_name_is_vetted_to_its_address() -> None:
    guard = NetGuard(resolver=FakeResolver({"example.test": [["93.184.216.34"]]}))
    assert await guard.vet("Example.Test.") == ipaddress.ip_address("93.184.216.34")


def test_allow_list_matches_exact_names_and_star_patterns() -> None:
    guard = NetGuard(allow_hosts=["home.lan", "*.corp.example", " "])
    assert guard.is_allowed_host("HOME.lan.")
    assert guard.is_allowed_host("printer.corp.example")
    assert not guard.is_allowed_host("corp.example")
    assert not guard.is_allowed_host("evilhome.lan")


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:{port}/page",
        "http://[::1]:{port}/page",
        "http://2130706433:{port}/page",
        "http://0x7f000001:{port}/page",
        "http://localhost:{port}/page",
        "http://10.0.0.1/",
        "http://169.254.169.254/latest/meta-data/",
        "http://[::ffff:127.0.0.1]:{port}/page",
    ],
)
async def test_ssrf_attempts_never_reach_the_server(server: LocalWebServer, url: str) -> None:
    http = GuardedHttp(verify=TLS, guard=NetGuard())
    with pytest.raises(BlockedAddressError, match="refusing to connect"):
        await http.request("GET", url.format(port=server.port))
    await http.aclose()
    assert server.requests == []


async def test_octal_dotted_host_is_refused(server: LocalWebServer) -> None:
    http = GuardedHttp(verify=TLS, guard=NetGuard())
    with pytest.raises(FetchError, match=r"invalid URL '.*0177"):
        await http.request("GET", f"http://0177.0.0.1:{server.port}/page")
    await http.aclose()
    assert server.requests == []


async def test_a_name_resolving_to_loopback_never_reaches_the_server(
    server: LocalWebServer,
) -> None:
    http = GuardedHttp(
        verify=TLS, guard=NetGuard(resolver=FakeResolver({"sneaky.test": [["127.0.0.1"]]}))
    )
    with pytest.raises(BlockedAddressError, match=r"'sneaky\.test' resolves to 127\.0\.0\.1"):
        await http.request("GET", server.url("/page", host="sneaky.test"))
    await http.aclose()
    assert server.requests == []


async def test_a_redirect_to_a_private_address_is_refused(server: LocalWebServer) -> None:
    server.pages["/jump"] = Page(status=302, headers={"Location": "http://10.0.0.1/admin"})
    server.pages["/jump-local"] = Page(
        status=301, headers={"Location": f"http://127.0.0.1:{server.port}/page"}
    )
    http = GuardedHttp(verify=TLS, guard=NetGuard(allow_hosts=["localhost"]))
    with pytest.raises(BlockedAddressError, match=r"10\.0\.0\.1 is a private address"):
        await http.request("GET", server.url("/jump", host="localhost"))
    with pytest.raises(BlockedAddressError, match="loopback"):
        await http.request("GET", server.url("/jump-local", host="localhost"))
    await http.aclose()
    assert [r.path for r in server.requests] == ["/jump", "/jump-local"]


async def test_allow_listed_host_is_fetched(server: LocalWebServer) -> None:
    http = GuardedHttp(verify=TLS, guard=NetGuard(allow_hosts=["127.0.0.1"]))
    response = await http.request("GET", server.url("/page"))
    await http.aclose()
    assert (response.status_code, response.content, response.truncated) == (200, b"hello", False)
    assert response.media_type == "text/plain"


async def test_connection_goes_to_the_vetted_address_despite_rebinding(
    server: LocalWebServer,
) -> None:
    # The first answer passes (127.0.0.0/8 explicitly allowed here); any later lookup would
    # point elsewhere. The fetch must use the vetted address and look the name up once.
    resolver = FakeResolver({"rebind.test": [["127.0.0.1"], ["10.9.9.9"], ["10.9.9.9"]]})
    guard = NetGuard(resolver=resolver, allow_networks=["127.0.0.0/8"])
    http = GuardedHttp(verify=TLS, guard=guard)
    response = await http.request("GET", server.url("/page", host="rebind.test"))
    await http.aclose()
    assert response.content == b"hello"
    assert resolver.calls == ["rebind.test"]
    assert server.requests[0].headers["Host"] == f"rebind.test:{server.port}"
    assert response.url == server.url("/page", host="rebind.test")


async def test_every_redirect_hop_is_vetted_again(server: LocalWebServer) -> None:
    server.pages["/hop"] = Page(
        status=302, headers={"Location": server.url("/page", host="second.test")}
    )
    resolver = FakeResolver({"first.test": [["127.0.0.1"]], "second.test": [["127.0.0.2"]]})
    http = GuardedHttp(
        verify=TLS, guard=NetGuard(resolver=resolver, allow_networks=["127.0.0.1/32"])
    )
    with pytest.raises(BlockedAddressError, match=r"'second\.test' resolves to 127\.0\.0\.2"):
        await http.request("GET", server.url("/hop", host="first.test"))
    await http.aclose()
    assert resolver.calls == ["first.test", "second.test"]


async def test_redirect_loops_stop_after_the_limit(server: LocalWebServer) -> None:
    server.pages["/loop"] = Page(status=302, headers={"Location": "/loop"})
    http = GuardedHttp(verify=TLS, guard=NetGuard(allow_hosts=["127.0.0.1"]), max_redirects=5)
    with pytest.raises(FetchError, match=r"too many redirects \(more than 5\)"):
        await http.request("GET", server.url("/loop"))
    await http.aclose()
    assert len(server.requests) == 6


async def test_secret_headers_are_dropped_when_a_redirect_changes_origin(
    server: LocalWebServer,
) -> None:
    server.pages["/same"] = Page(status=307, headers={"Location": "/page"})
    server.pages["/away"] = Page(
        status=307, headers={"Location": server.url("/page", host="localhost")}
    )
    http = GuardedHttp(verify=TLS, guard=NetGuard(allow_hosts=["127.0.0.1", "localhost"]))
    headers = {"Authorization": "Bearer s3cret-token", "Accept": "text/plain"}
    await http.request("GET", server.url("/same"), headers=headers)
    await http.request("GET", server.url("/away"), headers=headers)
    await http.aclose()
    followed = [r.headers for r in server.requests if r.path == "/page"]
    assert followed[0]["Authorization"] == "Bearer s3cret-token"
    assert "Authorization" not in followed[1]
    assert followed[1]["Accept"] == "text/plain"


async def test_see_other_turns_a_post_into_a_get_without_body(server: LocalWebServer) -> None:
    server.pages["/form"] = Page(status=303, headers={"Location": "/page"})
    http = GuardedHttp(verify=TLS, guard=NetGuard(allow_hosts=["127.0.0.1"]))
    response = await http.request("POST", server.url("/form"), content=b"a=1")
    await http.aclose()
    assert [(r.method, r.path, r.body) for r in server.requests] == [
        ("POST", "/form", b"a=1"),
        ("GET", "/page", b""),
    ]
    assert response.redirects == (server.url("/form"),)


async def test_the_body_is_cut_at_the_size_cap(server: LocalWebServer) -> None:
    server.pages["/big"] = Page("0123456789", repeat=50_000)
    http = GuardedHttp(verify=TLS, guard=NetGuard(allow_hosts=["127.0.0.1"]))
    response = await http.request("GET", server.url("/big"), max_bytes=1000)
    await http.aclose()
    assert response.truncated
    assert response.content == b"0123456789" * 100


async def test_a_silent_server_times_out_with_a_clear_message() -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        port = listener.getsockname()[1]
        http = GuardedHttp(verify=TLS, guard=NetGuard(allow_hosts=["127.0.0.1"]))
        with pytest.raises(FetchError, match=r"did not answer within 0.3 s"):
            await http.request("GET", f"http://127.0.0.1:{port}/", seconds=0.3)
        await http.aclose()


def self_signed(directory: Path, name: str) -> tuple[Path, Path]:
    """Make a certificate for ``name`` with the openssl command; return (cert, key)."""
    cert, key = directory / f"{name}.crt", directory / f"{name}.key"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
         "-nodes", "-days", "1", "-subj", f"/CN={name}", "-addext", f"subjectAltName=DNS:{name}",
         "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    return cert, key


@pytest.fixture
def tls_server(tmp_path: Path) -> Iterator[tuple[LocalWebServer, ssl.SSLContext]]:
    """An HTTPS server for ``secure.test`` and a client context that trusts only its cert."""
    cert, key = self_signed(tmp_path, "secure.test")
    server_side = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_side.load_cert_chain(cert, key)
    with LocalWebServer({"/page": Page("over tls")}, tls=server_side) as running:
        yield running, ssl.create_default_context(cafile=str(cert))


async def test_pinned_https_keeps_the_server_name_and_checks_the_certificate(
    tls_server: tuple[LocalWebServer, ssl.SSLContext],
) -> None:
    server, trust = tls_server
    resolver = FakeResolver({"secure.test": [["127.0.0.1"]], "other.test": [["127.0.0.1"]]})
    guard = NetGuard(resolver=resolver, allow_networks=["127.0.0.0/8"])
    http = GuardedHttp(guard=guard, verify=trust)
    response = await http.request("GET", server.url("/page", host="secure.test", scheme="https"))
    assert response.content == b"over tls"
    assert server.requests[0].headers["Host"] == f"secure.test:{server.port}"
    # A name the certificate does not cover fails verification although the IP is the same.
    with pytest.raises(FetchError, match=r"CERTIFICATE_VERIFY_FAILED"):
        await http.request("GET", server.url("/page", host="other.test", scheme="https"))
    await http.aclose()
    assert server.server_names == ["secure.test", "other.test"]
    assert len(server.requests) == 1


async def test_failures_say_whether_the_request_may_have_arrived(
    server: LocalWebServer,
) -> None:
    http = GuardedHttp(verify=TLS, guard=NetGuard(allow_hosts=["127.0.0.1"]))
    with pytest.raises(BlockedAddressError) as blocked:
        await http.request("POST", "http://10.0.0.1/orders")
    with pytest.raises(FetchError) as refused:
        await http.request("POST", "http://127.0.0.1:9/orders")  # nothing listens there
    with socket.socket() as listener:  # accepts, reads, never answers
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        with pytest.raises(FetchError) as silent:
            await http.request(
                "POST", f"http://127.0.0.1:{listener.getsockname()[1]}/", seconds=0.3
            )
    await http.aclose()

    assert (blocked.value.may_have_arrived, blocked.value.permanent) == (False, True)
    assert (refused.value.may_have_arrived, refused.value.permanent) == (False, False)
    assert (silent.value.may_have_arrived, silent.value.permanent) == (True, False)


@pytest.mark.parametrize(
    "url",
    [
        "ftp://example.com/file",
        "file:///etc/passwd",
        "not a url",
        "http://",
        "http://xn--localhost/",
        "http://xn--/",
    ],
)
async def test_bad_urls_get_a_message_quoting_them(url: str) -> None:
    http = GuardedHttp(verify=TLS, guard=NetGuard())
    with pytest.raises(FetchError, match="invalid URL"):
        await http.request("GET", url)
    await http.aclose()


def test_redact_headers_hides_secret_looking_values() -> None:
    headers = {
        "Authorization": "Bearer abc",
        "Cookie": "sid=1",
        "X-Api-Key": "k1",
        "X-Auth-Token": "t1",
        "Client-Secret": "s1",
        "X-Password": "p1",
        "Accept": "application/json",
        "Content-Type": "text/plain",
    }
    redacted = redact_headers(headers)
    assert redacted == {
        "Authorization": "[redacted]",
        "Cookie": "[redacted]",
        "X-Api-Key": "[redacted]",
        "X-Auth-Token": "[redacted]",
        "Client-Secret": "[redacted]",
        "X-Password": "[redacted]",
        "Accept": "application/json",
        "Content-Type": "text/plain",
    }
    assert headers["Authorization"] == "Bearer abc"


def test_redact_url_hides_passwords_and_secret_query_values() -> None:
    url = "https://user:hunter22@api.test/v1?q=news&api_key=abc123&token=t0k"
    shown = redact_url(url)
    assert "hunter22" not in shown
    assert "abc123" not in shown
    assert "t0k" not in shown
    assert "q=news" in shown


def test_scrub_removes_secret_values_from_text() -> None:
    text = 'echo: {"Authorization": "Bearer abcdef"}'
    assert scrub(text, ["Bearer abcdef", "abc", ""]) == 'echo: {"Authorization": "[redacted]"}'

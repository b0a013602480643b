"""Tests for search_web, fetch_url and api_call against real HTTP servers on 127.0.0.1."""

from __future__ import annotations

import json
import logging
import ssl
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from assistant.builtin import (
    NOT_CONFIGURED,
    ApiResponse,
    WebSearchError,
    WebTools,
    html_to_text,
)
from tasks import SearchHit
from tests.assistant.builtin.serpapi_standin import (
    LocalWebServer,
    Page,
    serpapi_error,
    serpapi_page,
)
from tools import (
    ToolCall,
    ToolContext,
    ToolError,
    ToolExecutor,
    ToolRegistry,
    ToolResult,
    ToolStatus,
)

TLS = ssl.create_default_context()  # built once: a verifying context costs a fraction of a second
KEY = "sk-serp-very-secret-0123"
TOKEN = "Bearer tok-abcdef-987654"
ARTICLE = """<html><head><title>Kettles &amp; Tea</title><style>p{color:red}</style></head>
<body><nav><a href="/">Home</a> | <a href="/shop">Shop</a></nav>
<main><h1>How to brew tea</h1><p>Boil the water.<br>Wait two minutes.</p>
<ul><li>Green: 80 C</li><li>Black: 95 C</li></ul><script>track()</script></main>
<footer>Copyright</footer></body></html>"""


@pytest.fixture
def server() -> Iterator[LocalWebServer]:
    with LocalWebServer() as running:
        yield running


@pytest.fixture
async def web(server: LocalWebServer) -> AsyncIterator[WebTools]:
    async with WebTools(
        verify=TLS,
        serpapi_key=KEY,
        serpapi_base_url=server.url(""),
        allow_hosts=["127.0.0.1", "localhost"],
    ) as tools:
        yield tools


def context() -> ToolContext:
    return ToolContext(user_id="u1", chat_id="c1")


async def run(web: WebTools, name: str, **arguments: Any) -> ToolResult:
    executor = ToolExecutor(ToolRegistry([web]))
    return await executor.execute(ToolCall(name, arguments), context())


# -- search ------------------------------------------------------------------------------


async def test_search_returns_title_link_and_snippet(web: WebTools, server: LocalWebServer) -> None:
    server.pages["/search.json"] = serpapi_page(
        [
            ("US news today", "https://news.test/1", "Top story"),
            ("Markets", "https://news.test/2", "Stocks rise"),
            ("Weather", "https://news.test/3", ""),
        ]
    )
    hits = await web.search("top US news", limit=2)
    assert hits == [
        SearchHit("US news today", "https://news.test/1", "Top story"),
        SearchHit("Markets", "https://news.test/2", "Stocks rise"),
    ]
    query = server.requests[0].query
    assert query == {"engine": ["google"], "q": ["top US news"], "num": ["2"], "api_key": [KEY]}


async def test_search_web_tool_renders_a_numbered_list(
    web: WebTools, server: LocalWebServer
) -> None:
    server.pages["/search.json"] = serpapi_page([("Tea", "https://tea.test/", "All about tea")])
    result = await run(web, "search_web", query="tea", limit=3)
    assert result.status is ToolStatus.OK
    assert result.text == "1. Tea - https://tea.test/\n   All about tea"


async def test_search_without_a_key_says_it_is_not_configured() -> None:
    async with WebTools(verify=TLS) as web:
        result = await run(web, "search_web", query="tea")
        # A refusal, not an answer: the call did not search (assistant call exits 1).
        assert (result.status, result.text) == (ToolStatus.ERROR, NOT_CONFIGURED)
        with pytest.raises(WebSearchError, match="set SERPAPI_API_KEY"):
            await web.search("tea", limit=3)


@pytest.mark.parametrize(
    ("page", "words"),
    [
        (serpapi_error("Invalid API key.", status=401), r"refused the API key \(HTTP 401\)"),
        (serpapi_error("Your searches ran out.", status=429), r"no searches left \(HTTP 429\)"),
        (serpapi_error("Internal error.", status=503), r"server error \(HTTP 503\)"),
        (Page("<html>oops</html>", content_type="text/html"), "not a JSON object"),
        (serpapi_error(f"Bad key {KEY}", status=200), r"SerpApi: Bad key \[redacted\]"),
    ],
)
async def test_search_failures_are_clear_and_never_show_the_key(
    web: WebTools,
    server: LocalWebServer,
    caplog: pytest.LogCaptureFixture,
    page: Page,
    words: str,
) -> None:
    server.pages["/search.json"] = page
    caplog.set_level(logging.DEBUG)
    with pytest.raises(WebSearchError, match=words) as caught:
        await web.search("tea", limit=3)
    assert KEY not in str(caught.value)
    result = await run(web, "search_web", query="tea")
    assert result.status is ToolStatus.ERROR
    assert KEY not in result.text
    assert KEY not in caplog.text


async def test_a_search_without_results_is_an_empty_list(
    web: WebTools, server: LocalWebServer
) -> None:
    server.pages["/search.json"] = serpapi_error(
        "Google hasn't returned any results for this query.", status=200
    )
    assert await web.search("zxqv", limit=3) == []
    assert (await run(web, "search_web", query="zxqv")).text == "no results"


async def test_search_limit_out_of_range_is_refused(web: WebTools) -> None:
    with pytest.raises(WebSearchError, match=r"limit 50 is out of range; use a value from 1"):
        await web.search("tea", limit=50)


# -- fetch -------------------------------------------------------------------------------


def test_html_becomes_readable_text() -> None:
    title, text = html_to_text(ARTICLE)
    assert title == "Kettles & Tea"
    assert text == (
        "How to brew tea\nBoil the water.\nWait two minutes.\n- Green: 80 C\n- Black: 95 C"
    )


async def test_fetch_url_reads_html_as_text(web: WebTools, server: LocalWebServer) -> None:
    server.pages["/tea"] = Page(ARTICLE, content_type="text/html; charset=utf-8")
    result = await run(web, "fetch_url", url=server.url("/tea"))
    assert result.status is ToolStatus.OK
    assert result.text.startswith(f"Kettles & Tea\n{server.url('/tea')}\n\nHow to brew tea")
    assert "track()" not in result.text
    assert "Shop" not in result.text


async def test_fetch_url_cuts_text_at_max_chars(web: WebTools, server: LocalWebServer) -> None:
    server.pages["/long"] = Page("abcdefghij", repeat=1000)
    page = await web.fetch_url(server.url("/long"), max_chars=150)
    assert page.text == "abcdefghij" * 15
    assert page.truncated


@pytest.mark.parametrize(
    ("content_type", "body"),
    [("application/json", '{"a": 1}'), ("text/csv", "a,b\n1,2"), ("", "plain words")],
)
async def test_fetch_url_passes_text_types_through(
    web: WebTools, server: LocalWebServer, content_type: str, body: str
) -> None:
    server.pages["/data"] = Page(body, content_type=content_type)
    page = await web.fetch_url(server.url("/data"))
    assert page.text == body


async def test_fetch_url_refuses_binary_types(web: WebTools, server: LocalWebServer) -> None:
    server.pages["/cat.png"] = Page(b"\x89PNG\r\n\x1a\n\0\0", content_type="image/png")
    result = await run(web, "fetch_url", url=server.url("/cat.png"))
    assert result.status is ToolStatus.ERROR
    assert "is image/png, not a web page or text" in result.text


async def test_fetch_url_reports_http_errors(web: WebTools, server: LocalWebServer) -> None:
    result = await run(web, "fetch_url", url=server.url("/missing"))
    assert result.status is ToolStatus.ERROR
    assert "answered HTTP 404 Not Found" in result.text


@pytest.mark.parametrize(
    "url", ["http://10.0.0.1/", "http://169.254.169.254/latest/meta-data/", "http://[::1]/"]
)
async def test_fetch_url_refuses_private_addresses(web: WebTools, url: str) -> None:
    result = await run(web, "fetch_url", url=url)
    assert result.status is ToolStatus.ERROR
    assert "refusing to connect" in result.text


# -- api calls ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "host", "pending"),
    [
        ("GET", "127.0.0.1", False),
        ("HEAD", "localhost", False),
        ("POST", "127.0.0.1", True),
        ("DELETE", "localhost", True),
        ("GET", "api.example.com", True),
    ],
)
async def test_api_call_approval_rules(
    web: WebTools, server: LocalWebServer, method: str, host: str, pending: bool
) -> None:
    server.pages["/lights"] = Page('{"on": false}', content_type="application/json")
    result = await run(web, "api_call", url=server.url("/lights", host=host), method=method)
    expected = ToolStatus.PENDING_APPROVAL if pending else ToolStatus.OK
    assert result.status is expected
    assert web.needs_approval(server.url("/lights", host=host), method) is pending


async def test_the_registered_instance_applies_its_own_allow_list(web: WebTools) -> None:
    executor = ToolExecutor(ToolRegistry([web]))
    outside = ToolCall("api_call", {"url": "http://example.invalid/", "method": "GET"})
    change = ToolCall("api_call", {"url": "http://localhost/", "method": "POST"})
    assert (await executor.execute(outside, context())).status is ToolStatus.PENDING_APPROVAL
    assert (await executor.execute(change, context())).status is ToolStatus.PENDING_APPROVAL


async def test_a_lan_host_on_the_allow_list_is_reached(
    web: WebTools, server: LocalWebServer
) -> None:
    # "localhost" stands for a LAN name such as home.lan: allow-listed, it bypasses the guard.
    server.pages["/lights/off"] = Page('{"ok": true}', content_type="application/json")
    reply = await web.api_call(server.url("/lights/off", host="localhost"), "PUT", body="{}")
    assert (reply.status_code, reply.body) == (200, '{"ok": true}')
    assert server.requests[0].method == "PUT"


async def test_a_body_given_as_data_is_sent_as_json(web: WebTools, server: LocalWebServer) -> None:
    server.pages["/lights/off"] = Page('{"ok": true}', content_type="application/json")
    url = server.url("/lights/off", host="localhost")
    reply = await web.api_call(url, "POST", body={"state": "off", "rooms": ["hall"]})
    assert reply.status_code == 200
    sent = server.requests[0]
    assert json.loads(sent.body or b"null") == {"state": "off", "rooms": ["hall"]}
    assert sent.headers["Content-Type"] == "application/json"


async def test_api_call_never_shows_or_logs_secret_headers(
    web: WebTools, server: LocalWebServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    server.pages["/echo"] = Page(
        echo=True, content_type="application/json", headers={"Set-Cookie": "sid=cookie-123456"}
    )
    headers = {"Authorization": TOKEN, "X-Api-Key": "key-5555-6666", "Accept": "*/*"}
    result = await run(web, "api_call", url=server.url("/echo"), headers=headers)
    assert result.status is ToolStatus.OK
    assert json.loads(server.requests[0].body or b"null") is None
    assert server.requests[0].headers["Authorization"] == TOKEN
    reply = result.output
    assert isinstance(reply, ApiResponse)
    shown = " ".join([result.text, result.display, json.dumps(reply.headers), reply.body])
    for secret in (TOKEN, "tok-abcdef-987654", "key-5555-6666", "cookie-123456"):
        assert secret not in shown
        assert secret not in caplog.text
    assert json.loads(reply.body)["Authorization"] == "[redacted]"
    assert reply.headers["set-cookie"] == "[redacted]"


async def test_api_call_refuses_unknown_methods(web: WebTools, server: LocalWebServer) -> None:
    with pytest.raises(ToolError, match=r"method 'BREW' is not supported"):
        await web.api_call(server.url("/x"), "BREW")


async def test_api_call_is_guarded_for_hosts_off_the_list(web: WebTools) -> None:
    with pytest.raises(ToolError, match="refusing to connect"):
        await web.api_call("http://192.168.1.20/lights", "GET")

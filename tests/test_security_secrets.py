"""Security checks on secrets: credentials never reach logs, tool results or approval texts.

``api_call`` takes secret request headers (Authorization, X-Api-Key, tokens, cookies) and
``search_web`` holds the SerpApi key. With every logger captured at DEBUG for the whole run,
no secret may appear in a log record, in the text the model or the person reads, or in the
text that asks the user to approve a call. Real HTTP servers on 127.0.0.1 answer.
"""

from __future__ import annotations

import logging
import ssl
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from assistant.builtin import WebSearchError, WebTools
from interfaces import approval_card, format_arguments, request_line
from tests.tools.serpapi_standin import LocalWebServer, Page, serpapi_error
from tools import ToolCall, ToolContext, ToolExecutor, ToolRegistry, ToolResult, ToolStatus

TLS = ssl.create_default_context()
SECRET = "s3cr3t-0123456789-abcdef"
CTX = ToolContext(user_id="alice", chat_id="chat-alice", now=datetime(2026, 3, 1, tzinfo=UTC))
SECRET_HEADERS = [
    {"Authorization": f"Bearer {SECRET}"},
    {"authorization": f"Basic {SECRET}"},
    {"Proxy-Authorization": f"Bearer {SECRET}"},
    {"X-Api-Key": SECRET},
    {"X-Auth-Token": SECRET},
    {"Private-Token": SECRET},
    {"Cookie": f"session={SECRET}"},
    {"X-Client-Secret": SECRET},
]


@pytest.fixture
def server() -> Iterator[LocalWebServer]:
    with LocalWebServer() as running:
        running.pages["/echo"] = Page(echo=True, content_type="application/json")
        yield running


@pytest.fixture
async def web(server: LocalWebServer) -> AsyncIterator[WebTools]:
    async with WebTools(verify=TLS, allow_hosts=["127.0.0.1"]) as tools:
        yield tools


@pytest.fixture
def logs(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    """Every record of every logger, from DEBUG up, for the whole test."""
    caplog.set_level(logging.DEBUG)
    return caplog


def seen(result: ToolResult) -> str:
    """Everything of a result that a model or a person reads."""
    return "\n".join(part or "" for part in (result.text, result.display, result.error))


def assert_hidden(secret: str, *texts: str) -> None:
    for text in texts:
        assert secret not in text, f"the secret {secret!r} shows in: {text[:300]!r}"


# -- api_call headers ----------------------------------------------------------------------


@pytest.mark.parametrize("headers", SECRET_HEADERS, ids=lambda h: next(iter(h)))
async def test_secret_headers_of_a_call_that_runs_are_never_shown_or_logged(
    web: WebTools, server: LocalWebServer, logs: pytest.LogCaptureFixture, headers: dict[str, str]
) -> None:
    executor = ToolExecutor(ToolRegistry([web]))
    call = ToolCall("api_call", {"url": server.url("/echo"), "headers": headers})

    result = await executor.execute(call, CTX)

    assert result.status is ToolStatus.OK, result.text
    received = {name.lower(): value for name, value in server.requests[0].headers.items()}
    [(name, value)] = headers.items()
    assert received[name.lower()] == value
    assert_hidden(SECRET, seen(result), logs.text)


@pytest.mark.parametrize("headers", SECRET_HEADERS[:4], ids=lambda h: next(iter(h)))
async def test_a_call_that_fails_never_shows_or_logs_its_secret_headers(
    web: WebTools, logs: pytest.LogCaptureFixture, headers: dict[str, str]
) -> None:
    executor = ToolExecutor(ToolRegistry([web]))
    closed_port = "http://127.0.0.1:9/lights"  # the discard port: nothing listens there

    result = await executor.execute(
        ToolCall("api_call", {"url": closed_port, "headers": headers}), CTX
    )

    assert result.status is ToolStatus.ERROR
    assert_hidden(SECRET, seen(result), logs.text)


async def test_a_call_run_after_approval_never_shows_or_logs_its_secret_headers(
    web: WebTools, server: LocalWebServer, logs: pytest.LogCaptureFixture
) -> None:
    executor = ToolExecutor(ToolRegistry([web]))
    headers = {"Authorization": f"Bearer {SECRET}", "X-Api-Key": SECRET}
    call = ToolCall("api_call", {"url": server.url("/echo"), "method": "POST", "headers": headers})

    pending = await executor.execute(call, CTX)
    assert pending.status is ToolStatus.PENDING_APPROVAL
    assert pending.approval is not None
    done = await executor.approve(pending.approval.id, "alice")

    assert done.status is ToolStatus.OK, done.text
    assert server.requests[0].headers["Authorization"] == f"Bearer {SECRET}"
    assert_hidden(SECRET, seen(pending), seen(done), logs.text)


def test_the_telegram_approval_card_never_shows_secrets() -> None:
    shown = format_arguments(
        {
            "url": f"https://api.example.org/x?api_key={SECRET}&q=1",
            "headers": {"Authorization": f"Bearer {SECRET}", "Accept": "text/plain"},
            "execution_data": {"headers": {"X-Api-Key": SECRET}},
        }
    )
    assert SECRET not in shown
    assert "text/plain" in shown
    assert "q=1" in shown


async def test_the_approval_text_never_shows_secret_headers(
    web: WebTools, server: LocalWebServer
) -> None:
    executor = ToolExecutor(ToolRegistry([web]))
    headers = {"Authorization": f"Bearer {SECRET}", "X-Api-Key": SECRET}
    call = ToolCall("api_call", {"url": server.url("/echo"), "method": "POST", "headers": headers})

    pending = await executor.execute(call, CTX)

    assert pending.approval is not None
    zone = ZoneInfo("Europe/Berlin")
    assert_hidden(
        SECRET,
        request_line(pending.approval, zone),
        approval_card(pending.approval, zone).text,
    )


@pytest.mark.parametrize(
    "value",
    [f"Bearer {SECRET}\n", f"Bearer {SECRET}\r\n", f"Bearer {SECRET}\x00", f" Bearer {SECRET}"],
    ids=["trailing newline", "trailing CRLF", "NUL", "leading space"],
)
async def test_an_illegal_secret_header_value_is_never_shown_or_logged(
    web: WebTools, server: LocalWebServer, logs: pytest.LogCaptureFixture, value: str
) -> None:
    executor = ToolExecutor(ToolRegistry([web]))
    call = ToolCall("api_call", {"url": server.url("/echo"), "headers": {"Authorization": value}})

    result = await executor.execute(call, CTX)

    # Surrounding whitespace is trimmed (the call goes through); a control character inside
    # the value is refused without quoting it.
    expected = ToolStatus.ERROR if "\x00" in value else ToolStatus.OK
    assert result.status is expected
    assert_hidden(SECRET, seen(result), logs.text)


# -- the SerpApi key -----------------------------------------------------------------------


SERPAPI_KEYS = [SECRET, "sk+serp/very secret=01&x", "ключ-секрет-0123"]


@pytest.mark.parametrize("key", SERPAPI_KEYS, ids=["plain", "url-special", "non-ascii"])
@pytest.mark.parametrize(
    "page",
    [
        serpapi_error("Invalid API key. Your API key should be here: {key}", status=401),
        serpapi_error("Internal error while serving api_key={key}", status=500),
        Page("<html><body>502 for key {key}</body></html>", status=502, content_type="text/html"),
    ],
    ids=["401", "500", "502 html"],
)
async def test_the_serpapi_key_never_shows_in_errors_or_logs(
    server: LocalWebServer, logs: pytest.LogCaptureFixture, key: str, page: Page
) -> None:
    body = page.body if isinstance(page.body, str) else page.body.decode()
    server.pages["/search.json"] = Page(
        body.replace("{key}", key), status=page.status, content_type=page.content_type
    )
    async with WebTools(verify=TLS, serpapi_key=key, serpapi_base_url=server.url("")) as web:
        with pytest.raises(WebSearchError) as refused:
            await web.search("tea", limit=3)
        result = await ToolExecutor(ToolRegistry([web])).execute(
            ToolCall("search_web", {"query": "tea"}), CTX
        )

    assert server.requests[0].query["api_key"] == [key]
    assert result.status is ToolStatus.ERROR
    assert_hidden(key, str(refused.value), seen(result), logs.text)


async def test_an_unreachable_serpapi_never_shows_the_key(logs: pytest.LogCaptureFixture) -> None:
    async with WebTools(
        verify=TLS, serpapi_key=SECRET, serpapi_base_url="http://127.0.0.1:9"
    ) as web:
        result = await ToolExecutor(ToolRegistry([web])).execute(
            ToolCall("search_web", {"query": "tea"}), CTX
        )

    assert result.status is ToolStatus.ERROR
    assert "SerpApi" in result.text
    assert_hidden(SECRET, seen(result), logs.text)

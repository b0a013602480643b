"""Security checks on secrets: credentials never reach logs, tool results or approval texts.

``api_call`` takes secret request headers (Authorization, X-Api-Key, tokens, cookies) and
``search_web`` holds the SerpApi key. With every logger captured at DEBUG for the whole run,
no secret may appear in a log record, in the text the model or the person reads, or in the
text that asks the user to approve a call. Real HTTP servers on 127.0.0.1 answer.
"""

from __future__ import annotations

import asyncio
import logging
import ssl
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from assistant.app import LOCAL_CHAT, LOCAL_USER, open_app
from assistant.builtin import WebSearchError, WebTools
from assistant.config import load_settings
from common import ManualClock
from interfaces import approval_card, format_arguments, request_line
from tasks import Delivery, DeliveryStatus, RunStatus, TaskRun, parse_schedule
from tests.assistant.builtin.serpapi_standin import LocalWebServer, Page, serpapi_error
from tests.tasks.http_standin import ScriptedServer
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


def test_the_approval_card_shows_what_leaves_and_names_stored_secrets() -> None:
    """A value the model chose is what will be sent: the person approving sees it (issue 24:
    a hidden header was the user's password leaving). A secret the user stored stays a
    ``${NAME}`` reference, named as theirs."""
    shown = format_arguments(
        {
            "url": f"https://api.example.org/x?api_key={SECRET}&q=1",
            "headers": {"Authorization": f"Bearer {SECRET}", "Accept": "text/plain"},
            "execution_data": {"headers": {"X-Api-Key": "${HOME_API_KEY}"}},
        }
    )
    assert f"api_key={SECRET}&q=1" in shown
    assert f"Authorization Bearer {SECRET}" in shown
    assert "${HOME_API_KEY}" in shown and "your stored secret" in shown


async def test_the_approval_text_shows_the_headers_the_call_will_send(
    web: WebTools, server: LocalWebServer, logs: pytest.LogCaptureFixture
) -> None:
    executor = ToolExecutor(ToolRegistry([web]))
    headers = {"Authorization": f"Bearer {SECRET}", "X-Api-Key": SECRET}
    call = ToolCall("api_call", {"url": server.url("/echo"), "method": "POST", "headers": headers})

    pending = await executor.execute(call, CTX)

    assert pending.approval is not None
    zone = ZoneInfo("Europe/Berlin")
    for text in (request_line(pending.approval, zone), approval_card(pending.approval, zone).text):
        assert f"X-Api-Key {SECRET}" in text
    assert SECRET not in logs.text


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


# -- scheduled api_calls take the tool's path --------------------------------------------------


class Recorder:
    """Delivers nothing anywhere, records what the scheduler delivered."""

    def __init__(self) -> None:
        self.deliveries: list[Delivery] = []

    async def deliver(self, delivery: Delivery) -> DeliveryStatus:
        self.deliveries.append(delivery)
        return DeliveryStatus.DELIVERED


SCHEDULED_SECRETS = {"X-Api-Key": SECRET, "X-Auth-Token": SECRET, "X-Password": SECRET}


async def scheduled_call(tmp_path: Path, url: str, recorder: Recorder) -> TaskRun:
    """Schedule a GET of ``url`` with secret headers through the app, and run it now."""
    clock = ManualClock(datetime(2026, 3, 10, 13, 30, tzinfo=UTC))
    settings = load_settings(
        data_dir=tmp_path / "data", timezone="Europe/Berlin",
        http_allow_hosts="127.0.0.1,localhost",
    )  # fmt: skip
    async with open_app(settings, notifier=recorder, clock=clock) as app:
        task = await app.tasks.add_task(
            owner_id=LOCAL_USER,
            chat_id=LOCAL_CHAT,
            task_type="api_call",
            schedule=parse_schedule("every day at 8am", now=clock.now(), tz=app.settings.zone),
            execution_data={"url": url, "headers": {**SCHEDULED_SECRETS, "Accept": "text/plain"}},
        )
        return await app.tasks.run_now(task.id, LOCAL_USER)


async def test_a_scheduled_call_never_carries_secret_headers_to_another_origin(
    tmp_path: Path, server: LocalWebServer, logs: pytest.LogCaptureFixture
) -> None:
    server.pages["/away"] = Page(
        status=307, headers={"Location": server.url("/page", host="localhost")}
    )
    server.pages["/page"] = Page("lights off")
    recorder = Recorder()

    run = await scheduled_call(tmp_path, server.url("/away"), recorder)

    assert run.status is RunStatus.SUCCEEDED, run.error
    first, followed = server.requests
    for name in SCHEDULED_SECRETS:
        assert first.headers[name] == SECRET  # to the origin the owner approved
        assert name not in followed.headers  # never to the one it redirected to
    assert followed.headers["Accept"] == "text/plain"
    assert_hidden(SECRET, logs.text, *(d.text for d in recorder.deliveries))


async def test_a_scheduled_call_redirected_to_a_private_address_is_refused(
    tmp_path: Path, server: LocalWebServer
) -> None:
    server.pages["/jump"] = Page(status=302, headers={"Location": "http://10.0.0.1/admin"})

    run = await scheduled_call(tmp_path, server.url("/jump"), Recorder())

    assert run.status is RunStatus.FAILED
    assert "10.0.0.1 is a private address" in (run.error or "")
    assert [r.path for r in server.requests] == ["/jump"]


# -- query-string secrets, end to end ------------------------------------------------------


QUERY_SECRET = "q-s3cret/0123+456"  # decoded: a server may echo it either way
ENCODED_SECRET = "q-s3cret%2F0123%2B456"


@pytest.mark.parametrize("status", [200, 500])
async def test_a_query_secret_a_server_echoes_never_reaches_the_ledger_the_chat_or_the_log(
    tmp_path: Path, logs: pytest.LogCaptureFixture, status: int
) -> None:
    scripted = ScriptedServer(echo_target=True, replies=[(status, "done")] * 3)
    listener = await asyncio.start_server(scripted.handle, "127.0.0.1", 0)
    scripted.port = listener.sockets[0].getsockname()[1]
    recorder = Recorder()
    url = f"{scripted.url}/lights?room=1&api_key={ENCODED_SECRET}"
    async with listener:
        clock = ManualClock(datetime(2026, 3, 10, 13, 30, tzinfo=UTC))
        settings = load_settings(
            data_dir=tmp_path / "data", timezone="Europe/Berlin", http_allow_hosts="127.0.0.1"
        )
        async with open_app(settings, notifier=recorder, clock=clock) as app:
            task = await app.tasks.add_task(
                owner_id=LOCAL_USER, chat_id=LOCAL_CHAT, task_type="api_call",
                schedule=parse_schedule("every day at 8am", now=clock.now(), tz=app.settings.zone),
                execution_data={"url": url},
            )  # fmt: skip
            run = await app.tasks.run_now(task.id, LOCAL_USER)
            ledger = await app.tasks.history(task.id, LOCAL_USER)
            tool = await ToolExecutor(ToolRegistry([app.web])).execute(
                ToolCall("api_call", {"url": url}), CTX
            )

    assert QUERY_SECRET in scripted.received[0].path.replace(ENCODED_SECRET, QUERY_SECRET)
    assert run.status is (RunStatus.SUCCEEDED if status == 200 else RunStatus.FAILED)
    delivered = [d.text for d in recorder.deliveries]
    assert delivered and "you asked for GET /lights?room=1&api_key=" in delivered[0]
    stored = [part or "" for row in ledger for part in (row.result, row.error)]
    for secret in (QUERY_SECRET, ENCODED_SECRET):
        assert_hidden(secret, *delivered, *stored, seen(tool), logs.text)


# -- secrets at rest: ${NAME} references ----------------------------------------------------


async def test_a_referenced_secret_is_sent_but_never_stored_shown_or_logged(
    tmp_path: Path,
    server: LocalWebServer,
    logs: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HOME_API_TOKEN", SECRET)
    server.pages["/lights"] = Page(echo=True, content_type="application/json")
    recorder = Recorder()
    clock = ManualClock(datetime(2026, 3, 10, 13, 30, tzinfo=UTC))
    settings = load_settings(
        data_dir=tmp_path / "data", timezone="Europe/Berlin", http_allow_hosts="127.0.0.1"
    )
    request = {
        "method": "POST",
        "url": server.url("/lights") + "?token=${HOME_API_TOKEN}",
        "headers": {"Authorization": "Bearer ${HOME_API_TOKEN}"},
    }
    async with open_app(settings, notifier=recorder, clock=clock) as app:
        task = await app.tasks.add_task(
            owner_id=LOCAL_USER, chat_id=LOCAL_CHAT, task_type="api_call",
            schedule=parse_schedule("every day at 1am", now=clock.now(), tz=app.settings.zone),
            execution_data=request,
        )  # fmt: skip
        run = await app.tasks.run_now(task.id, LOCAL_USER)
        ledger = await app.tasks.history(task.id, LOCAL_USER)
        listed = await app.tasks.list_tasks(LOCAL_USER)
    card = format_arguments({"task_type": "api_call", "execution_data": request})

    assert run.status is RunStatus.SUCCEEDED, run.error
    (sent,) = server.requests
    assert sent.headers["Authorization"] == f"Bearer {SECRET}" and sent.query["token"] == [SECRET]
    assert "Bearer ${HOME_API_TOKEN}" in card and "token=${HOME_API_TOKEN}" in card
    stored = b"".join(p.read_bytes() for p in (tmp_path / "data").glob("assistant.db*"))
    assert SECRET.encode() not in stored and b"${HOME_API_TOKEN}" in stored
    texts = [d.text for d in recorder.deliveries] + [str(t) for t in listed]
    texts += [part or "" for row in ledger for part in (row.result, row.error)]
    assert_hidden(SECRET, card, logs.text, *texts)

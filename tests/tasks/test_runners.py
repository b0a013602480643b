"""Runners per task type, driven directly; api_call against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import timedelta
from http import HTTPStatus

import httpx
import pytest

from common import ManualClock
from tasks import (
    DEFAULT_MISFIRE_RULES,
    AgentTaskData,
    ApiCallData,
    DeliveryKind,
    DeliveryStatus,
    ExecutionData,
    MisfireAction,
    ReminderData,
    RunStatus,
    SearchHit,
    Task,
    TaskRun,
    TaskStatus,
    TaskType,
    WebSearchData,
)
from tasks.runners import (
    AgentTaskRunner,
    ApiCallRunner,
    Deliverer,
    ReminderRunner,
    WebSearchRunner,
    format_hits,
)
from tests.tasks.conftest import (
    T0,
    FakeSearcher,
    RecordingNotifier,
    ScriptedAgent,
    once_at,
)

HITS = [
    SearchHit("Markets rally", "https://news.example/1", "Stocks rose."),
    SearchHit("Storm warning", "https://news.example/2"),
    SearchHit("Election update", "https://news.example/3", "Counting continues."),
]


def make_task(task_type: TaskType, data: ExecutionData, description: str = "job") -> Task:
    return Task(
        id="k3m9xa",
        owner_id="alice",
        chat_id="chat-alice",
        task_type=task_type,
        description=description,
        schedule=once_at(T0),
        execution=data,
        misfire=DEFAULT_MISFIRE_RULES[task_type],
        status=TaskStatus.RUNNING,
        created_at=T0,
        next_run=None,
    )


def make_run(late_by: timedelta | None = None, missed: int = 0) -> TaskRun:
    action = MisfireAction.COALESCED if missed else MisfireAction.ON_TIME
    return TaskRun(
        id=7,
        task_id="k3m9xa",
        scheduled_for=T0,
        claimed_at=T0,
        status=RunStatus.CLAIMED,
        misfire=action,
        missed=missed,
        late_by=late_by,
    )


@pytest.fixture
def notifier() -> RecordingNotifier:
    return RecordingNotifier()


@pytest.fixture
def deliverer(notifier: RecordingNotifier, clock: ManualClock) -> Deliverer:
    return Deliverer(notifier, sleep=clock.sleep)


async def test_reminder_text_says_how_late_it_is(
    deliverer: Deliverer, notifier: RecordingNotifier
) -> None:
    task = make_task(TaskType.REMINDER, ReminderData(message="call mom"))

    report = await ReminderRunner(deliverer).run(task, make_run(timedelta(hours=2, minutes=5)))

    assert report.status is RunStatus.SUCCEEDED
    (delivery,) = notifier.deliveries
    assert delivery.kind is DeliveryKind.REMINDER and delivery.run_id == 7
    assert delivery.text == (
        "call mom\n(late by 2 h 5 min: it was due at 2026-03-02 09:00 (Europe/Berlin))"
    )
    assert delivery.late_by == timedelta(hours=2, minutes=5)


async def test_coalesced_run_says_how_many_runs_it_stands_for(
    deliverer: Deliverer, notifier: RecordingNotifier
) -> None:
    task = make_task(TaskType.REMINDER, ReminderData(message="stretch"))

    await ReminderRunner(deliverer).run(task, make_run(timedelta(minutes=3), missed=4))

    assert notifier.texts()[0].endswith("; 4 earlier missed runs combined)")


async def test_agent_task_runs_the_prompt_for_the_owner(
    deliverer: Deliverer, notifier: RecordingNotifier
) -> None:
    agent = ScriptedAgent(lambda prompt: "  three headlines  ")
    task = make_task(TaskType.AGENT_TASK, AgentTaskData(prompt="news?"), "morning news")

    report = await AgentTaskRunner(deliverer, agent).run(task, make_run())

    assert agent.prompts == [("news?", "alice", "chat-alice")]
    assert report.status is RunStatus.SUCCEEDED and report.result == "three headlines"
    assert notifier.deliveries[0].kind is DeliveryKind.RESULT
    assert notifier.texts() == ["morning news\n\nthree headlines"]


async def test_agent_task_without_agent_or_answer_fails_clearly(deliverer: Deliverer) -> None:
    task = make_task(TaskType.AGENT_TASK, AgentTaskData(prompt="news?"))

    missing = await AgentTaskRunner(deliverer, None).run(task, make_run())
    empty = await AgentTaskRunner(deliverer, ScriptedAgent(lambda p: " ")).run(task, make_run())

    assert missing.status is RunStatus.FAILED and "none is configured" in (missing.error or "")
    assert empty.status is RunStatus.FAILED and empty.error == "the agent returned an empty answer"


async def test_web_search_delivers_a_plain_list_of_top_hits(
    deliverer: Deliverer, notifier: RecordingNotifier
) -> None:
    searcher = FakeSearcher(HITS)
    task = make_task(TaskType.WEB_SEARCH, WebSearchData(query="top US news", limit=2))

    report = await WebSearchRunner(deliverer, searcher).run(task, make_run())

    assert searcher.queries == [("top US news", 2)]
    assert report.status is RunStatus.SUCCEEDED
    assert notifier.texts() == [
        "Top results for 'top US news':\n"
        "1. Markets rally - https://news.example/1\n   Stocks rose.\n"
        "2. Storm warning - https://news.example/2"
    ]


async def test_web_search_asks_the_summarizer_when_configured(
    deliverer: Deliverer, notifier: RecordingNotifier
) -> None:
    summarizer = ScriptedAgent(lambda prompt: "Markets up, storm coming.")
    task = make_task(TaskType.WEB_SEARCH, WebSearchData(query="news", limit=3))

    await WebSearchRunner(deliverer, FakeSearcher(HITS), summarizer=summarizer).run(
        task, make_run()
    )

    (prompt, owner, _) = summarizer.prompts[0]
    assert owner == "alice" and "https://news.example/3" in prompt
    assert notifier.texts() == ["Markets up, storm coming."]


async def test_web_search_without_hits_or_backend(
    deliverer: Deliverer, notifier: RecordingNotifier
) -> None:
    task = make_task(TaskType.WEB_SEARCH, WebSearchData(query="zxqv"))

    empty = await WebSearchRunner(deliverer, FakeSearcher([])).run(task, make_run())
    missing = await WebSearchRunner(deliverer, None).run(task, make_run())

    assert empty.status is RunStatus.SUCCEEDED and notifier.texts() == ["No results for 'zxqv'."]
    assert missing.status is RunStatus.FAILED and "search backend" in (missing.error or "")
    assert format_hits("q", []) == "No results for 'q'."


async def test_deliverer_retries_failed_but_not_blocked(clock: ManualClock) -> None:
    notifier = RecordingNotifier()
    notifier.statuses = [DeliveryStatus.FAILED, DeliveryStatus.DELIVERED]
    task = make_task(TaskType.REMINDER, ReminderData(message="hi"))
    deliverer = Deliverer(notifier, sleep=clock.sleep, backoff=0.5)

    ok = await ReminderRunner(deliverer).run(task, make_run())
    notifier.status = DeliveryStatus.BLOCKED
    blocked = await ReminderRunner(deliverer).run(task, make_run())

    assert ok.status is RunStatus.SUCCEEDED and clock.slept == [0.5]
    assert blocked.status is RunStatus.UNDELIVERED and len(notifier.deliveries) == 3


# -- api_call against a real server ------------------------------------------------------------


HANG_UP = 0
"""A scripted status: close the connection without answering."""


@dataclass
class Received:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class ScriptedServer:
    """An HTTP/1.1 server on 127.0.0.1 answering with scripted (status, body) pairs."""

    replies: list[tuple[int, str]] = field(default_factory=list)
    received: list[Received] = field(default_factory=list)
    echo_headers: bool = False
    port: int = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
        method, path, _ = head[0].split(" ", 2)
        headers = {
            k.strip().lower(): v.strip()
            for k, v in (line.split(":", 1) for line in head[1:] if line)
        }
        body = await reader.readexactly(int(headers.get("content-length", "0")))
        self.received.append(Received(method, path, headers, body))
        status, text = self.replies.pop(0) if self.replies else (200, "ok")
        if status == HANG_UP:
            writer.close()  # the request arrived; the connection drops before any answer
            return
        if self.echo_headers:
            text = json.dumps(headers)
        payload = text.encode()
        writer.write(
            f"HTTP/1.1 {status} {HTTPStatus(status).phrase}\r\nContent-Length: {len(payload)}\r\n"
            "Connection: close\r\n\r\n".encode()
            + payload
        )
        await writer.drain()
        writer.close()


@pytest.fixture
async def server() -> AsyncIterator[ScriptedServer]:
    scripted = ScriptedServer()
    listener = await asyncio.start_server(scripted.handle, "127.0.0.1", 0)
    scripted.port = listener.sockets[0].getsockname()[1]
    async with listener:
        yield scripted


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient() as http:
        yield http


def api_task(url: str, **fields: object) -> Task:
    return make_task(TaskType.API_CALL, ApiCallData.model_validate({"url": url, **fields}))


async def test_api_call_retries_5xx_with_backoff_then_delivers(
    server: ScriptedServer,
    client: httpx.AsyncClient,
    deliverer: Deliverer,
    notifier: RecordingNotifier,
    clock: ManualClock,
) -> None:
    server.replies = [(503, "busy"), (502, "bad gateway"), (200, '{"lights": "off"}')]
    task = api_task(f"{server.url}/lights/off?key=abc", method="PUT", body={"state": "off"})

    report = await ApiCallRunner(deliverer, client, sleep=clock.sleep).run(task, make_run())

    assert report.status is RunStatus.SUCCEEDED
    assert [r.method for r in server.received] == ["PUT"] * 3
    assert json.loads(server.received[0].body) == {"state": "off"}
    assert clock.slept == [1.0, 2.0]
    assert notifier.texts() == [
        f'PUT http://127.0.0.1:{server.port}/lights/off?key=[redacted] -> 200 OK\n{{"lights": "off"}}'
    ]


@pytest.mark.parametrize("method", ["POST", "PATCH"])
async def test_api_call_never_repeats_a_post_the_server_may_have_acted_on(
    method: str,
    server: ScriptedServer,
    client: httpx.AsyncClient,
    deliverer: Deliverer,
    notifier: RecordingNotifier,
    clock: ManualClock,
) -> None:
    server.replies = [(503, "busy"), (HANG_UP, "")]
    runner = ApiCallRunner(deliverer, client, sleep=clock.sleep)
    task = api_task(f"{server.url}/order", method=method, body={"pizza": 1})

    answered = await runner.run(task, make_run())
    dropped = await runner.run(task, make_run())

    assert [r.method for r in server.received] == [method, method] and clock.slept == []
    assert answered.status is RunStatus.FAILED and "503 Service Unavailable" in (
        answered.error or ""
    )
    assert dropped.status is RunStatus.FAILED and "RemoteProtocolError" in (dropped.error or "")
    assert f"not retried: a {method} may already have acted" in (dropped.error or "")
    assert notifier.deliveries == []


async def test_api_call_retries_a_get_whose_connection_dropped(
    server: ScriptedServer, client: httpx.AsyncClient, deliverer: Deliverer, clock: ManualClock
) -> None:
    server.replies = [(HANG_UP, ""), (200, "fine")]

    report = await ApiCallRunner(deliverer, client, sleep=clock.sleep).run(
        api_task(f"{server.url}/status"), make_run()
    )

    assert report.status is RunStatus.SUCCEEDED and len(server.received) == 2
    assert clock.slept == [1.0]


async def test_api_call_gives_up_after_persistent_5xx(
    server: ScriptedServer, client: httpx.AsyncClient, deliverer: Deliverer, clock: ManualClock
) -> None:
    server.replies = [(500, "down")] * 3
    runner = ApiCallRunner(deliverer, client, sleep=clock.sleep, attempts=3)

    report = await runner.run(api_task(f"{server.url}/x"), make_run())

    assert report.status is RunStatus.FAILED and len(server.received) == 3
    assert (
        report.error == f"GET http://127.0.0.1:{server.port}/x -> 500 Internal Server Error\ndown"
    )


async def test_api_call_does_not_retry_4xx(
    server: ScriptedServer,
    client: httpx.AsyncClient,
    deliverer: Deliverer,
    notifier: RecordingNotifier,
    clock: ManualClock,
) -> None:
    server.replies = [(404, "no such light")]

    report = await ApiCallRunner(deliverer, client, sleep=clock.sleep).run(
        api_task(f"{server.url}/lamp"), make_run()
    )

    assert report.status is RunStatus.FAILED and "404 Not Found" in (report.error or "")
    assert len(server.received) == 1 and clock.slept == [] and notifier.deliveries == []


@pytest.mark.parametrize("method", ["GET", "POST"])
async def test_api_call_network_error_is_retried_and_reported(
    method: str, client: httpx.AsyncClient, deliverer: Deliverer, clock: ManualClock
) -> None:
    listener = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    port = listener.sockets[0].getsockname()[1]
    listener.close()
    await listener.wait_closed()

    report = await ApiCallRunner(deliverer, client, sleep=clock.sleep).run(
        api_task(f"http://127.0.0.1:{port}/x", method=method), make_run()
    )

    assert report.status is RunStatus.FAILED  # never sent, so a POST is retried too
    assert "ConnectError" in (report.error or "") and "(after 3 attempts)" in (report.error or "")
    assert clock.slept == [1.0, 2.0]


async def test_api_call_never_echoes_secret_header_values(
    server: ScriptedServer,
    client: httpx.AsyncClient,
    deliverer: Deliverer,
    notifier: RecordingNotifier,
    clock: ManualClock,
) -> None:
    server.echo_headers = True
    task = api_task(
        f"http://user:pw@127.0.0.1:{server.port}/x",
        headers={"Authorization": "Bearer sk-very-secret", "X-Api-Key": "k-12345"},
        body="raw text",
    )

    await ApiCallRunner(deliverer, client, sleep=clock.sleep).run(task, make_run())

    sent = server.received[0]
    assert sent.headers["x-api-key"] == "k-12345" and sent.body == b"raw text"
    (text,) = notifier.texts()
    assert text.startswith(f"GET http://user:[redacted]@127.0.0.1:{server.port}/x -> 200 OK\n")
    for secret in ("sk-very-secret", "k-12345", sent.headers["authorization"], "pw@"):
        assert secret not in text
    assert "[redacted]" in text


async def test_api_call_runner_makes_and_closes_its_own_client(
    server: ScriptedServer, deliverer: Deliverer, clock: ManualClock
) -> None:
    runner = ApiCallRunner(deliverer, sleep=clock.sleep)

    report = await runner.run(api_task(f"{server.url}/ping", method="head"), make_run())
    await runner.aclose()

    assert report.status is RunStatus.SUCCEEDED and server.received[0].method == "HEAD"


async def test_runners_refuse_data_of_another_type(deliverer: Deliverer) -> None:
    wrong = make_task(TaskType.REMINDER, AgentTaskData(prompt="x"))

    report = await ReminderRunner(deliverer).run(wrong, make_run())

    assert report.status is RunStatus.FAILED and "recreate the task" in (report.error or "")

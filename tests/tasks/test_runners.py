"""Runners per task type, driven directly; api_call against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from datetime import timedelta

import httpx
import pytest

from common import GuardedHttp, ManualClock, NetGuard
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
    TaskDataError,
    TaskError,
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
from tests.tasks.http_standin import HANG_UP, ScriptedServer

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


def trusting(client: httpx.AsyncClient) -> GuardedHttp:
    """The guarded client, sending to the mock host ``shop.example`` through ``client``."""
    return GuardedHttp(guard=NetGuard(allow_hosts=["shop.example"]), client=client)


def api_task(url: str, **fields: object) -> Task:
    return make_task(TaskType.API_CALL, ApiCallData.model_validate({"url": url, **fields}))


async def test_api_call_retries_5xx_with_backoff_then_delivers(
    server: ScriptedServer,
    http: GuardedHttp,
    deliverer: Deliverer,
    notifier: RecordingNotifier,
    clock: ManualClock,
) -> None:
    server.replies = [(503, "busy"), (502, "bad gateway"), (200, '{"lights": "off"}')]
    task = api_task(f"{server.url}/lights/off?key=abc", method="PUT", body={"state": "off"})

    report = await ApiCallRunner(deliverer, http, sleep=clock.sleep).run(task, make_run())

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
    http: GuardedHttp,
    deliverer: Deliverer,
    notifier: RecordingNotifier,
    clock: ManualClock,
) -> None:
    server.replies = [(503, "busy"), (HANG_UP, "")]
    runner = ApiCallRunner(deliverer, http, sleep=clock.sleep)
    task = api_task(f"{server.url}/order", method=method, body={"pizza": 1})

    answered = await runner.run(task, make_run())
    dropped = await runner.run(task, make_run())

    assert [r.method for r in server.received] == [method, method] and clock.slept == []
    assert answered.status is RunStatus.FAILED and "503 Service Unavailable" in (
        answered.error or ""
    )
    # The server got it and hung up without answering: whether it acted is unknown.
    assert dropped.status is RunStatus.OUTCOME_UNKNOWN
    assert "Server disconnected without sending a response" in (dropped.error or "")
    assert f"not repeated: the {method} may already have acted" in (dropped.error or "")
    assert notifier.deliveries == []


@pytest.mark.parametrize("method", ["POST", "PATCH"])
async def test_a_post_carries_an_idempotency_key_stable_per_run(
    method: str, deliverer: Deliverer, clock: ManualClock
) -> None:
    sent: list[httpx.Request] = []

    def refuse_then_answer(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        if len(sent) == 1:  # surely not sent: the one failure a POST is retried after
            raise httpx.ConnectError("connection refused", request=request)
        return httpx.Response(201, text="created")

    transport = httpx.MockTransport(refuse_then_answer)
    async with httpx.AsyncClient(transport=transport) as client:
        runner = ApiCallRunner(deliverer, trusting(client), sleep=clock.sleep)
        task = api_task("https://shop.example/orders", method=method, body={"pizza": 1})
        first = await runner.run(task, make_run())
        again = await runner.run(task, replace(make_run(), id=8))

    assert first.status is RunStatus.SUCCEEDED and again.status is RunStatus.SUCCEEDED
    keys = [request.headers["idempotency-key"] for request in sent]
    assert len(keys) == 3 and keys[0] == keys[1] != keys[2]  # two attempts of one run, then another
    assert all(len(key) == 36 for key in keys)  # a UUID


async def test_idempotent_methods_carry_no_key_and_a_stated_key_is_kept(
    deliverer: Deliverer, clock: ManualClock
) -> None:
    sent: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(200)

    async with httpx.AsyncClient(transport=httpx.MockTransport(answer)) as client:
        runner = ApiCallRunner(deliverer, trusting(client), sleep=clock.sleep)
        await runner.run(api_task("https://shop.example/a", method="PUT"), make_run())
        stated = {"idempotency-KEY": "mine-42"}
        await runner.run(
            api_task("https://shop.example/b", method="POST", headers=stated), make_run()
        )

    assert "idempotency-key" not in sent[0].headers
    assert sent[1].headers.get_list("idempotency-key") == ["mine-42"]


async def test_api_call_retries_a_get_whose_connection_dropped(
    server: ScriptedServer, http: GuardedHttp, deliverer: Deliverer, clock: ManualClock
) -> None:
    server.replies = [(HANG_UP, ""), (200, "fine")]

    report = await ApiCallRunner(deliverer, http, sleep=clock.sleep).run(
        api_task(f"{server.url}/status"), make_run()
    )

    assert report.status is RunStatus.SUCCEEDED and len(server.received) == 2
    assert clock.slept == [1.0]


async def test_api_call_gives_up_after_persistent_5xx(
    server: ScriptedServer, http: GuardedHttp, deliverer: Deliverer, clock: ManualClock
) -> None:
    server.replies = [(500, "down")] * 3
    runner = ApiCallRunner(deliverer, http, sleep=clock.sleep, attempts=3)

    report = await runner.run(api_task(f"{server.url}/x"), make_run())

    assert report.status is RunStatus.FAILED and len(server.received) == 3
    assert (
        report.error == f"GET http://127.0.0.1:{server.port}/x -> 500 Internal Server Error\ndown"
    )


async def test_api_call_does_not_retry_4xx(
    server: ScriptedServer,
    http: GuardedHttp,
    deliverer: Deliverer,
    notifier: RecordingNotifier,
    clock: ManualClock,
) -> None:
    server.replies = [(404, "no such light")]

    report = await ApiCallRunner(deliverer, http, sleep=clock.sleep).run(
        api_task(f"{server.url}/lamp"), make_run()
    )

    assert report.status is RunStatus.FAILED and "404 Not Found" in (report.error or "")
    assert len(server.received) == 1 and clock.slept == [] and notifier.deliveries == []


@pytest.mark.parametrize("method", ["GET", "POST"])
async def test_api_call_network_error_is_retried_and_reported(
    method: str, http: GuardedHttp, deliverer: Deliverer, clock: ManualClock
) -> None:
    listener = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    port = listener.sockets[0].getsockname()[1]
    listener.close()
    await listener.wait_closed()

    report = await ApiCallRunner(deliverer, http, sleep=clock.sleep).run(
        api_task(f"http://127.0.0.1:{port}/x", method=method), make_run()
    )

    assert report.status is RunStatus.FAILED  # never sent, so a POST is retried too
    assert report.error == (
        f"{method} http://127.0.0.1:{port}/x failed: All connection attempts failed "
        "(after 3 attempts)"
    )
    assert clock.slept == [1.0, 2.0]


async def test_api_call_never_echoes_secret_header_values(
    server: ScriptedServer,
    http: GuardedHttp,
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

    await ApiCallRunner(deliverer, http, sleep=clock.sleep).run(task, make_run())

    sent = server.received[0]
    assert sent.headers["x-api-key"] == "k-12345" and sent.body == b"raw text"
    (text,) = notifier.texts()
    assert text.startswith(f"GET http://user:[redacted]@127.0.0.1:{server.port}/x -> 200 OK\n")
    for secret in ("sk-very-secret", "k-12345", sent.headers["authorization"], "pw@"):
        assert secret not in text
    assert "[redacted]" in text


async def test_api_call_without_an_http_client_fails_clearly(
    deliverer: Deliverer, clock: ManualClock
) -> None:
    runner = ApiCallRunner(deliverer, sleep=clock.sleep)

    report = await runner.run(api_task("https://example.com/ping", method="head"), make_run())

    assert report.status is RunStatus.FAILED and "none is configured" in (report.error or "")


async def test_runners_refuse_data_of_another_type(deliverer: Deliverer) -> None:
    wrong = make_task(TaskType.REMINDER, AgentTaskData(prompt="x"))

    report = await ReminderRunner(deliverer).run(wrong, make_run())

    assert report.status is RunStatus.FAILED and "recreate the task" in (report.error or "")


# -- ${NAME} references ------------------------------------------------------------------


class Secrets:
    """A SecretSource from a dictionary."""

    def __init__(self, **values: str) -> None:
        self.values = values
        self.asked: list[str] = []

    def secret(self, name: str) -> str:
        self.asked.append(name)
        if name not in self.values:
            raise TaskDataError(f"the request references ${{{name}}}, which is not set")
        return self.values[name]


TOKEN = "tok-9f8e7d6c5b4a"


async def test_references_are_resolved_as_the_request_is_sent_and_never_shown(
    server: ScriptedServer,
    http: GuardedHttp,
    deliverer: Deliverer,
    notifier: RecordingNotifier,
    clock: ManualClock,
) -> None:
    server.echo_headers = True  # the server echoes what it got, the token included
    headers = {"Authorization": "Bearer ${HOME_API_TOKEN}", "Accept": "application/json"}
    task = api_task(f"{server.url}/lights?api_key=${{HOME_API_TOKEN}}&room=1", headers=headers)
    secrets = Secrets(HOME_API_TOKEN=TOKEN)
    runner = ApiCallRunner(deliverer, http, secrets=secrets, sleep=clock.sleep)

    report = await runner.run(task, make_run())

    assert report.status is RunStatus.SUCCEEDED
    (sent,) = server.received
    assert sent.headers["authorization"] == f"Bearer {TOKEN}"
    assert sent.path == f"/lights?api_key={TOKEN}&room=1"
    assert isinstance(task.execution, ApiCallData)
    assert task.execution.headers["Authorization"] == "Bearer ${HOME_API_TOKEN}"  # as stored
    (text,) = notifier.texts()
    assert TOKEN not in text + (report.result or "")
    assert text.startswith(
        f"GET http://127.0.0.1:{server.port}/lights?api_key=${{HOME_API_TOKEN}}&room=1 -> 200 OK"
    )


async def test_a_reference_without_a_value_fails_before_anything_is_sent(
    server: ScriptedServer, http: GuardedHttp, deliverer: Deliverer, clock: ManualClock
) -> None:
    task = api_task(server.url, headers={"X-Api-Key": "${MISSING_KEY}"})

    with pytest.raises(TaskError, match=r"references \$\{MISSING_KEY\}, which is not set"):
        await ApiCallRunner(deliverer, http, secrets=Secrets(), sleep=clock.sleep).run(
            task, make_run()
        )
    with pytest.raises(TaskError, match="no secrets are configured"):
        await ApiCallRunner(deliverer, http, sleep=clock.sleep).run(task, make_run())
    assert server.received == []


@pytest.mark.parametrize(
    ("url", "headers", "where"),
    [
        ("https://x.test/a", {"X-Note": "${HOME_API_TOKEN}"}, "header 'X-Note'"),
        ("https://x.test/a?q=${HOME_API_TOKEN}", {}, "query parameter 'q'"),
        ("https://${HOST}/a", {}, "outside its query"),
        ("https://x.test/${PATH}", {}, "outside its query"),
    ],
)
def test_a_reference_where_it_would_be_shown_is_refused(
    url: str, headers: dict[str, str], where: str
) -> None:
    data = ApiCallData(url=url, headers=headers)
    with pytest.raises(TaskDataError, match=where):
        data.check_references()
    with pytest.raises(TaskDataError, match="may stand only in the value of a header"):
        data.to_request(lookup=lambda name: "value")

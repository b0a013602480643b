"""Fixtures for the scheduler tests: both stores, a manual clock, fakes for the protocols."""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from common import GuardedHttp, ManualClock, NetGuard
from tasks import (
    DEFAULT_MISFIRE_RULES,
    ApiCallData,
    Delivery,
    DeliveryStatus,
    IntervalSchedule,
    MemoryTaskStore,
    MisfireRule,
    OnceSchedule,
    PostgresTaskStore,
    ReminderData,
    Schedule,
    SearchHit,
    SqliteTaskStore,
    TaskDraft,
    TaskStore,
    TaskType,
)
from tests.tasks.http_standin import ScriptedServer

T0 = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)
TLS = ssl.create_default_context()  # built once: a verifying context costs a fraction of a second
BERLIN = ZoneInfo("Europe/Berlin")


def once_at(at: datetime) -> OnceSchedule:
    """A one-time schedule at ``at`` (Berlin zone)."""
    return OnceSchedule(at=at, tz=BERLIN)


def every(span: timedelta, anchor: datetime = T0) -> IntervalSchedule:
    """An interval schedule anchored at ``anchor``."""
    return IntervalSchedule(every=span, anchor=anchor, tz=BERLIN)


def reminder_draft(
    schedule: Schedule,
    *,
    owner: str = "alice",
    message: str = "call mom",
    misfire: MisfireRule | None = None,
    created_at: datetime = T0,
) -> TaskDraft:
    """A reminder draft whose first run is the schedule's first fire after ``created_at``."""
    first = schedule.next_after(created_at - timedelta(microseconds=1))
    assert first is not None
    return TaskDraft(
        owner_id=owner,
        chat_id=f"chat-{owner}",
        task_type=TaskType.REMINDER,
        description=message,
        schedule=schedule,
        execution=ReminderData(message=message),
        misfire=misfire or DEFAULT_MISFIRE_RULES[TaskType.REMINDER],
        created_at=created_at,
        next_run=first,
    )


def api_call_draft(
    schedule: Schedule,
    *,
    method: str = "POST",
    url: str = "https://example.com/lights/off",
    owner: str = "alice",
    created_at: datetime = T0,
) -> TaskDraft:
    """An api_call draft with the type's default misfire rule (SKIP, 10 minutes' grace)."""
    first = schedule.next_after(created_at - timedelta(microseconds=1))
    assert first is not None
    return TaskDraft(
        owner_id=owner,
        chat_id=f"chat-{owner}",
        task_type=TaskType.API_CALL,
        description=f"{method} {url}",
        schedule=schedule,
        execution=ApiCallData(method=method, url=url),
        misfire=DEFAULT_MISFIRE_RULES[TaskType.API_CALL],
        created_at=created_at,
        next_run=first,
    )


@pytest.fixture
async def http() -> AsyncIterator[GuardedHttp]:
    """The program's guarded HTTP client, trusting 127.0.0.1 (where the stand-ins listen)."""
    guarded = GuardedHttp(guard=NetGuard(allow_hosts=["127.0.0.1"]), verify=TLS)
    yield guarded
    await guarded.aclose()


@pytest.fixture
async def server() -> AsyncIterator[ScriptedServer]:
    """A scripted HTTP server listening on 127.0.0.1 for the test's duration."""
    scripted = ScriptedServer()
    listener = await asyncio.start_server(scripted.handle, "127.0.0.1", 0)
    scripted.port = listener.sockets[0].getsockname()[1]
    async with listener:
        yield scripted


StoreFactory = Callable[[], TaskStore]


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def store_factory(request: pytest.FixtureRequest, tmp_path: Path) -> StoreFactory:
    """Make stores of one kind; SQLite ones share one file in ``tmp_path``, PostgreSQL ones
    one fresh database on the session's server."""
    if request.param == "memory":
        shared = MemoryTaskStore()
        return lambda: shared
    if request.param == "postgres":
        url: str = request.getfixturevalue("postgres_url")
        return lambda: PostgresTaskStore(url)
    return lambda: SqliteTaskStore(tmp_path / "assistant.db")


@pytest.fixture
async def store(store_factory: StoreFactory) -> AsyncIterator[TaskStore]:
    """An open store of each kind."""
    async with store_factory() as opened:
        yield opened


@pytest.fixture
def clock() -> ManualClock:
    """A manual clock at ``T0``."""
    return ManualClock(T0)


class RecordingNotifier:
    """A notifier that records deliveries and answers with a scripted status."""

    def __init__(self, status: DeliveryStatus = DeliveryStatus.DELIVERED) -> None:
        self.status = status
        self.statuses: list[DeliveryStatus] = []
        self.deliveries: list[Delivery] = []
        self.arrived = asyncio.Event()

    async def deliver(self, delivery: Delivery) -> DeliveryStatus:
        """Record ``delivery``; answer with the next scripted status or the default."""
        self.deliveries.append(delivery)
        self.arrived.set()
        return self.statuses.pop(0) if self.statuses else self.status

    def texts(self) -> list[str]:
        """The delivered texts, in order."""
        return [d.text for d in self.deliveries]

    async def wait_for(self, count: int) -> None:
        """Wait (bounded by a generous safety timeout) until ``count`` deliveries arrived."""
        async with asyncio.timeout(5):
            while len(self.deliveries) < count:
                self.arrived.clear()
                await self.arrived.wait()


class ScriptedAgent:
    """An AgentRunner fake: answers from a function, records prompts."""

    def __init__(self, answer: Callable[[str], str] = lambda prompt: f"answer to {prompt}"):
        self.answer = answer
        self.prompts: list[tuple[str, str, str]] = []
        self.release: asyncio.Event | None = None
        self.started = asyncio.Event()

    async def run_task(
        self, prompt: str, *, owner_id: str, chat_id: str, material: str | None = None
    ) -> str:
        """Record the call, optionally wait for ``release``, then answer."""
        if material is not None:
            prompt = f"{prompt}\n\n{material}"
        self.prompts.append((prompt, owner_id, chat_id))
        self.started.set()
        if self.release is not None:
            await self.release.wait()
        return self.answer(prompt)


class FakeSearcher:
    """A Searcher fake returning canned hits."""

    def __init__(self, hits: list[SearchHit]) -> None:
        self.hits = hits
        self.queries: list[tuple[str, int]] = []

    async def search(self, query: str, *, limit: int) -> list[SearchHit]:
        """Return the first ``limit`` canned hits."""
        self.queries.append((query, limit))
        return self.hits[:limit]

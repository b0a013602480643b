"""Approval requests: one contract for every ApprovalStore (in memory, SQLite, PostgreSQL)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memory import MemoryInputError, MemoryStore
from tools import ApprovalRequest, ApprovalStatus, ApprovalStore, InMemoryApprovalStore, RiskLevel

T0 = datetime(2024, 3, 1, 12, 0, tzinfo=UTC)
NASTY = '\'; DROP TABLE approvals; -- "x" 東京 🎉'


def request(
    request_id: str = "apr1", *, user_id: str = "alice", created: datetime = T0
) -> ApprovalRequest:
    return ApprovalRequest(
        id=request_id,
        tool_name="api_call",
        arguments={"url": "http://home.lan/lights/off", "method": "POST", "body": NASTY},
        user_id=user_id,
        chat_id="chat1",
        created_at=created,
        expires_at=created + timedelta(minutes=30),
        call_id="call_1",
        risk_level=RiskLevel.HIGH,
    )


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def new_store(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[[], ApprovalStore]:
    """Make approval stores of one kind; the database ones share one database."""
    if request.param == "memory":
        shared = InMemoryApprovalStore()
        return lambda: shared
    if request.param == "postgres":
        url: str = request.getfixturevalue("postgres_url")
        return lambda: MemoryStore(database_url=url)
    return lambda: MemoryStore(tmp_path / "a.db")


@pytest.fixture
async def approvals(new_store: Callable[[], ApprovalStore]) -> AsyncIterator[ApprovalStore]:
    store = new_store()
    if isinstance(store, MemoryStore):
        async with store:
            yield store
    else:
        yield store


async def test_save_and_get_round_trip(approvals: ApprovalStore) -> None:
    saved = request()
    await approvals.save_approval(saved)

    assert await approvals.get_approval("apr1") == saved
    assert await approvals.get_approval("nope") is None


async def test_a_request_is_decided_once(approvals: ApprovalStore) -> None:
    await approvals.save_approval(request())
    at = T0 + timedelta(minutes=1)

    decided = await approvals.decide_approval("apr1", ApprovalStatus.APPROVED, "alice", at)
    again = await approvals.decide_approval("apr1", ApprovalStatus.DENIED, "alice", at)

    assert decided == replace(
        request(), status=ApprovalStatus.APPROVED, decided_by="alice", decided_at=at
    )
    assert again is None
    assert await approvals.get_approval("apr1") == decided
    assert await approvals.decide_approval("missing", ApprovalStatus.DENIED, "a", at) is None


async def test_list_filters_by_user_and_status_newest_first(approvals: ApprovalStore) -> None:
    await approvals.save_approval(request("old", created=T0))
    await approvals.save_approval(request("new", created=T0 + timedelta(seconds=5)))
    await approvals.save_approval(request("bobs", user_id="bob"))
    await approvals.decide_approval("old", ApprovalStatus.DENIED, "alice", T0)

    pending = await approvals.list_approvals("alice")
    everything = await approvals.list_approvals("alice", status=None)
    denied = await approvals.list_approvals("alice", status=ApprovalStatus.DENIED)

    assert [r.id for r in pending] == ["new"]
    assert [r.id for r in everything] == ["new", "old"]
    assert [r.id for r in denied] == ["old"]


async def test_save_replaces_by_id(approvals: ApprovalStore) -> None:
    await approvals.save_approval(request())
    await approvals.save_approval(replace(request(), arguments={"url": "http://other"}))

    saved = await approvals.get_approval("apr1")
    assert saved is not None
    assert saved.arguments == {"url": "http://other"}


async def test_approving_after_expiry_fails(tmp_path: Path) -> None:
    async with MemoryStore(tmp_path / "a.db") as store:
        await store.save_approval(request("late"))
        await store.save_approval(request("fresh", created=T0 + timedelta(minutes=20)))
        deadline = T0 + timedelta(minutes=30)

        assert await store.decide_approval("late", ApprovalStatus.APPROVED, "a", deadline) is None
        assert await store.decide_approval("fresh", ApprovalStatus.APPROVED, "a", deadline)

        late = await store.get_approval("late")
        assert late is not None
        assert late.status is ApprovalStatus.PENDING and late.is_expired(deadline)


async def test_two_stores_racing_to_decide_have_one_winner(
    new_store: Callable[[], ApprovalStore],
) -> None:
    one, two = new_store(), new_store()
    async with AsyncExitStack() as opened:
        for store in (one, two):
            if isinstance(store, MemoryStore):
                await opened.enter_async_context(store)
        await one.save_approval(request())
        at = T0 + timedelta(minutes=1)

        results = await asyncio.gather(
            one.decide_approval("apr1", ApprovalStatus.APPROVED, "alice", at),
            two.decide_approval("apr1", ApprovalStatus.DENIED, "alice", at),
        )

        winners = [r for r in results if r is not None]
        assert len(winners) == 1
        assert await two.get_approval("apr1") == winners[0]


async def test_values_that_cannot_be_stored_are_refused(tmp_path: Path) -> None:
    async with MemoryStore(tmp_path / "a.db") as store:
        with pytest.raises(MemoryInputError, match="JSON"):
            await store.save_approval(replace(request(), arguments={"x": object()}))
        with pytest.raises(MemoryInputError, match="no time zone"):
            await store.save_approval(replace(request(), created_at=datetime(2024, 1, 1)))
        with pytest.raises(MemoryInputError, match="pending"):
            await store.decide_approval("apr1", ApprovalStatus.PENDING, "a", T0)
        assert await store.list_approvals("alice", status=None) == []

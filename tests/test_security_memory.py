"""Security checks on memory: one user's notes, conversations and approvals are invisible to
another, through the memory tools and through the executor's approval gate on the SQLite store.

The store-level scoping of notes and approval listings is tested in ``tests/memory``; these
tests add the paths a model or a second user could take: arguments a model invents, a chat
two users share, and approving or denying someone else's request by its id.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pytest

from assistant.builtin import MemoryTools
from common import ManualClock
from memory import MemoryStore, MessageRole, StoredMessage
from tools import (
    ApprovalError,
    ApprovalStatus,
    ToolCall,
    ToolContext,
    ToolExecutor,
    ToolRegistry,
    ToolStatus,
    tool,
)

NOW = datetime(2024, 3, 1, 12, 0, tzinfo=UTC)
SHARED_CHAT = "group-42"


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[MemoryStore]:
    async with MemoryStore(tmp_path / "assistant.db", clock=ManualClock(NOW)) as opened:
        yield opened


def as_user(user_id: str, chat_id: str = SHARED_CHAT) -> ToolContext:
    return ToolContext(user_id=user_id, chat_id=chat_id, now=NOW)


# -- memory tools --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("save_note", {"content": "planted by bob", "user_id": "alice"}),
        ("save_note", {"content": "planted by bob", "ctx": {"user_id": "alice"}}),
        ("search_memory", {"query": "door code", "user_id": "alice"}),
        ("search_memory", {"query": "door code", "ctx": "alice"}),
    ],
)
async def test_a_model_cannot_name_another_user_in_the_arguments(
    store: MemoryStore, name: str, arguments: dict[str, object]
) -> None:
    await store.add_note("alice", "alice's door code is 4321")
    executor = ToolExecutor(ToolRegistry([MemoryTools(store)]))

    result = await executor.execute(ToolCall(name, arguments), as_user("bob"))

    # The planted argument is no argument of the tool: it is left out (and the model told),
    # and the call runs as the caller, bob.
    assert result.status is ToolStatus.OK
    assert "Left out unknown arguments" in result.text
    assert "4321" not in result.text
    assert [n.content for n in await store.list_notes("alice")] == ["alice's door code is 4321"]
    saved = ["planted by bob"] if name == "save_note" else []
    assert [n.content for n in await store.list_notes("bob")] == saved


async def test_a_shared_chat_keeps_each_users_conversation_and_search_apart(
    store: MemoryStore,
) -> None:
    await store.append_turn(
        "alice",
        SHARED_CHAT,
        [
            StoredMessage(MessageRole.USER, "my bank pin is 9876"),
            StoredMessage(MessageRole.ASSISTANT, "I will not forget the bank pin"),
        ],
    )
    await store.append_turn("bob", SHARED_CHAT, [StoredMessage(MessageRole.USER, "hello there")])
    executor = ToolExecutor(ToolRegistry([MemoryTools(store)]))

    found = await executor.execute(ToolCall("search_memory", {"query": "bank pin"}), as_user("bob"))
    bobs_view = await store.load_conversation("bob", SHARED_CHAT)
    cleared = await store.clear_conversation("bob", SHARED_CHAT, forget=True)

    assert found.status is ToolStatus.OK
    assert found.output == []
    assert "9876" not in found.text
    assert [m.content for m in bobs_view] == ["hello there"]
    assert cleared == 1
    assert [m.content for m in await store.load_conversation("alice", SHARED_CHAT)] == [
        "my bank pin is 9876",
        "I will not forget the bank pin",
    ]
    assert [h.text for h in await store.search_memory("alice", "bank pin")] != []


async def test_settings_and_profiles_are_per_user(store: MemoryStore) -> None:
    await store.set_setting("alice", "home_address", "1 Secret Lane")
    await store.set_timezone("alice", "Europe/Berlin")

    assert await store.get_setting("bob", "home_address") is None
    assert await store.delete_setting("bob", "home_address") is False
    assert await store.get_user("bob") is None
    assert await store.get_setting("alice", "home_address") == "1 Secret Lane"


# -- approvals through the executor, kept in the SQLite store ------------------------------


@dataclass
class Lights:
    """A risky tool that records what it was asked to do."""

    switched: list[str]

    @tool(requires_approval=True, risk_level="high")
    def switch_off(self, room: str) -> str:
        """Switch the lights off.

        Args:
            room: Which room.
        """
        self.switched.append(room)
        return f"{room} is dark"


async def pending_request_id(executor: ToolExecutor, user_id: str) -> str:
    pending = await executor.execute(ToolCall("switch_off", {"room": "hall"}), as_user(user_id))
    assert pending.status is ToolStatus.PENDING_APPROVAL
    assert pending.approval is not None
    return pending.approval.id


async def test_another_user_cannot_approve_or_deny_a_request_by_its_id(
    store: MemoryStore,
) -> None:
    lights = Lights(switched=[])
    executor = ToolExecutor(ToolRegistry([lights]), approvals=store, clock=ManualClock(NOW))
    request_id = await pending_request_id(executor, "alice")
    missing = "ap" + ("0" * 8 if request_id != "ap" + "0" * 8 else "1" * 8)

    refusals: list[str] = []
    for decide in (executor.approve, executor.deny):
        for target in (request_id, missing):
            with pytest.raises(ApprovalError) as refused:
                await decide(target, "bob")
            refusals.append(str(refused.value).replace(target, "<id>"))

    assert len(set(refusals)) == 1, refusals
    assert lights.switched == []
    stored = await store.get_approval(request_id)
    assert stored is not None
    assert (stored.status, stored.decided_by) == (ApprovalStatus.PENDING, None)
    assert await store.list_approvals("bob", status=None) == []
    done = await executor.approve(request_id, "alice")
    assert done.status is ToolStatus.OK
    assert lights.switched == ["hall"]


async def test_a_decided_request_stays_closed_to_everyone_else(store: MemoryStore) -> None:
    lights = Lights(switched=[])
    executor = ToolExecutor(ToolRegistry([lights]), approvals=store, clock=ManualClock(NOW))
    request_id = await pending_request_id(executor, "alice")
    await executor.deny(request_id, "alice")

    for decide in (executor.approve, executor.deny):
        with pytest.raises(ApprovalError, match="no approval request"):
            await decide(request_id, "bob")
    stored = await store.get_approval(request_id)
    assert stored is not None
    assert (stored.status, stored.decided_by) == (ApprovalStatus.DENIED, "alice")
    assert lights.switched == []

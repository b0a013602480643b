"""Tests for save_note and search_memory, run through the registry and the executor."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from assistant.builtin import MemoryTools
from common import ManualClock
from memory import HitKind, MemoryHit, MemoryStore, MessageRole, Note, StoredMessage
from tools import ToolCall, ToolContext, ToolExecutor, ToolRegistry, ToolStatus

NOW = datetime(2024, 3, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[MemoryStore]:
    async with MemoryStore(tmp_path / "assistant.db", clock=ManualClock(NOW)) as opened:
        yield opened


@pytest.fixture
def executor(store: MemoryStore) -> ToolExecutor:
    return ToolExecutor(ToolRegistry([MemoryTools(store)]))


def as_user(user_id: str) -> ToolContext:
    return ToolContext(user_id=user_id, chat_id="chat1", now=NOW)


async def test_save_note_stores_it_for_the_calling_user(
    executor: ToolExecutor, store: MemoryStore
) -> None:
    call = ToolCall("save_note", {"content": "The wifi password is hunter2", "tags": ["Home"]})

    result = await executor.execute(call, as_user("alice"))

    assert result.status is ToolStatus.OK, result.text
    assert isinstance(result.output, Note)
    assert result.text == "Saved note #1 (tags: home): The wifi password is hunter2"
    assert [n.content for n in await store.list_notes("alice")] == ["The wifi password is hunter2"]
    assert await store.list_notes("bob") == []


async def test_a_new_users_first_note_is_number_one(executor: ToolExecutor) -> None:
    await executor.execute(ToolCall("save_note", {"content": "alice's"}), as_user("alice"))

    saved = await executor.execute(ToolCall("save_note", {"content": "bob's"}), as_user("bob"))

    assert saved.text == "Saved note #1: bob's"


async def test_search_memory_answers_from_notes_with_their_text(
    executor: ToolExecutor, store: MemoryStore
) -> None:
    note = await store.add_note("alice", "The wifi password is hunter2", ["home"])
    await store.append_turn(
        "alice", "chat1", [StoredMessage(MessageRole.ASSISTANT, "The wifi router is upstairs")]
    )

    result = await executor.execute(
        ToolCall("search_memory", {"query": "wifi password?"}), as_user("alice")
    )

    assert result.status is ToolStatus.OK, result.text
    assert result.text.splitlines() == [
        f"- [note #{note.number}, 2024-03-01, tags: home] The wifi password is hunter2",
        "- [assistant message, 2024-03-01] The wifi router is upstairs",
    ]
    hits = result.output
    assert isinstance(hits, list)
    assert all(isinstance(hit, MemoryHit) for hit in hits)
    assert [hit.kind for hit in hits] == [HitKind.NOTE, HitKind.MESSAGE]


async def test_a_messages_tool_calls_are_left_out_of_what_a_search_shows(
    executor: ToolExecutor, store: MemoryStore
) -> None:
    call = '```json\n{"tool": "search_memory", "args": {"query": "wifi"}}\n```'
    await store.append_turn(
        "alice",
        "chat1",
        [
            StoredMessage(MessageRole.ASSISTANT, f"Looking through your wifi notes. {call}"),
            StoredMessage(MessageRole.ASSISTANT, call.replace("wifi", "wifi router")),
        ],
    )

    result = await executor.execute(ToolCall("search_memory", {"query": "wifi"}), as_user("alice"))

    # What was said is shown; the calls (and a message that was a call alone) are not.
    assert result.text == "- [assistant message, 2024-03-01] Looking through your wifi notes."


async def test_a_search_of_the_notes_only_finds_no_message(
    executor: ToolExecutor, store: MemoryStore
) -> None:
    await store.append_turn(
        "alice", "chat1", [StoredMessage(MessageRole.USER, "whats my wifi password")]
    )
    note = await store.add_note("alice", "the wifi password is hunter2")

    result = await executor.execute(
        ToolCall("search_memory", {"query": "whats wifi password", "notes_only": True}),
        as_user("alice"),
    )

    assert result.status is ToolStatus.OK, result.text
    assert [(hit.kind, hit.id) for hit in result.output] == [(HitKind.NOTE, note.id)]


async def test_search_memory_never_crosses_users(
    executor: ToolExecutor, store: MemoryStore
) -> None:
    await store.add_note("alice", "alice's door code is 4321")

    result = await executor.execute(
        ToolCall("search_memory", {"query": "door code"}), as_user("bob")
    )

    assert result.status is ToolStatus.OK
    assert result.output == []
    assert result.text == "Nothing in the user's notes or past conversations matches."


async def test_long_texts_are_shortened_for_the_model_but_kept_whole(
    executor: ToolExecutor, store: MemoryStore
) -> None:
    await store.add_note("alice", "packing list: " + "socks " * 200)

    result = await executor.execute(
        ToolCall("search_memory", {"query": "packing", "limit": 1}), as_user("alice")
    )

    assert result.text.endswith("…")
    assert len(result.text) < 600
    assert len(result.output[0].text) > 1000


@pytest.mark.parametrize(
    ("name", "arguments", "status", "quoted"),
    [
        ("save_note", {"content": "   "}, ToolStatus.ERROR, "'   '"),
        ("save_note", {}, ToolStatus.INVALID, "content"),
        ("save_note", {"content": "x", "tags": "home, wifi"}, ToolStatus.INVALID, "tags"),
        ("search_memory", {"query": "x", "limit": 0}, ToolStatus.INVALID, "limit"),
        ("search_memory", {"query": "x", "limit": 500}, ToolStatus.INVALID, "limit"),
    ],
)
async def test_bad_arguments_become_results_the_model_can_read(
    executor: ToolExecutor, name: str, arguments: dict[str, object], status: ToolStatus, quoted: str
) -> None:
    result = await executor.execute(ToolCall(name, arguments), as_user("alice"))

    assert result.status is status
    assert quoted in result.text


def test_the_schema_hides_the_context_and_documents_the_arguments(store: MemoryStore) -> None:
    registry = ToolRegistry([MemoryTools(store)])

    save = registry["save_note"].schema()
    search = registry["search_memory"].schema()

    assert set(save["properties"]) == {"content", "tags"}
    assert save["required"] == ["content"]
    assert set(search["properties"]) == {"query", "limit", "notes_only"}
    assert search["properties"]["limit"]["maximum"] == 20
    assert "wifi password" in search["properties"]["query"]["description"]

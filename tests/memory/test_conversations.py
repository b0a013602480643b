"""Conversations in SQLite: what the contract suite (tests/assistant/
test_conversation_store_contract.py) does not cover: search, bad input, sharing the file
with another store, the cache of decoded turns, long histories."""

from __future__ import annotations

from pathlib import Path

import pytest

from memory import (
    DEFAULT_MAX_TURNS,
    ConversationContext,
    MemoryInputError,
    MemoryStore,
    MessageRole,
    StoredMessage,
)
from tools import ToolCall

USER = MessageRole.USER
ASSISTANT = MessageRole.ASSISTANT


def turn(question: str, answer: str) -> list[StoredMessage]:
    return [StoredMessage(USER, question), StoredMessage(ASSISTANT, answer)]


async def test_clear_starts_fresh_but_keeps_old_turns_searchable(store: MemoryStore) -> None:
    await store.append_turn("alice", "c", turn("my locker is number 42", "noted"))

    assert await store.clear_conversation("alice", "c") == 1
    assert await store.load_conversation("alice", "c") == []
    hits = await store.search_memory("alice", "locker")
    assert [h.text for h in hits] == ["my locker is number 42"]

    await store.append_turn("alice", "c", turn("new", "fresh"))
    assert [m.content for m in await store.load_conversation("alice", "c")] == ["new", "fresh"]


async def test_forget_deletes_the_conversation(store: MemoryStore) -> None:
    await store.append_turn("alice", "c", turn("my locker is number 42", "noted"))
    await store.append_turn("alice", "other", turn("locker in the other chat", "ok"))

    assert await store.clear_conversation("alice", "c", forget=True) == 1
    assert [h.chat_id for h in await store.search_memory("alice", "locker")] == ["other"]


@pytest.mark.parametrize(
    ("messages", "quoted"),
    [
        ([], "none"),
        ([StoredMessage(USER, "ok"), StoredMessage("robot", "hi")], "'robot'"),  # type: ignore[arg-type]  # a bad role on purpose
        (
            [
                StoredMessage(USER, "ok"),
                StoredMessage(ASSISTANT, "", tool_calls=(ToolCall("t", {"x": {1, 2}}),)),
            ],
            "JSON",
        ),
    ],
)
async def test_a_bad_turn_stores_nothing(
    store: MemoryStore, messages: list[StoredMessage], quoted: str
) -> None:
    with pytest.raises(MemoryInputError, match=quoted):
        await store.append_turn("alice", "c", messages)

    assert await store.load_conversation("alice", "c") == []


async def test_metacharacters_round_trip_in_every_field(store: MemoryStore) -> None:
    nasty = '\'; DROP TABLE conversation_messages; -- "x" NEAR(a b) 東京 🎉'
    call = ToolCall(nasty, {nasty: [nasty, 1, None]}, id=nasty)
    messages = [
        StoredMessage(USER, nasty),
        StoredMessage(ASSISTANT, nasty, tool_calls=(call,)),
        StoredMessage(MessageRole.TOOL, nasty, tool_call_id=nasty, name=nasty),
    ]

    await store.append_turn(nasty, nasty, messages)
    loaded = await store.load_conversation(nasty, nasty)

    assert [(m.role, m.content, m.tool_call_id, m.name) for m in loaded] == [
        (m.role, m.content, m.tool_call_id, m.name) for m in messages
    ]
    assert loaded[1].tool_calls[0].arguments == {nasty: [nasty, 1, None]}
    assert loaded[1].tool_calls[0].id == nasty


async def test_text_that_cannot_be_utf8_is_stored_with_replacement_characters(
    store: MemoryStore,
) -> None:
    broken = "half an emoji \ud83d and a stray byte \udcff"
    call = ToolCall("save_note", {"content": broken}, id="c\ud83d")
    messages = [
        StoredMessage(USER, broken),
        StoredMessage(ASSISTANT, broken, tool_calls=(call,)),
        StoredMessage(MessageRole.TOOL, broken, tool_call_id="c\ud83d", name="save_note"),
    ]

    await store.append_turn("alice", "c", messages)
    loaded = await store.load_conversation("alice", "c")

    fixed = "half an emoji \ufffd and a stray byte \ufffd"
    assert [m.content for m in loaded] == [fixed] * 3
    assert loaded[1].tool_calls[0].arguments == {"content": fixed}
    assert loaded[2].tool_call_id == "c\ufffd"


@pytest.mark.parametrize("bad", ["", "  "])
async def test_empty_ids_are_refused(store: MemoryStore, bad: str) -> None:
    with pytest.raises(MemoryInputError, match="user_id"):
        await store.load_conversation(bad, "c")
    with pytest.raises(MemoryInputError, match="chat_id"):
        await store.append_turn("alice", bad, turn("a", "b"))


async def test_load_considers_at_most_the_default_number_of_turns(store: MemoryStore) -> None:
    for n in range(DEFAULT_MAX_TURNS + 1):
        await store.append_turn("alice", "c", [StoredMessage(USER, str(n))])

    default = await store.load_conversation("alice", "c")
    unlimited = await store.load_conversation("alice", "c", max_turns=None)

    assert [m.content for m in default] == [str(n) for n in range(1, DEFAULT_MAX_TURNS + 1)]
    assert len(unlimited) == DEFAULT_MAX_TURNS + 1


async def test_loads_follow_every_change_made_through_another_store(
    store: MemoryStore, db_path: Path
) -> None:
    async with MemoryStore(db_path) as other:
        await store.append_turn("alice", "c", turn("one", "1"))
        assert [m.content for m in await store.load_conversation("alice", "c")] == ["one", "1"]

        await other.append_turn("alice", "c", turn("two", "2"))
        loaded = await store.load_conversation("alice", "c")
        assert [m.content for m in loaded] == ["one", "1", "two", "2"]

        await other.clear_conversation("alice", "c")
        assert await store.load_conversation("alice", "c") == []
        await other.append_turn("alice", "c", turn("three", "3"))
        assert [m.content for m in await store.load_conversation("alice", "c")] == ["three", "3"]

        await other.clear_conversation("alice", "c", forget=True)
        assert await store.load_conversation("alice", "c") == []


async def test_a_reloaded_history_equals_a_fresh_one(store: MemoryStore, db_path: Path) -> None:
    call = ToolCall("get_current_time", {"tz": "Asia/Tokyo"}, id="call_9")
    for n in range(3):
        await store.append_turn(
            "alice",
            "c",
            [
                StoredMessage(USER, f"time {n}?"),
                StoredMessage(ASSISTANT, "", tool_calls=(call,)),
                StoredMessage(MessageRole.TOOL, "noon", tool_call_id="call_9", name="clock"),
            ],
        )
        await store.load_conversation("alice", "c")

    async with MemoryStore(db_path) as fresh:
        assert await store.load_conversation("alice", "c") == await fresh.load_conversation(
            "alice", "c"
        )


async def test_a_long_history_loads_whole_without_a_turn_limit(
    store: MemoryStore, db_path: Path
) -> None:
    count = 620  # more turns than one query binds as parameters
    for n in range(count):
        await store.append_turn("alice", "c", [StoredMessage(USER, f"{n}")])

    async with MemoryStore(db_path) as fresh:
        loaded = await fresh.load_conversation("alice", "c", max_turns=None, max_chars=10**6)

    assert [m.content for m in loaded] == [str(n) for n in range(count)]


async def test_load_context_reads_the_profile_and_the_history_together(
    store: MemoryStore,
) -> None:
    await store.append_turn("alice", "c", turn("one", "1"))
    await store.append_turn("alice", "c", turn("two" + "x" * 20, "2"))
    await store.set_timezone("alice", "Asia/Tokyo")

    context = await store.load_context("alice", "c", max_chars=25)
    nobody = await store.load_context("bob", "c")

    assert context.user is not None
    assert context.user.timezone == "Asia/Tokyo"
    assert context.messages == tuple(await store.load_conversation("alice", "c", max_chars=25))
    assert [m.content for m in context.messages] == ["two" + "x" * 20, "2"]
    assert nobody == ConversationContext(user=None, messages=())


async def test_load_context_refuses_bad_arguments_like_load_conversation(
    store: MemoryStore,
) -> None:
    with pytest.raises(MemoryInputError, match="max_chars must be an integer >= 0, got -1"):
        await store.load_context("alice", "c", max_chars=-1)
    with pytest.raises(MemoryInputError, match="user_id must be a non-empty string"):
        await store.load_context(" ", "c")

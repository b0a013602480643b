"""The decoded turns the store keeps per chat between history loads (a bounded cache): however
many chats take turns, each chat's history reads back whole and as stored."""

from __future__ import annotations

from memory import MemoryStore, MessageRole, StoredMessage

CHATS = 300  # more than the store keeps decoded (256): the least recent chats are dropped


def turn(text: str) -> list[StoredMessage]:
    return [StoredMessage(MessageRole.USER, text), StoredMessage(MessageRole.ASSISTANT, "ok")]


async def test_every_chat_reads_back_its_own_turns_past_the_cache_bound(
    store: MemoryStore,
) -> None:
    for chat in range(CHATS):
        await store.append_turn("alice", f"c{chat}", turn(f"first in {chat}"))
        await store.load_context("alice", f"c{chat}")  # kept decoded, pushing older chats out
    for chat in range(CHATS):
        await store.append_turn("alice", f"c{chat}", turn(f"second in {chat}"))

    for chat in (0, 1, CHATS // 2, CHATS - 1):
        loaded = await store.load_context("alice", f"c{chat}")
        assert [m.content for m in loaded.messages] == [
            f"first in {chat}",
            "ok",
            f"second in {chat}",
            "ok",
        ]


async def test_a_cleared_chat_is_not_read_back_from_the_cache(store: MemoryStore) -> None:
    await store.append_turn("alice", "a", turn("before"))
    await store.load_context("alice", "a")

    await store.clear_conversation("alice", "a")

    assert (await store.load_context("alice", "a")).messages == ()

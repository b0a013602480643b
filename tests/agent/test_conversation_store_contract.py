"""One contract for every ConversationStore: run against the in-memory, SQLite and PostgreSQL stores.

The SQLite ``MemoryStore`` is the reference; ``InMemoryConversations`` (the store behind the
agent tests) must keep the same contract, the history budget counted the same way above all.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest

from agent import ConversationStore, InMemoryConversations
from common import ManualClock
from memory import MemoryStore, MessageRole, StoredMessage
from tools import ToolCall

T0 = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)
USER = MessageRole.USER
ASSISTANT = MessageRole.ASSISTANT

MakeStore = Callable[..., Awaitable[ConversationStore]]


def turn(question: str, answer: str) -> list[StoredMessage]:
    return [StoredMessage(USER, question), StoredMessage(ASSISTANT, answer)]


def contents(messages: tuple[StoredMessage, ...]) -> list[str]:
    return [m.content for m in messages]


@pytest.fixture(params=["in-memory", "sqlite", "postgres"])
def database(
    request: pytest.FixtureRequest, tmp_path: Path
) -> Callable[[ManualClock], MemoryStore] | None:
    """Makes empty database stores of one kind (``None``: the in-memory store)."""
    if request.param == "in-memory":
        return None
    if request.param == "postgres":
        url: str = request.getfixturevalue("postgres_url")
        return lambda clock: MemoryStore(database_url=url, clock=clock)
    count = itertools.count()
    return lambda clock: MemoryStore(tmp_path / f"{next(count)}.db", clock=clock)


@pytest.fixture
async def make_store(
    database: Callable[[ManualClock], MemoryStore] | None,
) -> AsyncIterator[MakeStore]:
    """Make stores of one kind, knowing the given users' time zones."""
    clock = ManualClock(T0)
    opened: list[MemoryStore] = []

    async def make(zones: dict[str, str] | None = None) -> ConversationStore:
        if database is None:
            return InMemoryConversations(zones=zones, clock=clock)
        store = database(clock)
        await store.start()
        opened.append(store)
        for user_id, zone in (zones or {}).items():
            await store.set_timezone(user_id, zone)
        return store

    yield make
    for store in opened:
        await store.close()


@pytest.fixture
async def store(make_store: MakeStore) -> ConversationStore:
    """A store of each kind that knows nobody's zone."""
    return await make_store()


async def test_turns_come_back_whole_and_oldest_first_per_user_and_chat(
    store: ConversationStore,
) -> None:
    first = await store.append_turn("alice", "c1", turn("one", "1"))
    await store.append_turn("alice", "c2", turn("other chat", "x"))
    await store.append_turn("bob", "c1", turn("bob's", "y"))
    last = await store.append_turn("alice", "c1", turn("two", "2"))

    loaded = (await store.load_context("alice", "c1")).messages

    assert contents(loaded) == ["one", "1", "two", "2"]
    assert [m.turn_id for m in loaded] == [first, first, last, last]
    assert {m.created_at for m in loaded} == {T0}
    assert (await store.load_context("carol", "c1")).messages == ()


async def test_turn_ids_grow_across_chats(store: ConversationStore) -> None:
    ids = [await store.append_turn("alice", chat, turn("q", "a")) for chat in ("a", "b", "a")]

    assert ids == sorted(set(ids))


async def test_tool_calls_and_results_round_trip(store: ConversationStore) -> None:
    call = ToolCall("add_reminder", {"when": "in 5 minutes", "message": "tea"}, id="call_1")
    messages = [
        StoredMessage(USER, "remind me in 5 minutes: tea"),
        StoredMessage(ASSISTANT, "", tool_calls=(call,)),
        StoredMessage(MessageRole.TOOL, '{"id": "a1"}', tool_call_id="call_1", name="add_reminder"),
    ]
    await store.append_turn("alice", "c", messages)

    loaded = (await store.load_context("alice", "c")).messages

    assert [(m.role, m.content, m.tool_call_id, m.name) for m in loaded] == [
        (m.role, m.content, m.tool_call_id, m.name) for m in messages
    ]
    (loaded_call,) = loaded[1].tool_calls
    assert (loaded_call.id, loaded_call.tool_name, loaded_call.arguments) == (
        call.id,
        call.tool_name,
        call.arguments,
    )


async def test_an_empty_turn_is_refused(store: ConversationStore) -> None:
    with pytest.raises(ValueError, match="at least one message"):
        await store.append_turn("alice", "c", [])


async def test_max_chars_drops_whole_oldest_turns(store: ConversationStore) -> None:
    for n in range(5):
        await store.append_turn("alice", "c", turn(f"q{n}" + "x" * 6, f"a{n}"))  # 10 chars

    loaded = await store.load_context("alice", "c", max_chars=25)
    exact = await store.load_context("alice", "c", max_chars=30)

    assert contents(loaded.messages) == ["q3xxxxxx", "a3", "q4xxxxxx", "a4"]
    assert len(exact.messages) == 6


async def test_a_newest_turn_larger_than_the_budget_leaves_nothing(
    store: ConversationStore,
) -> None:
    await store.append_turn("alice", "c", turn("small", "ok"))
    await store.append_turn("alice", "c", turn("x" * 100, "big"))

    assert (await store.load_context("alice", "c", max_chars=50)).messages == ()


async def test_tool_call_json_counts_towards_the_budget(store: ConversationStore) -> None:
    call = ToolCall("save_note", {"content": "y" * 200}, id="c1")
    await store.append_turn("alice", "c", [StoredMessage(ASSISTANT, "", tool_calls=(call,))])
    # The call's JSON: {"id": "c1", "name": "save_note", "arguments": {"content": "yyy..."}}.
    size = len('[{"id": "c1", "name": "save_note", "arguments": {"content": ""}}]') + 200

    assert (await store.load_context("alice", "c", max_chars=size - 1)).messages == ()
    assert len((await store.load_context("alice", "c", max_chars=size)).messages) == 1


async def test_max_turns_keeps_the_newest_turns(store: ConversationStore) -> None:
    for n in range(4):
        await store.append_turn("alice", "c", turn(f"q{n}", f"a{n}"))

    one = await store.load_context("alice", "c", max_turns=1)
    every = await store.load_context("alice", "c", max_turns=None)

    assert contents(one.messages) == ["q3", "a3"]
    assert len(every.messages) == 8


async def test_clear_starts_a_fresh_conversation(store: ConversationStore) -> None:
    await store.append_turn("alice", "c", turn("one", "1"))
    await store.append_turn("alice", "c", turn("two", "2"))
    await store.append_turn("alice", "other", turn("kept", "k"))

    assert await store.clear_conversation("alice", "c") == 2
    assert await store.clear_conversation("alice", "c") == 0
    assert (await store.load_context("alice", "c")).messages == ()
    assert contents((await store.load_context("alice", "other")).messages) == ["kept", "k"]
    await store.append_turn("alice", "c", turn("new", "fresh"))
    assert contents((await store.load_context("alice", "c")).messages) == ["new", "fresh"]


async def test_forget_deletes_every_turn_the_chat_held(store: ConversationStore) -> None:
    await store.append_turn("alice", "c", turn("old", "archived"))
    await store.clear_conversation("alice", "c")
    await store.append_turn("alice", "c", turn("new", "live"))

    assert await store.clear_conversation("alice", "c", forget=True) == 2
    assert await store.clear_conversation("alice", "c", forget=True) == 0
    assert (await store.load_context("alice", "c")).messages == ()


async def test_users_and_their_zones(make_store: MakeStore) -> None:
    store = await make_store({"alice": "Europe/Berlin"})

    alice = await store.get_user("alice")
    context = await store.load_context("alice", "c")

    assert alice is not None and alice.user_id == "alice" and alice.timezone == "Europe/Berlin"
    assert context.user == alice
    assert await store.get_user("bob") is None
    assert (await store.load_context("bob", "c")).user is None

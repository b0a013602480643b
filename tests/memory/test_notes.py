"""Notes: storage, owner scoping, tags, and full-text search that never breaks on input."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memory import HitKind, MemoryInputError, MemoryLimitError, MemoryStore, NoteLimits
from tests.memory.conftest import START, MakeStore

TRICKY_TEXTS = [
    'it\'s a "quoted" note',
    "semi; colons; everywhere;",
    "'; DROP TABLE notes; --",
    "Robert'); DELETE FROM notes WHERE ('1'='1",
    "100% of _under_scores_ and \\backslashes\\",
    'NEAR("a" "b") AND x OR y NOT z * ^ : + - ( )',
    "unicode: Grüße, naïve café, 東京, emoji 🎉, RTL שלום",
    "  leading and trailing spaces  ",
    "line one\nline two\ttabbed",
]


async def found_notes(store: MemoryStore, query: str, limit: int = 5) -> list[int]:
    """The ids of the notes ``search_memory`` finds for alice, best first."""
    hits = await store.search_memory("alice", query, limit)
    return [hit.id for hit in hits if hit.kind is HitKind.NOTE]


async def test_add_and_list_round_trip(store: MemoryStore) -> None:
    first = await store.add_note("alice", "buy milk", ["Shopping", "#home", "shopping", " "])
    second = await store.add_note("alice", "call the bank")

    assert first.tags == ("shopping", "home")
    assert first.created_at == START
    assert second.tags == ()
    assert [n.id for n in await store.list_notes("alice")] == [second.id, first.id]
    assert [n.content for n in await store.list_notes("alice", limit=1)] == ["call the bank"]


@pytest.mark.parametrize("text", TRICKY_TEXTS)
async def test_sql_and_fts_metacharacters_round_trip(store: MemoryStore, text: str) -> None:
    note = await store.add_note("alice", text, [text[:40]])

    (stored,) = await store.list_notes("alice")
    assert stored.content == text
    assert stored == note
    assert await found_notes(store, text) == [note.id]


async def test_a_user_never_sees_another_users_notes(store: MemoryStore) -> None:
    secret = await store.add_note("alice", "alice's secret door code 4321")

    assert await store.list_notes("bob") == []
    assert await store.search_memory("bob", "door code") == []
    assert await store.list_notes("alice") == [secret]


@pytest.mark.parametrize(
    "query",
    [
        "wifi password?",
        "what is the wifi password",
        "WIFI",
        "passwords",
        "wifi pass",
        "home",
        "the wifi password for my router",
    ],
)
async def test_natural_questions_find_the_note(store: MemoryStore, query: str) -> None:
    await store.add_note("alice", "The dentist is on Friday")
    wifi = await store.add_note("alice", "The wifi password is hunter2", ["home"])

    assert (await found_notes(store, query))[0] == wifi.id


async def test_notes_with_every_word_rank_before_notes_with_some(store: MemoryStore) -> None:
    some = await store.add_note("alice", "password for the bank: swordfish")
    every = await store.add_note("alice", "wifi password is hunter2")
    other = await store.add_note("alice", "the wifi router is in the hall")

    found = await found_notes(store, "wifi password")

    assert found[0] == every.id
    assert set(found[1:]) == {some.id, other.id}
    assert await found_notes(store, "wifi password", limit=1) == [every.id]


@pytest.mark.parametrize("query", ["", "   ", "???", "*", '"', "()", "-- ;"])
async def test_queries_without_words_find_nothing(store: MemoryStore, query: str) -> None:
    await store.add_note("alice", "anything at all")

    assert await store.search_memory("alice", query) == []


@pytest.mark.parametrize(
    ("content", "tags", "quoted"),
    [
        ("", None, "''"),
        ("   \n", None, "'   \\n'"),
        ("ok", "home", "'home'"),
        ("ok", ["x" * 51], "'xxxxx"),
    ],
)
async def test_bad_notes_are_refused_with_the_value_quoted(
    store: MemoryStore, content: str, tags: object, quoted: str
) -> None:
    with pytest.raises(MemoryInputError, match=quoted.replace("\\", "\\\\")):
        await store.add_note("alice", content, tags)  # type: ignore[arg-type]  # on purpose
    assert await store.list_notes("alice") == []


@pytest.mark.parametrize("limit", [0, -1, 1001])
async def test_limits_out_of_range_are_refused(store: MemoryStore, limit: int) -> None:
    with pytest.raises(MemoryInputError, match=f"got {limit}"):
        await store.list_notes("alice", limit=limit)
    with pytest.raises(MemoryInputError, match=f"got {limit}"):
        await store.search_memory("alice", "x", limit=limit)


FTS_TOKENS = (
    "AND", "OR", "NOT", "NEAR", "NEAR(", '"', "*", "(", ")", ":", "^", "-", "+", "{", "}",
    "content:", "tags:", "wifi", "pass", "'", ";", "--", "\\", "é", " ",
)  # fmt: skip
FTS_SOUP = st.lists(st.sampled_from(FTS_TOKENS), max_size=20).map("".join)


@pytest.fixture
def fuzz_store(make_store: MakeStore) -> Iterator[tuple[asyncio.AbstractEventLoop, MemoryStore]]:
    """A store of each kind on its own event loop, shared by every example of a property test."""
    loop = asyncio.new_event_loop()
    store = make_store()
    loop.run_until_complete(store.start())
    loop.run_until_complete(store.add_note("alice", "The wifi password is hunter2"))
    yield loop, store
    loop.run_until_complete(store.close())
    loop.close()


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(query=st.one_of(st.text(max_size=60), FTS_SOUP))
def test_any_text_is_a_safe_query(
    fuzz_store: tuple[asyncio.AbstractEventLoop, MemoryStore], query: str
) -> None:
    loop, store = fuzz_store
    hits = loop.run_until_complete(store.search_memory("alice", query))

    assert all(hit.text == "The wifi password is hunter2" for hit in hits)
    assert all(hit.kind is HitKind.NOTE for hit in hits)


async def test_each_users_notes_are_numbered_from_one(store: MemoryStore) -> None:
    alices = [await store.add_note("alice", f"alice's note {n}") for n in (1, 2)]
    bobs = await store.add_note("bob", "bob's first note")
    concurrent = await asyncio.gather(*(store.add_note("carol", f"note {n}") for n in range(5)))

    assert [note.number for note in alices] == [1, 2]
    assert bobs.number == 1  # not 3: the numbers are each user's own
    assert sorted(note.number for note in concurrent) == [1, 2, 3, 4, 5]
    assert [n.number for n in await store.list_notes("alice")] == [2, 1]
    [hit] = await store.search_notes("bob", "first note")
    assert (hit.number, hit.text) == (1, "bob's first note")


async def test_notes_per_user_are_limited_in_number_and_bytes_with_the_insert(
    make_store: MakeStore,
) -> None:
    limits = NoteLimits(max_notes=3, max_bytes=50)
    async with make_store(note_limits=limits) as first, make_store(note_limits=limits) as second:
        await first.add_note("alice", "x" * 20)
        with pytest.raises(MemoryLimitError, match="ASSISTANT_MAX_NOTE_BYTES_PER_USER"):
            await first.add_note("alice", "ü" * 16)  # 32 bytes: 52 in all
        racers = [s.add_note("alice", "short") for s in (first, second, first, second)]
        outcomes = await asyncio.gather(*racers, return_exceptions=True)
        await first.add_note("bob", "bob's own")
        kept = await first.list_notes("alice", 10)

    refused = [o for o in outcomes if isinstance(o, MemoryLimitError)]
    assert len(kept) == 3 and len(refused) == 2
    assert "ASSISTANT_MAX_NOTES_PER_USER=3" in str(refused[0])


async def test_notes_are_listed_a_page_at_a_time(store: MemoryStore) -> None:
    for n in range(5):
        await store.add_note("alice", f"note {n}")
    pages = [await store.list_notes("alice", 2, offset) for offset in (0, 2, 4)]
    assert [[n.content for n in page] for page in pages] == [
        ["note 4", "note 3"],
        ["note 2", "note 1"],
        ["note 0"],
    ]


async def test_notes_are_found_by_their_tags_newest_first(store: MemoryStore) -> None:
    await store.add_note("alice", "bring the forms", ["2026-03-11"])
    await store.add_note("alice", "gym bag", ["Wednesday", "gym"])
    await store.add_note("alice", "not today", ["todays"])
    await store.add_note("alice", "100% sure", ["a_b"])
    await store.add_note("bob", "bob's forms", ["2026-03-11"])

    found = await store.tagged_notes("alice", ["#2026-03-11", "wednesday"])
    assert [n.content for n in found] == ["gym bag", "bring the forms"]
    assert await store.tagged_notes("alice", ["today"]) == []  # whole tags only
    assert [n.content for n in await store.tagged_notes("alice", ["a_b"])] == ["100% sure"]
    assert await store.tagged_notes("alice", ["a%b"]) == []  # no pattern characters
    assert await store.tagged_notes("alice", []) == []
    assert len(await store.tagged_notes("alice", ["gym", "wednesday"], limit=1)) == 1

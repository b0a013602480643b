"""Calendars in memory: feeds under hashed tokens, the CalDAV sync's links, the calendars read
(the same tests on SQLite and PostgreSQL)."""

from __future__ import annotations

import hashlib
from dataclasses import replace
from datetime import timedelta

import pytest

from memory import CalendarLink, CalendarSource, MemoryInputError, MemoryStore
from tests.memory.conftest import START


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


async def test_a_feed_is_found_by_its_hash_replaced_by_a_new_one_and_revoked(
    store: MemoryStore,
) -> None:
    assert await store.calendar_feed("alice") is None
    made = await store.make_calendar_feed("alice", digest("first"))
    assert made.user_id == "alice"
    assert await store.calendar_feed_owner(digest("first")) == "alice"
    await store.make_calendar_feed("alice", digest("second"))
    assert await store.calendar_feed_owner(digest("first")) is None  # the old address is dead
    assert await store.calendar_feed_owner(digest("second")) == "alice"
    assert await store.calendar_feed_owner(digest("bob's")) is None
    assert await store.revoke_calendar_feed("alice")
    assert await store.calendar_feed_owner(digest("second")) is None
    assert not await store.revoke_calendar_feed("alice")
    assert await store.calendar_feed("alice") is None


async def test_a_token_is_kept_only_as_its_digest(store: MemoryStore) -> None:
    with pytest.raises(MemoryInputError, match="SHA-256 hex digest"):
        await store.make_calendar_feed("alice", "the-token-itself")


async def test_links_are_stored_replaced_and_removed_per_user(store: MemoryStore) -> None:
    link = CalendarLink(
        user_id="alice",
        uid="task-k3m9xa@assistant",
        task_id="k3m9xa",
        href="/cal/alice/task-k3m9xa.ics",
        etag='"1"',
        local_state="a",
        remote_state="b",
        conflict=None,
        updated_at=START,
    )
    other = replace(link, user_id="bob", task_id="p2q3rs", href="/cal/bob/x.ics")
    await store.save_calendar_links([link, other])
    assert await store.calendar_links("alice") == [link]
    moved = replace(
        link,
        etag='"2"',
        local_state="c",
        remote_state="d",
        conflict="changed here and there",
        updated_at=START + timedelta(minutes=1),
    )
    await store.save_calendar_links([moved])
    assert await store.calendar_links("alice") == [moved]
    await store.save_calendar_links([], [("alice", link.uid)])
    assert await store.calendar_links("alice") == []
    assert [found.task_id for found in await store.calendar_links("bob")] == ["p2q3rs"]


async def test_calendars_read_for_the_days_are_kept_by_name(store: MemoryStore) -> None:
    source = CalendarSource(user_id="alice", name="work", url="https://cal.example/work.ics")
    await store.save_calendar_source(source)
    read = CalendarSource(
        user_id="alice",
        name="work",
        url=source.url,
        ics="BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n",
        fetched_at=START,
        error=None,
    )
    await store.save_calendar_source(read)
    assert await store.calendar_sources("alice") == [read]
    assert await store.calendar_sources("bob") == []
    assert await store.delete_calendar_source("alice", "work")
    assert not await store.delete_calendar_source("alice", "work")
    with pytest.raises(MemoryInputError, match="a calendar's name"):
        await store.save_calendar_source(CalendarSource(user_id="alice", name=" ", url="x"))

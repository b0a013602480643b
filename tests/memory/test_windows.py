"""ChatWindows: the decoded turns kept per chat between history loads."""

from __future__ import annotations

import pytest

from memory._windows import ChatWindows
from memory.models import MessageRole, StoredMessage

ONE = (StoredMessage(MessageRole.USER, "one"),)


def test_the_least_recently_loaded_chat_goes_first() -> None:
    windows = ChatWindows(max_chats=2)
    windows.put(("alice", "a"), {1: ONE})
    windows.put(("alice", "b"), {2: ONE})
    windows.put(("alice", "a"), {1: ONE, 3: ONE})  # loaded again: now the most recent

    windows.put(("bob", "c"), {4: ONE})

    assert windows.get(("alice", "b")) == {}
    assert windows.get(("alice", "a")) == {1: ONE, 3: ONE}
    assert windows.get(("bob", "c")) == {4: ONE}


def test_dropping_a_chat_forgets_its_turns() -> None:
    windows = ChatWindows()
    windows.put(("alice", "a"), {1: ONE})
    windows.drop(("alice", "a"))
    windows.drop(("alice", "never"))

    assert windows.get(("alice", "a")) == {}


def test_a_bound_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="max_chats must be 1 or more, got 0"):
        ChatWindows(max_chats=0)

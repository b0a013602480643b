"""Splitting long text, callback data and keyboards for Telegram."""

from __future__ import annotations

import pytest

from interfaces import Action, ActionKind, Button
from interfaces.telegram import (
    MAX_CALLBACK_DATA,
    decode_action,
    encode_action,
    keyboard,
    split_text,
    truncate,
    utf16_len,
)


def test_short_text_is_one_chunk() -> None:
    assert split_text("  hello\n") == ["hello"]
    assert split_text("") == []


def test_split_prefers_paragraph_boundaries() -> None:
    paragraphs = [f"paragraph {i} " + "x" * 1500 for i in range(5)]
    chunks = split_text("\n\n".join(paragraphs))
    assert all(utf16_len(chunk) <= 4096 for chunk in chunks)
    # Each chunk holds whole paragraphs: two fit in 4096, three do not.
    assert chunks == ["\n\n".join(paragraphs[0:2]), "\n\n".join(paragraphs[2:4]), paragraphs[4]]


def test_split_falls_back_to_lines_words_then_hard_cuts() -> None:
    lines = "\n".join("line " + "y" * 70 for _ in range(100))
    line_chunks = split_text(lines, limit=1000)
    assert all(c.startswith("line ") and c.endswith("y") for c in line_chunks)
    words = " ".join(["word"] * 1000)
    assert all(not c.endswith(" ") and c.endswith("word") for c in split_text(words, limit=100))
    solid = "z" * 250
    assert split_text(solid, limit=100) == ["z" * 100, "z" * 100, "z" * 50]


def test_split_counts_utf16_units_and_never_breaks_a_character() -> None:
    text = "😀" * 3000  # 6000 UTF-16 units
    chunks = split_text(text)
    assert [utf16_len(c) for c in chunks] == [4096, 6000 - 4096]
    assert "".join(chunks) == text


def test_split_keeps_all_words() -> None:
    text = "\n\n".join(" ".join(f"w{i}_{j}" for j in range(300)) for i in range(10))
    chunks = split_text(text, limit=500)
    assert " ".join(chunks).split() == text.split()


def test_split_rejects_a_useless_limit() -> None:
    with pytest.raises(ValueError, match="limit must be at least 2"):
        split_text("abc", limit=1)


def test_callback_data_round_trips() -> None:
    actions = [
        Action(ActionKind.SNOOZE, "k3m9xa", "10m"),
        Action(ActionKind.APPROVE, "apr_0123456789abcdef"),
        *(Action(kind, "abc123") for kind in ActionKind),
    ]
    for action in actions:
        data = encode_action(action)
        assert len(data.encode()) <= MAX_CALLBACK_DATA
        assert decode_action(data) == action


@pytest.mark.parametrize(
    "data",
    [
        None,
        "",
        "hello",
        "a1:c",
        "a1:q:abc:",
        "a0:c:abc:",
        "a1:c::",
        "a1:c:a b:",
        "a1:c:x:y:z",
        "é" * 40,
    ],
)
def test_forged_callback_data_is_not_an_action(data: str | None) -> None:
    assert decode_action(data) is None


def test_unencodable_actions_are_refused_clearly() -> None:
    with pytest.raises(ValueError, match="cannot put target 'a:b'"):
        encode_action(Action(ActionKind.CANCEL, "a:b"))
    with pytest.raises(ValueError, match="longer than Telegram's 64 bytes"):
        encode_action(Action(ActionKind.CANCEL, "x" * 70))


def test_keyboard_rows() -> None:
    assert keyboard(()) is None
    markup = keyboard(((Button("Done", Action(ActionKind.DONE, "t1")),),))
    assert markup is not None
    [[button]] = markup.inline_keyboard
    assert button.text == "Done"
    assert decode_action(str(button.callback_data)) == Action(ActionKind.DONE, "t1")


def test_truncate() -> None:
    assert truncate("abcdef", 10) == "abcdef"
    assert truncate("abcdef", 4) == "abc…"

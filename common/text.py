"""Text from outside, made safe to store and show: no lone surrogates, no NUL.

A JSON string may carry half of a surrogate pair (``"\\ud83d"``), and bytes that are not UTF-8
reach Python as lone surrogates (``surrogateescape``, as command-line arguments do). Such a
string cannot be encoded as UTF-8, so SQLite, a terminal or a JSON body refuses it, and the
whole turn with it. PostgreSQL refuses U+0000 (NUL) in any text (SQLite takes it), and pages,
API answers and models do send it. ``clean_text`` removes every NUL, replaces each lone
surrogate by U+FFFD (the replacement character) and joins a pair that was split into its two
halves; it is applied where text enters the program (a message, a model's reply) and where it
is stored, so both databases keep the same text. ``unstorable`` says what in a text would be
changed, for a caller that refuses such text instead (the HTTP API answers 422).
"""

from __future__ import annotations

import re
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def clean_text(text: str) -> str:
    """Return ``text`` without NUL characters and with every lone surrogate replaced by
    U+FFFD (pairs joined)."""
    if text.isascii() and "\x00" not in text:  # the usual text, answered without a regex
        return text
    if not _UNSTORABLE.search(text):
        return text
    text = text.replace("\x00", "")
    if not _SURROGATE.search(text):
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def clean_value(value: Any) -> Any:
    """Return a JSON-like value with every string in it (keys too) cleaned."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, dict):
        return {clean_value(k): clean_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [clean_value(item) for item in value]
    return value


def unstorable(text: str) -> str | None:
    """Say what in ``text`` cannot be stored as it is (the first NUL or lone surrogate, and
    where), or return ``None`` when nothing."""
    found = _UNSTORABLE.search(text)
    if found is None:
        return None
    if found.group() == "\x00":
        return f"a NUL character (U+0000) at position {found.start()}, which cannot be stored"
    return (
        f"a lone UTF-16 surrogate ({found.group()!a}) at position {found.start()}: half of a "
        "character, which is not text"
    )

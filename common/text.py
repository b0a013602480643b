"""Text from outside, made safe to store and show: no lone surrogates.

A JSON string may carry half of a surrogate pair (``"\\ud83d"``), and bytes that are not UTF-8
reach Python as lone surrogates (``surrogateescape``, as command-line arguments do). Such a
string cannot be encoded as UTF-8, so SQLite, a terminal or a JSON body refuses it, and the
whole turn with it. ``clean_text`` replaces each lone surrogate by U+FFFD (the replacement
character) and joins a pair that was split into its two halves; it is applied where text
enters the program (a message, a model's reply) and where it is stored.
"""

from __future__ import annotations

import re
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")


def clean_text(text: str) -> str:
    """Return ``text`` with every lone surrogate replaced by U+FFFD (pairs joined)."""
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

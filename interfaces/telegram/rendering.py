"""Telegram rendering: splitting long text, button callback data, inline keyboards.

Messages go out as plain text (no parse mode), so nothing needs escaping: what the agent
wrote is what the user sees, ``<b>`` and ``*`` included.
"""

from __future__ import annotations

import re

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from interfaces.messages import Action, ActionKind, ButtonRows

MAX_MESSAGE = 4096  # Telegram's limit, in UTF-16 code units
MAX_CALLBACK_DATA = 64  # bytes
_MIN_CUT_RATIO = 0.5  # a soft boundary must keep at least half the limit in the chunk

_CODES: dict[ActionKind, str] = {
    ActionKind.CANCEL: "c",
    ActionKind.PAUSE: "p",
    ActionKind.RESUME: "r",
    ActionKind.RUN_NOW: "n",
    ActionKind.RUN_AGAIN: "g",
    ActionKind.SNOOZE: "s",
    ActionKind.LATER: "l",
    ActionKind.DONE: "d",
    ActionKind.APPROVE: "y",
    ActionKind.DENY: "x",
    ActionKind.IMPORT: "i",
    ActionKind.DROP_IMPORT: "o",
}
_KINDS = {code: kind for kind, code in _CODES.items()}
_FIELD = re.compile(r"^[A-Za-z0-9_.-]*$")
_PREFIX = "a1"  # a version tag: data from an older layout is rejected politely, not misread


def utf16_len(text: str) -> int:
    """Return the length of ``text`` as Telegram counts it (UTF-16 code units)."""
    return len(text.encode("utf-16-le")) // 2


def split_text(text: str, limit: int = MAX_MESSAGE) -> list[str]:
    """Split ``text`` into chunks of at most ``limit`` UTF-16 units.

    Cuts at the last paragraph break (blank line) that fits, else at a line break, else at a
    space, else hard; soft cuts are only taken when they keep the chunk at least half full,
    so a single long paragraph does not yield a run of tiny messages.

    Raises:
        ValueError: when ``limit`` is below 2.
    """
    if limit < 2:
        raise ValueError(f"limit must be at least 2 UTF-16 units, got {limit!r}")
    chunks: list[str] = []
    rest = text.strip()
    while utf16_len(rest) > limit:
        cut = _cut_point(rest, limit)
        chunk, rest = rest[:cut].rstrip(), rest[cut:].lstrip()
        if chunk:
            chunks.append(chunk)
    if rest:
        chunks.append(rest)
    return chunks


def _cut_point(text: str, limit: int) -> int:
    """Return the index to cut ``text`` at so that the first part fits in ``limit``."""
    fits = _fitting_prefix(text, limit)
    window = text[:fits]
    for separator in ("\n\n", "\n", " "):
        at = window.rfind(separator)
        if at >= fits * _MIN_CUT_RATIO:
            return at + len(separator)
    return fits


def _fitting_prefix(text: str, limit: int) -> int:
    """Return the largest number of code points of ``text`` that fit in ``limit`` units."""
    used = 0
    for index, char in enumerate(text):
        used += 2 if ord(char) > 0xFFFF else 1
        if used > limit:
            return index
    return len(text)


def truncate(text: str, limit: int) -> str:
    """Return ``text`` cut to ``limit`` characters, marked with an ellipsis when cut."""
    if len(text) <= limit:
        return text
    return text[: max(0, limit - 1)].rstrip() + "…"


def encode_action(action: Action) -> str:
    """Encode ``action`` as callback data (at most 64 bytes).

    Raises:
        ValueError: when the target or argument has characters outside ``[A-Za-z0-9_.-]`` or
            the result is longer than Telegram allows.
    """
    for name, value in (("target", action.target), ("arg", action.arg)):
        if not _FIELD.match(value) or (name == "target" and not value):
            raise ValueError(
                f"cannot put {name} {value!r} in a button: use letters, digits, '_', '.' or '-'"
            )
    data = f"{_PREFIX}:{_CODES[action.kind]}:{action.target}:{action.arg}"
    if len(data.encode()) > MAX_CALLBACK_DATA:
        raise ValueError(
            f"button data {data!r} is longer than Telegram's {MAX_CALLBACK_DATA} bytes"
        )
    return data


def decode_action(data: str | None) -> Action | None:
    """Read callback data written by ``encode_action``; ``None`` for anything else."""
    if data is None or len(data.encode()) > MAX_CALLBACK_DATA:
        return None
    parts = data.split(":")
    if len(parts) != 4 or parts[0] != _PREFIX:
        return None
    _, code, target, arg = parts
    kind = _KINDS.get(code)
    if kind is None or not target or not _FIELD.match(target) or not _FIELD.match(arg):
        return None
    return Action(kind, target, arg)


def keyboard(rows: ButtonRows) -> InlineKeyboardMarkup | None:
    """Return the inline keyboard for ``rows``, or ``None`` when there are no buttons."""
    if not rows:
        return None
    return InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(button.label, callback_data=encode_action(button.action))
                for button in row
            ]
            for row in rows
            if row
        ]
    )

"""A forgiving JSON reader for the damage models do to JSON.

``ToolParser`` tries the strict C decoder first and falls back to :func:`parse_lenient` only
when that fails. The lenient reader accepts trailing commas, missing commas, single-quoted
strings, unquoted keys, ``True``/``False``/``None`` (and ``NaN``/``Infinity``), ``//`` comments,
raw control characters inside strings, and input that stops before its closing brackets.

A cut that lands anywhere else (inside a string, after a key or a colon) makes the value
incomplete: :class:`RepairError` is raised rather than guessing what the model meant, so a
truncated argument is never passed to a tool as if it were whole.

The reader is a single forward pass driven by anchored regular expressions with possessive
quantifiers, so it runs in time linear in the text it reads.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

from common import LazyPattern

MAX_DEPTH = 64
"""Deepest nesting the lenient reader follows (tool arguments are never that deep)."""

_SKIP = LazyPattern(r"(?:\s++|//[^\n]*+)*+")
_NUMBER = LazyPattern(r"[-+]?(?:\d++(?:\.\d*+)?|\.\d++)(?:[eE][-+]?\d++)?")
_WORD = LazyPattern(r"[A-Za-z_$][\w$]*+")
_BODY = {
    '"': re.compile(r'(?:[^"\\]++|\\.)*+', re.S),
    "'": re.compile(r"(?:[^'\\]++|\\.)*+", re.S),
}
_ESCAPE = LazyPattern(r"\\(u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|x[0-9a-fA-F]{2}|.)", re.S)
_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "0": "\0"}
_LITERALS: dict[str, object] = {
    "true": True,
    "True": True,
    "false": False,
    "False": False,
    "null": None,
    "None": None,
    "NaN": math.nan,
    "Infinity": math.inf,
}
_CLOSERS = "}]"
_STRING_DECODER = json.JSONDecoder(strict=False)


class RepairError(ValueError):
    """The text is not JSON, even allowing for the damage this module repairs.

    Attributes:
        steps: How many tokens the reader went through before giving up.
    """

    def __init__(self, message: str, steps: int = 0) -> None:
        super().__init__(message)
        self.steps = steps


class _Incomplete(RepairError):
    """The text stops inside a string, a key or a member, so the value cannot be trusted."""


@dataclass(frozen=True, slots=True)
class Lenient:
    """A value read by :func:`parse_lenient`.

    Attributes:
        value: The decoded value.
        end: The offset just past the last character the value used.
        steps: How many tokens were read (the caller's measure of the work done).
    """

    value: Any
    end: int
    steps: int


def parse_lenient(text: str, pos: int, end: int, *, max_steps: int) -> Lenient:
    """Read one JSON-ish value from ``text[pos:end]``.

    Args:
        text: The whole reply.
        pos: Where the value starts (a ``{`` or ``[`` usually).
        end: Where the region ends; reaching it closes every open bracket.
        max_steps: How many tokens the reader may go through before it gives up.

    Raises:
        RepairError: The region does not hold a value this reader can repair, or reading it
            would take more than ``max_steps`` tokens.
    """
    reader = _Reader(text, end, max_steps)
    try:
        value, stop = reader.value(skip_space(text, pos, end), 0)
    except RepairError as error:
        error.steps = reader.steps
        raise
    return Lenient(value, stop, reader.steps)


def skip_space(text: str, pos: int, end: int) -> int:
    """Return the first offset at or after ``pos`` that is not space or a ``//`` comment."""
    match = _SKIP.match(text, pos, end)
    return match.end() if match else pos


def unescape(body: str, quote: str) -> str:
    """Return the value of a string literal's ``body`` (without quotes), escapes resolved."""
    if "\\" not in body:
        return body
    if quote == '"':
        try:
            value = _STRING_DECODER.decode(f'"{body}"')
        except ValueError:
            pass
        else:
            if isinstance(value, str):
                return value
    decoded = _ESCAPE.sub(_replace_escape, body)
    try:
        # Joins surrogate pairs written as two \u escapes; lone surrogates stay as they are.
        return decoded.encode("utf-16", "surrogatepass").decode("utf-16")
    except UnicodeError:
        return decoded


def _replace_escape(match: re.Match[str]) -> str:
    token = match.group(1)
    if len(token) == 1:
        return _SIMPLE_ESCAPES.get(token, token)
    code = int(token[1:], 16)
    return chr(code) if code <= 0x10FFFF else token


class _Reader:
    """One pass of the lenient reader over ``text`` up to ``end``."""

    def __init__(self, text: str, end: int, max_steps: int) -> None:
        self.text = text
        self.end = end
        self.max_steps = max_steps
        self.steps = 0

    def skip(self, pos: int) -> int:
        """Return the offset of the next significant character at or after ``pos``."""
        self.steps += 1
        if self.steps > self.max_steps:
            raise RepairError(f"gave up after {self.max_steps} tokens")
        match = _SKIP.match(self.text, pos, self.end)
        return match.end() if match else pos

    def value(self, pos: int, depth: int) -> tuple[Any, int]:
        """Read the value starting at ``pos`` (already past any whitespace)."""
        if pos >= self.end:
            raise _Incomplete("the text ends where a value should start")
        char = self.text[pos]
        if char == "{":
            return self.container(pos, depth, is_object=True)
        if char == "[":
            return self.container(pos, depth, is_object=False)
        if char in "\"'":
            return self.string(pos)
        number = _NUMBER.match(self.text, pos, self.end)
        if number:
            return _number(number.group()), number.end()
        word = _WORD.match(self.text, pos, self.end)
        if word and word.group() in _LITERALS:
            return _LITERALS[word.group()], word.end()
        raise RepairError(f"no JSON value starts at offset {pos}: {self.text[pos : pos + 20]!r}")

    def string(self, pos: int) -> tuple[str, int]:
        """Read a single- or double-quoted string starting at ``pos``."""
        quote = self.text[pos]
        body = _BODY[quote].match(self.text, pos + 1, self.end)
        stop = body.end() if body else pos + 1
        if stop >= self.end or self.text[stop] != quote:
            raise _Incomplete("the text ends inside a string")
        return unescape(self.text[pos + 1 : stop], quote), stop + 1

    def key(self, pos: int) -> tuple[str, int]:
        """Read an object key: a string, a bare word or a number."""
        if self.text[pos] in "\"'":
            return self.string(pos)
        word = _WORD.match(self.text, pos, self.end) or _NUMBER.match(self.text, pos, self.end)
        if word is None:
            raise RepairError(f"no object key at offset {pos}: {self.text[pos : pos + 20]!r}")
        if word.end() >= self.end:
            raise _Incomplete("the text ends inside a key")
        return word.group(), word.end()

    def container(self, pos: int, depth: int, *, is_object: bool) -> tuple[Any, int]:
        """Read an object or array whose opening bracket is at ``pos``."""
        if depth >= MAX_DEPTH:
            raise RepairError(f"nesting deeper than {MAX_DEPTH} levels")
        closer = "}" if is_object else "]"
        members: dict[str, Any] = {}
        items: list[Any] = []
        consumed = pos + 1
        pos = self.skip(consumed)
        while pos < self.end:
            char = self.text[pos]
            if char == closer:
                return (members if is_object else items), pos + 1
            if char in _CLOSERS:
                # A mismatched closer: this container was left open; let the parent use it.
                return (members if is_object else items), consumed
            if char == ",":
                consumed = pos + 1
            elif is_object:
                name, pos = self.key(pos)
                pos = self.skip(pos)
                if pos >= self.end:
                    raise _Incomplete("the text ends after an object key")
                if self.text[pos] not in ":=":
                    raise RepairError(f"expected ':' after key {name!r} at offset {pos}")
                members[name], consumed = self.value(self.skip(pos + 1), depth + 1)
            else:
                item, consumed = self.value(pos, depth + 1)
                items.append(item)
            pos = self.skip(consumed)
        # The text ends before this container closes: close it where its last token ended.
        return (members if is_object else items), consumed


def _number(token: str) -> int | float:
    try:
        if any(mark in token for mark in ".eE"):
            return float(token)
        return int(token)
    except ValueError as error:  # more digits than int() accepts
        raise RepairError(f"number {token[:20]!r}... is too long") from error

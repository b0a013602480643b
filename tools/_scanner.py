"""One left-to-right pass over a model's reply that finds the blocks holding tool calls.

The pass jumps between the four characters that can start a call (a backtick, ``{``, ``[``
and ``<``) with ``str.find``, so prose costs almost nothing. At each one it checks cheaply
what starts there (a fence, a ``<tool_call>`` tag, ``[TOOL_CALLS]``, ``<function=...>``, a
JSON object or array, a Python-style call list) and reads it: strictly with the C JSON decoder
first, with the lenient reader of :mod:`tools._jsonrepair` only when that fails.

Every read is charged to a work budget proportional to the length of the reply, and the
searches for closing markers are memoised, so the total work stays linear even on adversarial
input: the pass stops looking once a reply has cost several times its own length.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass

from tools._callshapes import CallShape, read_calls
from tools._jsonrepair import RepairError, parse_lenient, skip_space
from tools._pycalls import BracketScan, parse_call, scan_brackets

_TRIGGERS = ("`", "{", "[", "<")
_OBJECT_START = re.compile(r"\{\s*+[\"']")
_ARRAY_START = re.compile(r"\[\s*+\{")
_PY_LIST_START = re.compile(r"\[\s*+[A-Za-z_][\w.]*+\s*+\(")
_PY_CALL_START = re.compile(r"[A-Za-z_][\w.]*+\s*+\(")
_FENCE_OPEN = re.compile(r"(`{3,16}+)(?!`)[ \t]*+([\w+.#-]*+)")
_BACKTICKS = re.compile(r"`++")
_TAG_OPEN = "<tool_call>"
_TAG_CLOSE = "</tool_call>"
_TAG_BOUNDARY = re.compile(r"</tool_call>|<tool_call>", re.I)
_FUNCTION_OPEN = re.compile(r"<function=([^>\s]{1,128})>")
_FUNCTION_CLOSE = re.compile(r"\s*+</function>")
_FUNCTION_BOUNDARY = re.compile(r"</function>")
_MISTRAL = "[TOOL_CALLS]"
_MISTRAL_BOUNDARY = re.compile(re.escape(_MISTRAL))
_MISTRAL_NAMED = re.compile(r"([\w.\-]{1,128})(?:\[CALL_ID\][\w-]*+)?\[ARGS\]")
_CALL_FENCE_TAGS = frozenset({"tool_code", "tool_call", "tool_calls", "tool", "function_call"})
_BUDGET_PER_CHAR = 8
_BUDGET_BASE = 1 << 16


@dataclass(frozen=True, slots=True)
class Hit:
    """One call and the offsets of the text it was read from."""

    shape: CallShape
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Block:
    """A stretch of the reply that holds calls (a fence, a tag, a bare object...)."""

    start: int
    end: int
    hits: tuple[Hit, ...]


_Found = tuple[list[Hit], int]
"""Calls read at some offset, and the offset just past what was read."""


class Scan:
    """The state of one pass over one reply; call :meth:`run` once."""

    def __init__(
        self, text: str, *, accepts: Callable[[str], bool], decoder: json.JSONDecoder
    ) -> None:
        self.text = text
        self.size = len(text)
        self.accepts = accepts
        self.decoder = decoder
        self.budget = _BUDGET_PER_CHAR * self.size + _BUDGET_BASE
        self.blocks: list[Block] = []
        self._memo: dict[object, tuple[int, int]] = {}

    def run(self) -> list[Block]:
        """Return the blocks that hold calls, in the order they appear."""
        text = self.text
        upcoming = [text.find(char) for char in _TRIGGERS]
        while self.budget > 0:
            at = min((found for found in upcoming if found >= 0), default=-1)
            if at < 0:
                break
            resume = self._dispatch(at)
            for index, found in enumerate(upcoming):
                if 0 <= found < resume:
                    upcoming[index] = text.find(_TRIGGERS[index], resume)
        return self.blocks

    def _dispatch(self, at: int) -> int:
        """Read whatever starts at ``at``; return where the pass resumes (always > ``at``)."""
        text = self.text
        char = text[at]
        if char == "`":
            opening = _FENCE_OPEN.match(text, at)
            if opening is not None:
                return self._fence(at, opening)
            run = _BACKTICKS.match(text, at)
            return at + 1 if run is None else run.end()
        if char == "<":
            if text[at : at + len(_TAG_OPEN)].lower() == _TAG_OPEN:
                return self._tag(at)
            opening = _FUNCTION_OPEN.match(text, at)
            return at + 1 if opening is None else self._function_tag(at, opening)
        if char == "[":
            if text.startswith(_MISTRAL, at):
                return self._mistral(at)
            if _ARRAY_START.match(text, at) or _PY_LIST_START.match(text, at):
                return self._bare(at)
            return at + 1
        return self._bare(at) if _OBJECT_START.match(text, at) else at + 1

    # Blocks -------------------------------------------------------------------------------

    def _bare(self, at: int) -> int:
        """A JSON object or array (or a Python-style list) in prose: a call only if it names one."""
        found = self._values(at, self.size, strong=False)
        if found is None:
            return at + 1
        hits, end = found
        kept = [hit for hit in hits if self.accepts(hit.shape.name)]
        if kept:
            self.blocks.append(Block(at, end, tuple(kept)))
        return end

    def _fence(self, at: int, opening: re.Match[str]) -> int:
        """A fenced block: ```` ```json ```` (any language tag, or none) up to its closing fence."""
        fence, language = opening.group(1), opening.group(2).lower()

        def closer(pos: int) -> int:
            return self._fence_close(pos, fence)

        hits, stop, close_at = self._body(
            opening.end(), closer, bare_calls=language in _CALL_FENCE_TAGS
        )
        end = close_at + len(fence) if close_at >= 0 else stop
        if hits:
            self.blocks.append(Block(at, end, tuple(hits)))
            return end
        return end if close_at >= 0 else opening.end()

    def _tag(self, at: int) -> int:
        content = at + len(_TAG_OPEN)

        def closer(pos: int) -> int:
            return self._find(_TAG_BOUNDARY, pos)

        hits, stop, close_at = self._body(content, closer, bare_calls=True)
        closed = close_at >= 0 and self.text[close_at + 1 : close_at + 2] == "/"
        end = close_at + len(_TAG_CLOSE) if closed else stop
        if hits:
            self.blocks.append(Block(at, end, tuple(hits)))
            return end
        return end if closed else content

    def _function_tag(self, at: int, opening: re.Match[str]) -> int:
        """Llama 3.1's ``<function=NAME>{...}</function>``."""
        start = skip_space(self.text, opening.end(), self.size)
        boundary = self._find(_FUNCTION_BOUNDARY, start)
        got = self._decode(start, self.size if boundary < 0 else boundary)
        if got is None:
            return opening.end()
        value, end = got
        shapes = read_calls({"name": opening.group(1), "arguments": value})
        closing = _FUNCTION_CLOSE.match(self.text, end)
        end = closing.end() if closing else end
        if shapes:
            self.blocks.append(Block(at, end, tuple(Hit(s, at, end) for s in shapes)))
        return end

    def _mistral(self, at: int) -> int:
        """``[TOOL_CALLS][{...}]`` (Mistral v3) or ``[TOOL_CALLS]NAME[ARGS]{...}`` (v11)."""
        content = at + len(_MISTRAL)
        boundary = self._find(_MISTRAL_BOUNDARY, content)
        limit = self.size if boundary < 0 else boundary
        start = skip_space(self.text, content, limit)
        found: _Found | None
        if start < limit and self.text[start] in "{[":
            found = self._values(start, limit, strong=True)
        else:
            found = self._named_calls(start, limit)
        if found is None or not found[0]:
            return content
        hits, end = found
        self.blocks.append(Block(at, end, tuple(hits)))
        return end

    def _named_calls(self, pos: int, limit: int) -> _Found | None:
        hits: list[Hit] = []
        end = pos
        while (named := _MISTRAL_NAMED.match(self.text, pos, limit)) is not None:
            got = self._decode(skip_space(self.text, named.end(), limit), limit)
            if got is None:
                break
            value, end = got
            shapes = read_calls({"name": named.group(1), "arguments": value})
            hits.extend(Hit(shape, pos, end) for shape in shapes)
            pos = skip_space(self.text, end, limit)
        return (hits, end) if hits else None

    def _body(
        self, pos: int, closer: Callable[[int], int], *, bare_calls: bool
    ) -> tuple[list[Hit], int, int]:
        """Read calls from a fence's or tag's content up to its closing marker.

        Returns:
            The calls, where reading stopped, and where the closing marker starts (-1: none).
        """
        hits: list[Hit] = []
        while True:
            pos = skip_space(self.text, pos, self.size)
            close_at = closer(pos)
            limit = self.size if close_at < 0 else close_at
            found = self._content(pos, limit, bare_calls=bare_calls) if pos < limit else None
            if found is None:
                return hits, pos, close_at
            more, pos = found
            hits.extend(more)

    def _content(self, pos: int, limit: int, *, bare_calls: bool) -> _Found | None:
        if self.text[pos] in "{[":
            return self._values(pos, limit, strong=True)
        if bare_calls and _PY_CALL_START.match(self.text, pos, limit):
            return self._py_call(pos, limit)
        return None

    # Values -------------------------------------------------------------------------------

    def _values(self, pos: int, limit: int, *, strong: bool) -> _Found | None:
        """Read the value at ``pos``: its calls (possibly none) and its end, or ``None``."""
        if self.text[pos] == "[":
            if _PY_LIST_START.match(self.text, pos, limit):
                return self._py_list(pos, limit, strong=strong)
            return self._array(pos, limit)
        got = self._decode(pos, limit)
        if got is None:
            return None
        value, end = got
        return [Hit(shape, pos, end) for shape in read_calls(value)], end

    def _array(self, pos: int, limit: int) -> _Found:
        """Read an array element by element, so one broken call does not lose the others."""
        text = self.text
        hits: list[Hit] = []
        cursor = skip_space(text, pos + 1, self.size)
        while cursor < self.size:
            char = text[cursor]
            if char == "]":
                return hits, cursor + 1
            if char == ",":
                cursor = skip_space(text, cursor + 1, self.size)
                continue
            got = self._decode(cursor, limit)
            if got is not None:
                value, end = got
                hits.extend(Hit(shape, cursor, end) for shape in read_calls(value))
            elif char in "{[" and (scan := self._brackets(cursor, limit)) is not None:
                end = scan.close + 1
            else:
                break
            cursor = skip_space(text, end, self.size)
        return hits, cursor

    def _decode(self, pos: int, limit: int) -> tuple[object, int] | None:
        """Decode the JSON value at ``pos``: strictly, else leniently within ``limit``."""
        try:
            value, end = self.decoder.raw_decode(self.text, pos)
        except json.JSONDecodeError as error:
            self.budget -= max(error.pos - pos, 1)
        except RecursionError:
            # Nested deeper than the interpreter allows: not a tool call. How far the decoder
            # got is unknown, so charge the rest of the text.
            self.budget -= self.size - pos + 1
            return None
        except ValueError:  # an integer literal longer than int() accepts
            self.budget -= limit - pos + 1
            return None
        else:
            self.budget -= end - pos
            return value, end
        if pos >= limit:
            return None
        try:
            value, end = parse_lenient(self.text, pos, limit)
        except RepairError as error:
            self.budget -= max(error.reached - pos, 1)
            return None
        self.budget -= end - pos
        return value, end

    def _py_list(self, pos: int, limit: int, *, strong: bool) -> _Found | None:
        """``[f(a=1), g()]``; in prose every element must be a call, else it is prose."""
        scan = self._brackets(pos, limit)
        if scan is None:
            return None
        hits: list[Hit] = []
        starts = (pos + 1, *(comma + 1 for comma in scan.commas))
        ends = (*scan.commas, scan.close)
        for start, end in zip(starts, ends, strict=True):
            piece = self.text[start:end]
            first = start + len(piece) - len(piece.lstrip())
            last = start + len(piece.rstrip())
            if first >= last:
                continue
            call = parse_call(self.text[first:last])
            if call is not None:
                hits.append(Hit(CallShape(call.name, call.arguments), first, last))
            elif not strong:
                return [], scan.close + 1
        return hits, scan.close + 1

    def _py_call(self, pos: int, limit: int) -> _Found | None:
        """A bare ``f(a=1)`` inside a tag or a ``tool_code`` fence."""
        opening = _PY_CALL_START.match(self.text, pos, limit)
        if opening is None:
            return None
        scan = self._brackets(opening.end() - 1, limit)
        if scan is None:
            return None
        end = scan.close + 1
        call = parse_call(self.text[pos:end])
        hits = [] if call is None else [Hit(CallShape(call.name, call.arguments), pos, end)]
        return hits, end

    # Searches -----------------------------------------------------------------------------

    def _brackets(self, pos: int, limit: int) -> BracketScan | None:
        scan = scan_brackets(self.text, pos, limit)
        self.budget -= (limit if scan is None else scan.close) - pos + 1
        return scan

    def _fence_close(self, pos: int, fence: str) -> int:
        """Where the fence that ends the block starts: preferably one at the start of a line."""
        if self.text.startswith(fence, pos):
            return pos
        line_start = self._find(re.compile("(?m)^[ \t]*+" + fence), pos, skip=len(fence))
        return line_start if line_start >= 0 else self._find(re.compile(fence), pos)

    def _find(self, pattern: re.Pattern[str], pos: int, *, skip: int = 0) -> int:
        """Offset of the first match at or after ``pos`` (minus ``skip`` from its end), or -1.

        Memoised per pattern: blocks that never close would otherwise make every later block
        search the rest of the text again.
        """
        known = self._memo.get(pattern)
        if known is not None:
            asked, found = known
            if asked <= pos and (found < 0 or pos <= found):
                return found
        match = pattern.search(self.text, pos)
        found = -1 if match is None else (match.end() - skip if skip else match.start())
        self._memo[pattern] = (pos, found)
        return found

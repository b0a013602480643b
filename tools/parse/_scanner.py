"""One left-to-right pass over a model's reply that finds the blocks holding tool calls.

The pass jumps between the places where a call can start (a triple backtick, ``{``, ``[``
and ``<``) with ``str.find``, so prose costs almost nothing. At each one it checks cheaply
what starts there (a fence, a ``<tool_call>`` tag, ``[TOOL_CALLS]``, ``<function=...>``, a
JSON object or array, a Python-style call list) and reads it: strictly with the C JSON decoder
first, with the lenient reader of :mod:`tools.parse._jsonrepair` only when that fails.

Every read is charged to a work budget proportional to the length of the reply, and the
searches for closing markers are memoised, so the total work stays linear even on adversarial
input: the pass stops looking once a reply has cost several times its own length.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass

from tools.parse._callshapes import read_calls
from tools.parse._jsonrepair import skip_space
from tools.parse._reader import BLOCK_STEP, PY_CALL_START, Found, Hit, Limit, Reader

_SPACE = re.compile(r"\s*+")
_OBJECT_START = re.compile(r"\{\s*+[\"']")
_FENCE_OPEN = re.compile(r"(```(?:`*+))[ \t]*+([\w+.#-]*+)")
_LONGEST_FENCE = 16
_TAG_CLOSE = "</tool_call>"
_TAG_BOUNDARY = re.compile(r"</?tool_call>", re.I)
_ANGLE_OPEN = re.compile(r"<(?:[tT][oO][oO][lL]_[cC][aA][lL][lL]>|function=([^>\s]{1,128})>)")
_SQUARE_OPEN = re.compile(r"\[(?:TOOL_CALLS\]|\s*+(?:\{|[A-Za-z_][\w.]*+\s*+\())")
_FUNCTION_CLOSE = re.compile(r"\s*+</function>")
_FUNCTION_BOUNDARY = re.compile(r"</function>")
_MISTRAL = "[TOOL_CALLS]"
_MISTRAL_BOUNDARY = re.compile(re.escape(_MISTRAL))
_MISTRAL_NAMED = re.compile(r"([\w.\-]{1,128})(?:\[CALL_ID\][\w-]*+)?\[ARGS\]")
_CALL_FENCE_TAGS = frozenset({"tool_code", "tool_call", "tool_calls", "tool", "function_call"})

_KINDS = (
    ("`", _FENCE_OPEN),  # first: fences keep a reserve of the work budget (see Scan.run)
    ("{", _OBJECT_START),
    ("[", _SQUARE_OPEN),
    ("<", _ANGLE_OPEN),
)
"""What each kind of block starts with: text to find, then the pattern that must match there.

Each pattern starts with literal text, so that the regex engine's own search is fast too."""
_FIND_TRIES = 4


@dataclass(frozen=True, slots=True)
class Block:
    """A stretch of the reply that holds calls (a fence, a tag, a bare object...)."""

    start: int
    end: int
    hits: tuple[Hit, ...]


class Scan:
    """The state of one pass over one reply; call :meth:`run` once."""

    def __init__(
        self, text: str, *, accepts: Callable[[str], bool], decoder: json.JSONDecoder
    ) -> None:
        self.text = text
        self.size = len(text)
        self.accepts = accepts
        self.reader = Reader(text, decoder=decoder)
        # Only fences may spend the last half of the budget: damaged JSON, tags or lists earlier
        # in the reply must not starve the fenced calls after them.
        self._fence_reserve = self.reader.budget // 2
        self.blocks: list[Block] = []
        self._memo: dict[object, tuple[int, int]] = {}

    def run(self) -> list[Block]:
        """Return the blocks that hold calls, in the order they appear."""
        kinds = range(len(_KINDS))
        offsets: list[int] = []
        openings: list[re.Match[str] | None] = []
        for kind in kinds:
            offset, opening = self._next(kind, 0)
            offsets.append(offset)
            openings.append(opening)
        while self.reader.budget > 0:
            at = min(offsets)
            opening = openings[offsets.index(at)]
            if opening is None:
                break
            resume = self._read(at, opening)
            if self.reader.budget <= self._fence_reserve:
                for kind in kinds[1:]:
                    offsets[kind], openings[kind] = self.size, None
            for kind in kinds:
                if offsets[kind] < resume:
                    offsets[kind], openings[kind] = self._next(kind, resume)
        return self.blocks

    def _next(self, kind: int, pos: int) -> tuple[int, re.Match[str] | None]:
        """The next place at or after ``pos`` where a block of ``kind`` may start.

        ``str.find`` (``memchr``, for one character) jumps to the next place the block's first
        characters occur, where one anchored match checks the rest. Where such places crowd
        together, the regular expression engine takes over and scans in C; either way, prose
        costs nanoseconds a character, and the searches never cover the same text twice.
        """
        needle, pattern = _KINDS[kind]
        text = self.text
        at = text.find(needle, pos)
        for _ in range(_FIND_TRIES):
            if at < 0:
                return self.size, None
            opening = pattern.match(text, at)
            if opening is not None:
                return at, opening
            at = text.find(needle, at + 1)
        opening = pattern.search(text, at) if at >= 0 else None
        return (self.size, None) if opening is None else (opening.start(), opening)

    def _read(self, at: int, opening: re.Match[str]) -> int:
        """Read the block that ``opening`` starts; return where the pass resumes (> ``at``)."""
        char = self.text[at]
        if char == "`":
            return self._fence(at, opening)
        if char == "<":
            if opening.group(1) is not None:
                return self._function_tag(at, opening)
            return self._tag(at)
        if char == "[" and opening.group(0) == _MISTRAL:
            return self._mistral(at)
        return self._bare(at)

    # Blocks -------------------------------------------------------------------------------

    def _bare(self, at: int) -> int:
        """A JSON object or array (or a Python-style list) in prose: a call only if it names one."""
        self.reader.budget -= BLOCK_STEP
        found = self.reader.values(at, self._to_end, strong=False)
        if found is None:
            return at + 1
        hits, end = found
        kept = [hit for hit in hits if self.accepts(hit.shape.name)]
        if kept:
            self.blocks.append(Block(at, end, tuple(kept)))
        return end

    def _fence(self, at: int, opening: re.Match[str]) -> int:
        """A fenced block: ```` ```json ```` (any language tag, or none) up to its closing fence."""
        self.reader.budget -= BLOCK_STEP
        text = self.text
        fence = opening.group(1)
        if len(fence) > _LONGEST_FENCE:
            return opening.end(1)
        # The common case, one strict JSON value and the closing fence, without the general
        # machinery of _body; anything else takes the general path.
        space = _SPACE.match(text, opening.end())
        start = space.end() if space else opening.end()
        if text.startswith("{", start) and (strict := self.reader.strict(start)) is not None:
            value, end = strict
            space = _SPACE.match(text, end)
            close_at = space.end() if space else end
            if text.startswith(fence, close_at):
                hits = [Hit(shape, start, end) for shape in read_calls(value)]
                if hits:
                    self.blocks.append(Block(at, close_at + len(fence), tuple(hits)))
                return close_at + len(fence)

        def at_close(pos: int) -> bool:
            return text.startswith(fence, pos)

        def closer(pos: int) -> int:
            line_start = self._line_fence(pos, fence)
            return line_start if line_start >= 0 else self._find(re.compile(fence), pos)

        def limit(pos: int) -> int:
            # Only a fence at the start of a line: a string value may hold an inline one.
            line_start = self._line_fence(pos, fence)
            return self.size if line_start < 0 else line_start

        bare_calls = opening.group(2).lower() in _CALL_FENCE_TAGS
        hits, stop, close_at = self._body(
            opening.end(), at_close, closer, limit, bare_calls=bare_calls
        )
        end = close_at + len(fence) if close_at >= 0 else stop
        if hits:
            self.blocks.append(Block(at, end, tuple(hits)))
            return end
        return end if close_at >= 0 else opening.end()

    def _tag(self, at: int) -> int:
        """``<tool_call>...</tool_call>``; a tag left open ends at the next one or the end."""
        self.reader.budget -= BLOCK_STEP
        text = self.text
        content = at + len(_TAG_CLOSE) - 1

        def at_close(pos: int) -> bool:
            return _TAG_BOUNDARY.match(text, pos) is not None

        def closer(pos: int) -> int:
            return self._find(_TAG_BOUNDARY, pos)

        hits, stop, close_at = self._body(
            content, at_close, closer, self._limit(_TAG_BOUNDARY), bare_calls=True
        )
        closed = close_at >= 0 and text.startswith("</", close_at)
        end = close_at + len(_TAG_CLOSE) if closed else stop
        if hits:
            self.blocks.append(Block(at, end, tuple(hits)))
            return end
        return end if closed else content

    def _function_tag(self, at: int, opening: re.Match[str]) -> int:
        """Llama 3.1's ``<function=NAME>{...}</function>``."""
        self.reader.budget -= BLOCK_STEP
        start = skip_space(self.text, opening.end(), self.size)
        got = (
            self.reader.decode(start, self._limit(_FUNCTION_BOUNDARY))
            if start < self.size
            else None
        )
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
        self.reader.budget -= BLOCK_STEP
        content = at + len(_MISTRAL)
        start = skip_space(self.text, content, self.size)
        limit = self._limit(_MISTRAL_BOUNDARY)
        found: Found | None = None
        if start < self.size and self.text[start] in "{[":
            found = self.reader.values(start, limit, strong=True)
        elif start < self.size:
            found = self._named_calls(start, limit)
        if found is None or not found[0]:
            return content
        hits, end = found
        self.blocks.append(Block(at, end, tuple(hits)))
        return end

    def _named_calls(self, pos: int, limit: Limit) -> Found | None:
        hits: list[Hit] = []
        end = pos
        while (named := _MISTRAL_NAMED.match(self.text, pos)) is not None:
            start = skip_space(self.text, named.end(), self.size)
            got = self.reader.decode(start, limit) if start < self.size else None
            if got is None:
                break
            value, end = got
            shapes = read_calls({"name": named.group(1), "arguments": value})
            hits.extend(Hit(shape, pos, end) for shape in shapes)
            pos = skip_space(self.text, end, self.size)
        return (hits, end) if hits else None

    def _body(
        self,
        pos: int,
        at_close: Callable[[int], bool],
        closer: Callable[[int], int],
        limit: Limit,
        *,
        bare_calls: bool,
    ) -> tuple[list[Hit], int, int]:
        """Read calls from a fence's or tag's content up to its closing marker.

        Args:
            pos: Where the content starts.
            at_close: Whether the closing marker starts at an offset.
            closer: Where the next closing marker starts (-1: none); only asked when the
                content is not calls, so the common case never searches.
            limit: Where damaged content must be repaired within (asked lazily too).
            bare_calls: Whether ``f(a=1)`` without brackets counts as a call here.

        Returns:
            The calls, where reading stopped, and where the closing marker starts (-1: none).
        """
        hits: list[Hit] = []
        while True:
            pos = skip_space(self.text, pos, self.size)
            if pos >= self.size:
                return hits, pos, -1
            if at_close(pos):
                return hits, pos, pos
            found = self._content(pos, limit, bare_calls=bare_calls)
            if found is None:
                return hits, pos, closer(pos)
            more, pos = found
            hits.extend(more)

    def _content(self, pos: int, limit: Limit, *, bare_calls: bool) -> Found | None:
        if self.text[pos] in "{[":
            return self.reader.values(pos, limit, strong=True)
        if bare_calls and PY_CALL_START.match(self.text, pos):
            return self.reader.py_call(pos, limit(pos))
        return None

    # Searches -----------------------------------------------------------------------------

    def _to_end(self, pos: int) -> int:
        return self.size

    def _limit(self, boundary: re.Pattern[str]) -> Limit:
        """A region that ends at the next match of ``boundary`` (or at the end of the reply)."""

        def limit(pos: int) -> int:
            found = self._find(boundary, pos)
            return self.size if found < 0 else found

        return limit

    def _line_fence(self, pos: int, fence: str) -> int:
        """Where the next ``fence`` at the start of a line (after indentation) starts, or -1."""
        if self.text.startswith(fence, pos):
            return pos
        return self._find(re.compile("(?m)^[ \t]*+" + fence), pos, skip=len(fence))

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

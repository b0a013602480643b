"""Reading values at candidate offsets, within a work budget: strict JSON, repaired JSON, and
Python-style calls.

:class:`Reader` is the half of the scan that decodes; :mod:`tools.parse._scanner` decides where to
look. The budget is shared by both halves: every decode, repair and bracket scan is charged to
it, so a reply never costs more than a fixed multiple of its length.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from common import LazyPattern
from tools.parse._callshapes import CallShape, read_calls
from tools.parse._jsonrepair import RepairError, parse_lenient, skip_space
from tools.parse._pycalls import BracketScan, parse_call, scan_brackets

PY_LIST_START = LazyPattern(r"\[\s*+[A-Za-z_][\w.]*+\s*+\(")
PY_CALL_START = LazyPattern(r"[A-Za-z_][\w.]*+\s*+\(")

_BUDGET_PER_CHAR = 8
"""The work budget of a reply, in characters the C decoder may read per character of reply."""
_BUDGET_BASE = 1 << 18
_PY_STEP = 128
"""What one step of Python-level work (a token, a bracket) costs in that budget."""
BLOCK_STEP = 16 * _PY_STEP
"""What reading one candidate block (a fence, a tag, a bare object...) costs, at least."""
_AST_CHAR = 4
"""What one character handed to ``ast.parse`` costs."""
_WINDOW = 512
"""How much text the strict decoder sees at first; it grows eightfold while a value needs more."""
_CUT_MARGIN = 16


@dataclass(frozen=True, slots=True)
class Hit:
    """One call and the offsets of the text it was read from."""

    shape: CallShape
    start: int
    end: int


Found = tuple[list[Hit], int]
"""Calls read at some offset, and the offset just past what was read."""

Limit = Callable[[int], int]
"""Given where a value starts, where the region it must be repaired within ends.

Asked only when strict decoding fails, so the common case never searches for it."""


class Reader:
    """Decodes values in one reply and keeps the account of the work spent on it.

    Attributes:
        budget: Work left, in characters the C decoder could read; it goes below zero once
            the reply has cost its allowance, and callers stop looking for calls then.
    """

    def __init__(self, text: str, *, decoder: json.JSONDecoder) -> None:
        self.text = text
        self.size = len(text)
        self.decoder = decoder
        self.budget = _BUDGET_PER_CHAR * self.size + _BUDGET_BASE

    def values(self, pos: int, limit: Limit, *, strong: bool) -> Found | None:
        """Read the value at ``pos``: its calls (possibly none) and its end, or ``None``."""
        if self.text[pos] == "[":
            if PY_LIST_START.match(self.text, pos):
                return self.py_list(pos, limit(pos), strong=strong)
            return self.array(pos, limit)
        got = self.decode(pos, limit)
        if got is None:
            return None
        value, end = got
        return [Hit(shape, pos, end) for shape in read_calls(value)], end

    def array(self, pos: int, limit: Limit) -> Found:
        """Read an array element by element, so one broken call does not lose the others."""
        text = self.text
        hits: list[Hit] = []
        cursor = skip_space(text, pos + 1, self.size)
        while cursor < self.size and self.budget > 0:
            char = text[cursor]
            if char == "]":
                return hits, cursor + 1
            if char == ",":
                cursor = skip_space(text, cursor + 1, self.size)
                continue
            got = self.decode(cursor, limit)
            if got is not None:
                value, end = got
                hits.extend(Hit(shape, cursor, end) for shape in read_calls(value))
            elif char in "{[" and (scan := self.brackets(cursor, limit(cursor))) is not None:
                end = scan.close + 1
            else:
                break
            cursor = skip_space(text, end, self.size)
        return hits, cursor

    def decode(self, pos: int, limit: Limit) -> tuple[object, int] | None:
        """Decode the JSON value at ``pos``: strictly, else leniently up to ``limit(pos)``."""
        strict = self.strict(pos)
        if strict is not None or self.budget <= 0:
            return strict
        end = limit(pos)
        if pos >= end:
            return None
        try:
            lenient = parse_lenient(self.text, pos, end, max_steps=self.budget // _PY_STEP)
        except RepairError as error:
            self.budget -= error.steps * _PY_STEP
            return None
        self.budget -= lenient.steps * _PY_STEP
        return lenient.value, lenient.end

    def strict(self, pos: int) -> tuple[object, int] | None:
        """Decode strict JSON at ``pos`` with the C decoder.

        The decoder sees a growing window rather than the whole reply: a failing decode builds
        an error that counts the lines before the failure, which over the whole reply would
        make every failed candidate cost the length of the text before it.
        """
        text, size = self.text, self.size
        window = _WINDOW
        while True:
            stop = pos + window
            chunk = text if pos == 0 and stop >= size else text[pos:stop]
            try:
                value, used = self.decoder.raw_decode(chunk)
            except json.JSONDecodeError as error:
                self.budget -= error.pos + 1
                cut = error.pos >= len(chunk) - _CUT_MARGIN or error.msg.startswith("Unterminated")
                if stop < size and cut:
                    window *= 8
                    continue
                return None
            except (RecursionError, ValueError):
                # Nested deeper than the interpreter allows, or an integer literal longer than
                # int() accepts: neither is a tool call.
                self.budget -= len(chunk)
                return None
            self.budget -= used
            return value, pos + used

    def py_list(self, pos: int, limit: int, *, strong: bool) -> Found | None:
        """``[f(a=1), g()]``; in prose every element must be a call, else it is prose."""
        scan = self.brackets(pos, limit)
        if scan is None:
            return None
        hits: list[Hit] = []
        starts = (pos + 1, *(comma + 1 for comma in scan.commas))
        ends = (*scan.commas, scan.close)
        self.budget -= (scan.close - pos) * _AST_CHAR
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

    def py_call(self, pos: int, limit: int) -> Found | None:
        """A bare ``f(a=1)`` inside a tag or a ``tool_code`` fence."""
        opening = PY_CALL_START.match(self.text, pos, limit)
        if opening is None:
            return None
        scan = self.brackets(opening.end() - 1, limit)
        if scan is None:
            return None
        end = scan.close + 1
        self.budget -= (end - pos) * _AST_CHAR
        call = parse_call(self.text[pos:end])
        hits = [] if call is None else [Hit(CallShape(call.name, call.arguments), pos, end)]
        return hits, end

    def brackets(self, pos: int, limit: int) -> BracketScan | None:
        scan = scan_brackets(self.text, pos, limit, max_steps=max(self.budget // _PY_STEP, 0))
        self.budget -= scan.steps * _PY_STEP
        return scan if scan.close >= 0 else None

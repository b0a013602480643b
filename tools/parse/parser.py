"""Find the tool calls in what a model wrote: :class:`ToolParser`.

Models without native function calling write calls as text, in many dialects. The parser
reads all of these, in the order they appear in the reply:

- fenced blocks, ```` ```json ```` in any case or with no language tag, one call, several
  calls (one per line, or as an array) per block, several blocks per reply;
- bare JSON objects and arrays of calls inside prose;
- ``<tool_call>{...}</tool_call>`` tags (Qwen, Hermes), ``[TOOL_CALLS][...]`` and
  ``[TOOL_CALLS]name[ARGS]{...}`` (Mistral), ``<function=name>{...}</function>`` (Llama 3.1),
  and Python-style ``[f(a=1), g()]`` lists (Llama 3.x pythonic; read with :mod:`ast`, never
  evaluated), also bare ``f(a=1)`` inside a tag or a ``tool_code`` fence;
- the key shapes listed in :mod:`tools.parse._callshapes`, with arguments given as an object or as a
  JSON string; ``{"tool": "none"}`` and ``{"type": "final", ...}`` are not calls but answers,
  which :meth:`ToolParser.final_answer` reads;
- damaged JSON: trailing or missing commas, single quotes, ``True``/``False``/``None``,
  unquoted keys, and a reply cut off before its closing brackets.

JSON that is data rather than a call yields nothing, and a broken call does not lose the good
ones around it. Whatever the input, the parser does not raise, and its running time is linear
in the length of the reply.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Collection
from functools import cache
from types import MethodType
from typing import Concatenate, Generic, ParamSpec, TypeVar

from common import LazyPattern
from tools.calls import ToolCall
from tools.parse._callshapes import Answer, read_answer
from tools.parse._jsonrepair import RepairError, parse_lenient
from tools.parse._scanner import Block, Scan

__all__ = ["Answer", "ToolParser"]

P = ParamSpec("P")
R = TypeVar("R")
_NOT_NAME_CHAR = LazyPattern(r"[^A-Za-z0-9_]")
_FENCE_TAG = LazyPattern(r"[\w+.#-]*")
_MAX_ANSWER_STEPS = 1 << 16
_LINE_OBJECT = LazyPattern(r"(?m)^[ \t]*\{")
_AROUND_FENCE = LazyPattern(r"\s*```")
_MAX_EMBEDDED = 4


class _ClassOrInstance(Generic[P, R]):
    """A parser method that also works on the class, with a parser that knows no names.

    ``ToolParser.extract_calls(text)`` is ``ToolParser().extract_calls(text)``.
    """

    def __init__(self, method: Callable[Concatenate[ToolParser, P], R]) -> None:
        self._method = method
        self.__doc__ = method.__doc__

    def __get__(self, parser: ToolParser | None, owner: type[ToolParser]) -> Callable[P, R]:
        bound: Callable[P, R] = MethodType(
            self._method, parser if parser is not None else _any_names()
        )
        return bound


@cache
def _any_names() -> ToolParser:
    return ToolParser()


class ToolParser:
    """Reads tool calls out of a model's text reply.

    Its methods also work on the class itself (``ToolParser.extract_calls(text)``), as a
    parser without ``tool_names``.

    Args:
        tool_names: Names (and aliases) of the tools the model may call. When given, a bare
            JSON object or array in prose counts as a call only if it names one of them, so
            data such as ``{"name": "Alice", "parameters": {...}}`` is not taken for a call.
            Calls in fences, tags and ``[TOOL_CALLS]`` always count: validation then tells the
            model about a tool that does not exist. Names are compared the way the registry
            finds them loosely (characters other than letters and digits, the dot of an MCP
            tool's name too, count as ``_``).
    """

    def __init__(self, *, tool_names: Collection[str] | None = None) -> None:
        self._known = None if tool_names is None else frozenset(map(_normalise, tool_names))
        self._decoder = json.JSONDecoder(strict=False)

    @_ClassOrInstance
    def extract_calls(self, text: str) -> list[ToolCall]:
        """Return the calls in ``text``, in order.

        Each call's ``span`` is the ``(start, end)`` of the text it was read from, and
        ``raw_json`` is that text (``text[start:end]``).
        """
        return [
            ToolCall(
                tool_name=hit.shape.name,
                arguments=hit.shape.arguments,
                raw_json=text[hit.start : hit.end],
                span=(hit.start, hit.end),
            )
            for block in self._blocks(text)
            for hit in block.hits
        ]

    @_ClassOrInstance
    def strip_calls(self, text: str) -> str:
        """Return ``text`` without the blocks that hold calls, whitespace tidied.

        A whole fence, tag or ``[TOOL_CALLS]`` run goes when it holds a call; blank lines
        left behind collapse to one and the result is stripped. Text without calls comes back
        unchanged.
        """
        blocks = self._blocks(text)
        if not blocks:
            return text
        kept: list[str] = []
        cursor = 0
        for block in blocks:
            kept.append(text[cursor : block.start])
            cursor = block.end
        kept.append(text[cursor:])
        joined = kept[0]
        for piece in kept[1:]:
            joined = _glue(joined, piece)
        return joined.strip()

    @_ClassOrInstance
    def final_answer(self, text: str) -> Answer | None:
        """Return the answer a reply writes as JSON, else ``None``.

        Some contracts have the model answer in JSON too: ``{"type": "final", "content":
        "..."}``, or ``{"tool": "none", "reason": "..."}`` when no tool is needed (see
        ``Answer``). When the whole reply is such an object (in a fence or not, damaged like
        a call may be), it is the answer. A reply with prose around a fenced block or an
        object on lines of its own counts only for the unmistakable kinds (``"type":
        "final"``, ``"tool": "none"``); the prose answers for a ``none`` without content.
        """
        whole = self._whole_answer(text)
        if whole is not None:
            return whole
        for start, end, value in self._embedded_objects(text):
            answer = read_answer(value, strict=True)
            if answer is not None:
                prose = (text[:start] + text[end:]).strip().strip("`").strip()
                return Answer(
                    answer.text if answer.text is not None else prose or None, answer.reason
                )
        return None

    def _whole_answer(self, text: str) -> Answer | None:
        body = _unfenced(text.strip())
        if not body.startswith("{"):
            return None
        try:
            value: object = self._decoder.decode(body)
        except (ValueError, RecursionError):
            try:
                lenient = parse_lenient(body, 0, len(body), max_steps=_MAX_ANSWER_STEPS)
            except RepairError:
                return None
            if body[lenient.end :].strip():
                return None
            value = lenient.value
        return read_answer(value)

    def _embedded_objects(self, text: str) -> list[tuple[int, int, object]]:
        """Strict JSON objects that open one of the first lines that open with ``{`` (inside a
        fence or not), in order."""
        found: list[tuple[int, int, object]] = []
        openings = _LINE_OBJECT.finditer(text)
        for opening in itertools.islice(openings, _MAX_EMBEDDED):
            start = opening.end() - 1
            try:
                # A slice: a failed decode counts the lines before it, which here are none.
                value, used = self._decoder.raw_decode(text[start:])
            except (ValueError, RecursionError):
                continue
            end = start + used
            fence = _AROUND_FENCE.match(text, end)
            before = text.rfind("```", 0, start)
            if fence is not None and before >= 0:
                found.append((before, fence.end(), value))
            else:
                found.append((start, end, value))
        return found

    def _blocks(self, text: str) -> list[Block]:
        return Scan(text, accepts=self._accepts, decoder=self._decoder).run()

    def _accepts(self, name: str) -> bool:
        return self._known is None or _normalise(name) in self._known


def _unfenced(body: str) -> str:
    """``body`` without the fence around it, when the whole of it is one fenced block."""
    if len(body) < 6 or not body.startswith("```") or not body.endswith("```"):
        return body
    inner = body[3:-3]
    tag, newline, rest = inner.partition("\n")
    if newline and _FENCE_TAG.fullmatch(tag.strip()):
        return rest.strip()
    return inner.strip()


def _normalise(name: str) -> str:
    return _NOT_NAME_CHAR.sub("_", name)


def _glue(left: str, right: str) -> str:
    """Join the text around a removed block, keeping at most one blank line between them."""
    left_text = left.rstrip()
    right_text = right.lstrip()
    if not left_text or not right_text:
        return left_text + right_text
    before = left[len(left_text) :].count("\n")
    after = right[: len(right) - len(right_text)].count("\n")
    if before == after == 0:
        return left_text + " " + right_text
    # A block on lines of its own took one line break with it.
    breaks = before + after - 1 if before and after else before + after
    return left_text + ("\n" if breaks == 1 else "\n\n") + right_text

"""Python-style tool calls: ``[get_weather(city="Paris"), get_time()]`` (Llama 3.x pythonic).

Calls are read with :mod:`ast` and only literal arguments are accepted: nothing is evaluated.
The bracket scanner that finds where such a list ends is quote-aware and jumps between
interesting characters with one regular expression, so it is linear in the text it covers.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Any

from common import LazyPattern

_INTERESTING = LazyPattern(r"""[\[\](){}'",]""")
_PAIRS = {"]": "[", ")": "(", "}": "{"}
_STRING_END = {
    '"': re.compile(r'(?:[^"\\\n]++|\\.)*+"', re.S),
    "'": re.compile(r"(?:[^'\\\n]++|\\.)*+'", re.S),
    '"""': re.compile(r'(?:[^"\\]++|\\.|"(?!""))*+"""', re.S),
    "'''": re.compile(r"(?:[^'\\]++|\\.|'(?!''))*+'''", re.S),
}
_MAX_DEPTH = 64
_NAMED_CONSTANTS: dict[str, object] = {"true": True, "false": False, "null": None}


@dataclass(frozen=True, slots=True)
class BracketScan:
    """Where a bracketed group ends, where its top-level commas are, and what it cost.

    Attributes:
        close: Offset of the matching closing bracket, or -1 when the group is unbalanced,
            holds an unterminated string, or did not close within the allowed steps.
        commas: Offsets of the commas directly inside the group.
        steps: How many brackets, quotes and commas the scan went through.
    """

    close: int
    commas: tuple[int, ...]
    steps: int


@dataclass(frozen=True, slots=True)
class PyCall:
    """One call read from Python syntax."""

    name: str
    arguments: dict[str, Any]


def scan_brackets(text: str, pos: int, end: int, *, max_steps: int) -> BracketScan:
    """Find the bracket matching the one at ``text[pos]``.

    Args:
        text: The whole reply.
        pos: Offset of an opening ``[``, ``(`` or ``{``.
        end: Offset the group must close before.
        max_steps: How many brackets, quotes and commas the scan may go through.
    """
    stack: list[str] = []
    commas: list[int] = []
    cursor = pos
    steps = 0
    while steps < max_steps and len(stack) <= _MAX_DEPTH:
        steps += 1
        match = _INTERESTING.search(text, cursor, end)
        if match is None:
            break
        at = match.start()
        char = text[at]
        if char in "'\"":
            quote = char * 3 if text.startswith(char * 3, at) else char
            closing = _STRING_END[quote].match(text, at + len(quote), end)
            if closing is None:
                break
            cursor = closing.end()
            continue
        cursor = at + 1
        if char in "[({":
            stack.append(char)
        elif char == ",":
            if len(stack) == 1:
                commas.append(at)
        elif not stack or stack.pop() != _PAIRS[char]:
            break
        elif not stack:
            return BracketScan(close=at, commas=tuple(commas), steps=steps)
    return BracketScan(close=-1, commas=(), steps=steps)


def parse_call(source: str) -> PyCall | None:
    """Read ``name(key=literal, ...)``; return ``None`` for anything else.

    Positional arguments, ``**kwargs`` and non-literal values are refused: a tool's
    arguments must be named, and nothing here is ever evaluated.
    """
    try:
        tree = ast.parse(source.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        # ast.parse signals deep nesting with RecursionError or MemoryError, and lone
        # surrogates (which UTF-8 cannot encode) with ValueError; all mean "not a call".
        return None
    call = tree.body
    if not isinstance(call, ast.Call) or call.args:
        return None
    name = _dotted_name(call.func)
    if name is None:
        return None
    arguments: dict[str, Any] = {}
    for keyword in call.keywords:
        if keyword.arg is None:
            return None
        try:
            arguments[keyword.arg] = _literal(keyword.value)
        except ValueError:
            return None
    return PyCall(name=name, arguments=arguments)


def _dotted_name(node: ast.expr) -> str | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def _literal(node: ast.expr) -> Any:
    """Convert a literal expression to JSON-able data; raise ``ValueError`` otherwise."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str | int | float | None):
        return node.value
    if isinstance(node, ast.Name) and node.id in _NAMED_CONSTANTS:
        return _NAMED_CONSTANTS[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        operand = _literal(node.operand)
        if isinstance(operand, int | float) and not isinstance(operand, bool):
            return -operand if isinstance(node.op, ast.USub) else operand
    if isinstance(node, ast.List | ast.Tuple):
        return [_literal(item) for item in node.elts]
    if isinstance(node, ast.Dict):
        result: dict[str, Any] = {}
        for key, value in zip(node.keys, node.values, strict=True):
            if key is None:
                raise ValueError("'**' inside a dict literal is not a literal")
            name = _literal(key)
            if not isinstance(name, str):
                raise ValueError(f"dict key {name!r} is not a string")
            result[name] = _literal(value)
        return result
    raise ValueError(f"a {type(node).__name__} expression is not a literal")

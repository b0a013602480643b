"""Read a tool's description and parameter descriptions out of its docstring.

Three common styles are understood:

- Google: an ``Args:`` (or ``Arguments:``/``Parameters:``) section of ``name (type): text``;
- NumPy: a ``Parameters`` heading underlined with dashes, ``name : type`` then indented text;
- Sphinx: ``:param name: text`` fields (``:param type name:`` too).
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field

from common import LazyPattern

_GOOGLE_ARGS = {"args:", "arguments:", "parameters:", "params:", "keyword args:", "kwargs:"}
_GOOGLE_OTHER = LazyPattern(
    r"^(returns?|yields?|raises?|examples?|notes?|attributes?|see also|todo|warnings?):$",
    re.IGNORECASE,
)
_GOOGLE_ITEM = LazyPattern(r"^(\*{0,2}[A-Za-z_][A-Za-z0-9_]*)\s*(?:\([^)]*\))?\s*:\s*(.*)$")
_NUMPY_ITEM = LazyPattern(r"^([A-Za-z_][A-Za-z0-9_]*)\s*(?::.*)?$")
_SPHINX_PARAM = LazyPattern(r"^:param\s+(?:[^:]*\s)?([A-Za-z_][A-Za-z0-9_]*)\s*:\s*(.*)$")
_SPHINX_FIELD = LazyPattern(r"^:[a-zA-Z]+")


@dataclass(frozen=True, slots=True)
class ParsedDocstring:
    """The parts of a docstring a tool needs."""

    summary: str = ""
    description: str = ""
    params: dict[str, str] = field(default_factory=dict)


def parse_docstring(doc: str | None) -> ParsedDocstring:
    """Split ``doc`` into its summary, its prose description and its parameter descriptions.

    Args:
        doc: The raw docstring, or ``None``.

    Returns:
        The summary line, the description (summary plus following prose paragraphs, before
        any section), and a mapping of parameter name to description.
    """
    if not doc:
        return ParsedDocstring()
    lines = inspect.cleandoc(doc).splitlines()
    body_end = _prose_end(lines)
    prose = "\n".join(lines[:body_end]).strip()
    summary = prose.split("\n\n", 1)[0].replace("\n", " ").strip()
    params = _google_params(lines) or _numpy_params(lines) or _sphinx_params(lines)
    description = " ".join(" ".join(p.split()) for p in prose.split("\n\n") if p.strip())
    return ParsedDocstring(summary=summary, description=description, params=params)


def _prose_end(lines: list[str]) -> int:
    for index, line in enumerate(lines):
        stripped = line.strip()
        next_line = lines[index + 1].strip() if index + 1 < len(lines) else ""
        if stripped.lower() in _GOOGLE_ARGS or _GOOGLE_OTHER.match(stripped):
            return index
        if next_line and set(next_line) == {"-"} and stripped:
            return index
        if _SPHINX_FIELD.match(stripped):
            return index
    return len(lines)


def _google_params(lines: list[str]) -> dict[str, str]:
    params: dict[str, str] = {}
    in_section = False
    item_indent: int | None = None
    current: str | None = None
    for line in lines:
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        if stripped.lower() in _GOOGLE_ARGS:
            in_section, item_indent, current = True, None, None
            continue
        if not in_section:
            continue
        if stripped and indent == 0:
            in_section = False
            continue
        if not stripped:
            continue
        if item_indent is None:
            item_indent = indent
        match = _GOOGLE_ITEM.match(stripped)
        if indent == item_indent and match:
            current = match.group(1).lstrip("*")
            params[current] = match.group(2).strip()
        elif current is not None and indent > item_indent:
            params[current] = f"{params[current]} {stripped}".strip()
    return params


def _numpy_params(lines: list[str]) -> dict[str, str]:
    params: dict[str, str] = {}
    start = None
    for index in range(len(lines) - 1):
        heading = lines[index].strip().lower()
        underline = lines[index + 1].strip()
        if heading in {"parameters", "arguments", "args"} and underline and set(underline) == {"-"}:
            start = index + 2
            break
    if start is None:
        return params
    current: str | None = None
    for index in range(start, len(lines)):
        line = lines[index]
        stripped = line.strip()
        following = lines[index + 1].strip() if index + 1 < len(lines) else ""
        if following and set(following) == {"-"}:
            break
        if not stripped:
            continue
        indent = len(line) - len(line.lstrip())
        match = _NUMPY_ITEM.match(stripped)
        if indent == 0 and match:
            current = match.group(1)
            params[current] = ""
        elif current is not None and indent > 0:
            params[current] = f"{params[current]} {stripped}".strip()
    return params


def _sphinx_params(lines: list[str]) -> dict[str, str]:
    params: dict[str, str] = {}
    current: str | None = None
    for line in lines:
        stripped = line.strip()
        match = _SPHINX_PARAM.match(stripped)
        if match:
            current = match.group(1)
            params[current] = match.group(2).strip()
        elif _SPHINX_FIELD.match(stripped):
            current = None
        elif current is not None and stripped:
            params[current] = f"{params[current]} {stripped}".strip()
    return params

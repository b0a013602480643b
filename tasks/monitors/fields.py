"""A field of a JSON document, named by a path: ``price``, ``data.items[0].price``,
``$.rates.EUR``, ``items[-1]["display name"]``.

A name is a key of an object; ``[N]`` is an item of a list (negative from the end); a key
with spaces or dots goes in brackets and quotes. A leading ``$`` or ``$.`` is allowed and
means nothing.
"""

from __future__ import annotations

import json
from typing import Any

from common import LazyPattern
from tasks.errors import TaskDataError, TaskError

MAX_PATH_CHARS = 200
_STEP = LazyPattern(
    r"\.?(?P<name>[A-Za-z_][\w-]*)|\[(?P<index>-?\d+)\]"
    r"|\[\"(?P<quoted>[^\"]+)\"\]|\['(?P<single>[^']+)'\]"
)
_EXAMPLE = "'price', 'data.items[0].price' or 'rates.EUR'"

Step = str | int


def check_field(path: str) -> str:
    """Return ``path`` (trimmed) when it names a field.

    Raises:
        TaskDataError: quoting it, with examples of paths that work.
    """
    _steps(path)
    return path.strip()


def read_field(document: Any, path: str) -> Any:
    """The value at ``path`` in ``document`` (parsed JSON).

    Raises:
        TaskDataError: when ``path`` is not a path.
        TaskError: when the document has no such field, saying where the path ended.
    """
    value = document
    walked = "$"
    for step in _steps(path):
        if isinstance(step, int):
            if not isinstance(value, list) or not -len(value) <= step < len(value):
                size = f"a list of {len(value)}" if isinstance(value, list) else _kind(value)
                raise TaskError(f"the field {path!r} is missing: {walked} is {size}, no [{step}]")
            value = value[step]
            walked += f"[{step}]"
            continue
        if not isinstance(value, dict) or step not in value:
            keys = ", ".join(sorted(value)[:8]) if isinstance(value, dict) else _kind(value)
            raise TaskError(
                f"the field {path!r} is missing: {walked} has no {step!r} (it has: {keys})"
            )
        value = value[step]
        walked += f".{step}"
    return value


def value_text(value: Any) -> str:
    """A field's value as a monitor keeps it: text as it is, numbers and the rest as JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(", ", ": "))


def _steps(path: str) -> list[Step]:
    if not isinstance(path, str) or not path.strip() or len(path) > MAX_PATH_CHARS:
        raise TaskDataError(f"a JSON field is named by a path such as {_EXAMPLE}, got {path!r}")
    rest = path.strip()
    rest = rest[2:] if rest.startswith("$.") else rest[1:] if rest.startswith("$") else rest
    steps: list[Step] = []
    position = 0
    while position < len(rest):
        match = _STEP.match(rest, position)
        if match is None or (position == 0 and rest.startswith(".")):
            raise TaskDataError(
                f"cannot read the field path {path!r} at {rest[position:]!r}; write it like "
                f"{_EXAMPLE}"
            )
        if match["index"] is not None:
            steps.append(int(match["index"]))
        else:
            steps.append(match["name"] or match["quoted"] or match["single"])
        position = match.end()
    if not steps:
        raise TaskDataError(f"a JSON field is named by a path such as {_EXAMPLE}, got {path!r}")
    return steps


def _kind(value: Any) -> str:
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    return f"the value {value_text(value)[:40]!r}"

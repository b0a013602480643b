"""An MCP tool's input schema, converted once into the JSON Schema our tools are checked by.

A server may send any JSON Schema (2020-12 at the newest protocol), or something that is not
one at all. ``convert_schema`` keeps what ``tools.run.validation`` checks and the catalogs
render (``type``, ``properties``, ``required``, ``items``, ``prefixItems``,
``additionalProperties``, ``anyOf``, ``enum``, the bounds, ``pattern``), rewrites what it can
say in those terms (a ``$ref`` to ``$defs`` or ``definitions`` is put in place, ``oneOf`` is
checked as ``anyOf``, ``allOf`` of objects is merged, ``const`` is a one-value ``enum``,
OpenAPI's ``nullable`` allows ``null``), keeps ``description``, ``title``, ``default``,
``examples`` and ``format`` for the model to read, and leaves the rest out. What it changed is
said in ``Converted.notes`` (``lost``: what our check can no longer see; ``unchecked``: what only
the server checks, as it does anyway), for one log line per tool. Whatever the input, it
never raises, and what comes out is small enough to check every call against.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from tools.define import JsonSchema
from tools.mcp.text import one_line

MAX_DEPTH = 16
"""Nesting deeper than this is accepted as any value (and said so)."""
MAX_NODES = 2000
"""Schemas beyond this many nodes are accepted as any value from there on (and said so)."""
MAX_TEXT = 500
"""The longest description or title kept from a schema."""
_MAX_PATTERN = 500
_TYPES = frozenset({"string", "integer", "number", "boolean", "null", "array", "object"})
_BOUNDS = frozenset(
    {
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "minLength",
        "maxLength",
        "minItems",
        "maxItems",
    }
)
_IGNORED = frozenset({"$schema", "$id", "$comment", "$defs", "definitions", "$anchor"})
_ANY_OBJECT: JsonSchema = {"type": "object", "properties": {}, "required": []}


@dataclass(frozen=True, slots=True)
class Converted:
    """A converted schema and what the conversion changed.

    Attributes:
        schema: A JSON Schema of an object, in the terms our checks read.
        lost: What our own check of the arguments can no longer see (a ``$ref`` that points
            nowhere, an unknown type, a pattern Python cannot read, a schema that is not an
            object): worth a warning.
        unchecked: Keywords left to the server to check (``not``, ``uniqueItems``...).
    """

    schema: JsonSchema
    lost: tuple[str, ...] = ()
    unchecked: tuple[str, ...] = ()


def convert_schema(schema: object) -> Converted:
    """Convert an MCP tool's ``input_schema`` (see the module's docstring); never raises."""
    converter = _Converter(schema)
    root = converter.root()
    return Converted(
        schema=root,
        lost=tuple(dict.fromkeys(converter.lost)),
        unchecked=tuple(sorted(set(converter.unchecked))),
    )


@dataclass
class _Converter:
    source: object
    lost: list[str] = field(default_factory=list)
    unchecked: list[str] = field(default_factory=list)
    nodes: int = 0

    def root(self) -> JsonSchema:
        if not isinstance(self.source, dict):
            self.lost.append("the schema is not a JSON object: any arguments are accepted")
            return dict(_ANY_OBJECT)
        converted = self.node(self.source, "", 0, ("#",))
        if converted.get("type", "object") != "object":
            self.lost.append(
                f"the schema describes {converted['type']!r}, not an object: any arguments "
                "are accepted"
            )
            return dict(_ANY_OBJECT)
        converted["type"] = "object"
        converted.setdefault("properties", {})
        converted.setdefault("required", [])
        return converted

    def node(self, node: object, path: str, depth: int, refs: tuple[str, ...]) -> JsonSchema:
        """One schema, converted; ``refs`` are the references being followed (no loops)."""
        self.nodes += 1
        where = path or "the top"
        if isinstance(node, bool):
            return {}  # true: anything; false: nothing, which only the server can say
        if not isinstance(node, dict):
            self.lost.append(f"at {where}: a schema that is not an object is read as any value")
            return {}
        if depth > MAX_DEPTH or self.nodes > MAX_NODES:
            self.lost.append(f"at {where}: nested too deep or too large; any value is accepted")
            return {}
        while "$ref" in node:
            node, refs = self.dereference(node, where, refs)
        out: JsonSchema = {}
        for key, value in node.items():
            self.keyword(out, key, value, path, depth, refs)
        if node.get("nullable") is True and "type" in out:
            out["type"] = _with_null(out["type"])
        return out

    def dereference(
        self, node: dict[str, Any], where: str, refs: tuple[str, ...]
    ) -> tuple[dict[str, Any], tuple[str, ...]]:
        """``node`` with its ``$ref`` replaced by what it points to (its own keys win), and
        the references followed so far; a reference that loops or points nowhere is left out
        (any value, as far as our check goes)."""
        ref = node["$ref"]
        rest = {key: value for key, value in node.items() if key != "$ref"}
        target = self.target(ref) if isinstance(ref, str) and ref not in refs else None
        if target is None:
            why = "refers to itself" if ref in refs else "points nowhere the assistant can read"
            self.lost.append(f"at {where}: the reference {str(ref)[:80]!r} {why}; any value")
            return rest, refs
        return {**target, **rest}, (*refs, ref)

    def target(self, ref: str) -> dict[str, Any] | None:
        if not isinstance(self.source, dict):
            return None
        if ref == "#":
            return self.source
        for prefix, holder in (("#/$defs/", "$defs"), ("#/definitions/", "definitions")):
            defs = self.source.get(holder)
            if ref.startswith(prefix) and isinstance(defs, dict):
                found = defs.get(ref.removeprefix(prefix).replace("~1", "/").replace("~0", "~"))
                return found if isinstance(found, dict) else None
        return None

    def keyword(
        self, out: JsonSchema, key: str, value: Any, path: str, depth: int, refs: tuple[str, ...]
    ) -> None:
        where = path or "the top"
        deeper = depth + 1
        if key == "type":
            kinds = [value] if isinstance(value, str) else value if isinstance(value, list) else []
            known = [k for k in kinds if isinstance(k, str) and k in _TYPES]
            if len(known) != len(kinds) or not kinds:
                self.lost.append(f"at {where}: the type {str(value)[:60]!r} is not JSON Schema's")
            if known:
                out["type"] = known[0] if len(known) == 1 else known
        elif key == "properties" and isinstance(value, dict):
            out["properties"] = {
                str(name): self.node(sub, _join(path, name), deeper, refs)
                for name, sub in value.items()
            }
        elif key == "required" and isinstance(value, list):
            out["required"] = list(dict.fromkeys(v for v in value if isinstance(v, str)))
        elif key == "items" and isinstance(value, dict | bool):
            if isinstance(value, dict):
                out["items"] = self.node(value, f"{path}[]", deeper, refs)
        elif key in ("items", "prefixItems") and isinstance(value, list):
            out["prefixItems"] = [
                self.node(sub, f"{path}[{i}]", deeper, refs) for i, sub in enumerate(value)
            ]
        elif key == "additionalProperties" and isinstance(value, bool | dict):
            out[key] = value if isinstance(value, bool) else self.node(value, path, deeper, refs)
        elif key in ("anyOf", "oneOf") and isinstance(value, list) and value:
            options = [self.node(sub, path, deeper, refs) for sub in value]
            if "anyOf" in out:
                self.unchecked.append(key)
            elif {} in options:
                self.unchecked.append(key)  # one option takes anything: nothing to check
            else:
                out["anyOf"] = options
        elif key == "allOf" and isinstance(value, list):
            for sub in value:
                _merge(out, self.node(sub, path, deeper, refs))
        elif key == "const" and _is_json(value):
            out["enum"] = [value]
        elif key == "enum" and isinstance(value, list) and value and _is_json(value):
            out["enum"] = value
        elif key in _BOUNDS:
            self.bound(out, key, value, where)
        elif key == "pattern":
            self.pattern(out, value, where)
        elif key in ("description", "title"):
            if text := one_line(value, MAX_TEXT):
                out[key] = text
        elif key in ("default", "examples") and _is_json(value):
            out[key] = value
        elif key == "format" and isinstance(value, str):
            out[key] = one_line(value, 40)
        elif key in _IGNORED or key == "nullable":
            return
        else:
            self.unchecked.append(key)

    def bound(self, out: JsonSchema, key: str, value: Any, where: str) -> None:
        number = value if isinstance(value, int | float) and not isinstance(value, bool) else None
        if number is not None and math.isfinite(number):
            out[key] = number
        elif not isinstance(value, bool):  # draft 4's boolean exclusive bounds: the server's
            self.lost.append(f"at {where}: {key} {str(value)[:40]!r} is not a number")
        else:
            self.unchecked.append(key)

    def pattern(self, out: JsonSchema, value: Any, where: str) -> None:
        if isinstance(value, str) and len(value) <= _MAX_PATTERN:
            try:
                re.compile(value)
            except (re.error, RecursionError, OverflowError):
                pass
            else:
                out["pattern"] = value
                return
        self.lost.append(f"at {where}: the pattern {str(value)[:60]!r} is not one Python reads")


def _join(path: str, name: object) -> str:
    return f"{path}.{name}" if path else str(name)


def _with_null(kind: object) -> object:
    if isinstance(kind, str):
        return [kind, "null"] if kind != "null" else kind
    if isinstance(kind, list):
        return kind if "null" in kind else [*kind, "null"]
    return kind


def _merge(out: JsonSchema, part: JsonSchema) -> None:
    """Fold ``part`` (one of ``allOf``) into ``out``: properties and required add up."""
    for key, value in part.items():
        if key == "properties" and isinstance(out.get(key), dict):
            out[key] = {**value, **out[key]}
        elif key == "required" and isinstance(out.get(key), list):
            out[key] = list(dict.fromkeys([*out[key], *value]))
        else:
            out.setdefault(key, value)


def _is_json(value: object, depth: int = 0) -> bool:
    """Whether ``value`` is plain JSON data (as json.loads makes it), not too deep."""
    if depth > MAX_DEPTH:
        return False
    if value is None or isinstance(value, str | bool | int):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list):
        return all(_is_json(item, depth + 1) for item in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _is_json(v, depth + 1) for k, v in value.items())
    return False

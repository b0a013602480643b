"""Infer a JSON Schema fragment from a Python type annotation."""

from __future__ import annotations

import datetime as dt
import enum
import types
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from annotated_types import Ge, Gt, Le, Lt, MaxLen, MinLen
from pydantic import BaseModel, TypeAdapter
from pydantic.fields import FieldInfo

from tools.errors import ToolDefinitionError

JsonSchema = dict[str, Any]

_SCALARS: dict[type, str] = {str: "string", bool: "boolean", int: "integer", float: "number"}
_FORMATS: dict[type, str] = {dt.datetime: "date-time", dt.date: "date", dt.time: "time"}


def schema_for(annotation: Any, *, where: str) -> JsonSchema:
    """Return the JSON Schema that describes values of ``annotation``.

    Args:
        annotation: A resolved type annotation.
        where: Names the parameter in error messages (``"tool 'x', parameter 'y'"``).

    Raises:
        ToolDefinitionError: when the type cannot be described as JSON.
    """
    if annotation is Any or annotation is object:
        return {}
    if annotation is None or annotation is type(None):
        return {"type": "null"}
    if isinstance(annotation, type) and annotation in _SCALARS:
        return {"type": _SCALARS[annotation]}
    if isinstance(annotation, type) and annotation in _FORMATS:
        return {"type": "string", "format": _FORMATS[annotation]}
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return _enum_schema([member.value for member in annotation])
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return _model_schema(annotation)
    origin = get_origin(annotation)
    if origin is Annotated:
        return _annotated_schema(annotation, where=where)
    if origin is Literal:
        return _enum_schema(list(get_args(annotation)))
    if origin in (Union, types.UnionType):
        return _union_schema(get_args(annotation), where=where)
    if origin in (list, tuple, set, frozenset) or annotation in (list, tuple, set, frozenset):
        return _array_schema(annotation, where=where)
    if origin is dict or annotation is dict:
        return _object_schema(annotation, where=where)
    raise ToolDefinitionError(
        f"{where}: the type {annotation!r} cannot be described as JSON; use str, int, float, "
        "bool, list[T], dict[str, T], Literal, an Enum, a pydantic model, or X | None"
    )


def _enum_schema(values: list[Any]) -> JsonSchema:
    kinds = {type(v) for v in values}
    schema: JsonSchema = {"enum": values}
    if len(kinds) == 1:
        kind = kinds.pop()
        if kind in _SCALARS:
            schema = {"type": _SCALARS[kind], "enum": values}
    return schema


def _union_schema(members: tuple[Any, ...], *, where: str) -> JsonSchema:
    optional = type(None) in members
    rest = [m for m in members if m is not type(None)]
    if len(rest) == 1:
        inner = schema_for(rest[0], where=where)
    else:
        inner = {"anyOf": [schema_for(m, where=where) for m in rest]}
    if not optional:
        return inner
    kind = inner.get("type")
    if isinstance(kind, str):
        widened = {**inner, "type": [kind, "null"]}
        if "enum" in widened:
            widened["enum"] = [*widened["enum"], None]
        return widened
    return {"anyOf": [inner, {"type": "null"}]}


def _array_schema(annotation: Any, *, where: str) -> JsonSchema:
    args = get_args(annotation)
    if get_origin(annotation) is tuple and args and args[-1] is not Ellipsis:
        return {
            "type": "array",
            "prefixItems": [schema_for(a, where=where) for a in args],
            "minItems": len(args),
            "maxItems": len(args),
        }
    schema: JsonSchema = {"type": "array"}
    if args:
        schema["items"] = schema_for(args[0], where=where)
    if get_origin(annotation) in (set, frozenset):
        schema["uniqueItems"] = True
    return schema


def _object_schema(annotation: Any, *, where: str) -> JsonSchema:
    args = get_args(annotation)
    if args and args[0] is not str:
        raise ToolDefinitionError(f"{where}: JSON object keys are strings; use dict[str, T]")
    schema: JsonSchema = {"type": "object"}
    if len(args) == 2 and args[1] is not Any:
        schema["additionalProperties"] = schema_for(args[1], where=where)
    return schema


def _annotated_schema(annotation: Any, *, where: str) -> JsonSchema:
    base, *extras = get_args(annotation)
    schema = schema_for(base, where=where)
    for extra in extras:
        if isinstance(extra, FieldInfo):
            if extra.description:
                schema["description"] = extra.description
            for constraint in extra.metadata:
                schema.update(_constraint_schema(constraint))
        elif isinstance(extra, str):
            schema["description"] = extra
        else:
            schema.update(_constraint_schema(extra))
    return schema


_CONSTRAINTS: tuple[tuple[type, str, str], ...] = (
    # (annotated_types constraint, its attribute, the JSON Schema keyword)
    (Ge, "ge", "minimum"),
    (Gt, "gt", "exclusiveMinimum"),
    (Le, "le", "maximum"),
    (Lt, "lt", "exclusiveMaximum"),
    (MinLen, "min_length", "minLength"),
    (MaxLen, "max_length", "maxLength"),
)


def _constraint_schema(constraint: object) -> JsonSchema:
    for kind, attribute, keyword in _CONSTRAINTS:
        if isinstance(constraint, kind):
            return {keyword: getattr(constraint, attribute)}
    return {}


def _model_schema(model: type[BaseModel]) -> JsonSchema:
    raw = TypeAdapter(model).json_schema()
    defs = raw.pop("$defs", {})
    inlined = _inline_refs(raw, defs, seen=())
    assert isinstance(inlined, dict)
    inlined.setdefault("additionalProperties", False)
    cleaned: JsonSchema = _drop_titles(inlined)
    return cleaned


def _inline_refs(node: Any, defs: dict[str, Any], *, seen: tuple[str, ...]) -> Any:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            name = ref.removeprefix("#/$defs/")
            if name in seen:
                raise ToolDefinitionError(
                    f"the model {name!r} is recursive; tools need finite schemas"
                )
            return _inline_refs(defs[name], defs, seen=(*seen, name))
        return {k: _inline_refs(v, defs, seen=seen) for k, v in node.items()}
    if isinstance(node, list):
        return [_inline_refs(item, defs, seen=seen) for item in node]
    return node


def _drop_titles(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _drop_titles_props(k, v) for k, v in node.items() if k != "title"}
    if isinstance(node, list):
        return [_drop_titles(item) for item in node]
    return node


def _drop_titles_props(key: str, value: Any) -> Any:
    # Under "properties" the keys are field names (one may be called "title"): keep them all.
    if key == "properties" and isinstance(value, dict):
        return {name: _drop_titles(sub) for name, sub in value.items()}
    return _drop_titles(value)

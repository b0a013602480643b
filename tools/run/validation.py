"""Check a tool call against its tool's schema, with messages a model can act on."""

from __future__ import annotations

import json
import math
import operator
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from common import LazyPattern
from tools.calls import ToolCall
from tools.catalog import Tool, ToolRegistry
from tools.context import ToolContext
from tools.define import JsonSchema
from tools.errors import ToolError
from tools.parse import read_calls
from tools.run.arguments import read_aliases

_INT_TEXT = LazyPattern(r"^[+-]?\d{1,18}$")
_MAX_SHOWN = 80


@dataclass(frozen=True, slots=True)
class ValidationResult:
    """The verdict on one call.

    Attributes:
        call: The call that was checked.
        tool: The tool it names, when that tool exists.
        errors: What must be fixed, each naming the tool, argument, expectation and value.
        warnings: What was accepted after a lossless fix (``"5"`` -> ``5``), or left out:
            an unknown argument of an otherwise valid call, an alias given with its name.
        arguments: The cleaned arguments (coercions applied, aliases renamed, unknown
            arguments left out).
        dropped: The unknown arguments that were left out of an otherwise valid call.
        plain: The errors as a person reads them, in the assistant's voice ("'x1' is not
            a task id I can use here"): no tool, argument or schema names, no instructions
            meant for a model.
    """

    call: ToolCall
    tool: Tool | None
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    arguments: dict[str, Any] = field(default_factory=dict)
    dropped: list[str] = field(default_factory=list)
    plain: list[str] = field(default_factory=list)

    @property
    def is_valid(self) -> bool:
        return self.tool is not None and not self.errors

    def message(self) -> str:
        """Return the errors as one text for the model, ending with what to do."""
        if self.is_valid:
            return "The call is valid."
        lines = [f"- {e}" for e in self.errors]
        return (
            f"The call to {self.call.tool_name!r} was not run:\n"
            + "\n".join(lines)
            + "\nFix the call and send it again."
        )

    def for_person(self) -> str:
        """What was wrong, as a person reads it (never the text meant for the model)."""
        if self.is_valid:
            return ""
        return "; ".join(self.plain) or "the request was not complete"


def validate_tool_call(
    call: ToolCall | Mapping[str, Any], registry: ToolRegistry, ctx: ToolContext | None = None
) -> ValidationResult:
    """Check ``call`` against the schema of the tool it names.

    ``call`` may also be a dict as a model or a plan writes it (``{"tool": NAME, "args":
    {...}}``, ``{"name": NAME, "arguments": {...}}``...). Dynamic values (such as the ids
    of this user's tasks) are checked when ``ctx`` is given and has been prepared by
    ``registry.prepare``. This never raises for bad calls.
    """
    if not isinstance(call, ToolCall):
        return _validate_mapping(call, registry, ctx)
    tool = registry.find(call.tool_name)
    if tool is None:
        return ValidationResult(
            call=call,
            tool=None,
            errors=[registry.unknown_tool_message(call.tool_name)],
            plain=[f"I have no tool called {call.tool_name!r}"],
        )
    warnings: list[str] = []
    try:
        schema = tool.schema(ctx)
    except ToolError:
        schema = tool.schema(None)
        warnings.append(f"tool {tool.name!r}: per-user allowed values were not checked")
    arguments: object = call.arguments
    if not isinstance(arguments, dict):
        return ValidationResult(
            call=call,
            tool=tool,
            errors=[
                f"tool {tool.name!r}: arguments must be a JSON object of named values, "
                f"received {_show(arguments)}"
            ],
            plain=["the request's details could not be read"],
        )
    arguments, renamed = read_aliases(tool, arguments)
    checker = _Checker(tool.name)
    cleaned = checker.check_arguments(arguments, schema)
    return ValidationResult(
        call=call,
        tool=tool,
        errors=checker.errors,
        warnings=warnings + renamed + checker.warnings,
        arguments=cleaned,
        dropped=checker.dropped,
        plain=checker.plain,
    )


def _validate_mapping(
    data: Mapping[str, Any], registry: ToolRegistry, ctx: ToolContext | None
) -> ValidationResult:
    shapes = read_calls(dict(data))
    raw = json.dumps(data, ensure_ascii=False, default=repr)
    if len(shapes) != 1:
        call = ToolCall(str(data.get("tool", data.get("name", ""))), {}, raw_json=raw)
        return ValidationResult(
            call=call,
            tool=None,
            errors=[
                f'{_show(dict(data))} is not one tool call; write {{"tool": NAME, "args": {{...}}}}'
            ],
            plain=["the request was not one clear action"],
        )
    return validate_tool_call(
        ToolCall(shapes[0].name, shapes[0].arguments, raw_json=raw), registry, ctx
    )


class _Checker:
    """Walks a value and a schema, collecting errors and lossless fixes."""

    def __init__(self, tool_name: str) -> None:
        self.tool = tool_name
        self.errors: list[str] = []
        self.warnings: list[str] = []
        self.dropped: list[str] = []
        self.plain: list[str] = []

    def check_arguments(self, arguments: dict[str, Any], schema: JsonSchema) -> dict[str, Any]:
        """Return the cleaned arguments; an unknown one is left out with a warning when
        nothing else is wrong, and is an error otherwise (so the model learns the names)."""
        properties: dict[str, JsonSchema] = schema.get("properties", {})
        unknown: list[str] = []
        cleaned: dict[str, Any] = {}
        for name in schema.get("required", []):
            if name not in arguments:
                self._missing(name, properties.get(name, {}))
        extra = schema.get("additionalProperties", True)
        for name, value in arguments.items():
            if name in properties:
                cleaned[name] = self.check(value, properties[name], name)
            elif isinstance(extra, dict):
                cleaned[name] = self.check(value, extra, name)
            elif extra is not False:
                # A tool that takes its arguments as one dict may accept any of them.
                cleaned[name] = value
            else:
                unknown.append(name)
        accepted = ", ".join(repr(p) for p in properties) or "none"
        for name in unknown:
            said = f"tool {self.tool!r}: unknown argument {name!r}; accepted arguments: {accepted}"
            if self.errors:
                self.errors.append(said)
                self.plain.append(f"it takes no {_words(name)}")
            else:
                self.warnings.append(f"{said} (left out)")
                self.dropped.append(name)
        return cleaned

    def _missing(self, name: str, prop: JsonSchema) -> None:
        about = f" ({prop['description']})" if prop.get("description") else ""
        self.errors.append(
            f"tool {self.tool!r}: missing required argument {name!r}: expected "
            f"{_expected(prop)}{about}"
        )
        self.plain.append(f"the {_words(name)} was missing")

    def _fail(self, path: str, expected: str, value: Any) -> None:
        self.errors.append(
            f"tool {self.tool!r}, argument {path!r}: expected {expected}, received {_show(value)}"
        )
        if value is None:
            self.plain.append(f"the {_words(path)} was missing")
        else:
            self.plain.append(f"the {_words(path)} {_said(value)} is not {expected}")

    def check(self, value: Any, schema: JsonSchema, path: str) -> Any:
        """Return ``value`` (possibly coerced) and record what is wrong with it."""
        if not isinstance(schema, dict) or not schema:
            return value
        if "anyOf" in schema:
            return self._check_any_of(value, schema, path)
        if "type" in schema:
            ok, value = self._check_type(value, schema["type"], path)
            if not ok:
                return value
        if "enum" in schema and not _in_enum(value, schema["enum"]):
            allowed = _listed(schema["enum"])
            self.errors.append(
                f"tool {self.tool!r}, argument {path!r}: must be one of {allowed}; "
                f"received {_show(value)}"
            )
            self.plain.append(f"{_said(value)} is not a {_words(path)} I can use here")
            return value
        self._check_bounds(value, schema, path)
        if isinstance(value, list):
            return self._check_items(value, schema, path)
        if isinstance(value, dict) and ("properties" in schema or "additionalProperties" in schema):
            return self._check_object(value, schema, path)
        return value

    def _check_any_of(self, value: Any, schema: JsonSchema, path: str) -> Any:
        for option in schema["anyOf"]:
            trial = _Checker(self.tool)
            result = trial.check(value, option, path)
            if not trial.errors:
                self.warnings.extend(trial.warnings)
                return result
        self._fail(path, _expected(schema), value)
        return value

    def _check_type(self, value: Any, kind: str | list[str], path: str) -> tuple[bool, Any]:
        kinds = [kind] if isinstance(kind, str) else list(kind)
        if any(_is_type(value, k) for k in kinds):
            return True, value
        for k in kinds:
            converted = _coerce(value, k)
            if converted is not _NO:
                self.warnings.append(
                    f"tool {self.tool!r}, argument {path!r}: converted {_show(value)} "
                    f"to {k} {_show(converted)}"
                )
                return True, converted
        self._fail(path, " or ".join(kinds), value)
        return False, value

    def _check_bounds(self, value: Any, schema: JsonSchema, path: str) -> None:
        for key, measure, test, expected in _BOUNDS:
            if key not in schema:
                continue
            size = measure(value)
            if size is not None and not test(size, schema[key]):
                self._fail(path, expected.format(schema[key]), value)
        pattern = schema.get("pattern")
        if (
            isinstance(value, str)
            and isinstance(pattern, str)
            and re.search(pattern, value) is None
        ):
            self._fail(path, f"text matching {pattern!r}", value)

    def _check_items(self, value: list[Any], schema: JsonSchema, path: str) -> list[Any]:
        prefix = schema.get("prefixItems")
        if isinstance(prefix, list):
            return [
                self.check(item, prefix[i], f"{path}[{i}]") if i < len(prefix) else item
                for i, item in enumerate(value)
            ]
        items = schema.get("items")
        if isinstance(items, dict):
            return [self.check(item, items, f"{path}[{i}]") for i, item in enumerate(value)]
        return value

    def _check_object(self, value: dict[str, Any], schema: JsonSchema, path: str) -> Any:
        properties: dict[str, JsonSchema] = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        cleaned: dict[str, Any] = {}
        for name in schema.get("required", []):
            if name not in value:
                self._fail(
                    f"{path}.{name}", f"a value ({_expected(properties.get(name, {}))})", None
                )
        for key, item in value.items():
            if key in properties:
                cleaned[key] = self.check(item, properties[key], f"{path}.{key}")
            elif extra is False:
                accepted = ", ".join(repr(p) for p in properties) or "none"
                self.errors.append(
                    f"tool {self.tool!r}, argument {path!r}: unknown key {key!r}; "
                    f"accepted keys: {accepted}"
                )
                self.plain.append(f"the {_words(path)} takes no {_words(key)}")
            elif isinstance(extra, dict):
                cleaned[key] = self.check(item, extra, f"{path}.{key}")
            else:
                cleaned[key] = item
        return cleaned


def _words(path: str) -> str:
    """An argument's name as words: ``task_id`` is "task id", ``execution_data.url`` is
    "url"."""
    name = re.sub(r"\[\d+\]", "", path).rsplit(".", 1)[-1]
    return name.replace("_", " ").strip() or "value"


def _number(value: Any) -> float | None:
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


def _text_length(value: Any) -> int | None:
    return len(value) if isinstance(value, str) else None


def _list_length(value: Any) -> int | None:
    return len(value) if isinstance(value, list) else None


_BOUNDS: tuple[tuple[str, Callable[[Any], float | None], Callable[[Any, Any], bool], str], ...] = (
    # (keyword, what it bounds, the test it sets, what the value should have been)
    ("minimum", _number, operator.ge, "a number at least {}"),
    ("maximum", _number, operator.le, "a number at most {}"),
    ("exclusiveMinimum", _number, operator.gt, "a number more than {}"),
    ("exclusiveMaximum", _number, operator.lt, "a number less than {}"),
    ("minLength", _text_length, operator.ge, "text of at least {} characters"),
    ("maxLength", _text_length, operator.le, "text of at most {} characters"),
    ("minItems", _list_length, operator.ge, "a list of at least {} items"),
    ("maxItems", _list_length, operator.le, "a list of at most {} items"),
)


class _No:
    """No lossless conversion exists."""


_NO = _No()


def _is_type(value: Any, kind: str) -> bool:
    if kind == "string":
        return isinstance(value, str)
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return (
            isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
        )
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "null":
        return value is None
    if kind == "array":
        return isinstance(value, list)
    if kind == "object":
        return isinstance(value, dict)
    return False


def _coerce(value: Any, kind: str) -> Any:
    """Return ``value`` converted to ``kind`` when nothing is lost, else ``_NO``."""
    if isinstance(value, bool):
        return _NO
    if kind == "integer":
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, str) and _INT_TEXT.match(value.strip()):
            return int(value.strip())
    elif kind == "number" and isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            return _NO
        if math.isfinite(number):
            return int(number) if _INT_TEXT.match(value.strip()) else number
    elif kind == "boolean" and isinstance(value, str):
        lowered = value.strip().lower()
        if lowered in {"true", "false"}:
            return lowered == "true"
    elif kind == "string" and isinstance(value, int | float):
        try:
            return str(value)
        except ValueError:  # an int too long to print (over sys.get_int_max_str_digits())
            return _NO
    elif kind in {"array", "object"} and isinstance(value, str):
        try:
            decoded = json.loads(value)
        except ValueError:
            return _NO
        if _is_type(decoded, kind):
            return decoded
    elif kind == "array" and isinstance(value, tuple):
        return list(value)
    return _NO


def _expected(schema: JsonSchema) -> str:
    if "enum" in schema:
        return "one of " + ", ".join(_show(v) for v in schema["enum"])
    if "anyOf" in schema:
        return " or ".join(_expected(s) for s in schema["anyOf"])
    kind = schema.get("type")
    if isinstance(kind, list):
        return " or ".join(kind)
    if kind == "array" and isinstance(schema.get("items"), dict):
        return f"a list of {_expected(schema['items'])}"
    return str(kind) if kind else "a value"


def _in_enum(value: Any, allowed: list[Any]) -> bool:
    """Whether ``value`` is one of ``allowed``, by JSON type too (``True`` is not ``1``)."""
    return any(value == option and type(value) is type(option) for option in allowed) or (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and any(
            value == option and isinstance(option, int | float) and not isinstance(option, bool)
            for option in allowed
        )
    )


def _said(value: Any) -> str:
    """A value as a person reads it quoted: ``'k3m9xa'``, ``5``, ``[1, 2]``."""
    text = _show(value).removesuffix(f" ({type(value).__name__})")
    if isinstance(value, str):
        text = "'" + text.strip('"') + "'"
    return text


def _show(value: Any) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False, default=repr)
    except ValueError:  # NaN is fine for json.dumps; an int too long to print is not
        text = f"<{type(value).__name__} too long to show>"
    if len(text) > _MAX_SHOWN:
        text = text[: _MAX_SHOWN - 3] + "..."
    return f"{text} ({type(value).__name__})" if not isinstance(value, str) else text


_LISTED = 12
"""The most values of an enum a refusal lists (a user's 300 task ids would bury the rest)."""


def _listed(values: Sequence[Any]) -> str:
    shown = ", ".join(_show(v) for v in values[:_LISTED])
    more = len(values) - _LISTED
    return f"{shown} (and {more} more)" if more > 0 else shown

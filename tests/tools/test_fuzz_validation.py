"""Fuzzing ``tools.validate_tool_call`` with tools built from random signatures.

Each example builds a tool with ``@tool`` from a generated signature (``str``, ``int``,
``float``, ``bool``, ``list[...]``, ``dict[str, ...]``, ``Literal[...]`` and ``X | None``, with
random defaults and random bounds given as ``params`` overrides), then validates a random
argument dict against it: good values, good values written as text, wrong types, extra keys, missing keys, NaN, infinities,
huge integers and nested junk. Whatever comes in, validation does not raise; a valid verdict
means the cleaned arguments really have the schema's types and bounds; every error names the
tool. Conformance is checked against the Python annotation, independently of the validator.
"""

from __future__ import annotations

import functools
import inspect
import json
import math
import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, Union, get_args, get_origin

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tools import JsonSchema, Tool, ToolCall, ToolRegistry, tool, validate_tool_call

FUZZ = settings(
    max_examples=120,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
LITERAL: Any = Literal  # subscripted at run time with generated values
HUGE = 10**4000  # under the 4300-digit int/str limit; a longer one is tested on its own below

# -- generated signatures ----------------------------------------------------------------


def literals() -> st.SearchStrategy[Any]:
    """``Literal[...]`` of one JSON type, or of text and numbers other than 0 and 1.

    A mixed Literal whose numbers are 0 or 1 meets the bool/int confusion tested on its own
    (``test_a_bool_is_not_accepted_for_a_number_in_a_mixed_enum``).
    """
    options = st.one_of(
        st.lists(st.text(max_size=6), min_size=1, max_size=4, unique=True),
        st.lists(st.integers(-1000, 1000), min_size=1, max_size=4, unique=True),
        st.lists(st.booleans(), min_size=1, max_size=2, unique=True),
        st.lists(
            st.one_of(st.text(max_size=6), st.integers(2, 1000)), min_size=2, max_size=4
        ).filter(lambda vs: len({(type(v), v) for v in vs}) == len(vs)),
    )
    return options.map(lambda values: LITERAL[tuple(values)])


def parameter_types() -> st.SearchStrategy[Any]:
    """Types a tool parameter may have, nested a few levels."""
    leaves = st.one_of(st.sampled_from([str, int, float, bool]), literals())
    return st.recursive(
        leaves,
        lambda inner: st.one_of(
            inner.map(lambda t: types.GenericAlias(list, (t,))),
            inner.map(lambda t: types.GenericAlias(dict, (str, t))),
            inner.map(lambda t: t | None),
        ),
        max_leaves=4,
    )


@functools.cache
def values_for(annotation: Any) -> st.SearchStrategy[Any]:
    """Values that conform to ``annotation`` (as JSON would carry them); built once per type."""
    origin = get_origin(annotation)
    if annotation is str:
        return st.text(max_size=12)
    if annotation is int:
        return st.integers()
    if annotation is float:
        return st.floats(allow_nan=False, allow_infinity=False)
    if annotation is bool:
        return st.booleans()
    if origin is Literal:
        return st.sampled_from(get_args(annotation))
    if origin is list:
        return st.lists(values_for(get_args(annotation)[0]), max_size=3)
    if origin is dict:
        return st.dictionaries(st.text(max_size=5), values_for(get_args(annotation)[1]), max_size=3)
    if origin in (Union, types.UnionType):
        return st.one_of(*(values_for(arg) for arg in get_args(annotation)))
    if annotation is type(None):
        return st.none()
    raise AssertionError(f"no value strategy for {annotation!r}")


def junk() -> st.SearchStrategy[Any]:
    """Any JSON-like value, with NaN, infinities, huge numbers and nesting."""
    scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.sampled_from([HUGE, -HUGE, 2**63, -(2**63) - 1, 10**18, 0, 1]),
        st.floats(),
        st.text(max_size=12),
        st.sampled_from(["5", " 7 ", "-3", "1e3", "nan", "inf", "true", "False", "[1, 2]",
                         '{"a": 1}', "", "1" * 25]),
    )  # fmt: skip
    return st.recursive(
        scalars,
        lambda inner: st.one_of(
            st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=5), inner, max_size=3)
        ),
        max_leaves=6,
    )


@functools.cache
def bounds_for(annotation: Any) -> st.SearchStrategy[JsonSchema]:
    """A ``params`` override with random bounds that fit the parameter's type."""
    number = st.integers(-50, 50)
    if annotation in (int, float):
        return st.fixed_dictionaries(
            {}, optional={"minimum": number, "maximum": number, "exclusiveMinimum": number}
        )
    if annotation is str:
        size = st.integers(0, 6)
        return st.fixed_dictionaries({}, optional={"minLength": size, "maxLength": size})
    if get_origin(annotation) is list:
        size = st.integers(0, 3)
        return st.fixed_dictionaries({}, optional={"minItems": size, "maxItems": size})
    return st.just({})


ANNOTATIONS = parameter_types()
JUNK = junk()


@dataclass(frozen=True)
class Param:
    """One generated parameter."""

    name: str
    annotation: Any
    required: bool
    default: Any
    bounds: JsonSchema


NAMES = st.sampled_from(
    ["a", "b", "q", "query", "limit", "tags", "url", "when", "n_2", "value", "mode", "items",
     "opts", "title", "x1", "default", "type", "properties", "required"]
)  # fmt: skip


@st.composite
def params(draw: st.DrawFn) -> list[Param]:
    """A signature: unique names, random types, defaults and bounds."""
    names = draw(st.lists(NAMES, min_size=0, max_size=5, unique=True))
    found = []
    for name in names:
        annotation = draw(ANNOTATIONS)
        required = draw(st.booleans())
        default = None if required else draw(values_for(annotation))
        found.append(Param(name, annotation, required, default, draw(bounds_for(annotation))))
    return found


def build_tool(name: str, signature: list[Param]) -> Tool:
    """Make a tool with ``@tool`` from a generated signature."""

    def impl(**arguments: Any) -> str:
        return "ran"

    impl.__dict__["__signature__"] = inspect.Signature(
        [
            inspect.Parameter(
                p.name,
                inspect.Parameter.KEYWORD_ONLY,
                annotation=p.annotation,
                default=inspect.Parameter.empty if p.required else p.default,
            )
            for p in signature
        ]
    )
    impl.__annotations__ = {p.name: p.annotation for p in signature}
    impl.__doc__ = "A generated tool."
    bounds = {p.name: p.bounds for p in signature if p.bounds}
    return Tool.from_function(tool(name=name, params=bounds)(impl))


# -- conformance, judged from the annotation ----------------------------------------------


def conforms(value: Any, annotation: Any, bounds: JsonSchema | None = None) -> bool:
    """Whether ``value`` is a JSON value of ``annotation`` (JSON semantics: 1 is not true)."""
    if not _has_type(value, annotation):
        return False
    return _within(value, bounds or {})


def _has_type(value: Any, annotation: Any) -> bool:
    origin = get_origin(annotation)
    checks: dict[Any, Callable[[Any], bool]] = {
        str: lambda v: isinstance(v, str),
        int: lambda v: isinstance(v, int) and not isinstance(v, bool),
        float: lambda v: _is_number(v) and math.isfinite(v),
        bool: lambda v: isinstance(v, bool),
        type(None): lambda v: v is None,
    }
    if annotation in checks:
        return checks[annotation](value)
    if origin is Literal:
        return any(_json_equal(value, option) for option in get_args(annotation))
    if origin is list:
        item = get_args(annotation)[0]
        return isinstance(value, list) and all(_has_type(v, item) for v in value)
    if origin is dict:
        item = get_args(annotation)[1]
        return isinstance(value, dict) and all(
            isinstance(k, str) and _has_type(v, item) for k, v in value.items()
        )
    if origin in (Union, types.UnionType):
        return any(_has_type(value, arg) for arg in get_args(annotation))
    raise AssertionError(f"no conformance rule for {annotation!r}")


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _json_equal(value: Any, option: Any) -> bool:
    if isinstance(option, bool) or isinstance(value, bool):
        return isinstance(value, bool) and isinstance(option, bool) and value is option
    if _is_number(option):
        return _is_number(value) and value == option
    return type(value) is type(option) and value == option


def _within(value: Any, bounds: JsonSchema) -> bool:
    if _is_number(value):
        return all(
            [
                value >= bounds.get("minimum", -math.inf),
                value <= bounds.get("maximum", math.inf),
                value > bounds.get("exclusiveMinimum", -math.inf),
            ]
        )
    if isinstance(value, str | list):
        low = bounds.get("minLength" if isinstance(value, str) else "minItems", 0)
        high = bounds.get("maxLength" if isinstance(value, str) else "maxItems", math.inf)
        return bool(low <= len(value) <= high)
    return True


# -- the properties ---------------------------------------------------------------------


@st.composite
def calls(draw: st.DrawFn) -> tuple[Tool, list[Param], ToolCall]:
    """A generated tool and a call of it with good, bad, extra and missing arguments."""
    signature = draw(params())
    name = draw(NAMES)
    built = build_tool(name, signature)
    arguments: dict[str, Any] = {}
    for param in signature:
        choice = draw(st.sampled_from(["good", "good", "as text", "junk", "absent"]))
        if choice == "good":
            arguments[param.name] = draw(values_for(param.annotation))
        elif choice == "as text":  # what a model writes when it quotes everything
            good = draw(values_for(param.annotation))
            arguments[param.name] = json.dumps(good) if draw(st.booleans()) else str(good)
        elif choice == "junk":
            arguments[param.name] = draw(JUNK)
    for extra in draw(st.lists(NAMES, max_size=2)):
        arguments.setdefault(extra, draw(JUNK))
    called = draw(st.one_of(st.just(name), st.just(name.upper()), NAMES))
    return built, signature, ToolCall(called, arguments)


@FUZZ
@given(case=calls())
def test_validation_never_raises_and_a_valid_verdict_means_conforming_arguments(
    case: tuple[Tool, list[Param], ToolCall],
) -> None:
    built, signature, call = case
    registry = ToolRegistry([built])
    verdict = validate_tool_call(call, registry)
    if verdict.tool is None:
        assert not verdict.is_valid
        assert [repr(call.tool_name) in e for e in verdict.errors] == [True]
        return
    for error in verdict.errors:
        assert f"tool {built.name!r}" in error
    for warning in verdict.warnings:
        assert f"tool {built.name!r}" in warning
    if not verdict.is_valid:
        assert built.name in verdict.message()
        return
    by_name = {p.name: p for p in signature}
    assert set(verdict.arguments) <= set(by_name), "a valid call kept an unknown argument"
    for param in signature:
        if param.required:
            assert param.name in verdict.arguments, f"required {param.name!r} missing"
        if param.name in verdict.arguments:
            value = verdict.arguments[param.name]
            assert conforms(value, param.annotation, param.bounds), (
                f"{param.name}: {value!r} accepted for {param.annotation!r} {param.bounds}"
            )


@settings(FUZZ, max_examples=60)
@given(signature=params(), arguments=st.one_of(JUNK, st.lists(JUNK)))
def test_arguments_that_are_not_an_object_are_refused(
    signature: list[Param], arguments: Any
) -> None:
    built = build_tool("target", signature)
    verdict = validate_tool_call(ToolCall("target", arguments), ToolRegistry([built]))
    if isinstance(arguments, dict):
        return
    assert not verdict.is_valid
    assert verdict.errors and all("tool 'target'" in e for e in verdict.errors)


def test_a_bool_is_not_accepted_for_a_number_in_a_mixed_enum() -> None:
    built = build_tool("pick", [Param("choice", LITERAL[1, "x"], True, None, {})])
    verdict = validate_tool_call(ToolCall("pick", {"choice": True}), ToolRegistry([built]))
    assert not verdict.is_valid


@pytest.mark.parametrize("annotation", [str, bool], ids=["coerced to text", "quoted in an error"])
def test_an_enormous_integer_does_not_make_validation_raise(annotation: Any) -> None:
    built = build_tool("take", [Param("value", annotation, True, None, {})])
    call = ToolCall("take", {"value": 10**5000})
    verdict = validate_tool_call(call, ToolRegistry([built]))
    assert not verdict.is_valid

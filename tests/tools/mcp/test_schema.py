"""An MCP tool's input schema, converted once into what our checks read; whatever it is."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tools import (
    Tool,
    ToolCall,
    ToolRegistry,
    markdown_catalog,
    people_catalog,
    prompt_catalog,
    validate_tool_call,
)
from tools.mcp import convert_schema

FUZZ = settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def test_references_are_put_in_place_and_a_loop_is_cut() -> None:
    schema = {
        "type": "object",
        "properties": {"item": {"$ref": "#/$defs/Item", "description": "what to store"}},
        "required": ["item"],
        "$defs": {
            "Item": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "parts": {"$ref": "#/$defs/Item"}},
            }
        },
    }

    converted = convert_schema(schema)

    item = converted.schema["properties"]["item"]
    assert item["description"] == "what to store"  # its own keys win over the target's
    assert item["properties"]["name"] == {"type": "string"}
    assert item["properties"]["parts"] == {}  # the loop: any value, as far as we check
    assert converted.lost == (
        "at item.parts: the reference '#/$defs/Item' refers to itself; any value",
    )


def test_what_our_check_cannot_say_is_rewritten_in_its_terms() -> None:
    schema = {
        "type": "object",
        "properties": {
            "mode": {"const": "fast"},
            "size": {"oneOf": [{"type": "integer", "minimum": 1}, {"type": "string"}]},
            "when": {"type": "string", "nullable": True, "format": "date-time"},
            "box": {
                "allOf": [
                    {"type": "object", "properties": {"w": {"type": "number"}}, "required": ["w"]},
                    {"properties": {"h": {"type": "number"}}, "required": ["h"]},
                ]
            },
        },
    }

    properties = convert_schema(schema).schema["properties"]

    assert properties["mode"] == {"enum": ["fast"]}
    assert properties["size"] == {"anyOf": [{"type": "integer", "minimum": 1}, {"type": "string"}]}
    assert properties["when"] == {"type": ["string", "null"], "format": "date-time"}
    assert properties["box"]["required"] == ["w", "h"]
    assert set(properties["box"]["properties"]) == {"w", "h"}


def test_keywords_only_the_server_checks_are_left_out_and_named() -> None:
    schema = {
        "type": "object",
        "properties": {
            "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
            "not_this": {"not": {"type": "null"}},
        },
        "$schema": "https://json-schema.org/draft/2020-12/schema",
    }

    converted = convert_schema(schema)

    assert converted.schema["properties"]["tags"] == {"type": "array", "items": {"type": "string"}}
    assert converted.unchecked == ("not", "uniqueItems")
    assert converted.lost == ()


def test_what_would_break_our_check_is_dropped_and_said() -> None:
    schema = {
        "type": "object",
        "properties": {
            "n": {"type": "integer", "minimum": "3", "maximum": 9},
            "p": {"type": "string", "pattern": "(?<=a+)b"},
            "t": {"type": "int"},
            "q": "not a schema",
        },
        "required": ["n", 5],
    }

    converted = convert_schema(schema)

    assert converted.schema["properties"] == {
        "n": {"type": "integer", "maximum": 9},
        "p": {"type": "string"},
        "t": {},
        "q": {},
    }
    assert converted.schema["required"] == ["n"]
    assert len(converted.lost) == 4


def test_a_schema_that_is_not_of_an_object_accepts_any_arguments() -> None:
    schemas: list[object] = ["text", None, [], {"type": "string"}]
    for schema in schemas:
        converted = convert_schema(schema)
        assert converted.schema == {"type": "object", "properties": {}, "required": []}
        assert converted.lost


def test_a_schema_nested_too_deep_is_cut_where_it_gets_too_deep() -> None:
    deep: dict[str, Any] = {"type": "string"}
    for _ in range(40):
        deep = {"type": "object", "properties": {"x": deep}}

    converted = convert_schema(deep)

    assert "nested too deep or too large" in converted.lost[0]


# -- whatever a server sends ----------------------------------------------------------------------

KEYS = (
    "type", "properties", "required", "items", "prefixItems", "additionalProperties", "anyOf",
    "oneOf", "allOf", "enum", "const", "minimum", "maximum", "exclusiveMinimum", "minLength",
    "maxLength", "minItems", "maxItems", "pattern", "$ref", "$defs", "nullable", "format",
    "description", "default", "not", "x",
)  # fmt: skip
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(["string", "integer", "object", "array", "#/$defs/a", "#", "(", "a*", "x"]),
    st.text(max_size=5),
)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.sampled_from(KEYS), inner, max_size=5),
        st.dictionaries(st.text(max_size=3), inner, max_size=3),
    ),
    max_leaves=40,
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=12,
)


def _any_arguments(arguments: dict[str, Any]) -> str:
    return "ok"


@FUZZ
@given(
    schema=st.one_of(JSON, st.dictionaries(st.sampled_from(KEYS), JSON, max_size=6)),
    arguments=st.dictionaries(st.text(max_size=4), VALUES, max_size=4),
)
def test_any_schema_converts_is_described_and_checks_any_call_without_raising(
    schema: Any, arguments: dict[str, Any]
) -> None:
    converted = convert_schema(schema)
    registry = ToolRegistry(
        [Tool.from_mapping("server.tool", _any_arguments, parameters=converted.schema)]
    )

    verdict = validate_tool_call(ToolCall("server.tool", arguments), registry)
    described = [prompt_catalog(registry), markdown_catalog(registry), people_catalog(registry)]

    assert converted.schema["type"] == "object"
    assert verdict.tool is not None
    assert all("server.tool" in text for text in described)

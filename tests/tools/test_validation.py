from enum import Enum
from typing import Literal

import pytest

from tools import ToolCall, ToolContext, ToolRegistry, ValidationResult, tool, validate_tool_call


class Unit(Enum):
    C = "celsius"
    F = "fahrenheit"


@tool
def forecast(
    city: str,
    days: int = 3,
    unit: Unit = Unit.C,
    detail: Literal["short", "long"] = "short",
    hourly: bool = False,
    ratio: float = 1.0,
    tags: list[str] | None = None,
) -> str:
    """Get a forecast.

    Args:
        city: The city name.
    """
    return city


def _ids(ctx: ToolContext) -> list[str]:
    if ctx.user_id == "busy":
        return [f"t{n:03d}" for n in range(300)]
    return ["a1", "b2"] if ctx.user_id == "me" else []


@tool(params={"task_id": {"enum": _ids}})
def cancel_task(task_id: str) -> str:
    """Cancel a task."""
    return task_id


REGISTRY = ToolRegistry([forecast, cancel_task])


def check(
    name: str, arguments: dict[str, object], ctx: ToolContext | None = None
) -> ValidationResult:
    return validate_tool_call(ToolCall(name, arguments), REGISTRY, ctx)


def test_valid_call_passes_unchanged() -> None:
    result = check("forecast", {"city": "Oslo", "days": 2, "unit": "fahrenheit"})
    assert result.is_valid
    assert result.errors == []
    assert result.warnings == []
    assert result.arguments == {"city": "Oslo", "days": 2, "unit": "fahrenheit"}


def test_unknown_tool_names_the_closest_and_lists_all() -> None:
    result = check("forcast", {})
    assert not result.is_valid
    assert result.tool is None
    assert result.errors == [
        "Unknown tool 'forcast'. Did you mean 'forecast'? Available tools: forecast, cancel_task."
    ]


def test_missing_required_argument_says_what_is_expected() -> None:
    result = check("forecast", {"days": 1})
    assert result.errors == [
        "tool 'forecast': missing required argument 'city': expected string (The city name.)"
    ]


def test_an_unknown_argument_is_left_out_of_a_call_that_is_otherwise_valid() -> None:
    result = check("forecast", {"city": "Oslo", "town": "x"})
    assert result.is_valid
    assert result.arguments == {"city": "Oslo"}
    assert result.dropped == ["town"]
    assert result.warnings[0].startswith(
        "tool 'forecast': unknown argument 'town'; accepted arguments: 'city'"
    )


def test_an_unknown_argument_stays_an_error_when_something_else_is_wrong() -> None:
    result = check("forecast", {"town": "Oslo"})
    assert result.errors == [
        "tool 'forecast': missing required argument 'city': expected string (The city name.)",
        "tool 'forecast': unknown argument 'town'; accepted arguments: 'city', 'days', 'unit', "
        "'detail', 'hourly', 'ratio', 'tags'",
    ]
    assert result.dropped == []


@pytest.mark.parametrize(
    ("arguments", "cleaned"),
    [
        ({"days": "5"}, {"days": 5}),
        ({"days": 5.0}, {"days": 5}),
        ({"hourly": "true"}, {"hourly": True}),
        ({"ratio": "0.5"}, {"ratio": 0.5}),
        ({"city": 7}, {"city": "7"}),
        ({"tags": '["a", "b"]'}, {"tags": ["a", "b"]}),
    ],
)
def test_lossless_coercions_are_applied_and_noted(
    arguments: dict[str, object], cleaned: dict[str, object]
) -> None:
    result = check("forecast", {"city": "Oslo", **arguments})
    assert result.is_valid, result.errors
    assert result.arguments == {"city": "Oslo", **cleaned}
    assert len(result.warnings) == 1
    assert "converted" in result.warnings[0]


@pytest.mark.parametrize(
    ("arguments", "fragment"),
    [
        ({"days": "five"}, "argument 'days': expected integer, received \"five\""),
        ({"days": 2.5}, "argument 'days': expected integer, received 2.5 (float)"),
        ({"days": True}, "argument 'days': expected integer, received true (bool)"),
        ({"hourly": "yes"}, "argument 'hourly': expected boolean"),
        ({"tags": "a,b"}, "argument 'tags': expected array or null"),
        (
            {"tags": ["a", {"x": 1}]},
            "argument 'tags[1]': expected string, received {\"x\": 1} (dict)",
        ),
    ],
)
def test_wrong_types_name_argument_expectation_and_value(
    arguments: dict[str, object], fragment: str
) -> None:
    result = check("forecast", {"city": "Oslo", **arguments})
    assert not result.is_valid
    assert any(fragment in e for e in result.errors), result.errors


def test_enum_violation_lists_allowed_values() -> None:
    result = check("forecast", {"city": "Oslo", "unit": "kelvin", "detail": "medium"})
    assert result.errors == [
        'tool \'forecast\', argument \'unit\': must be one of "celsius", "fahrenheit"; received "kelvin"',
        'tool \'forecast\', argument \'detail\': must be one of "short", "long"; received "medium"',
    ]


def test_dynamic_enum_values_are_checked_for_the_caller() -> None:
    mine = check("cancel_task", {"task_id": "zz"}, ToolContext(user_id="me"))
    assert mine.errors == [
        'tool \'cancel_task\', argument \'task_id\': must be one of "a1", "b2"; received "zz"'
    ]
    assert check("cancel_task", {"task_id": "a1"}, ToolContext(user_id="me")).is_valid


def test_a_long_enum_is_listed_in_part() -> None:
    busy = check("cancel_task", {"task_id": "zz"}, ToolContext(user_id="busy"))
    listed = ", ".join(f'"t{n:03d}"' for n in range(12))
    assert busy.errors == [
        f"tool 'cancel_task', argument 'task_id': must be one of {listed} (and 288 more); "
        'received "zz"'
    ]


def test_non_object_arguments_are_reported() -> None:
    call = ToolCall("forecast", ["Oslo"])  # type: ignore[arg-type]
    result = validate_tool_call(call, REGISTRY)
    assert result.errors == [
        "tool 'forecast': arguments must be a JSON object of named values, received [\"Oslo\"] (list)"
    ]


def test_message_is_written_for_the_model() -> None:
    message = check("forecast", {}).message()
    assert message.startswith("The call to 'forecast' was not run:\n- tool 'forecast': missing")
    assert message.endswith("Fix the call and send it again.")


@pytest.mark.parametrize(
    ("name", "arguments", "said"),
    [
        ("forecast", {}, "the city was missing"),
        ("forecast", {"city": "Oslo", "days": "soon"}, "the days 'soon' is not integer"),
        ("forecast", {"city": "Oslo", "unit": "kelvin"}, "'kelvin' is not a unit I can use here"),
        ("cancel_task", {"task_id": "zz"}, "'zz' is not a task id I can use here"),
        ("forecast", {"town": "Oslo"}, "the city was missing; it takes no town"),
        ("weather", {"city": "Oslo"}, "I have no tool called 'weather'"),
    ],
)
def test_what_was_wrong_is_also_said_for_a_person_without_the_models_words(
    name: str, arguments: dict[str, object], said: str
) -> None:
    result = check(name, arguments, ToolContext(user_id="me"))

    assert result.for_person() == said
    assert "tool '" not in said and "Fix the call" not in said and "argument" not in said


def test_a_valid_call_has_nothing_to_say_to_a_person() -> None:
    assert check("forecast", {"city": "Oslo"}).for_person() == ""

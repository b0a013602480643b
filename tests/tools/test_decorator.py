import enum
from datetime import datetime
from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel, Field

from tools import (
    RiskLevel,
    Tool,
    ToolCall,
    ToolContext,
    ToolDefinitionError,
    ToolExecutor,
    ToolRegistry,
    spec_of,
    tool,
    tool_output,
)


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Address(BaseModel):
    street: str
    number: int = 1


def test_bare_decorator_returns_the_function_unchanged() -> None:
    @tool
    def double(x: int) -> int:
        """Double a number."""
        return 2 * x

    assert double(4) == 8
    spec = spec_of(double)
    assert spec.name == "double"
    assert spec.description == "Double a number."
    assert spec.parameters == {
        "type": "object",
        "properties": {"x": {"type": "integer"}},
        "required": ["x"],
        "additionalProperties": False,
    }


def test_schema_inference_covers_every_supported_type() -> None:
    @tool
    def everything(
        text: str,
        count: int,
        ratio: float,
        flag: bool,
        items: list[int],
        mapping: dict[str, float],
        mode: Literal["fast", "slow"],
        color: Color,
        maybe: str | None,
        address: Address,
        when: datetime,
        described: Annotated[int, Field(description="A bounded number.", ge=1, le=9)],
    ) -> None:
        """Take everything."""

    props = spec_of(everything).parameters["properties"]
    assert props["text"] == {"type": "string"}
    assert props["count"] == {"type": "integer"}
    assert props["ratio"] == {"type": "number"}
    assert props["flag"] == {"type": "boolean"}
    assert props["items"] == {"type": "array", "items": {"type": "integer"}}
    assert props["mapping"] == {"type": "object", "additionalProperties": {"type": "number"}}
    assert props["mode"] == {"type": "string", "enum": ["fast", "slow"]}
    assert props["color"] == {"type": "string", "enum": ["red", "blue"]}
    assert props["maybe"] == {"type": ["string", "null"]}
    assert props["address"] == {
        "type": "object",
        "properties": {
            "street": {"type": "string"},
            "number": {"type": "integer", "default": 1},
        },
        "required": ["street"],
        "additionalProperties": False,
    }
    assert props["when"] == {"type": "string", "format": "date-time"}
    assert props["described"] == {
        "type": "integer",
        "description": "A bounded number.",
        "minimum": 1,
        "maximum": 9,
    }


def test_defaults_make_parameters_optional_and_are_advertised() -> None:
    @tool
    def search(
        query: str, limit: int = 5, color: Color = Color.BLUE, tags: list[str] | None = None
    ) -> None:
        """Search.

        Args:
            query: What to find.
            limit: How many.
        """

    params = spec_of(search).parameters
    assert params["required"] == ["query"]
    assert params["properties"]["limit"] == {
        "type": "integer",
        "description": "How many.",
        "default": 5,
    }
    assert params["properties"]["color"]["default"] == "blue"
    assert params["properties"]["tags"]["default"] is None
    assert params["properties"]["query"]["description"] == "What to find."


def test_context_parameter_is_injected_not_described() -> None:
    @tool
    def whoami(ctx: ToolContext, loud: bool = False) -> str:
        """Say who is calling."""
        return ctx.user_id.upper() if loud else ctx.user_id

    spec = spec_of(whoami)
    assert spec.context_param == "ctx"
    assert list(spec.parameters["properties"]) == ["loud"]


def test_overrides_replace_and_merge_what_was_inferred() -> None:
    @tool(
        name="Send Mail!",
        description="Send an email.",
        params={"to": {"format": "email", "description": "Recipient."}},
        required=["to", "subject"],
        aliases=["mail", "email-send"],
        risk_level="high",
        timeout=5,
    )
    def send(to: str, subject: str = "") -> None:
        """Ignored summary."""

    spec = spec_of(send)
    assert spec.name == "Send_Mail_"
    assert spec.description == "Send an email."
    assert spec.parameters["properties"]["to"] == {
        "type": "string",
        "format": "email",
        "description": "Recipient.",
    }
    assert spec.parameters["required"] == ["to", "subject"]
    assert spec.aliases == ("mail", "email_send")
    assert spec.options.risk_level is RiskLevel.HIGH
    assert spec.options.timeout == 5.0


@pytest.mark.parametrize(
    ("source", "fragment"),
    [
        ("def f(x): ...", "'x' has no type annotation"),
        ("def f(*args: int) -> None: ...", "declare each argument by name"),
        ("def f(x: int, /) -> None: ...", "positional-only"),
        ("def f(x: set[bytes]) -> None: ...", "cannot be described as JSON"),
        ("def f(x: dict[int, str]) -> None: ...", "dict[str, T]"),
    ],
)
def test_bad_signatures_are_refused_with_the_reason(source: str, fragment: str) -> None:
    namespace: dict[str, Any] = {}
    exec(source, namespace)
    with pytest.raises(ToolDefinitionError, match=fragment.replace("[", r"\[").replace("*", r"\*")):
        spec_of(tool(namespace["f"]))


def test_unknown_override_parameter_is_refused() -> None:
    @tool(params={"nope": {"enum": [1]}})
    def f(x: int) -> None:
        """F."""

    with pytest.raises(ToolDefinitionError, match="'nope'"):
        spec_of(f)


def test_bad_options_are_refused_at_decoration() -> None:
    with pytest.raises(ToolDefinitionError, match="risk_level 'extreme'"):
        tool(risk_level="extreme")
    with pytest.raises(ToolDefinitionError, match="timeout must be positive"):
        tool(timeout=0)


def test_methods_become_tools_bound_to_their_instance() -> None:
    class Counter:
        def __init__(self) -> None:
            self.total = 0

        @tool
        def add(self, amount: int) -> int:
            """Add to the counter."""
            self.total += amount
            return self.total

    counter = Counter()
    bound = Tool.from_function(Counter.add, counter)
    assert bound.name == "add"
    assert list(bound.schema()["properties"]) == ["amount"]
    assert bound.function(3) == 3
    assert counter.total == 3
    with pytest.raises(ToolDefinitionError, match="register an instance"):
        Tool.from_function(Counter.add)


async def test_a_field_default_is_read_like_annotated_field() -> None:
    @tool
    def forecast(
        city: str = Field(description="City name"),
        days: int = Field(3, ge=1, le=7, description="How many days"),
        units: list[str] = Field(default_factory=lambda: ["C"]),  # noqa: B008
    ) -> str:
        """Forecast the weather."""
        return f"{city} {days} {units}"

    schema = Tool.from_function(forecast).schema()
    assert schema["required"] == ["city"]
    assert schema["properties"]["city"] == {"type": "string", "description": "City name"}
    assert schema["properties"]["days"] == {
        "type": "integer",
        "description": "How many days",
        "minimum": 1,
        "maximum": 7,
        "default": 3,
    }
    assert schema["properties"]["units"]["default"] == ["C"]
    # Left out, a parameter gets the Field's default, never the Field object itself.
    result = await ToolExecutor(ToolRegistry([forecast])).execute(
        ToolCall("forecast", {"city": "Oslo"}), ToolContext()
    )
    assert result.output == "Oslo 3 ['C']"


async def test_a_parameter_that_required_leaves_out_is_passed_as_none() -> None:
    @tool(required=["layer"])
    def paint(layer: str, color: str, style: str) -> str:
        """Paint a layer."""
        return f"{layer} {color!r} {style!r}"

    result = await ToolExecutor(ToolRegistry([paint])).execute(
        ToolCall("paint", {"layer": "roads", "color": "red"}), ToolContext()
    )
    assert result.output == "roads 'red' None"


def test_name_and_description_may_come_first_with_parameter_types_by_name() -> None:
    @tool("plant_tree", "Plant a tree somewhere", species=str, spot=str, depth=int)
    def plant(species, spot, depth=30):  # type: ignore[no-untyped-def]
        """Not the description."""
        return f"{species} at {spot}, {depth} cm deep"

    spec = spec_of(plant)
    assert (spec.name, spec.description) == ("plant_tree", "Plant a tree somewhere")
    assert spec.parameters["properties"] == {
        "species": {"type": "string"},
        "spot": {"type": "string"},
        "depth": {"type": "integer", "default": 30},
    }
    assert spec.parameters["required"] == ["species", "spot"]


def test_a_keyword_is_a_parameter_type_only_for_a_parameter_of_that_name() -> None:
    @tool("log_visit", "Log a visit", description=str, timeout=float, risk_level="medium")
    def log_visit(description: str, timeout: float = 1.0) -> str:
        """Log."""
        return description

    spec = spec_of(log_visit)
    assert spec.description == "Log a visit"
    assert spec.options.timeout == 30.0  # the option keeps its default: timeout names a parameter
    assert spec.options.risk_level is RiskLevel.MEDIUM
    assert spec.parameters["properties"]["timeout"] == {"type": "number", "default": 1.0}

    # The signature's own annotation wins over a looser type given by name.
    @tool("tag", "Tag things", tags=list)
    def tag(tags: list[str] | None = None) -> list[str]:
        """Tag."""
        return tags or []

    assert spec_of(tag).parameters["properties"]["tags"]["items"] == {"type": "string"}


def test_shorthand_mistakes_are_refused_with_the_name() -> None:
    with pytest.raises(ToolDefinitionError, match="no option 'colour'"):
        tool("paint", "Paint", colour="red")
    with pytest.raises(ToolDefinitionError, match="description twice"):
        tool("paint", "Paint", description="Paint again")
    with pytest.raises(ToolDefinitionError, match="no option 'shade'"):

        @tool("paint", "Paint", shade=str)
        def paint(colour: str) -> str:
            """Paint."""
            return colour


async def test_tool_output_formats_the_result_above_or_below_tool() -> None:
    @tool
    @tool_output(llm_format="{city}: {degrees} C", gui_format=lambda r: f"{r['degrees']} degrees")
    def weather(city: str) -> dict[str, Any]:
        """Weather."""
        return {"city": city, "degrees": 21}

    # Where both say how, @tool's own option wins.
    @tool_output(llm_format=lambda r: f"{len(r)} results")
    @tool(llm_format="found {result}")
    def search(query: str) -> list[str]:
        """Search."""
        return [query, query]

    executor = ToolExecutor(ToolRegistry([weather, search]))
    hot = await executor.execute(ToolCall("weather", {"city": "Oslo"}), ToolContext())
    assert (hot.text, hot.display) == ("Oslo: 21 C", "21 degrees")
    found = await executor.execute(ToolCall("search", {"query": "x"}), ToolContext())
    assert found.text == "found ['x', 'x']"


async def test_a_parameter_described_in_params_needs_no_annotation() -> None:
    @tool(params={"layer_id": {"type": "string", "description": "The layer."}})
    def remove_layer(layer_id):  # type: ignore[no-untyped-def]
        """Remove a layer."""
        return f"removed {layer_id}"

    schema = Tool.from_function(remove_layer).schema()
    assert schema["properties"] == {"layer_id": {"type": "string", "description": "The layer."}}
    executor = ToolExecutor(ToolRegistry([remove_layer]))
    result = await executor.execute(ToolCall("remove_layer", {"layer_id": "roads"}))
    assert result.output == "removed roads"
    invalid = await executor.execute(ToolCall("remove_layer", {"layer_id": ["roads"]}))
    assert invalid.status.value == "invalid"

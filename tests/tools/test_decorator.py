import enum
from datetime import datetime
from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel, Field

from tools import RiskLevel, Tool, ToolContext, ToolDefinitionError, spec_of, tool


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

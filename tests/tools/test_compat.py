"""The other designs' names for the registry's and the tool's operations (``tools.compat``)."""

from typing import Any

import pytest

from tests.tools.sample_tools import add, get_time, make_registry
from tools import (
    ParameterSchema,
    ToolContext,
    ToolDefinitionError,
    ToolExecutor,
    ToolNotFoundError,
    ToolSchema,
)
from tools import ToolRegistry as CoreRegistry
from tools.compat import Tool, ToolRegistry


def test_get_answers_none_for_an_unknown_name_and_indexing_raises() -> None:
    registry = ToolRegistry(make_registry())
    assert registry.get("get_time") is registry["now"]
    assert registry.get("nothing") is None
    with pytest.raises(ToolNotFoundError):
        registry["nothing"]


async def test_register_takes_tools_functions_and_decorates() -> None:
    registry = ToolRegistry()

    @registry.register
    def shout(text: str) -> str:
        """Shout."""
        return text.upper()

    @registry.register(aliases=["w"], description="Wave at someone")
    def wave(name: str) -> str:
        return f"*waves at {name}*"

    def plant(species: str) -> str:
        return species

    assert (
        registry.register(ToolSchema(name="plant_tree", description="Plant a tree"), plant) is plant
    )
    echo = registry.register(Tool(name="echo", executor=lambda args: args))
    assert registry.register(add) is add

    assert shout("hi") == "HI"
    assert registry.list_tools() == ["shout", "wave", "plant_tree", "echo", "add"]
    assert registry["w"].description == "Wave at someone"
    assert registry["plant_tree"].description == "Plant a tree"
    assert registry.get_all()[3] is echo
    assert registry.get_tool("wave")("Ann") == "*waves at Ann*"
    with pytest.raises(ToolDefinitionError, match="already marked with @tool"):
        registry.register(get_time, aliases=["clock"])


async def test_register_tool_takes_a_function_of_the_arguments_and_the_user() -> None:
    seen: list[dict[str, Any]] = []

    async def sales_report(args: dict[str, Any], user_context: dict[str, Any]) -> dict[str, Any]:
        """Sales by region and year."""
        seen.append(user_context)
        return {"region": args.get("region", "ALL"), "year": args.get("year")}

    registry = ToolRegistry()
    registry.register_tool("sales_report", sales_report)
    ctx = ToolContext(user_id="u7", chat_id="c7", profile={"user_role": "analyst"})

    result = await registry.execute("sales_report", {"region": "EMEA", "year": 2024}, ctx)

    assert result.success and result.output == {"region": "EMEA", "year": 2024}
    assert str(result) == '{"region":"EMEA","year":2024}'
    assert seen[0]["user_id"] == "u7" and seen[0]["user_role"] == "analyst"
    assert registry.get_context_string() == "- sales_report(): Sales by region and year."


async def test_the_registry_describes_and_runs_its_tools() -> None:
    registry = ToolRegistry(make_registry())

    schema = registry.get_schema("get_time")
    assert (schema.name, schema.returns) == ("get_time", "str")
    assert schema.parameters == (
        ParameterSchema("tz", "string", "IANA zone name.", required=False, default="UTC"),
    )
    assert registry.export_schema()["tools"][1]["name"] == "add"
    assert registry.to_openai_spec()[1] == {
        "type": "function",
        "function": {
            "name": "add",
            "description": "Add two numbers.",
            "parameters": registry["add"].schema(),
        },
    }
    assert registry["add"].to_openai_spec() == registry.to_openai_spec()[1]
    assert (await registry.execute("add", {"a": 2, "b": "3"})).output == 5
    assert not (await registry.execute("ad", {})).success
    registry.clear()
    assert registry.list_tools() == [] and "add" not in registry


async def test_a_tool_reads_like_a_plain_definition() -> None:
    async def lights_off(arguments: dict[str, Any]) -> str:
        return f"{arguments['room']} dark"

    lights = Tool(
        name="lights_off",
        description="Turn the lights off",
        parameters={"type": "object", "properties": {"room": {"type": "string"}}},
        executor=lights_off,
        requires_approval=True,
    )
    adder = ToolRegistry(make_registry())["add"]

    assert (lights.name, lights.description, lights.requires_approval) == (
        "lights_off",
        "Turn the lights off",
        True,
    )
    assert lights.parameters["properties"] == {"room": {"type": "string"}}
    assert await lights.executor({"room": "hall"}) == "hall dark"
    assert not adder.requires_approval and adder.parameters["required"] == ["a", "b"]
    assert await adder.executor({"a": 2, "b": 3}) == 5
    with pytest.raises(ToolDefinitionError, match="a name and an executor"):
        Tool(name="half")


def test_a_compatible_registry_holds_compatible_tools_and_runs_in_an_executor() -> None:
    registry = ToolRegistry([get_time])
    registry.add(make_registry()["add"])

    assert isinstance(registry, CoreRegistry)
    assert all(isinstance(each, Tool) for each in registry)
    assert registry.get_all() == list(registry)
    assert ToolExecutor(registry).registry is registry

from typing import Any

import pytest

from tests.tools import sample_tools
from tests.tools.sample_tools import Tasks, add, get_time, make_registry
from tools import (
    ParameterSchema,
    Tool,
    ToolContext,
    ToolDefinitionError,
    ToolError,
    ToolNotFoundError,
    ToolRegistry,
    ToolSchema,
    tool,
)


def test_lookup_by_name_alias_and_case() -> None:
    registry = make_registry()
    assert registry.names() == ["get_time", "add", "cancel_task", "list_tasks"]
    assert len(registry) == 4
    assert registry["now"].name == "get_time"
    assert registry["Get-Time"].name == "get_time"
    assert "ADD" in registry
    assert "missing" not in registry
    assert [t.name for t in registry] == registry.names()


def test_unknown_name_error_suggests_the_closest() -> None:
    with pytest.raises(ToolNotFoundError, match="Did you mean 'get_time'") as info:
        make_registry()["get_tim"]
    assert "Available tools: get_time, add, cancel_task, list_tasks" in str(info.value)


def test_duplicate_name_or_alias_is_refused_quoting_it() -> None:
    @tool(name="add")
    def other_add(x: int) -> int:
        """Another add."""
        return x

    @tool(aliases=["get_time"])
    def clash() -> None:
        """Clash by alias."""

    with pytest.raises(ValueError, match="'add'"):
        ToolRegistry([add, other_add])
    with pytest.raises(ValueError, match="'get_time'"):
        ToolRegistry([get_time, clash])


def test_objects_without_tools_and_plain_functions_are_refused() -> None:
    def plain(x: int) -> int:
        return x

    with pytest.raises(ToolDefinitionError, match="not marked with @tool"):
        ToolRegistry([plain])
    with pytest.raises(ToolDefinitionError, match="neither a tool nor an object"):
        ToolRegistry([object()])


async def test_dynamic_enum_is_resolved_per_user_after_prepare() -> None:
    registry = make_registry()
    alice = await registry.prepare(ToolContext(user_id="alice"))
    bob = await registry.prepare(ToolContext(user_id="bob"))
    cancel = registry["cancel_task"]
    assert cancel.schema(alice)["properties"]["task_id"]["enum"] == ["a1b2c3", "d4e5f6"]
    bob_schema = cancel.schema(bob)["properties"]["task_id"]
    assert "enum" not in bob_schema
    assert "no values are available right now" in bob_schema["description"]


def test_async_dynamic_value_without_prepare_is_a_clear_error() -> None:
    with pytest.raises(ToolError, match=r"await registry\.prepare"):
        make_registry()["cancel_task"].schema(ToolContext(user_id="alice"))


def test_registering_one_bound_method() -> None:
    tasks = Tasks({})
    registry = ToolRegistry([tasks.list_tasks])
    assert registry.names() == ["list_tasks"]
    result: Any = registry["list_tasks"].function()
    assert result == []


async def test_a_provider_shared_by_several_tools_is_asked_once_per_prepare() -> None:
    class Shared:
        def __init__(self) -> None:
            self.asked = 0

        async def ids(self, ctx: ToolContext) -> list[str]:
            self.asked += 1
            return ["x1"]

        @tool(params={"task_id": {"enum": ids}})
        def first(self, task_id: str) -> str:
            """First."""
            return task_id

        @tool(params={"task_id": {"enum": ids}})
        def second(self, task_id: str) -> str:
            """Second."""
            return task_id

    shared = Shared()
    registry = ToolRegistry([shared])
    ctx = await registry.prepare(ToolContext(user_id="u"))
    assert shared.asked == 1
    assert ctx.prepared
    for name in ("first", "second"):
        assert registry[name].schema(ctx)["properties"]["task_id"]["enum"] == ["x1"]
    await registry.prepare(ctx)
    assert shared.asked == 2


class Garden:
    """Dynamic values written every way a provider may be written."""

    def __init__(self) -> None:
        self.beds = ["north", "south"]

    def plants_of(self, ctx: ToolContext) -> list[str]:
        return [f"{ctx.user_id}-rose"]

    @tool(params={"bed": {"enum": lambda self: list(self.beds)}})
    def water(self, bed: str) -> str:
        """Water a bed."""
        return bed

    @tool(params={"plant": {"enum": plants_of}})
    def prune(self, plant: str) -> str:
        """Prune a plant."""
        return plant

    @tool(params={"tool": {"enum": lambda ctx: [ctx.chat_id]}})
    def fetch(self, tool: str) -> str:
        """Fetch a tool from the shed."""
        return tool

    @tool(params={"season": {"enum": lambda: ["spring", "autumn"]}})
    def sow(self, season: str) -> str:
        """Sow seeds."""
        return season


async def test_providers_of_self_of_self_and_context_of_context_or_of_nothing() -> None:
    registry = ToolRegistry([Garden()])
    ctx = await registry.prepare(ToolContext(user_id="ann", chat_id="shed"))

    def enum(name: str, param: str) -> Any:
        return registry[name].schema(ctx)["properties"][param]["enum"]

    assert enum("water", "bed") == ["north", "south"]
    assert enum("prune", "plant") == ["ann-rose"]
    assert enum("fetch", "tool") == ["shed"]
    assert enum("sow", "season") == ["spring", "autumn"]
    # Synchronous providers also work without prepare.
    assert registry["water"].schema(ToolContext())["properties"]["bed"]["enum"] == [
        "north",
        "south",
    ]


async def test_a_failing_provider_costs_only_its_own_tool_its_values(
    caplog: pytest.LogCaptureFixture,
) -> None:
    class Broken:
        @tool(params={"item": {"enum": lambda self: self.missing_attribute}})
        def take(self, item: str) -> str:
            """Take an item."""
            return item

    registry = ToolRegistry([Broken(), Garden()])
    ctx = await registry.prepare(ToolContext(user_id="ann"))

    take = registry["take"].schema(ctx)["properties"]["item"]
    assert "enum" not in take
    assert "could not be computed" in take["description"]
    assert registry["water"].schema(ctx)["properties"]["bed"]["enum"] == ["north", "south"]
    assert "'take'" in caplog.text and "item/enum" in caplog.text
    # Rendering without prepare fails the same way: logged, and only for that tool.
    assert "enum" not in registry["take"].schema(ToolContext())["properties"]["item"]


def test_get_answers_none_for_an_unknown_name_and_indexing_raises() -> None:
    registry = make_registry()
    assert registry.get("get_time") is registry["now"]
    assert registry.get("nothing") is None
    with pytest.raises(ToolNotFoundError):
        registry["nothing"]


def test_a_module_registers_its_own_tool_functions() -> None:
    registry = ToolRegistry([sample_tools])
    assert registry.list_tools() == ["get_time", "add"]


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
    registry = make_registry()

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
    adder = make_registry()["add"]

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

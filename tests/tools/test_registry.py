from typing import Any

import pytest

from tests.tools import sample_tools
from tests.tools.sample_tools import Tasks, add, get_time, make_registry
from tools import (
    Tool,
    ToolContext,
    ToolDefinitionError,
    ToolError,
    ToolNotFoundError,
    ToolRegistry,
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


def _read(arguments: dict[str, Any]) -> str:
    """Read a file."""
    return str(arguments)


def test_an_mcp_tools_dotted_name_is_kept_and_found_as_models_write_it() -> None:
    registry = ToolRegistry([add, Tool.from_mapping("files.read_file", _read)])

    assert registry.names() == ["add", "files.read_file"]
    for written in ("files.read_file", "Files.Read_File", "files_read_file"):
        assert registry[written].name == "files.read_file"


def test_a_tool_leaves_the_registry_and_the_version_says_so() -> None:
    registry = make_registry()
    before = registry.version
    registry.add(Tool.from_mapping("files.read_file", _read))
    added = registry.version

    gone = registry.remove("files.read_file")
    registry.remove("get_time")

    assert gone.name == "files.read_file"
    assert before < added < registry.version
    assert registry.names() == ["add", "cancel_task", "list_tasks"]
    assert "now" not in registry  # its alias left with it
    with pytest.raises(ToolNotFoundError, match=r"'files\.read_file'"):
        registry.remove("files.read_file")
    registry.add(Tool.from_mapping("files.read_file", _read))  # the name is free again
    assert "files.read_file" in registry


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


def test_a_module_registers_its_own_tool_functions() -> None:
    registry = ToolRegistry([sample_tools])
    assert registry.names() == ["get_time", "add"]


async def test_a_function_of_the_arguments_becomes_a_tool() -> None:
    def lights_off(arguments: dict[str, Any], user_context: dict[str, Any]) -> str:
        """Turn the lights off."""
        return f"{arguments['room']} dark for {user_context['user_id']}"

    lights = Tool.from_mapping(
        "lights-off", lights_off, parameters={"properties": {"room": {"type": "string"}}}
    )
    registry = ToolRegistry([lights])

    assert registry["lights_off"] is lights
    assert (lights.description, lights.schema()["required"]) == ("Turn the lights off.", [])
    assert await lights.invoke({"room": "hall"}, ToolContext(user_id="ann")) == "hall dark for ann"
    with pytest.raises(ToolDefinitionError, match="must describe an object"):
        Tool.from_mapping("half", lights_off, parameters={"type": "array"})

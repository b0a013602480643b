from typing import Any

import pytest

from tools import ToolContext, ToolDefinitionError, ToolError, ToolNotFoundError, ToolRegistry, tool


@tool(aliases=["now"])
def get_time(tz: str = "UTC") -> str:
    """Tell the time.

    Args:
        tz: IANA zone name.
    """
    return tz


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


class Tasks:
    """A domain object whose tools are its decorated methods."""

    def __init__(self, ids_by_user: dict[str, list[str]]) -> None:
        self.ids_by_user = ids_by_user

    async def _ids(self, ctx: ToolContext) -> list[str]:
        return self.ids_by_user.get(ctx.user_id, [])

    @tool(params={"task_id": {"enum": _ids}})
    def cancel_task(self, task_id: str) -> str:
        """Cancel one of your tasks.

        Args:
            task_id: The task's id.
        """
        return task_id

    @tool
    def list_tasks(self) -> list[str]:
        """List your tasks."""
        return [i for ids in self.ids_by_user.values() for i in ids]

    def helper(self) -> None:
        """Not a tool."""


def make_registry() -> ToolRegistry:
    return ToolRegistry([get_time, add, Tasks({"alice": ["a1b2c3", "d4e5f6"]})])


def test_lookup_by_name_alias_and_case() -> None:
    registry = make_registry()
    assert registry.names() == ["get_time", "add", "cancel_task", "list_tasks"]
    assert len(registry) == 4
    assert registry.get("now").name == "get_time"
    assert registry.get("Get-Time").name == "get_time"
    assert "ADD" in registry
    assert "missing" not in registry
    assert [t.name for t in registry] == registry.names()


def test_unknown_name_error_suggests_the_closest() -> None:
    with pytest.raises(ToolNotFoundError, match="Did you mean 'get_time'") as info:
        make_registry().get("get_tim")
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
    tools_for_alice = {t["function"]["name"]: t for t in registry.to_openai_tools(alice)}
    task_id = tools_for_alice["cancel_task"]["function"]["parameters"]["properties"]["task_id"]
    assert task_id["enum"] == ["a1b2c3", "d4e5f6"]
    bob_schema = registry.export_schema(bob)["tools"][2]["parameters"]["properties"]["task_id"]
    assert "enum" not in bob_schema
    assert "no values are available right now" in bob_schema["description"]


def test_async_dynamic_value_without_prepare_is_a_clear_error() -> None:
    with pytest.raises(ToolError, match=r"await registry\.prepare"):
        make_registry().to_openai_tools(ToolContext(user_id="alice"))


def test_sync_dynamic_value_needs_no_prepare() -> None:
    @tool(params={"zone": {"enum": lambda ctx: [ctx.user_id + "/zone"]}})
    def pick(zone: str) -> str:
        """Pick a zone."""
        return zone

    exported = ToolRegistry([pick]).export_schema(ToolContext(user_id="u"))
    assert exported["tools"][0]["parameters"]["properties"]["zone"]["enum"] == ["u/zone"]


def test_export_without_context_leaves_dynamic_values_out() -> None:
    schema = make_registry().export_schema()["tools"][2]["parameters"]["properties"]["task_id"]
    assert "enum" not in schema
    assert "computed for each user" in schema["description"]


def test_openai_export_shape() -> None:
    exported = make_registry().to_openai_tools()
    assert exported[1] == {
        "type": "function",
        "function": {
            "name": "add",
            "description": "Add two numbers.",
            "parameters": {
                "type": "object",
                "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                "required": ["a", "b"],
                "additionalProperties": False,
            },
        },
    }


async def test_context_string_shows_signatures_defaults_and_allowed_values() -> None:
    registry = make_registry()
    text = registry.context_string(await registry.prepare(ToolContext(user_id="alice")))
    lines = text.splitlines()
    assert lines[0] == '- get_time(tz: string = "UTC"): Tell the time.'
    assert "    aliases: now" in lines
    assert "    tz: IANA zone name." in lines
    assert '- cancel_task(task_id: one of "a1b2c3", "d4e5f6"): Cancel one of your tasks.' in lines
    assert "- list_tasks(): List your tasks." in lines


def test_markdown_catalog_for_people() -> None:
    markdown = make_registry().to_markdown()
    assert markdown.startswith("# Tools\n")
    assert "## `get_time`" in markdown
    assert '| `tz` | string | no | "UTC" | IANA zone name. |' in markdown
    assert "aliases: `now`" in markdown


def test_registering_one_bound_method() -> None:
    tasks = Tasks({})
    registry = ToolRegistry([tasks.list_tasks])
    assert registry.names() == ["list_tasks"]
    result: Any = registry.get("list_tasks").function()
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
        assert registry.get(name).schema(ctx)["properties"]["task_id"]["enum"] == ["x1"]
    await registry.prepare(ctx)
    assert shared.asked == 2

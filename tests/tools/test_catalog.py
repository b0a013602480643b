"""The catalog for models and people: definitions, prompt text, Markdown and JSON."""

import json

from tests.tools.sample_tools import make_registry
from tools import (
    ToolContext,
    ToolDefinition,
    ToolRegistry,
    markdown_catalog,
    prompt_catalog,
    schema_document,
    tool,
    tool_definitions,
)


async def test_definitions_carry_each_users_own_values() -> None:
    registry = make_registry()
    alice = await registry.prepare(ToolContext(user_id="alice"))
    bob = await registry.prepare(ToolContext(user_id="bob"))
    for_alice = {d.name: d for d in tool_definitions(registry, alice)}
    assert for_alice["cancel_task"].parameters["properties"]["task_id"]["enum"] == [
        "a1b2c3",
        "d4e5f6",
    ]
    for_bob = {d.name: d for d in tool_definitions(registry, bob)}
    assert "enum" not in for_bob["cancel_task"].parameters["properties"]["task_id"]


def test_definitions_in_registration_order() -> None:
    definitions = tool_definitions(make_registry())
    assert [d.name for d in definitions] == ["get_time", "add", "cancel_task", "list_tasks"]
    assert definitions[1] == ToolDefinition(
        name="add",
        description="Add two numbers.",
        parameters={
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
            "required": ["a", "b"],
            "additionalProperties": False,
        },
    )


def test_sync_dynamic_value_needs_no_prepare() -> None:
    @tool(params={"zone": {"enum": lambda ctx: [ctx.user_id + "/zone"]}})
    def pick(zone: str) -> str:
        """Pick a zone."""
        return zone

    exported = schema_document(ToolRegistry([pick]), ToolContext(user_id="u"))
    assert exported["tools"][0]["parameters"]["properties"]["zone"]["enum"] == ["u/zone"]


def test_schema_document_without_context_leaves_dynamic_values_out() -> None:
    document = schema_document(make_registry())
    schema = document["tools"][2]["parameters"]["properties"]["task_id"]
    assert "enum" not in schema
    assert "computed for each user" in schema["description"]
    assert document["tools"][1]["name"] == "add"
    assert json.loads(json.dumps(document)) == document


async def test_prompt_catalog_shows_signatures_defaults_and_allowed_values() -> None:
    registry = make_registry()
    text = prompt_catalog(registry, await registry.prepare(ToolContext(user_id="alice")))
    lines = text.splitlines()
    assert lines[0] == '- get_time(tz: string = "UTC"): Tell the time.'
    assert "    aliases: now" in lines
    assert "    tz: IANA zone name." in lines
    assert '- cancel_task(task_id: one of "a1b2c3", "d4e5f6"): Cancel one of your tasks.' in lines
    assert "- list_tasks(): List your tasks." in lines


def test_markdown_catalog_for_people() -> None:
    markdown = markdown_catalog(make_registry())
    assert markdown.startswith("# Tools\n")
    assert "## `get_time`" in markdown
    assert '| `tz` | string | no | "UTC" | IANA zone name. |' in markdown
    assert "aliases: `now`" in markdown

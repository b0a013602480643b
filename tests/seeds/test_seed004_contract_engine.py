"""Seed 004, the contract engine: tools registered with ``@registry.register(aliases=...)``
over ``@tool_output(llm_format=..., gui_format=...)``, parameters written ``x: T =
Field(description=...)``, schemas exported with ``to_openai_spec``, ``registry.execute``, and
a model that answers only in the JSON contract (``{"type": "tool_call", ...}`` then
``{"type": "final", "content": ...}``). Run through the registry, the executor, the agent with
a scripted model, and the shared slash commands."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, Literal

import pytest
from pydantic import Field

from agent.compat import DialogAgent
from agent.llm import Role, ScriptedBackend
from interfaces import SlashCommands
from memory import MemoryStore
from tasks import MemoryTaskStore, TaskManager
from tools import ToolStatus, tool_output
from tools.compat import ToolRegistry

registry = ToolRegistry()


@registry.register(aliases=["tides", "t"])
@tool_output(
    llm_format="{harbour}: high tide at {high} ({height} {units})",
    gui_format=lambda r: f"High tide in {r['harbour']} at {r['high']}",
)
def get_tides(
    harbour: str = Field(description="Harbour name"),
    units: Literal["metric", "imperial"] = "metric",
) -> dict[str, Any]:
    """Get today's high tide for a harbour."""
    height = 5.2 if units == "metric" else 17.1
    return {"harbour": harbour, "high": "06:12", "height": height, "units": units}


@registry.register(name="moon-phase!")
def moon_phase() -> str:
    """Tell tonight's moon phase."""
    return "waxing gibbous"


def contract(kind: str, **fields: Any) -> str:
    """A reply in the JSON contract."""
    return json.dumps({"type": kind, **fields})


def test_the_registry_exports_openai_specs_with_field_descriptions() -> None:
    entry = registry.get("t")

    assert entry is not None and entry.name == "get_tides"
    assert entry.aliases == ("tides", "t")
    assert entry.to_openai_spec() == {
        "type": "function",
        "function": {
            "name": "get_tides",
            "description": "Get today's high tide for a harbour.",
            "parameters": {
                "type": "object",
                "properties": {
                    "harbour": {"type": "string", "description": "Harbour name"},
                    "units": {
                        "type": "string",
                        "enum": ["metric", "imperial"],
                        "default": "metric",
                    },
                },
                "required": ["harbour"],
                "additionalProperties": False,
            },
        },
    }
    assert [s["function"]["name"] for s in registry.to_openai_spec()] == [
        "get_tides",
        "moon_phase_",
    ]


def test_the_registry_table_gives_openai_tools_and_the_registry_json() -> None:
    assert registry.to_openai_tools() == registry.to_openai_spec()
    text = registry.to_registry_json()

    assert text.startswith('{\n  "tools": [\n    {\n      "name": "get_tides",')
    assert json.loads(text) == {
        "tools": [
            {
                "name": "get_tides",
                "description": "Get today's high tide for a harbour.",
                "parameters": registry.to_openai_tools()[0]["function"]["parameters"],
                "aliases": ["tides", "t"],
            },
            {
                "name": "moon_phase_",
                "description": "Tell tonight's moon phase.",
                "parameters": {
                    "type": "object",
                    "properties": {},
                    "required": [],
                    "additionalProperties": False,
                },
                "aliases": [],
            },
        ]
    }


async def test_execute_validates_and_formats_for_the_llm_and_the_gui() -> None:
    result = await registry.execute("tides", {"harbour": "Brest"})

    assert str(result) == "Brest: high tide at 06:12 (5.2 metric)"
    assert result.display == "High tide in Brest at 06:12"
    missing = await registry.execute("get_tides", {})
    assert missing.status is ToolStatus.INVALID
    assert "missing required argument 'harbour'" in missing.text
    assert "FieldInfo" not in missing.text


async def test_the_contract_loop_runs_the_tool_and_returns_the_final_content() -> None:
    backend = ScriptedBackend(
        [
            contract("tool_call", name="get_tides", arguments={"harbour": "Saint-Malo"}),
            contract("final", content="High tide in Saint-Malo is at 06:12 today."),
        ]
    )
    agent = DialogAgent(backend=backend, registry=registry)

    answer = await agent.chat("When is high tide in Saint-Malo?")

    assert answer == "High tide in Saint-Malo is at 06:12 today."
    result_message = backend.calls[1].messages[-1]
    assert result_message.role is Role.TOOL
    assert "Saint-Malo: high tide at 06:12 (5.2 metric)" in result_message.content


async def test_a_question_back_to_the_user_comes_as_final_too() -> None:
    backend = ScriptedBackend([contract("final", content="Which harbour do you mean?")])
    agent = DialogAgent(backend=backend, registry=registry)

    assert await agent.chat("When is high tide?") == "Which harbour do you mean?"


async def test_plain_text_is_the_fallback_and_an_alias_calls_the_tool() -> None:
    backend = ScriptedBackend(
        [contract("tool_call", name="tides", arguments={"harbour": "Brest"}), "06:12 in Brest."]
    )
    agent = DialogAgent(backend=backend, registry=registry)

    reply = await agent.handle_message("tide in brest?", user_id="local", chat_id="local")

    assert reply.text == "06:12 in Brest."
    assert reply.results[0].call.tool_name == "tides" and reply.results[0].ok


async def test_the_loop_stops_after_max_tool_rounds() -> None:
    again = contract("tool_call", name="moon_phase_", arguments={})
    agent = DialogAgent(backend=ScriptedBackend([again] * 3), registry=registry, max_rounds=3)

    answer = await agent.chat("moon?")

    assert answer.startswith("I stopped after 3 rounds of tool calls")


@pytest.fixture
async def commands(tmp_path: Path) -> AsyncIterator[SlashCommands]:
    async with MemoryStore(tmp_path / "assistant.db") as memory:
        manager = TaskManager(store=MemoryTaskStore(), notifier=_Nowhere())
        agent = DialogAgent(backend=ScriptedBackend([]), registry=registry, memory=memory)
        yield SlashCommands(tasks=manager, memory=memory, agent=agent)
        await manager.stop()


class _Nowhere:
    async def deliver(self, delivery: Any) -> Any:
        raise AssertionError("nothing is delivered in these tests")


async def test_slash_tools_lists_the_registered_tools(commands: SlashCommands) -> None:
    reply = await commands.handle("/tools", user_id="local", chat_id="local")

    assert reply is not None
    assert reply.text.splitlines()[1:] == [
        "- get_tides(harbour, units): Get today's high tide for a harbour.",
        "- moon_phase_(): Tell tonight's moon phase.",
    ]

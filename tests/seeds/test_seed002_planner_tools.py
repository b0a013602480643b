"""Seed 002, the planner design: tools are plain async functions of ``(args, user_context)``
returning a dict, registered by name; the model plans with ``{"tool", "reason",
"arguments"}`` (or ``"tool": "none"``), the tool runs, and the model answers from the result.
Written that way, run through the registry, the executor and the agent with a scripted
model and the real SQLite memory."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from agent.compat import DialogAgent
from agent.llm import ChatMessage, Role, ScriptedBackend
from memory import MemoryStore
from tools import ToolStatus
from tools.compat import ToolRegistry

TICKETS = {"T-17": {"status": "waiting for parts", "owner": "dana@example.org"}}


async def ticket_lookup_tool(args: dict[str, Any], user_context: dict[str, Any]) -> dict[str, Any]:
    """Look up a support ticket by its id.

    Args:
        args: {"ticket": "T-17"}.
        user_context: The caller (user_id, user_email, user_role).

    Returns:
        The ticket, or why it cannot be shown.
    """
    ticket = TICKETS.get(str(args.get("ticket", "")))
    if ticket is None:
        return {"tool": "ticket_lookup_tool", "found": False}
    if user_context.get("user_role") != "support_lead" and ticket["owner"] != user_context.get(
        "user_email"
    ):
        return {"tool": "ticket_lookup_tool", "found": True, "visible": False}
    return {"tool": "ticket_lookup_tool", "found": True, "visible": True, **ticket}


async def escalate_tool(args: dict[str, Any], user_context: dict[str, Any]) -> dict[str, Any]:
    return {"escalated": args["ticket"], "by": user_context["user_id"]}


def plan(tool: str, reason: str, **arguments: Any) -> str:
    """What the planner step answers."""
    return json.dumps({"tool": tool, "reason": reason, "arguments": arguments})


@pytest.fixture
async def memory(tmp_path: Path) -> AsyncIterator[MemoryStore]:
    async with MemoryStore(tmp_path / "assistant.db") as store:
        yield store


def helpdesk() -> ToolRegistry:
    registry = ToolRegistry()
    registry.register_tool("ticket_lookup_tool", ticket_lookup_tool)
    registry.register_tool(
        "escalate_tool", escalate_tool, description="Escalate a ticket to the on-call lead"
    )
    return registry


def test_tools_are_registered_once_and_described_for_the_planner() -> None:
    registry = helpdesk()

    with pytest.raises(ValueError, match="'ticket_lookup_tool'"):
        registry.register_tool("ticket_lookup_tool", ticket_lookup_tool)
    assert registry.get_context_string() == (
        "- ticket_lookup_tool(): Look up a support ticket by its id.\n"
        "- escalate_tool(): Escalate a ticket to the on-call lead"
    )


async def test_the_planned_tool_runs_with_the_users_context(memory: MemoryStore) -> None:
    await memory.set_setting("u-42", "user_role", "support_lead")
    backend = ScriptedBackend(
        [
            plan("ticket_lookup_tool", "the user asks about a ticket", ticket="T-17"),
            "T-17 is waiting for parts.",
        ]
    )
    agent = DialogAgent(backend=backend, registry=helpdesk(), memory=memory)

    reply = await agent.handle_message(
        "what is the status of T-17?",
        user_id="u-42",
        chat_id="web",
        profile={"user_email": "lee@example.org"},
    )

    assert reply.text == "T-17 is waiting for parts."
    [result] = reply.results
    assert (result.call.tool_name, result.call.arguments) == (
        "ticket_lookup_tool",
        {"ticket": "T-17"},
    )
    assert result.output["status"] == "waiting for parts"
    answer_step = backend.calls[1].messages[-1]
    assert answer_step.role is Role.TOOL
    assert '"status":"waiting for parts"' in answer_step.content


async def test_a_user_without_the_role_sees_only_their_own_tickets(memory: MemoryStore) -> None:
    backend = ScriptedBackend(
        [plan("ticket_lookup_tool", "status question", ticket="T-17"), "I can't show that one."]
    )
    agent = DialogAgent(backend=backend, registry=helpdesk(), memory=memory)

    reply = await agent.handle_message(
        "status of T-17?", user_id="u-7", chat_id="web", profile={"user_email": "sam@example.org"}
    )

    assert reply.results[0].output == {
        "tool": "ticket_lookup_tool",
        "found": True,
        "visible": False,
    }


async def test_tool_none_is_answered_as_if_no_tool_was_needed(memory: MemoryStore) -> None:
    backend = ScriptedBackend(
        [
            plan("none", "a greeting needs no tool"),
            "Hello! Ask me about any ticket.",
        ]
    )
    agent = DialogAgent(backend=backend, registry=helpdesk(), memory=memory)

    reply = await agent.handle_message("hi there", user_id="u-1", chat_id="web")

    assert reply.text == "Hello! Ask me about any ticket."
    assert reply.results == ()
    history = await memory.load_conversation("u-1", "web")
    assert [m.content for m in history] == ["hi there", "Hello! Ask me about any ticket."]


async def test_arguments_the_planner_invents_reach_the_tool_as_given(memory: MemoryStore) -> None:
    backend = ScriptedBackend(
        [plan("escalate_tool", "urgent", ticket="T-17", priority="high"), "Escalated."]
    )
    agent = DialogAgent(backend=backend, registry=helpdesk(), memory=memory)

    reply = await agent.handle_message("escalate T-17 now", user_id="u-9", chat_id="web")

    assert reply.results[0].status is ToolStatus.OK
    assert reply.results[0].output == {"escalated": "T-17", "by": "u-9"}
    assert backend.calls[1].messages[-2] == ChatMessage(
        Role.ASSISTANT, plan("escalate_tool", "urgent", ticket="T-17", priority="high")
    )

"""Tools for a model that has no native tool calling: how they are written into its prompt,
how the conversation reads to it, and how its reply is read back as calls.

The local backend receives tools as ``ToolDefinition`` values (like a native backend) and
uses this module to put them in the prompt; the agent sees native calls come back. The tools
open the system message, before the agent's own prompt (whose last line, the time, changes
every minute), so that a model that caches its prompt reuses the tools' part across turns.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from agent.llm.base import ChatMessage, Role
from agent.llm.contract import render_results
from tools import ToolCall, ToolDefinition, ToolParser

TemplateMessage = dict[str, str]
"""One message as a chat template reads it: ``{"role": ..., "content": ...}``."""

CALL_INSTRUCTIONS = """\
To use a tool, reply with one JSON object and nothing else, for example:
{"tool": "TOOL_NAME", "args": {"ARGUMENT": "VALUE"}}
The tool's result comes back in a message that starts with "Tool results". Otherwise, and once
you have the results, answer in plain text."""

_TOOL_NAME = re.compile(r'"tool"\s*:\s*"([^"]+)"')
_DESCRIPTION_LIMIT = 160


@dataclass(frozen=True, slots=True)
class ReadReply:
    """What a model's reply says: text for the user and the calls it makes.

    Attributes:
        text: The reply without its calls.
        calls: The calls, as native calls (no text span), in order.
    """

    text: str
    calls: tuple[ToolCall, ...]


def render_tools(tools: Sequence[ToolDefinition]) -> str:
    """Return the part of the system message that lists the tools and how to call them."""
    lines = ["Tools you can use:"]
    for each in tools:
        lines.extend(_tool_lines(each))
    return "\n".join([*lines, "", CALL_INSTRUCTIONS])


def template_messages(
    messages: Sequence[ChatMessage], tools: Sequence[ToolDefinition] | None
) -> list[TemplateMessage]:
    """Return the conversation as a chat template reads it.

    System messages become one, opening with the tools; calls are written as the JSON the
    model is asked to write; results come back as a user message; neighbours of the same
    role are joined, since some templates require turns to alternate.
    """
    system = [m.content for m in messages if m.role is Role.SYSTEM and m.content.strip()]
    if tools:
        system.insert(0, render_tools(tools))
    out: list[TemplateMessage] = []
    if system:
        out.append({"role": "system", "content": "\n\n".join(system)})
    for message in messages:
        if message.role is Role.SYSTEM:
            continue
        role, content = _as_template(message)
        if out and out[-1]["role"] == role and role != "system":
            out[-1] = {"role": role, "content": f"{out[-1]['content']}\n\n{content}"}
        else:
            out.append({"role": role, "content": content})
    return out


def write_call(call: ToolCall) -> str:
    """Return ``call`` as the model is asked to write it (one JSON object)."""
    return json.dumps({"tool": call.tool_name, "args": call.arguments}, ensure_ascii=False)


def read_reply(text: str, tools: Sequence[ToolDefinition] | None) -> ReadReply:
    """Read a model's reply: its calls (for the named tools only) and the text around them.

    A reply that opens a call the model did not finish (it ran out of tokens) comes back as
    a call to the named tool whose arguments are the broken text, so the agent tells the
    model what was wrong instead of showing the user half a JSON object.
    """
    if not tools:
        return ReadReply(text=text.strip(), calls=())
    parser = ToolParser(tool_names=[each.name for each in tools])
    found = parser.extract_calls(text)
    if found:
        calls = tuple(
            ToolCall(tool_name=c.tool_name, arguments=c.arguments, raw_json=c.raw_json)
            for c in found
        )
        return ReadReply(text=parser.strip_calls(text), calls=calls)
    stripped = text.strip()
    named = _TOOL_NAME.search(stripped)
    if stripped.startswith("{") and named is not None:
        broken = ToolCall(tool_name=named.group(1), arguments={}, raw_json=stripped)
        return ReadReply(text="", calls=(broken,))
    return ReadReply(text=stripped, calls=())


def _as_template(message: ChatMessage) -> tuple[str, str]:
    if message.role is Role.TOOL:
        return "user", render_results(message.results) if message.results else message.content
    if message.role is Role.ASSISTANT and message.tool_calls:
        said = [message.content.strip()] if message.content.strip() else []
        return "assistant", "\n".join([*said, *map(write_call, message.tool_calls)])
    return message.role.value, message.content


def _tool_lines(each: ToolDefinition) -> list[str]:
    properties: dict[str, Any] = each.parameters.get("properties", {})
    required = set(each.parameters.get("required", []))
    signature = ", ".join(
        _parameter(name, schema, name in required) for name, schema in properties.items()
    )
    lines = [f"- {each.name}({signature}): {_shorten(each.description)}"]
    for name, schema in properties.items():
        if isinstance(schema, dict) and schema.get("description"):
            lines.append(f"    {name}: {_shorten(str(schema['description']))}")
    return lines


def _parameter(name: str, schema: Any, required: bool) -> str:
    if not isinstance(schema, dict):
        return name
    if "enum" in schema:
        kind = "|".join(json.dumps(v) for v in schema["enum"] if v is not None)
    else:
        kinds = schema.get("type", "any")
        kind = "|".join(k for k in kinds if k != "null") if isinstance(kinds, list) else kinds
    return f"{name}: {kind}" if required else f"{name}?: {kind}"


def _shorten(text: str) -> str:
    first = " ".join(text.split())
    return first if len(first) <= _DESCRIPTION_LIMIT else first[: _DESCRIPTION_LIMIT - 3] + "..."

"""The tool catalog for models and people: definitions, prompt text, Markdown and JSON.

    tool_definitions(tools, ctx)   what a model is told about each tool, in no provider's format
    prompt_catalog(tools, ctx)     one readable signature per tool, for a system prompt
    markdown_catalog(tools)        a document for people (``assistant tools``)
    schema_document(tools, ctx)    ``{"tools": [{"name", "description", "parameters"}]}``

Every function takes the tools in order (a ``ToolRegistry`` iterates them so). With a
context prepared by ``ToolRegistry.prepare``, dynamic values (this user's task ids) are
resolved; without one they are left out and described as computed per user. A provider's own
format (OpenAI's ``tools`` field) is made from ``ToolDefinition`` inside its LLM adapter.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

from tools.binding import Tool
from tools.context import ToolContext
from tools.schema import JsonSchema


@dataclass(frozen=True, slots=True)
class ToolDefinition:
    """What a model is told about one tool.

    Attributes:
        name: The name a call uses.
        description: What the tool does.
        parameters: The JSON Schema of the arguments, dynamic values resolved for a context.
    """

    name: str
    description: str
    parameters: JsonSchema


def tool_definitions(
    tools: Iterable[Tool], ctx: ToolContext | None = None
) -> tuple[ToolDefinition, ...]:
    """Return the definition of each tool, dynamic values resolved for ``ctx``.

    Raises:
        ToolError: when a dynamic value is asynchronous and ``ctx`` was not prepared.
    """
    return tuple(ToolDefinition(each.name, each.description, each.schema(ctx)) for each in tools)


def schema_document(tools: Iterable[Tool], ctx: ToolContext | None = None) -> dict[str, Any]:
    """Return ``{"tools": [{"name", "description", "parameters"}]}``, ready for ``json.dumps``."""
    return {"tools": [asdict(definition) for definition in tool_definitions(tools, ctx)]}


def prompt_catalog(tools: Iterable[Tool], ctx: ToolContext | None = None) -> str:
    """Return the catalog for a system prompt: one readable signature per tool.

    Each tool shows its parameters with types, defaults and allowed values, then its
    description, its aliases and the parameters' descriptions.
    """
    return "\n".join(_prompt_block(each, each.schema(ctx)) for each in tools)


def markdown_catalog(tools: Iterable[Tool]) -> str:
    """Return a catalog document for people: a section per tool with a table of parameters."""
    parts = ["# Tools", ""]
    for each in tools:
        parts += _markdown_section(each, each.schema(None))
    return "\n".join(parts).rstrip() + "\n"


def _prompt_block(each: Tool, schema: JsonSchema) -> str:
    properties: dict[str, JsonSchema] = schema["properties"]
    required = set(schema["required"])
    signature = ", ".join(
        _signature_part(name, prop, name in required) for name, prop in properties.items()
    )
    lines = [f"- {each.name}({signature}): {each.description}"]
    if each.aliases:
        lines.append(f"    aliases: {', '.join(each.aliases)}")
    lines.extend(
        f"    {name}: {prop['description']}"
        for name, prop in properties.items()
        if prop.get("description")
    )
    return "\n".join(lines)


def _markdown_section(each: Tool, schema: JsonSchema) -> list[str]:
    parts = [f"## `{each.name}`", "", each.description, ""]
    facts = [f"risk: {each.risk_level.value}", f"timeout: {each.timeout:g} s"]
    if each.spec.options.requires_approval is not False:
        facts.append("may need approval")
    if each.aliases:
        facts.append("aliases: " + ", ".join(f"`{a}`" for a in each.aliases))
    parts += ["*" + "; ".join(facts) + "*", ""]
    properties: dict[str, JsonSchema] = schema["properties"]
    if not properties:
        return parts
    required = set(schema["required"])
    parts += [
        "| parameter | type | required | default | description |",
        "|---|---|---|---|---|",
    ]
    for name, prop in properties.items():
        default = json.dumps(prop["default"]) if "default" in prop else ""
        cells = [
            f"`{name}`",
            _type_text(prop),
            "yes" if name in required else "no",
            default,
            str(prop.get("description", "")),
        ]
        parts.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return [*parts, ""]


def _signature_part(name: str, prop: JsonSchema, required: bool) -> str:
    text = f"{name}: {_type_text(prop)}"
    if "default" in prop:
        text += f" = {json.dumps(prop['default'], ensure_ascii=False)}"
    elif not required:
        text += " (optional)"
    return text


def _type_text(prop: JsonSchema) -> str:
    if "enum" in prop:
        return "one of " + ", ".join(json.dumps(v, ensure_ascii=False) for v in prop["enum"])
    if "anyOf" in prop:
        return " | ".join(_type_text(p) for p in prop["anyOf"])
    kind = prop.get("type")
    if isinstance(kind, list):
        return " | ".join(_type_text({**prop, "type": k}) for k in kind)
    if kind == "array":
        items = prop.get("items")
        return f"list of {_type_text(items)}" if isinstance(items, dict) else "list"
    if kind == "object":
        values = prop.get("additionalProperties")
        if isinstance(values, dict):
            return f"object of {_type_text(values)}"
        return "object"
    return str(kind) if kind else "any"

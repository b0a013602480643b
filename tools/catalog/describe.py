"""The tool catalog for models and people: definitions, prompt text, Markdown and JSON.

    tool_definitions(tools, ctx)   what a model is told about each tool, in no provider's format
    prompt_catalog(tools, ctx)     one readable signature per tool, for a system prompt
    markdown_catalog(tools)        a document for people (``assistant tools``)
    people_catalog(tools)          one plain line per tool, for the person using them (/tools)
    schema_document(tools, ctx)    ``{"tools": [{"name", "description", "parameters"}]}`` (and
                                   ``"origin"`` for a tool that is not ours: an MCP server's)
    openai_spec(tool, ctx)         ``{"type": "function", "function": {...}}`` for one tool
    tool_schema(tool, ctx)         a ``ToolSchema``: one ``ParameterSchema`` per parameter

Every function takes the tools in order (a ``ToolRegistry`` iterates them so). With a
context prepared by ``ToolRegistry.prepare``, dynamic values (this user's task ids) are
resolved; without one they are left out and described as computed per user. A provider's own
format (OpenAI's ``tools`` field) is made from ``ToolDefinition`` inside its LLM adapter.
"""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from typing import Any, get_type_hints

from common import LazyPattern
from tools.catalog.binding import Tool
from tools.context import ToolContext
from tools.define import JsonSchema


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


@dataclass(frozen=True, slots=True)
class ParameterSchema:
    """One parameter of a tool, as ``ToolRegistry.get_schema`` describes it.

    Attributes:
        name: The argument's name.
        type: Its type in words: ``string``, ``integer``, ``list of string``, ``one of ...``.
        description: What it is, or "".
        required: Whether a call must give it.
        default: Its default when it has one (``None`` otherwise).
    """

    name: str
    type: str
    description: str = ""
    required: bool = False
    default: Any = None


@dataclass(frozen=True, slots=True)
class ToolSchema:
    """A tool's name, description, parameters and result type, for people and registries.

    Attributes:
        name: The tool's name.
        description: What it does.
        parameters: One entry per parameter, in order.
        returns: The name of the result's type, when the function says.
    """

    name: str
    description: str = ""
    parameters: tuple[ParameterSchema, ...] = ()
    returns: str | None = None


def tool_schema(tool: Tool, ctx: ToolContext | None = None) -> ToolSchema:
    """Return ``tool`` described as a ``ToolSchema``."""
    schema = tool.schema(ctx)
    required = set(schema.get("required", ()))
    parameters = tuple(
        ParameterSchema(
            name=name,
            type=_type_text(prop),
            description=str(prop.get("description", "")),
            required=name in required,
            default=prop.get("default"),
        )
        for name, prop in schema.get("properties", {}).items()
    )
    returns = None if tool.spec.takes_mapping else _return_name(tool.spec.func)
    return ToolSchema(tool.name, tool.description, parameters, returns)


def _return_name(func: Callable[..., Any]) -> str | None:
    try:
        annotation = get_type_hints(func).get("return", inspect.Signature.empty)
    except (NameError, TypeError):
        annotation = inspect.signature(func).return_annotation
    if annotation is inspect.Signature.empty:
        return None
    if isinstance(annotation, str):
        return annotation
    if isinstance(annotation, type):
        return annotation.__name__
    return str(annotation).replace("typing.", "")


def tool_definitions(
    tools: Iterable[Tool], ctx: ToolContext | None = None
) -> tuple[ToolDefinition, ...]:
    """Return the definition of each tool, dynamic values resolved for ``ctx``.

    Raises:
        ToolError: when a dynamic value is asynchronous and ``ctx`` was not prepared.
    """
    return tuple(ToolDefinition(each.name, each.description, each.schema(ctx)) for each in tools)


def openai_spec(tool: Tool, ctx: ToolContext | None = None) -> dict[str, Any]:
    """Return one tool as ``{"type": "function", "function": {name, description, parameters}}``.

    The shape of OpenAI's ``tools`` field, which prompts and other frameworks reuse; the
    backends' requests are written by their own adapter in ``agent.llm``.
    """
    definition = ToolDefinition(tool.name, tool.description, tool.schema(ctx))
    return {"type": "function", "function": asdict(definition)}


def schema_document(tools: Iterable[Tool], ctx: ToolContext | None = None) -> dict[str, Any]:
    """Return ``{"tools": [{"name", "description", "parameters"}]}``, ready for ``json.dumps``.

    A tool that is not the assistant's own also says where it comes from (``"origin":
    "MCP server 'files'"``).
    """
    listed = list(tools)
    entries = [asdict(definition) for definition in tool_definitions(listed, ctx)]
    for entry, each in zip(entries, listed, strict=True):
        if each.origin is not None:
            entry["origin"] = each.origin
    return {"tools": entries}


def prompt_catalog(tools: Iterable[Tool], ctx: ToolContext | None = None) -> str:
    """Return the catalog for a system prompt: one readable signature per tool.

    Each tool shows its parameters with types, defaults and allowed values, then its
    description, its aliases and the parameters' descriptions.
    """
    return "\n".join(_prompt_block(each, each.schema(ctx)) for each in tools)


def people_catalog(tools: Iterable[Tool]) -> str:
    """Return the tools for the person using them: one line each, in second person.

    Each line has the tool's name, its arguments, the first sentence of its description
    (``the user`` read as ``you``), whether it asks for approval first, and where it comes
    from when it is not the assistant's own (an MCP server).
    """
    lines = ["The tools I can use for you (just ask in your own words):"]
    for each in tools:
        arguments = ", ".join(each.spec.parameters["properties"])
        approval = _approval_note(each.spec.options.requires_approval)
        summary = _second_person(_first_sentence(each.description))
        origin = f" (from {each.origin})" if each.origin else ""
        lines.append(f"- {each.name}({arguments}): {summary}{approval}{origin}")
    if len(lines) == 1:
        return "I have no tools: I can only answer from what I know."
    return "\n".join(lines)


def _approval_note(rule: object) -> str:
    if rule is False:
        return ""
    return " Asks you first." if rule is True else " Some calls ask you first."


_SECOND_PERSON = (
    (re.compile(r"\b[Tt]he user's\b"), "your"),
    (re.compile(r"\b[Tt]he user\b"), "you"),
)
_SENTENCE_END = LazyPattern(r"(?<=[.!?;])\s")


def _first_sentence(text: str) -> str:
    first = _SENTENCE_END.split(text.strip(), maxsplit=1)[0].rstrip(";")
    return first if first.endswith((".", "!", "?")) else f"{first}."


def _second_person(text: str) -> str:
    for pattern, replacement in _SECOND_PERSON:
        text = pattern.sub(replacement, text)
    return text[:1].upper() + text[1:]


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
    if each.origin:
        facts.insert(0, f"from {each.origin}")
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

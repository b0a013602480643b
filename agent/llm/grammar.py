"""A decoding grammar from tool schemas: a reply is a final answer or one well-formed call.

llama.cpp samples only tokens that a GBNF grammar allows. ``tool_grammar`` writes one whose
replies are either a JSON object ``{"tool": NAME, "args": {...}}`` whose arguments match that
tool's JSON Schema (llama.cpp's own schema-to-grammar converter writes that part), or plain
text without the characters that open a call in any form the parser reads
(`````, ``{``, ``[``, ``<``). A model under it cannot write a malformed call: at worst it
runs out of tokens inside one, which the backend reports as a call to repair.

Checking every token against a grammar is slow in llama.cpp (each step tests the whole
vocabulary), so the backend uses it where it matters: the first token decides between a call
(decoded whole under ``ToolGrammar.call``) and an answer, whose rest is decoded freely and
stopped before any character in ``CALL_OPENERS``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tools import ToolDefinition

CALL_OPENERS = "`{[<"
"""The characters an answer under the grammar never holds: each may open a call."""

_EITHER_RULES = """\
root ::= call | answer
answer ::= answer-char answer-char*
answer-char ::= [^`{[<]
"""
_CALL_RULES = "root ::= call\n"


@dataclass(frozen=True, slots=True)
class ToolGrammar:
    """The grammars of a reply, in GBNF.

    Attributes:
        either: One call or a plain answer.
        call: One call (for a reply whose first token opened one).
    """

    either: str
    call: str


def tool_grammar(tools: Sequence[ToolDefinition]) -> ToolGrammar:
    """Return the grammars of a reply that may call any of ``tools``.

    Raises:
        ValueError: ``tools`` is empty (with no tools, decode without a grammar).
    """
    if not tools:
        raise ValueError("a tool grammar needs at least one tool")
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    schema = {"oneOf": [_call_schema(each) for each in tools]}
    calls = json_schema_to_gbnf(json.dumps(schema))
    lines = calls.splitlines()
    renamed = [
        "call ::=" + line.removeprefix("root ::=") if line.startswith("root ::=") else line
        for line in lines
    ]
    calls_only = "\n".join(renamed)
    return ToolGrammar(either=f"{calls_only}\n{_EITHER_RULES}", call=f"{calls_only}\n{_CALL_RULES}")


def _call_schema(each: ToolDefinition) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"tool": {"const": each.name}, "args": _convertible(each.parameters)},
        "required": ["tool", "args"],
        "additionalProperties": False,
    }


def _convertible(schema: Any) -> Any:
    """``schema`` as llama.cpp's converter reads it: an empty ``items`` (a list of anything,
    as ``list[Any]`` writes it) is left out, which means the same and does not trip it."""
    if isinstance(schema, list):
        return [_convertible(each) for each in schema]
    if not isinstance(schema, dict):
        return schema
    return {
        key: _convertible(value)
        for key, value in schema.items()
        if not (key == "items" and value in ({}, True))
    }

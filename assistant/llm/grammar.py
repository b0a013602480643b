"""A decoding grammar from tool schemas: a reply is a final answer or one well-formed call.

llama.cpp samples only tokens that a GBNF grammar allows. ``tool_grammar`` writes one whose
replies are either a JSON object ``{"tool": NAME, "args": {...}}`` whose arguments match that
tool's JSON Schema (llama.cpp's own schema-to-grammar converter writes that part), or plain
text without the characters that open a call in any form the parser reads
(`````, ``{``, ``[``, ``<``). A model under it cannot write a malformed call: at worst it
runs out of tokens inside one, which the backend reports as a call to repair.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from tools import ToolDefinition

_ANSWER_RULES = """\
root ::= call | answer
answer ::= answer-char answer-char*
answer-char ::= [^`{[<]
"""


def tool_grammar(tools: Sequence[ToolDefinition]) -> str:
    """Return the GBNF grammar of a reply that may call any of ``tools``.

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
    return "\n".join([*renamed, _ANSWER_RULES])


def _call_schema(each: ToolDefinition) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"tool": {"const": each.name}, "args": each.parameters},
        "required": ["tool", "args"],
        "additionalProperties": False,
    }

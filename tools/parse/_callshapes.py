"""Which decoded JSON values are tool calls, in the key shapes real models write.

Accepted shapes (``ARGS`` is a dict, a JSON string of a dict, ``null`` or ``""``)::

    {"tool": NAME, "args" | "arguments" | "parameters" | "params" | "input": ARGS, ...}
    {"name": NAME, "arguments" | "parameters" | "args" | "input": ARGS, ...}
    {"type": "tool_call" | "function" | "tool_use", "name": NAME, ...}
    {"function": {"name": NAME, "arguments": ARGS}, ...}          # OpenAI, Hermes
    {"action": NAME, "action_input": ARGS}                       # ReAct-style agents
    {"tool_calls": [CALL, ...]}                                  # a pasted OpenAI message
    {"plan" | "steps" | "calls": [CALL, ...]}                    # a plan of several steps

Not calls: ``{"tool": "none"}``, ``{"type": "final", ...}``, ``{"action": "Final Answer"}``,
and any other data. The first three are answers: ``read_answer`` reads them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from common import LazyPattern
from tools.parse._jsonrepair import RepairError, parse_lenient

_FINAL_TYPES = frozenset({"final", "final_answer"})
_LIST_KEYS = ("tool_calls", "calls", "steps", "plan")
_ARGUMENT_KEYS = ("args", "arguments", "parameters", "params", "input", "tool_input")
_META_KEYS = frozenset(
    {"tool", "tool_name", "id", "type", "reason", "reasoning", "thought", "explanation"}
)
_NO_TOOL = frozenset({"none", "null", "no_tool", "final", "final_answer", "final answer"})
_NOT_CALL_TYPES = frozenset({"final", "final_answer", "answer", "message", "text", "response"})
_CALL_TYPES = frozenset({"tool_call", "function", "function_call", "tool_use", "tool"})
_ANSWER_KEYS = ("content", "answer", "response", "message", "text", "output", "final_answer")
_MAX_NAME = 128
_MAX_ARGUMENT_TOKENS = 4096
_SPACE = LazyPattern(r"\s")


@dataclass(frozen=True, slots=True)
class CallShape:
    """A tool name and its arguments, read from one decoded value."""

    name: str
    arguments: dict[str, Any]


def read_calls(value: object) -> list[CallShape]:
    """Return the calls that ``value`` (a decoded JSON value) describes, in order."""
    if isinstance(value, list):
        return [call for item in value for call in _object_calls(item, unwrap=True)]
    return _object_calls(value, unwrap=True)


def _object_calls(value: object, *, unwrap: bool) -> list[CallShape]:
    if not isinstance(value, dict):
        return []
    nested = next((value[key] for key in _LIST_KEYS if key in value), None)
    if unwrap and isinstance(nested, list) and "name" not in value and "tool" not in value:
        return [call for item in nested for call in _object_calls(item, unwrap=False)]
    call = _call(value)
    return [] if call is None else [call]


def _call(obj: Mapping[str, Any]) -> CallShape | None:
    kind = obj.get("type")
    if kind is not None:
        kind = kind.lower() if isinstance(kind, str) else None
        if kind in _NOT_CALL_TYPES:
            return None
    tool = obj.get("tool")
    if tool is None:
        tool = obj.get("tool_name")
    if tool is not None:
        if isinstance(tool, str) and tool.strip().lower() in _NO_TOOL:
            return None
        arguments = _first_present(obj)
        # Without an arguments key, only a dict with nothing but call keys is a call.
        missing_ok = arguments is _MISSING and obj.keys() <= _META_KEYS
        return _make(tool, arguments, missing_ok=missing_ok)
    function = obj.get("function")
    if isinstance(function, dict):
        return _make(function.get("name"), _first_present(function, obj), missing_ok=True)
    if isinstance(function, str) and "name" not in obj:
        return _make(function, _first_present(obj), missing_ok=True)
    if "action" in obj and "action_input" in obj:
        action = obj["action"]
        if isinstance(action, str) and action.strip().lower() in _NO_TOOL:
            return None
        return _make(action, obj["action_input"], missing_ok=False)
    if "name" in obj:
        return _make(obj["name"], _first_present(obj), missing_ok=kind in _CALL_TYPES)
    return None


@dataclass(frozen=True, slots=True)
class Answer:
    """A final answer written as JSON, read from one decoded value.

    Attributes:
        text: What to show the user; ``None`` when the value only says that no tool is
            needed (``{"tool": "none", "reason": ...}``) without giving the answer.
        reason: Why no tool was called, when the value says so.
    """

    text: str | None
    reason: str | None = None


def read_answer(value: object, *, strict: bool = False) -> Answer | None:
    """Return the answer ``value`` holds, or ``None`` when it is not an answer.

    Answers: ``{"type": "final", "content": TEXT}`` (or ``answer``, ``response``...),
    ``{"final_answer": TEXT}``, ``{"action": "Final Answer", "action_input": TEXT}``, and
    ``{"tool": "none", "reason": ..., "arguments": {}}``, which says no tool is needed.
    ``strict`` leaves out the kinds that ordinary data also has (``"type": "text"``...).
    """
    if not isinstance(value, dict):
        return None
    kind = value.get("type")
    tool = value.get("tool", value.get("tool_name", value.get("action")))
    text = _answer_text(value)
    kinds = _FINAL_TYPES if strict else _NOT_CALL_TYPES
    if isinstance(kind, str) and kind.strip().lower() in kinds:
        return Answer(text, _text_or_none(value.get("reason")))
    if isinstance(tool, str) and tool.strip().lower() in _NO_TOOL:
        if text is None and isinstance(value.get("action_input"), str):
            text = value["action_input"]
        return Answer(text, _text_or_none(value.get("reason")))
    if kind is None and tool is None and isinstance(value.get("final_answer"), str):
        return Answer(value["final_answer"])
    return None


def _answer_text(value: Mapping[str, Any]) -> str | None:
    for key in _ANSWER_KEYS:
        found = value.get(key)
        if isinstance(found, str):
            return found
    return None


def _text_or_none(value: object) -> str | None:
    return value if isinstance(value, str) else None


_MISSING: Any = object()


def _first_present(*sources: Mapping[str, Any]) -> Any:
    for source in sources:
        for key in _ARGUMENT_KEYS:
            value = source.get(key, _MISSING)
            if value is not _MISSING:
                return value
    return _MISSING


def _make(name: object, raw_arguments: Any, *, missing_ok: bool) -> CallShape | None:
    if not isinstance(name, str):
        return None
    name = name.strip()
    if not name or len(name) > _MAX_NAME or _SPACE.search(name):
        return None
    if raw_arguments is _MISSING:
        return CallShape(name, {}) if missing_ok else None
    if type(raw_arguments) is dict:
        return CallShape(name, raw_arguments)
    arguments = _arguments(raw_arguments)
    return None if arguments is None else CallShape(name, arguments)


def _arguments(raw: object) -> dict[str, Any] | None:
    """Return the arguments as a dict, decoding a JSON string; ``None`` if they are not one."""
    if raw is None:
        return {}
    if isinstance(raw, str):
        text = raw.strip()
        if not text:
            return {}
        try:
            raw = json.loads(text)
        except (ValueError, RecursionError):
            try:
                raw = parse_lenient(text, 0, len(text), max_steps=_MAX_ARGUMENT_TOKENS).value
            except RepairError:
                return None
    if isinstance(raw, dict):
        return raw
    return None

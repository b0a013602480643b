"""The data of a turn: its running state (``Turn``) and the pure steps the loop is built from
(its outcome, ``AgentReply``, is ``agent.events``')."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from agent.events import EventCallback
from agent.llm.base import ChatMessage, Role, Usage
from agent.llm.contract import render_results
from agent.llm.visible import VisibleText
from agent.pipeline import Decider
from tools import (
    Provenance,
    ToolCall,
    ToolContext,
    ToolRegistry,
    ToolResult,
    ToolStatus,
)

_CACHE_SIZE = 256
V = TypeVar("V")


class Rendered(Generic[V]):
    """What ``render`` makes of the tools, cached by the tools and dynamic values it was made
    with.

    The values (this user's task ids) rarely change between rounds, so a round reuses what
    an earlier round rendered instead of walking every tool's schema again. The registry's
    ``version`` changes when a tool joins or leaves (an MCP server's list changed), and the
    next round renders the tools as they are then.
    """

    def __init__(self, render: Callable[[ToolRegistry, ToolContext], V]) -> None:
        self._render = render
        self._found: dict[str, V] = {}

    def __call__(self, registry: ToolRegistry, ctx: ToolContext) -> V:
        key = f"{registry.version}:{resolved_key(ctx)}"
        found = self._found.get(key)
        if found is None:
            if len(self._found) >= _CACHE_SIZE:
                self._found.clear()
            found = self._found[key] = self._render(registry, ctx)
        return found


@dataclass
class Turn:
    """The state of one turn while it runs; only ``new`` is committed.

    ``listener`` receives this turn's events (the turn then streams, and ``visible`` follows
    what of the round's text may be shown). ``nudge`` holds messages sent with the next
    request only (the model's "no tool is needed" and the request to answer plainly);
    ``nudged`` says that has happened once. ``decider`` writes the next message (the planner
    until it hands the turn to the model); ``model_rounds`` counts the model's calls.
    """

    ctx: ToolContext
    history: list[ChatMessage]
    new: list[ChatMessage]
    commit: bool = True
    listener: EventCallback | None = None
    visible: VisibleText | None = None
    results: list[ToolResult] = field(default_factory=list)
    failures: Counter[str] = field(default_factory=Counter)
    usage: Usage = field(default_factory=Usage)
    rounds: int = 0
    model_rounds: int = 0
    nudge: tuple[ChatMessage, ...] = ()
    nudged: bool = False
    decider: Decider = Decider.MODEL
    planned_calls: bool = False
    """Whether the planner's latest message is its calls (only then is it read for calls)."""
    provenance: Provenance = field(default_factory=Provenance)
    """Where the content the model's calls follow came from (``tools.provenance``)."""


def as_messages(found: object) -> list[ChatMessage]:
    """Read hook output: ``ChatMessage`` values or ``{"role": ..., "content": ...}`` dicts."""
    if not isinstance(found, list | tuple):
        raise TypeError(f"a system-message hook must return a list of messages, got {found!r}")
    messages: list[ChatMessage] = []
    for item in found:
        if isinstance(item, ChatMessage):
            messages.append(item)
        elif isinstance(item, Mapping) and isinstance(item.get("content"), str):
            messages.append(ChatMessage(Role(item.get("role", "system")), item["content"]))
        else:
            raise TypeError(
                f"a system message is a ChatMessage or a {{'role', 'content'}} dict, got {item!r}"
            )
    return messages


def resolved_key(ctx: ToolContext) -> str:
    return repr(sorted(ctx.resolved.items(), key=lambda item: item[0]))


def is_pending(result: ToolResult) -> bool:
    return result.status is ToolStatus.PENDING_APPROVAL


def broken_native_arguments(call: ToolCall) -> bool:
    """Whether a native call's arguments arrived as text that is not a JSON object."""
    if call.span is not None or call.arguments or not call.raw_json.strip():
        return False
    try:
        return not isinstance(json.loads(call.raw_json), dict)
    except ValueError:
        return True


def result_messages(results: Sequence[ToolResult], *, native: bool) -> list[ChatMessage]:
    """Return the messages that carry results back: one per call natively, else one."""
    if native:
        return [
            ChatMessage(Role.TOOL, r.text, tool_call_id=r.call.id, results=(r,)) for r in results
        ]
    return [ChatMessage(Role.TOOL, render_results(results), results=tuple(results))]

"""``assistant call TOOL '{json}'``: one tool call as the local user, without a model.

How people try a tool (ours, a custom one, or an MCP server's) before a model uses it, and
how scripts use the assistant. The call takes the path every call takes: the same
validation, the same approval gate, the same messages. A call that needs approval asks the
person at the terminal (y/n) as the chat does; without a terminal (a script, a pipe) it
leaves the request waiting and says how to decide it, and nothing runs.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from assistant.app import LOCAL_CHAT, LOCAL_USER, App
from tools import ApprovalRequest, ToolCall, ToolResult, ToolStatus

Decide = Callable[[ApprovalRequest], Awaitable[bool | None]]
"""Asks the person about a pending request: approve (``True``), deny (``False``), or no
answer (``None``: it stays waiting)."""

EXAMPLE = """assistant call add_reminder '{"message": "stretch", "when": "in 10 minutes"}'"""


class CallInputError(ValueError):
    """The arguments given to ``assistant call`` are not a JSON object; says how to write one."""


def read_arguments(text: str | None) -> dict[str, Any]:
    """The call's arguments from the command line's JSON (none given: ``{}``).

    Raises:
        CallInputError: the text is not JSON, or not an object of named arguments.
    """
    if text is None or not text.strip():
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CallInputError(
            f"the arguments are not JSON ({exc.msg} at line {exc.lineno}, column {exc.colno}); "
            f"give one object of named arguments in single quotes, e.g. {EXAMPLE}"
        ) from None
    if not isinstance(value, dict):
        raise CallInputError(
            f"the arguments are a JSON {_json_kind(value)}, not an object of named arguments; "
            f"e.g. {EXAMPLE}"
        )
    return value


def _json_kind(value: object) -> str:
    kinds = {list: "array", str: "string", bool: "boolean", int: "number", float: "number"}
    return "null" if value is None else kinds.get(type(value), type(value).__name__)


@dataclass(frozen=True, slots=True)
class CallOutcome:
    """What became of a direct call.

    Attributes:
        result: The call's result; after a decision, the decided call's.
        waiting: The request still waiting for a decision (no answer was given), or ``None``.
    """

    result: ToolResult
    waiting: ApprovalRequest | None = None


async def call_tool(app: App, name: str, arguments: dict[str, Any], decide: Decide) -> CallOutcome:
    """Run the tool ``name`` with ``arguments`` as the local user, in the terminal's chat.

    A call that needs approval is put to ``decide``; approved, exactly that call runs once
    (``ToolExecutor.approve``); denied, it is recorded as denied; unanswered, it waits, to be
    decided in the chat (``/approve ID``) before it expires.
    """
    ctx = await app.agent.tool_context(LOCAL_USER, LOCAL_CHAT)
    result = await app.executor.execute(ToolCall(tool_name=name, arguments=arguments), ctx)
    request = result.approval
    if result.status is not ToolStatus.PENDING_APPROVAL or request is None:
        return CallOutcome(result)
    answer = await decide(request)
    if answer is None:
        return CallOutcome(result, waiting=request)
    if answer:
        return CallOutcome(await app.executor.approve(request.id, LOCAL_USER, ctx))
    return CallOutcome(await app.executor.deny(request.id, LOCAL_USER))

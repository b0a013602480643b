"""The text contract's wire format: how calls and results are written as text.

A model without native function calling writes one fenced JSON block per call,
``{"tool": NAME, "args": {...}}`` (``tools.ToolParser`` reads it back), and reads results in
a message that starts with ``RESULTS_HEADER``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from tools import ToolCall, ToolResult

RESULTS_HEADER = "Tool results"


def render_call_block(call: ToolCall) -> str:
    """Return ``call`` written in the text contract (a fenced JSON block)."""
    body = json.dumps({"tool": call.tool_name, "args": call.arguments}, ensure_ascii=False)
    return f"```json\n{body}\n```"


def render_results(results: Sequence[ToolResult]) -> str:
    """Return the message that carries tool results back to a model in contract mode."""
    lines = [f"{RESULTS_HEADER}:"]
    for result in results:
        text = result.text or result.error or ""
        lines.append(f"- {result.call.tool_name} [{result.status.value}]: {text}")
    return "\n".join(lines)

"""The texts the agent writes itself: approval pauses, give-ups, failures."""

from __future__ import annotations

import json
from collections.abc import Sequence
from zoneinfo import ZoneInfo

from assistant.llm.contract import render_results
from tools import ApprovalRequest, ToolResult
from tools.builtin import redact_secrets

_MAX_ARGUMENTS = 300
_SHOWN_RESULTS = 5

EMPTY_MESSAGE = (
    "Your message was empty. Ask me something, for example "
    "'remind me in 10 minutes to stretch' or 'what are my tasks?'."
)


def describe_request(request: ApprovalRequest, zone: ZoneInfo) -> str:
    """Return one line that says what a request would run and until when it can be decided."""
    arguments = json.dumps(redact_secrets(request.arguments), ensure_ascii=False, default=str)
    if len(arguments) > _MAX_ARGUMENTS:
        arguments = arguments[: _MAX_ARGUMENTS - 3] + "..."
    expires = request.expires_at.astimezone(zone)
    return (
        f"{request.tool_name} {arguments} ({request.risk_level.value} risk; "
        f"request {request.id}, expires at {expires:%H:%M})"
    )


def pause_text(said: str, requests: Sequence[ApprovalRequest], zone: ZoneInfo) -> str:
    """Return the reply that ends a turn waiting for approval."""
    lines = [said.strip()] if said.strip() else []
    lines.append("This needs your approval before it runs:")
    lines.extend(f"- {describe_request(request, zone)}" for request in requests)
    lines.append("Approve or deny it to continue.")
    return "\n".join(lines)


def approval_outcome(request_id: str, approved: bool, result: ToolResult) -> str:
    """Return the message that tells the model how the user decided, with the result."""
    verdict = "approved" if approved else "denied"
    return f"The user {verdict} approval request {request_id}.\n{render_results([result])}"


def results_summary(results: Sequence[ToolResult]) -> str:
    """Return the last results as lines a person can read."""
    shown = results[-_SHOWN_RESULTS:]
    return "\n".join(
        f"- {r.call.tool_name}: {r.display or r.text or r.status.value}" for r in shown
    )


def gave_up(max_rounds: int, results: Sequence[ToolResult]) -> str:
    """Return the honest reply when ``max_rounds`` ran out."""
    text = f"I stopped after {max_rounds} rounds of tool calls without reaching a final answer."
    if results:
        text += f" What the tools did:\n{results_summary(results)}"
    return text


def llm_failed(error: Exception, results: Sequence[ToolResult]) -> str:
    """Return the reply when the language model failed in the middle of a turn."""
    text = f"Sorry, I could not get an answer from the language model: {error}"
    if results:
        text += f"\nBefore that, the tools did:\n{results_summary(results)}"
    return text


def empty_answer(results: Sequence[ToolResult]) -> str:
    """Return the reply when the model answered with nothing."""
    if results:
        return f"The model gave no answer. What the tools did:\n{results_summary(results)}"
    return "The model gave no answer; please rephrase your request."

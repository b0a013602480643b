"""The texts the agent writes itself: approval outcomes, give-ups, failures."""

from __future__ import annotations

from collections.abc import Sequence

from agent.llm.contract import render_results
from tools import ToolResult

_SHOWN_RESULTS = 5

APPROVAL_NEEDED = "This needs the user's approval before it runs."
"""What the history records for a turn that paused for approval when the model said nothing
around its call (the user sees the request itself, drawn by the interface)."""

ANSWER_PLAINLY = (
    "No tool is needed for this. Answer my last message yourself now, in plain words, without JSON."
)
"""What the model is told when it replied only that no tool is needed (``{"tool": "none"}``)
without giving the answer."""

EMPTY_MESSAGE = (
    "Your message was empty. Ask me something, for example "
    "'remind me in 10 minutes to stretch' or 'what are my tasks?'."
)


def waiting_notice(ahead: int) -> str:
    """Return what a person is told while their request waits for a busy model."""
    others = "1 request" if ahead == 1 else f"{ahead} requests"
    return f"The model is busy: {others} ahead of yours. Your answer follows."


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

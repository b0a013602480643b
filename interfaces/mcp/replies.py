"""What an MCP caller gets back: a tool's outcome as an MCP tool result, with text for the
model that called it and the same facts as structured content for programs.

    {"status": "ok", "result": {...}}                  the tool ran; its output as JSON
    {"status": "pending_approval", "approval": {...}}  nothing ran: a person decides first
    {"status": "invalid" | "error" | ..., "error": "..."}   ``is_error``: chat's own message

A pending request carries its exact arguments: ``approve_request`` must repeat them, compared
as canonical JSON (``canonical``), so that what is approved is what was shown.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from zoneinfo import ZoneInfo

import pydantic_core
from mcp_types import CallToolResult, TextContent

from agent import AgentReply, ApprovalReply, Decided
from tasks import format_local
from tools import ApprovalRequest, ToolResult, ToolStatus

HOW_TO_DECIDE = (
    "To run it, call approve_request with this request_id, tool and arguments exactly as "
    "given here; deny_request refuses it. The person may also decide it where they chat: "
    "/approvals shows it with Approve and Deny (the terminal also takes /approve {id})."
)


def canonical(value: Any) -> str:
    """``value`` as canonical JSON: keys sorted, no spaces, non-ASCII as it is; two argument
    sets are the same call exactly when their canonical JSON is the same."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )


def plain(value: Any) -> Any:
    """A tool's output (dataclasses, dates, enums) as JSON values."""
    return pydantic_core.to_jsonable_python(value, fallback=str)


@dataclass(frozen=True, slots=True)
class PendingRequest:
    """A call that waits for a person's approval, as an MCP caller sees it.

    Attributes:
        id: The request's id (``approve_request``'s ``request_id``).
        tool: The tool that would run.
        arguments: Its exact arguments, as they would run.
        risk: ``low``, ``medium`` or ``high``.
        reason: Why it asks when more than the tool's own rule asks, else empty.
        expires_at: When it can no longer be approved, ISO 8601 in the user's zone.
        expires_text: The same in words: ``2026-03-10 13:30 (Europe/Berlin)``.
    """

    id: str
    tool: str
    arguments: dict[str, Any]
    risk: str
    reason: str
    expires_at: str
    expires_text: str

    def for_model(self) -> str:
        """The request and how to decide it, in words."""
        why = f" because {self.reason}" if self.reason else ""
        return (
            f"Waiting for approval (nothing ran): request {self.id} to run {self.tool} with "
            f"arguments {canonical(self.arguments)} ({self.risk} risk{why}; it expires at "
            f"{self.expires_text}). {HOW_TO_DECIDE.format(id=self.id)}"
        )


def pending_request(request: ApprovalRequest, zone: ZoneInfo) -> PendingRequest:
    """``request`` as the caller sees it, its expiry in the user's ``zone``."""
    return PendingRequest(
        id=request.id,
        tool=request.tool_name,
        arguments=dict(request.arguments),
        risk=request.risk_level.value,
        reason=request.reason,
        expires_at=request.expires_at.astimezone(zone).isoformat(),
        expires_text=f"{format_local(request.expires_at, zone)} ({zone.key})",
    )


@dataclass(frozen=True, slots=True)
class ToolRun:
    """One tool call of a turn: its tool, how it ended, and what the model read of it."""

    tool: str
    status: str
    text: str


@dataclass(frozen=True, slots=True)
class TurnReply:
    """What one assistant turn over MCP said and did (``ask``, or a decided approval).

    Attributes:
        reply: The assistant's answer.
        tools: The tool calls of the turn, in order.
        approvals: Calls that wait for a person's approval; nothing of them ran.
        note: When the turn scheduled something and this process does not fire tasks: where
            they fire (``None`` otherwise).
        decision: After a decision on a request, what became of its call (``None`` else).
    """

    reply: str
    tools: list[ToolRun]
    approvals: list[PendingRequest]
    note: str | None = None
    decision: str | None = None

    def for_model(self) -> str:
        """What became of a decided call, the answer, then each pending request and how to
        decide it, then the note."""
        parts = [self.decision] if self.decision else []
        said = self.reply.strip()
        # The offline planner's answer after a decision is often the call's result again.
        if said and not (self.decision and said in self.decision):
            parts.append(said)
        parts.extend(request.for_model() for request in self.approvals)
        if self.note:
            parts.append(f"({self.note})")
        return "\n\n".join(parts)


def turn_reply(
    reply: AgentReply, zone: ZoneInfo, *, note: str | None, schedules: frozenset[str]
) -> TurnReply:
    """``reply`` for the caller; ``note`` is kept when a call of ``schedules`` scheduled."""
    scheduled = any(scheduled_by(r, schedules) for r in reply.results)
    return TurnReply(
        reply=reply.text,
        tools=[ToolRun(r.call.tool_name, r.status.value, r.text) for r in reply.results],
        approvals=[pending_request(request, zone) for request in reply.approvals],
        note=note if scheduled else None,
        decision=decision(reply) if isinstance(reply, ApprovalReply) else None,
    )


def decision(reply: ApprovalReply) -> str | None:
    """What became of the call behind a decided request, first thing in the answer: the
    turn that goes on after it may say more, or (the offline planner) nothing about it."""
    request = reply.request
    if request is None or reply.decided not in (Decided.APPROVED, Decided.DENIED):
        return None
    if reply.decided is Decided.DENIED:
        return f"Request {request.id} was denied: {request.tool_name} did not run."
    ran = next((r for r in reply.results if r.call.tool_name == request.tool_name), None)
    if ran is None:
        return f"Request {request.id} was approved and {request.tool_name} ran."
    how = "ran" if ran.ok else f"did not succeed ({ran.status.value})"
    return f"Request {request.id} was approved and {request.tool_name} {how}: {ran.text}"


def call_result(result: ToolResult, zone: ZoneInfo, *, note: str | None = None) -> CallToolResult:
    """``result`` as an MCP tool result; ``note`` follows the text of a call that ran."""
    if result.status is ToolStatus.PENDING_APPROVAL and result.approval is not None:
        pending = pending_request(result.approval, zone)
        return _result(
            pending.for_model(), {"status": result.status.value, "approval": plain(pending)}
        )
    if result.ok:
        text = result.text if note is None else f"{result.text}\n({note})"
        return _result(text, {"status": result.status.value, "result": plain(result.output)})
    return error_result(result.text, status=result.status.value)


def error_result(message: str, *, status: str = ToolStatus.ERROR.value) -> CallToolResult:
    """A call that did not run or failed: ``message`` says why, as chat says it."""
    return _result(message, {"status": status, "error": message}, error=True)


def _result(text: str, structured: dict[str, Any], *, error: bool = False) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content=structured,
        is_error=error,
    )


def listed(names: Sequence[str]) -> str:
    """Names as a sentence lists them: ``'a', 'b' and 'c'``."""
    quoted = [repr(name) for name in names]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


def scheduled_by(result: ToolResult, schedules: frozenset[str]) -> bool:
    """Whether ``result`` scheduled a task: a call of ``schedules`` that succeeded with a
    task (stopping the briefing, or reading it, schedules nothing)."""
    return (
        result.ok
        and result.call.tool_name in schedules
        and getattr(result.output, "task", None) is not None
    )

"""Domain objects as the API's bodies, read in the user's zone, secrets hidden.

The words come from where every interface takes them (``tasks.schedule_words``,
``tasks.when_text``, ``interfaces.views``), so the web says what Telegram and the terminal say.
A task's shape is shared with the command line (``interfaces.task_json``).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from agent import AgentReply
from common import redact_secrets
from interfaces.messages import CommandReply
from interfaces.notifiers import DELIVERY
from interfaces.views import approval_card, argument_rows, format_moment
from interfaces.web.models import (
    ApprovalOut,
    ArgumentOut,
    ChatResponse,
    HistoryOut,
    NoteOut,
    RunOut,
    RunsSummaryOut,
    ToolResultOut,
)
from memory import MessageRole, Note, StoredMessage
from tasks import LedgerSummary, TaskRun, when_text
from tools import ApprovalRequest, ToolResult


def local(instant: datetime | None, zone: ZoneInfo) -> datetime | None:
    """``instant`` in ``zone`` (its ISO form carries the zone's offset)."""
    return instant.astimezone(zone) if instant is not None else None


def run_out(run: TaskRun, zone: ZoneInfo) -> RunOut:
    """A ledger row as the API shows it."""
    scheduled = local(run.scheduled_for, zone)
    assert scheduled is not None
    return RunOut(
        id=run.id,
        scheduled_for=scheduled,
        scheduled_for_text=format_moment(run.scheduled_for, zone),
        started_at=local(run.started_at, zone),
        finished_at=local(run.finished_at, zone),
        status=run.status.value,
        misfire=run.misfire.value,
        late_by_seconds=run.late_by.total_seconds() if run.late_by else None,
        attempt=run.attempt,
        result=run.result,
        error=run.error,
    )


def approval_out(request: ApprovalRequest, zone: ZoneInfo) -> ApprovalOut:
    """A pending request as the API shows it: the exact arguments, in full (what the model
    chose included: what leaves is shown), and why it asks."""
    expires = local(request.expires_at, zone)
    assert expires is not None
    return ApprovalOut(
        id=request.id,
        tool=request.tool_name,
        arguments=dict(request.arguments),
        shown=shown_arguments(request.arguments),
        risk=request.risk_level.value,
        reason=request.reason,
        status=request.status.value,
        expires_at=expires,
        expires_text=expires_text(request, zone),
        text=approval_text(request, zone),
    )


def expires_text(request: ApprovalRequest, zone: ZoneInfo) -> str:
    """When a request expires, in the user's zone and named as the rest of the page names
    times: ``today at 13:30 (Europe/Berlin)``."""
    return when_text(request.expires_at, zone, request.created_at)


def shown_arguments(arguments: dict[str, Any]) -> list[ArgumentOut]:
    """Arguments as a person reads them: labels in words, plain values in full, stored
    secrets named (``interfaces.views.argument_rows``)."""
    return [ArgumentOut(name=label, value=value) for label, value in argument_rows(arguments)]


def approval_text(request: ApprovalRequest, zone: ZoneInfo) -> str:
    """How a pending request reads to a person (the approval card, without its buttons)."""
    return approval_card(request, zone).text


def tool_result_out(result: ToolResult) -> ToolResultOut:
    """What one call did, as the API shows it."""
    return ToolResultOut(
        tool=result.call.tool_name,
        arguments=redact_secrets(result.call.arguments),
        status=result.status.value,
        output=result.display or result.text,
    )


def chat_response(reply: AgentReply, chat_id: str, zone: ZoneInfo) -> ChatResponse:
    """The agent's reply as ``/agent/chat`` answers it."""
    return ChatResponse(
        reply=reply.text,
        chat_id=chat_id,
        tool_results=[tool_result_out(result) for result in reply.results],
        approvals=[approval_out(request, zone) for request in reply.approvals],
    )


def chat_body(reply: AgentReply, chat_id: str, zone: ZoneInfo) -> dict[str, Any]:
    """``chat_response`` as JSON-ready data (the AG-UI run's result)."""
    return chat_response(reply, chat_id, zone).model_dump(mode="json")


def history_out(messages: Sequence[StoredMessage], zone: ZoneInfo) -> list[HistoryOut]:
    """A conversation as a person reads it again: per turn, what they said (when the turn
    began with it) and the assistant's final answer; calls and results stay out, and so do
    the deliveries the chat records (the page shows those from its inbox, ``/events``)."""
    shown: list[HistoryOut] = []
    for _, grouped in itertools.groupby(messages, key=lambda m: m.turn_id):
        turn = list(grouped)
        first, last = turn[0], turn[-1]
        if DELIVERY in (last.name or "").split(","):
            continue
        at = local(first.created_at, zone)
        if first.role is MessageRole.USER and first.content:
            shown.append(HistoryOut(role="user", text=first.content, at=at))
        if last.role is MessageRole.ASSISTANT and last.content and not last.tool_calls:
            shown.append(HistoryOut(role="assistant", text=last.content, at=at))
    return shown


def note_out(note: Note, zone: ZoneInfo) -> NoteOut:
    """A note as the API shows it."""
    created = local(note.created_at, zone)
    assert created is not None
    return NoteOut(id=note.number, content=note.content, tags=list(note.tags), created_at=created)


def command_text(reply: CommandReply) -> str:
    """A slash command's answer as text; the page has buttons of its own for tasks and
    approvals, so it reads like Telegram's message without the buttons."""
    return reply.text


def summary_out(summary: LedgerSummary | None, zone: ZoneInfo) -> RunsSummaryOut:
    """A task's compacted runs as the API shows them (all zero before any were folded)."""
    if summary is None:
        return RunsSummaryOut(
            runs=0,
            counts={},
            first_scheduled=None,
            last_scheduled=None,
            late_runs=0,
            max_late_seconds=None,
        )
    worst = summary.max_late_by
    return RunsSummaryOut(
        runs=summary.runs,
        counts={status.value: n for status, n in summary.counts.items()},
        first_scheduled=local(summary.first_scheduled, zone),
        last_scheduled=local(summary.last_scheduled, zone),
        late_runs=summary.late_runs,
        max_late_seconds=None if worst is None else worst.total_seconds(),
        last_status=None if summary.last_status is None else summary.last_status.value,
        last_failure=summary.last_failure,
        last_failure_at=local(summary.last_failure_at, zone),
    )

"""The agent's events as an AG-UI event stream (the protocol of CopilotKit and other agent UIs).

One turn is one AG-UI run:

    RUN_STARTED                                       the turn begins
    TEXT_MESSAGE_START / _CONTENT... / _END           the model's text as it is written; each
                                                      model call (round) is one message
    TOOL_CALL_START / _ARGS / _END                    a tool call (arguments as JSON, secrets
                                                      hidden), before it runs
    CUSTOM ``waiting``                                the request waits for a busy model:
                                                      ``value.text`` says so (before any text)
    TOOL_CALL_RESULT                                  what it did, its status (ok, error,
                                                      denied...) in ``metadata``; none for a call
                                                      that waits for approval (no result yet)
    RUN_FINISHED                                      the turn is over: ``result`` holds the
                                                      reply as ``/agent/chat`` returns it; a turn
                                                      that waits for approval finishes with the
                                                      ``interrupt`` outcome, one interrupt per
                                                      request (its id is the request id)
    RUN_ERROR                                         the turn failed (``failed``)

A reply that was not streamed (a refusal, the offline planner's answer after a tool, a model
error) arrives as one text message before RUN_FINISHED. The client resumes an interrupted run
with a new run whose ``resume`` entries answer the interrupts (``{"approved": true}``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from typing import Any, assert_never

from ag_ui.core import (
    BaseEvent,
    CustomEvent,
    Interrupt,
    RunErrorEvent,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)
from ag_ui.encoder import EventEncoder

from agent import AgentEvent, AgentEventKind, AgentReply
from common import redact_secrets
from tools import ApprovalRequest, ToolCall, ToolResult, ToolStatus

WAITING_EVENT = "waiting"
"""The name of the CUSTOM event that tells a person their request waits for a busy model."""
APPROVAL_REASON = "tool_approval"
"""The ``reason`` of an interrupt that asks to approve a tool call."""
APPROVAL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"approved": {"type": "boolean"}},
    "required": ["approved"],
}

ReplyBody = Callable[[AgentReply], dict[str, Any]]
ApprovalText = Callable[[ApprovalRequest], str]
ShownArguments = Callable[[dict[str, Any]], list[dict[str, str]]]
ExpiresText = Callable[[ApprovalRequest], str]

_ENCODER = EventEncoder()


def encode(event: BaseEvent) -> str:
    """One event in the SSE form AG-UI clients read (``data: {json}`` and a blank line)."""
    return _ENCODER.encode(event)


class AgUiRun:
    """Turns one turn's agent events into AG-UI events.

    Args:
        thread_id: The chat (AG-UI thread) of the turn.
        run_id: This run's id.
        now: The current instant (event timestamps, in milliseconds).
        reply_body: The reply as the JSON ``/agent/chat`` answers (``RUN_FINISHED.result``).
        approval_text: How a pending request reads to a person (the interrupt's message).
        shown_arguments: A call's arguments as a person reads them (the interrupt's
            ``metadata.shown``).
        expires_text: When a request expires, in the user's zone (``metadata.expires_text``).
    """

    def __init__(
        self,
        *,
        thread_id: str,
        run_id: str,
        now: Callable[[], datetime],
        reply_body: ReplyBody,
        approval_text: ApprovalText,
        shown_arguments: ShownArguments,
        expires_text: ExpiresText,
    ) -> None:
        self.thread_id = thread_id
        self.run_id = run_id
        self._now = now
        self._reply_body = reply_body
        self._approval_text = approval_text
        self._shown = shown_arguments
        self._expires_text = expires_text
        self._open: str | None = None  # the text message being written, if any
        self._round: int | None = None
        self._written = ""  # the latest round's text
        self._messages = 0
        self._announced: set[str] = set()  # tool calls whose START was sent

    def started(self) -> list[BaseEvent]:
        """The events that open the run."""
        return [RunStartedEvent(thread_id=self.thread_id, run_id=self.run_id, timestamp=self._ms())]

    def on_event(self, event: AgentEvent) -> list[BaseEvent]:
        """The AG-UI events for one agent event (often none)."""
        match event.kind:
            case AgentEventKind.TEXT_DELTA:
                return self._text(event.text, event.round) if event.text else []
            case AgentEventKind.WAITING:
                return [self.custom(WAITING_EVENT, {"text": event.text})]
            case AgentEventKind.TOOL_STARTED:
                if event.call is None:
                    return []
                return [*self._close_text(), *self._announce(event.call)]
            case AgentEventKind.TOOL_FINISHED:
                return self._result(event.result) if event.result is not None else []
            case AgentEventKind.APPROVAL_REQUESTED | AgentEventKind.REPLY_READY:
                return []  # RUN_FINISHED carries them (``finished``)
            case _:
                assert_never(event.kind)

    def finished(self, reply: AgentReply) -> list[BaseEvent]:
        """The events that end the run: the reply's text if it did not stream, then
        RUN_FINISHED (with the approval interrupts, if any)."""
        events = self._close_text()
        text = reply.text.strip()
        if text and text != self._written.strip():
            events += self._text(text, -1) + self._close_text()
        outcome = None
        if reply.approvals:
            outcome = RunFinishedInterruptOutcome(
                interrupts=[self._interrupt(request) for request in reply.approvals]
            )
        events.append(
            RunFinishedEvent(
                thread_id=self.thread_id,
                run_id=self.run_id,
                result=self._reply_body(reply),
                outcome=outcome,
                timestamp=self._ms(),
            )
        )
        return events

    def failed(self, message: str, code: str) -> list[BaseEvent]:
        """The events that end a run that failed."""
        return [
            *self._close_text(),
            RunErrorEvent(message=message, code=code, timestamp=self._ms()),
        ]

    def custom(self, name: str, value: Any) -> BaseEvent:
        """An application event of this run (e.g. a command's reply)."""
        return CustomEvent(name=name, value=value, timestamp=self._ms())

    # -- pieces -------------------------------------------------------------------------------

    def _text(self, piece: str, round_: int) -> list[BaseEvent]:
        events: list[BaseEvent] = []
        if self._open is not None and round_ != self._round:
            events += self._close_text()
        if self._open is None:
            self._messages += 1
            self._open = f"{self.run_id}.m{self._messages}"
            self._round, self._written = round_, ""
            events.append(
                TextMessageStartEvent(message_id=self._open, role="assistant", timestamp=self._ms())
            )
        self._written += piece
        events.append(
            TextMessageContentEvent(message_id=self._open, delta=piece, timestamp=self._ms())
        )
        return events

    def _close_text(self) -> list[BaseEvent]:
        if self._open is None:
            return []
        message, self._open = self._open, None
        return [TextMessageEndEvent(message_id=message, timestamp=self._ms())]

    def _announce(self, call: ToolCall) -> list[BaseEvent]:
        self._announced.add(call.id)
        arguments = json.dumps(redact_secrets(call.arguments), ensure_ascii=False, default=str)
        return [
            ToolCallStartEvent(
                tool_call_id=call.id, tool_call_name=call.tool_name, timestamp=self._ms()
            ),
            ToolCallArgsEvent(tool_call_id=call.id, delta=arguments, timestamp=self._ms()),
            ToolCallEndEvent(tool_call_id=call.id, timestamp=self._ms()),
        ]

    def _result(self, result: ToolResult) -> list[BaseEvent]:
        events = self._close_text()
        if result.call.id not in self._announced:
            events += self._announce(result.call)  # refused before it ran: still a call
        if result.status is ToolStatus.PENDING_APPROVAL:
            return events  # answered by the approval interrupt, then by its own result
        self._messages += 1
        events.append(
            ToolCallResultEvent(
                message_id=f"{self.run_id}.m{self._messages}",
                tool_call_id=result.call.id,
                content=result.display or result.text,
                role="tool",
                timestamp=self._ms(),
                metadata={"status": result.status.value},
            )
        )
        return events

    def _interrupt(self, request: ApprovalRequest) -> Interrupt:
        return Interrupt(
            id=request.id,
            reason=APPROVAL_REASON,
            message=self._approval_text(request),
            tool_call_id=request.call_id or None,
            response_schema=APPROVAL_SCHEMA,
            expires_at=request.expires_at.isoformat(),
            metadata={
                "tool": request.tool_name,
                "arguments": dict(request.arguments),  # the approver sees what would leave
                "shown": self._shown(request.arguments),
                "risk": request.risk_level.value,
                "why": request.reason,
                "expires_text": self._expires_text(request),
            },
        )

    def _ms(self) -> int:
        return int(self._now().timestamp() * 1000)

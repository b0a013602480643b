"""The offline planner: the default backend when no language model is configured.

It reads the conversation like a model would and writes the same fenced-JSON tool calls, so
parsing, validation, approval and execution run exactly as with an LLM::

    ```json
    {"tool": "add_reminder", "arguments": {"when": "in 10 minutes", "message": "check the oven"}}
    ```

A turn is a small state machine over the conversation: with no results yet it recognises the
latest user message and writes the first call (or a text answer); once results arrive it
either writes the next call of a multi-step flow (list the tasks, then cancel the one that
matches) or composes the final answer from the results. It is deterministic (no clock, no
randomness), reads nothing from the network and never computes a date: ``when`` and
``schedule`` carry the user's words, which ``tasks`` resolves.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, Sequence
from dataclasses import dataclass

from assistant.llm.base import (
    ChatMessage,
    LLMResponse,
    Role,
    StreamEvent,
    ToolMode,
    stream_whole,
)
from assistant.planner import answers, compose
from assistant.planner.intents import Flow, Intent, PlannedCall
from assistant.planner.understand import recognize
from assistant.planner.understand_tasks import task_call
from tools import ToolDefinition, ToolResult, ToolStatus

_VERBS = {
    "cancel_task": "cancel",
    "pause_task": "pause",
    "resume_task": "resume",
    "snooze_task": "snooze",
}


@dataclass(frozen=True, slots=True)
class _Turn:
    """The current turn, read back from the conversation.

    Attributes:
        request: The user's message that started the turn.
        results: Every tool result of the turn, in order.
        latest: The results that arrived after the planner's last message.
    """

    request: str
    results: tuple[ToolResult, ...]
    latest: tuple[ToolResult, ...]

    def made(self, call: PlannedCall) -> bool:
        """Whether ``call`` was already made in this turn (never make the same call twice)."""
        key = _call_key(call.tool, call.arguments)
        return any(_call_key(r.call.tool_name, r.call.arguments) == key for r in self.results)

    def last(self, tool: str) -> ToolResult | None:
        """The last result of ``tool`` in this turn."""
        return next((r for r in reversed(self.results) if r.call.tool_name == tool), None)


class OfflinePlanner:
    """A deterministic, English-only planner that speaks the tool-call contract.

    Args:
        max_input_chars: Longer messages get a polite refusal instead of being parsed.
    """

    def __init__(self, *, max_input_chars: int = 4000) -> None:
        if max_input_chars < 1:
            raise ValueError(f"max_input_chars must be at least 1, got {max_input_chars!r}")
        self._max_input_chars = max_input_chars

    @property
    def mode(self) -> ToolMode:
        """Always ``CONTRACT``: calls are written as fenced JSON in the text."""
        return ToolMode.CONTRACT

    async def complete(
        self, messages: Sequence[ChatMessage], *, tools: Sequence[ToolDefinition] | None = None
    ) -> LLMResponse:
        """Return the next message of the turn: tool-call blocks or the final answer.

        Args:
            messages: The conversation; the turn starts at the last user message without
                tool results.
            tools: Ignored: the planner knows the builtin tools and writes calls as text.
        """
        return LLMResponse(text=self.respond(messages))

    def stream(
        self, messages: Sequence[ChatMessage], *, tools: Sequence[ToolDefinition] | None = None
    ) -> AsyncGenerator[StreamEvent, None]:
        """The whole answer as one chunk: the planner answers at once."""
        return stream_whole(LLMResponse(text=self.respond(messages)))

    def respond(self, messages: Sequence[ChatMessage]) -> str:
        """The text of the next message (the synchronous core of ``complete``)."""
        turn = _read_turn(messages)
        if turn is None:
            return answers.HELP
        intent = recognize(turn.request, max_chars=self._max_input_chars)
        if not turn.results:
            return intent.reply if intent.flow is Flow.REPLY else render_calls(intent.calls)
        return _continue(intent, turn)

    async def aclose(self) -> None:
        """Release nothing: the planner holds no connections or files."""


def render_calls(calls: Sequence[PlannedCall]) -> str:
    """Write ``calls`` as a lead sentence and one fenced JSON block per call."""
    blocks = [_block(call) for call in calls]
    return " ".join(call.lead for call in calls) + "\n\n" + "\n\n".join(blocks)


def _block(call: PlannedCall) -> str:
    payload = json.dumps({"tool": call.tool, "arguments": call.arguments}, ensure_ascii=False)
    # A backtick inside a value could close the fence early; \u0060 decodes to the same text.
    return "```json\n" + payload.replace("`", "\\u0060") + "\n```"


def _call_key(tool: str, arguments: object) -> str:
    return tool + json.dumps(arguments, sort_keys=True, default=str)


def _read_turn(messages: Sequence[ChatMessage]) -> _Turn | None:
    results: list[ToolResult] = []
    latest: list[ToolResult] | None = None
    for message in reversed(messages):
        if message.role is Role.ASSISTANT and latest is None:
            latest = list(reversed(results))
        if message.results:
            results.extend(reversed(message.results))
        elif message.role is Role.USER:
            ordered = tuple(reversed(results))
            return _Turn(message.content, ordered, tuple(latest) if latest else ordered)
    return None


def _continue(intent: Intent, turn: _Turn) -> str:
    if any(r.status is ToolStatus.PENDING_APPROVAL for r in turn.latest):
        return compose.report(turn.latest)
    if intent.flow is Flow.TASK_BY_WORDS:
        return _task_by_words(intent, turn)
    if intent.flow is Flow.RECALL:
        return _recall(intent, turn)
    if intent.flow is Flow.SUMMARIZE:
        return _summarize(turn)
    return compose.report(turn.latest)


def _task_by_words(intent: Intent, turn: _Turn) -> str:
    if turn.last(intent.action) is not None:
        return compose.report([r for r in turn.results if r.call.tool_name == intent.action])
    listing = turn.last("list_tasks")
    if listing is None or not listing.ok:
        return compose.report(turn.latest)
    verb = _VERBS.get(intent.action, "change")
    entries = compose.task_entries(listing)
    if entries is None:
        shown = (listing.display or listing.text).strip()
        return f"I couldn't tell which task you mean. Your tasks:\n{shown}\nSay '{verb} ID'."
    if not entries:
        return f"You have no active tasks, so there is nothing to {verb}."
    if not intent.words:
        return (
            f"I {verb} tasks one at a time so nothing goes by accident. Your tasks:\n"
            + _lines(entries)
            + f"\nSay e.g. '{verb} {entries[0].id}'."
        )
    wanted = " ".join(intent.words)
    matched = compose.match_tasks(entries, intent.words)
    if not matched:
        return f"No task matches {wanted!r}. Your tasks:\n{_lines(entries)}"
    if len(matched) > 1:
        return (
            f"{len(matched)} tasks match {wanted!r}:\n{_lines(matched)}\n"
            f"Which one? Say e.g. '{verb} {matched[0].id}'."
        )
    call = task_call(intent.action, matched[0].id, intent.extra)
    return compose.report(turn.latest) if turn.made(call) else render_calls([call])


def _recall(intent: Intent, turn: _Turn) -> str:
    found = turn.last("search_memory")
    if found is None or not found.ok:
        return compose.report(turn.latest)
    topic = intent.words[0] if intent.words else turn.request
    hits = compose.note_hits(found, turn.request)
    if hits is None:
        return compose.outcome(found)
    if not hits:
        return (
            f"I found nothing in your notes about {topic!r}. "
            "Save it with e.g. 'note: the wifi password is hunter2'."
        )
    answer = f"From your notes: {hits[0]}"
    if len(hits) > 1:
        answer += "\nAlso related:\n" + "\n".join(f"- {hit}" for hit in hits[1:3])
    return answer


def _summarize(turn: _Turn) -> str:
    fetched = turn.last("fetch_url")
    if fetched is None or not fetched.ok:
        return compose.report(turn.latest)
    url = str(fetched.call.arguments.get("url", "the page"))
    title, text = compose.page(fetched)
    gist = compose.summary(text, title=title)
    if not gist:
        return f"I read {url}, but it has no readable text."
    heading = f"{title} ({url})" if title else url
    return f"{heading}:\n{gist}"


def _lines(entries: Sequence[compose.TaskEntry]) -> str:
    return "\n".join(entry.line() for entry in entries)

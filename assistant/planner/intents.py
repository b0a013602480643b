"""What the offline planner understood a message to ask for: an ``Intent``.

An intent is a small plan: the first tool calls to write, and how the turn goes on once their
results come back (report them, act on the one matching task, answer from notes, summarise a
page), or simply a text reply.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

JsonValue = str | int | float | bool | None | list["JsonValue"] | dict[str, "JsonValue"]


class Flow(StrEnum):
    """How a turn proceeds after the planner has understood the message."""

    REPLY = "reply"  # answer with text, call nothing
    CALL = "call"  # make the planned call(s), then report their results
    TASK_BY_WORDS = "task_by_words"  # list_tasks, then act on the one task the words match
    RECALL = "recall"  # search_memory, then answer from the best hit
    SUMMARIZE = "summarize"  # fetch_url, then an extractive summary of the page


@dataclass(frozen=True, slots=True)
class PlannedCall:
    """One tool call the planner will write as a fenced JSON block.

    Attributes:
        tool: The tool's name.
        arguments: JSON-ready arguments.
        lead: The sentence written before the block (what a person sees if the turn pauses).
    """

    tool: str
    arguments: dict[str, JsonValue]
    lead: str


@dataclass(frozen=True, slots=True)
class Intent:
    """A recognised request.

    Attributes:
        flow: How the turn proceeds.
        calls: The first calls to make (empty for ``REPLY``).
        reply: The answer for ``REPLY``.
        action: For ``TASK_BY_WORDS``, the tool to call on the matching task.
        words: For ``TASK_BY_WORDS``, the words that pick the task; for ``RECALL``, the topic.
        extra: For ``TASK_BY_WORDS``, arguments besides ``task_id`` (a snooze delay).
    """

    flow: Flow
    calls: tuple[PlannedCall, ...] = ()
    reply: str = ""
    action: str = ""
    words: tuple[str, ...] = ()
    extra: dict[str, JsonValue] = field(default_factory=dict)


def reply(text: str) -> Intent:
    """An intent that only answers with ``text``."""
    return Intent(Flow.REPLY, reply=text)


def single(tool: str, arguments: dict[str, JsonValue], lead: str) -> Intent:
    """An intent that makes one call and reports its result."""
    return Intent(Flow.CALL, calls=(PlannedCall(tool, arguments, lead),))

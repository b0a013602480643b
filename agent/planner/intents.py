"""What the offline planner understood a message to ask for: an ``Intent``, a tagged union.

Each kind is a small frozen dataclass with a ``Literal`` ``kind``; the rules produce them and
``plan`` turns each into the tool calls that carry it out. Times and schedules stay the user's
words (``when``, ``schedule``, ``day``): ``tasks`` resolves them when the tool runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Literal, TypeAlias

from agent.planner.handover import Handover


@dataclass(frozen=True, slots=True)
class Say:
    """Answer with text and call nothing.

    Attributes:
        text: The answer (without a language model, all there is to say).
        handover: What a language model, when there is one, does instead: the part of the
            message the planner could not act on (``handover``); ``None``: ``text`` stands.
    """

    text: str
    handover: Handover | None = None
    kind: Literal["say"] = "say"


@dataclass(frozen=True, slots=True)
class Remind:
    """A reminder, one-time or repeating: "remind me every sunday at 7 to plan the week".

    Attributes:
        when: When, in the user's words.
        message: What to remind of.
        urgent: It passes quiet hours ("urgent: ...", an alarm, "wake me up").
        nag: How often it repeats until done, in the user's words ("10 minutes"), or ``None``.
    """

    when: str
    message: str
    urgent: bool = False
    nag: str | None = None
    kind: Literal["remind"] = "remind"


@dataclass(frozen=True, slots=True)
class SearchJob:
    """A repeating web search and how many results to send."""

    query: str
    limit: int
    kind: Literal["search"] = "search"


@dataclass(frozen=True, slots=True)
class AskJob:
    """A repeating prompt answered by the assistant."""

    prompt: str
    kind: Literal["ask"] = "ask"


@dataclass(frozen=True, slots=True)
class HttpJob:
    """A repeating (or one-time) HTTP request."""

    method: str
    url: str
    body: str | None = None
    kind: Literal["http"] = "http"


Job: TypeAlias = SearchJob | AskJob | HttpJob


@dataclass(frozen=True, slots=True)
class Repeat:
    """A repeating task other than a reminder: a search, a prompt, an HTTP call."""

    schedule: str
    job: Job
    kind: Literal["repeat"] = "repeat"


@dataclass(frozen=True, slots=True)
class ListTasks:
    """The user's tasks, all or those of one day or period ("what do I have tomorrow",
    "what's on this week")."""

    period: str | None = None
    kind: Literal["list"] = "list"


class Action(StrEnum):
    """What to do to one task."""

    CANCEL = "cancel"
    PAUSE = "pause"
    RESUME = "resume"
    SNOOZE = "snooze"
    MOVE = "move"
    DONE = "done"  # acknowledge a reminder ("done"): one that repeats until done stops


@dataclass(frozen=True, slots=True)
class OnTask:
    """Act on one task, named by its id or by words: "move the dentist reminder to 6pm".

    Attributes:
        action: What to do.
        ids: Task ids the message names; when empty, ``words`` pick the task.
        words: Words that pick the task from the list ("dentist").
        every: The message asked for all tasks ("cancel all my reminders").
        delay: For a snooze, how long ("an hour").
        when: For a move, the new time ("6pm").
        last: The message says "it": the task the conversation was last about.
        unread: For a snooze, the words after "until", "till", "for" or "by" that were read
            neither as a delay nor as a time ("until blorp"): unless they name the task
            ("the reminder for the dentist"), nothing is snoozed and they are said back.
    """

    action: Action
    ids: tuple[str, ...] = ()
    words: tuple[str, ...] = ()
    every: bool = False
    delay: str | None = None
    when: str | None = None
    last: bool = False
    unread: str = ""
    kind: Literal["on_task"] = "on_task"


@dataclass(frozen=True, slots=True)
class SaveNote:
    """Keep a note, with its tags."""

    content: str
    tags: tuple[str, ...] = ()
    kind: Literal["note"] = "note"


@dataclass(frozen=True, slots=True)
class Recall:
    """A question answered from the notes: "what is my wifi password?".

    Attributes:
        query: The words to search for.
        personal: It asks about the user's own things ("my", "I"); when nothing is found, a
            question that is not personal gets the honest answer that no model is connected.
    """

    query: str
    personal: bool
    kind: Literal["recall"] = "recall"


@dataclass(frozen=True, slots=True)
class TellTime:
    """The current time, here or in a zone."""

    zone: str | None = None
    kind: Literal["time"] = "time"


@dataclass(frozen=True, slots=True)
class SearchWeb:
    """One web search now."""

    query: str
    limit: int | None = None
    kind: Literal["look_up"] = "look_up"


@dataclass(frozen=True, slots=True)
class ReadPage:
    """Read a page and summarise it."""

    url: str
    kind: Literal["read"] = "read"


@dataclass(frozen=True, slots=True)
class Request:
    """One HTTP request now."""

    job: HttpJob
    kind: Literal["request"] = "request"


@dataclass(frozen=True, slots=True)
class RunCode:
    """Run a piece of Python once (in the sandbox, after the user's approval)."""

    code: str
    kind: Literal["code"] = "code"


@dataclass(frozen=True, slots=True)
class Watch:
    """A monitor: "tell me when https://... changes", "every hour check ... for 'in stock'".

    Attributes:
        every: How often to look, in the user's words.
        url: The page or JSON document.
        selector: A CSS selector on the page.
        field: A JSON field's path.
        query: A web search whose top results to watch.
        condition: When to speak, in the user's words (``None``: on any change).
    """

    every: str
    url: str | None = None
    selector: str | None = None
    field: str | None = None
    query: str | None = None
    condition: str | None = None
    kind: Literal["watch"] = "watch"


@dataclass(frozen=True, slots=True)
class Quiet:
    """Set, show or end quiet hours ("quiet from 22:00 to 07:00"); ``None`` shows them."""

    hours: str | None = None
    kind: Literal["quiet"] = "quiet"


@dataclass(frozen=True, slots=True)
class Brief:
    """Start, move, show or stop the morning briefing ("morning briefing at 7:30");
    ``None`` shows it, ``"off"`` stops it."""

    at: str | None = None
    kind: Literal["brief"] = "brief"


Intent: TypeAlias = (
    Say | Remind | Repeat | ListTasks | OnTask | SaveNote | Recall | TellTime | SearchWeb
    | ReadPage | Request | RunCode | Watch | Quiet | Brief
)  # fmt: skip

"""What the scheduler needs from the layers above it, as small protocols.

The composition root passes implementations in: the Telegram or terminal ``Notifier``, the
``DialogAgent`` as ``AgentRunner``, the web-search tool as ``Searcher``, the tools' guarded
HTTP client as ``HttpSender``, the environment and ``.env`` as ``SecretSource``; for issue 28
the users' settings as ``QuietHours``, the tool executor as ``ToolRunner`` (monitors of a
tool's output), and what a briefing shows beside the tasks (notes, a calendar) as
``BriefingSource``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Protocol

from pydantic import JsonValue

from common import HttpRequest, HttpRequestError, HttpResponse, clean_text


class DeliveryKind(StrEnum):
    """What a delivered message is."""

    REMINDER = "reminder"  # a reminder's own text; interfaces add Snooze/Done buttons
    RESULT = "result"  # the outcome of an agent task, web search or API call
    NOTICE = "notice"  # a message about the task itself (disabled after failures, ...)


class DeliveryStatus(StrEnum):
    """How a delivery attempt ended."""

    DELIVERED = "delivered"
    FAILED = "failed"  # could not deliver now (network, rate limit); may be retried
    BLOCKED = "blocked"  # the recipient cannot be reached at all (blocked the bot)
    HELD = "held"  # kept for the end of the owner's quiet hours (it will be delivered then)


@dataclass(slots=True)
class Delivery:
    """A message the scheduler wants a user to receive.

    Not frozen (so not hashable): every run of a burst makes one, and a frozen dataclass's
    ``__init__`` sets each field through ``object.__setattr__`` (a tenth of a reminder's cost
    to deliver). Treat it as a value all the same: ``dataclasses.replace`` makes a changed
    copy.

    Attributes:
        task_id: The task that produced it.
        run_id: The ledger row of the run, or ``None`` for notices outside a run.
        owner_id: The user who owns the task.
        chat_id: Where to deliver it.
        kind: What the message is.
        text: The message, plain text; a late run's text already ends with a note saying how
            late it is and when it was due.
        late_by: How late a run fired after downtime, or ``None`` when on time.
        run_again: Whether to offer a one-tap "Run again" of the task (a notice about a run
            whose outcome is unknown, which the scheduler never repeats by itself).
        urgent: Whether it passes the owner's quiet hours (an alarm they marked urgent).
        nags: Whether it repeats until acknowledged (its Done button stops it).
    """

    task_id: str
    run_id: int | None
    owner_id: str
    chat_id: str
    kind: DeliveryKind
    text: str
    late_by: timedelta | None = None
    run_again: bool = False
    urgent: bool = False
    nags: bool = False

    def __post_init__(self) -> None:
        # What a chat, a page or the JSON Lines file can take: no NUL, no lone surrogate.
        if (cleaned := clean_text(self.text)) is not self.text:
            self.text = cleaned


class Notifier(Protocol):
    """Delivers scheduler messages to users."""

    async def deliver(self, delivery: Delivery) -> DeliveryStatus:
        """Deliver ``delivery`` and say how it went; never raises for delivery failures."""
        ...


class AgentRunner(Protocol):
    """Runs the agent on a prompt in a fresh context (agent tasks)."""

    async def run_task(
        self, prompt: str, *, owner_id: str, chat_id: str, material: str | None = None
    ) -> str:
        """Return the agent's final answer to ``prompt`` on behalf of ``owner_id``.

        ``material`` is text from outside the prompt works on (search results to
        summarise): the agent reads it as it reads a fetched page, so nothing it names is
        granted and nothing it says can act."""
        ...


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One web search result."""

    title: str
    link: str
    snippet: str = ""


class Searcher(Protocol):
    """Searches the web (web_search tasks)."""

    async def search(self, query: str, *, limit: int) -> list[SearchHit]:
        """Return up to ``limit`` results for ``query``.

        Raises:
            TaskError: with a clear message when search is not configured or fails.
        """
        ...


class HttpSender(Protocol):
    """Sends HTTP requests (api_call tasks) through the program's one guarded client."""

    async def send(self, request: HttpRequest) -> HttpResponse:
        """Send ``request`` (following redirects) and return the final answer.

        Raises:
            HttpRequestError: when no answer came; it says whether the request may have
                reached the server and whether trying again can help.
        """
        ...

    def refusal(self, url: str) -> HttpRequestError | None:
        """Why every request to ``url`` would be refused, known without sending one (not
        http(s), a private or metadata address written out), or ``None``: a monitor of it
        is refused when it is made, not at its first look."""
        ...


class SecretSource(Protocol):
    """The values of ``${NAME}`` references in scheduled requests (``tasks.references``)."""

    def secret(self, name: str) -> str:
        """Return the value of ``name`` to send.

        Raises:
            TaskError: when it has none (or may not be sent), saying what to set.
        """
        ...


class QuietHours(Protocol):
    """When owners want no messages (their quiet hours, kept with their settings)."""

    async def quiet_until(self, owner_id: str, at: datetime) -> datetime | None:
        """The end of the owner's quiet hours when ``at`` falls in them, else ``None``."""
        ...


class ToolRunner(Protocol):
    """Runs one tool call unattended (monitors of a tool's output), with the approval rules
    of chat: a tool that would wait for approval is refused, never run."""

    async def run_tool(
        self, tool: str, arguments: Mapping[str, JsonValue], *, owner_id: str, chat_id: str
    ) -> str:
        """Return the tool's output as text.

        Raises:
            TaskError: when the tool is unknown, needs approval, or fails (the message says).
        """
        ...


class DeliveredMessages(Protocol):
    """What the owners were shown lately (the chats' conversations keep it)."""

    async def last_delivered(
        self, *, task_id: str, owner_id: str, chat_id: str, since: datetime
    ) -> Delivery | None:
        """The newest message of the task delivered to the chat at ``since`` or later, as
        it was delivered (``run_id`` unknown: ``None``), or ``None``."""
        ...


@dataclass(frozen=True, slots=True)
class BriefingLine:
    """One line of a briefing and the row it comes from.

    Attributes:
        text: The line, for the owner.
        ref: The row it was read from, as the line cites it: ``task k3m9xa``, ``run 1234``,
            ``note #3``, ``event 2026-03-10/standup``.
    """

    text: str
    ref: str


@dataclass(frozen=True, slots=True)
class BriefingSection:
    """A part of a briefing: its title and its lines (a section without lines is left out)."""

    title: str
    lines: tuple[BriefingLine, ...]


class BriefingSource(Protocol):
    """What a briefing shows beside the owner's tasks: notes tagged for the day, and the
    calendar when one is connected (the composition root gathers them)."""

    async def sections(
        self, owner_id: str, *, day: datetime, since: datetime, now: datetime
    ) -> Sequence[BriefingSection]:
        """The sections for the owner's day starting at ``day`` (local midnight, aware);
        ``since`` is when their previous briefing went out."""
        ...

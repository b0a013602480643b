"""The HTTP API's request and response bodies, as pydantic models (they make the OpenAPI).

Times are ISO 8601 with the offset of the user's zone (``/tz`` sets it); each time also comes
in words (``next_run_text``), written the way every other interface says it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from common import unstorable
from interfaces.notifiers import WEB_MAIN_CHAT
from interfaces.task_json import TaskOut

MAX_MESSAGE_CHARS = 4000
"""The longest message by default (``ASSISTANT_MAX_MESSAGE_CHARS``): the offline planner reads
as much, and the API checks it in its routes (``too_long``), so one setting says it for both."""
CHAT_ID_PATTERN = r"^[A-Za-z0-9_.:-]{1,64}$"
DEFAULT_CHAT = WEB_MAIN_CHAT


def storable(text: str) -> str:
    """Return ``text`` when it can be stored as it is.

    Raises:
        ValueError: naming a NUL character or a lone UTF-16 surrogate (``"\\ud800"`` in
            JSON: half of a pair); the request is then a 422 that says where.
    """
    problem = unstorable(text)
    if problem is not None:
        raise ValueError(f"the text holds {problem}; send it without")
    return text


class ChatRequest(BaseModel):
    """One message to the assistant."""

    model_config = ConfigDict(extra="forbid")

    message: str = Field(
        min_length=1,
        description="What you say, e.g. 'remind me in 10 minutes to stretch', or a slash "
        "command such as '/tz Europe/Berlin'.",
    )
    chat_id: str = Field(
        DEFAULT_CHAT,
        pattern=CHAT_ID_PATTERN,
        description="Which of your conversations (each keeps its own history).",
    )

    @field_validator("message")
    @classmethod
    def _storable(cls, value: str) -> str:
        return storable(value)


class AgUiMessageIn(BaseModel):
    """A message of an AG-UI ``RunAgentInput`` (only the last user message is read)."""

    model_config = ConfigDict(extra="allow")

    role: str
    content: Any = None


class ResumeIn(BaseModel):
    """An AG-UI resume entry: the answer to an approval interrupt of an earlier run."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    interrupt_id: str = Field(alias="interruptId", max_length=64)
    status: Literal["resolved", "cancelled"]
    payload: Any = None

    @property
    def approved(self) -> bool:
        """Whether the answer approves: resolved with ``{"approved": true}``."""
        payload = self.payload
        return (
            self.status == "resolved"
            and isinstance(payload, dict)
            and payload.get("approved") is True
        )


class StreamRequest(BaseModel):
    """A turn to stream: ``{message, chat_id}`` like ``/agent/chat``, or an AG-UI
    ``RunAgentInput`` (``threadId`` is the chat, the last user message is what is said, and
    ``resume`` answers approval interrupts)."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    message: str | None = Field(None, min_length=1)
    chat_id: str | None = Field(None, pattern=CHAT_ID_PATTERN)
    thread_id: str | None = Field(None, alias="threadId", pattern=CHAT_ID_PATTERN)
    run_id: str | None = Field(None, alias="runId", max_length=128)
    messages: list[AgUiMessageIn] | None = Field(None, max_length=1000)
    resume: list[ResumeIn] | None = Field(None, max_length=20)

    @model_validator(mode="after")
    def _one_input(self) -> StreamRequest:
        if self.resume:
            return self
        if self.message is None and self.last_user_text() is None:
            raise ValueError(
                "say something: give 'message' (or, as an AG-UI client, 'messages' ending "
                "with a user message, or 'resume' answers to approval interrupts)"
            )
        storable(self.text)
        return self

    def last_user_text(self) -> str | None:
        """The text of the last user message of an AG-UI input, if there is one."""
        for message in reversed(self.messages or []):
            if message.role == "user":
                return _text_of(message.content) or None
        return None

    @property
    def text(self) -> str:
        """What the user says in this turn."""
        return self.message or self.last_user_text() or ""

    @property
    def chat(self) -> str:
        """The chat (conversation) this turn belongs to."""
        return self.chat_id or self.thread_id or DEFAULT_CHAT


def _text_of(content: Any) -> str:
    """The text of an AG-UI message's content: a string, or the text parts of a list."""
    if isinstance(content, str):
        return content.strip()
    if isinstance(content, list):
        parts = [
            str(part.get("text", ""))
            for part in content
            if isinstance(part, dict) and part.get("type") == "text"
        ]
        return "\n".join(parts).strip()
    return ""


class ToolResultOut(BaseModel):
    """What one tool call did."""

    tool: str
    arguments: dict[str, Any] = Field(description="As called, secret-looking values hidden.")
    status: str = Field(description="ok, invalid, error, timeout, denied or pending_approval")
    output: str = Field(description="What a person sees of the result.")


class ArgumentOut(BaseModel):
    """One argument of a call as a person reads it (never JSON).

    Attributes:
        name: What it is, in words ("kind", "url", "message"; not "execution_data").
        value: Its value, in words.
    """

    name: str
    value: str


class ApprovalOut(BaseModel):
    """A risky call waiting for your approval, bound to its exact arguments."""

    id: str
    tool: str
    arguments: dict[str, Any] = Field(
        description="As they will run, in full; a ${NAME} reference to a stored secret stays one."
    )
    shown: list[ArgumentOut] = Field(description="The arguments as a person reads them.")
    risk: str
    reason: str = Field(
        "", description="Why it asks when more than the tool's own rule asks, else empty."
    )
    status: str
    expires_at: datetime
    expires_text: str = Field(
        description="When it expires, in your zone: 'today at 13:30 (Europe/Berlin)'."
    )
    text: str = Field(description="The request as a person reads it.")


class ChatResponse(BaseModel):
    """The assistant's answer to one message."""

    reply: str
    chat_id: str
    tool_results: list[ToolResultOut]
    approvals: list[ApprovalOut]


class RunOut(BaseModel):
    """One run of a task, from its ledger (times in the user's zone; ``scheduled_for_text``
    says it for people, with the zone: ``2026-03-10 14:30 (Europe/Berlin)``)."""

    id: int
    scheduled_for: datetime
    scheduled_for_text: str
    started_at: datetime | None
    finished_at: datetime | None
    status: str
    misfire: str
    late_by_seconds: float | None
    attempt: int
    result: str | None
    error: str | None


class RunsSummaryOut(BaseModel):
    """A task's older runs, compacted: how many, how they ended, when, how late."""

    runs: int = Field(description="Runs folded into this summary (their rows are gone).")
    counts: dict[str, int] = Field(description="How many ended in each status.")
    first_scheduled: datetime | None
    last_scheduled: datetime | None
    late_runs: int
    max_late_seconds: float | None
    last_status: str | None = Field(None, description="How the newest folded run ended.")
    last_failure: str | None = Field(None, description="The newest folded failure's error.")
    last_failure_at: datetime | None = Field(None, description="When that run was due.")


class TaskActionResponse(BaseModel):
    """What a task action did: the task as it is now, and the run a 'run now' made."""

    notice: str
    task: TaskOut
    run: RunOut | None = None


class SnoozeRequest(BaseModel):
    """How long to put a task's next run off, or until when."""

    model_config = ConfigDict(extra="forbid")

    delay: str = Field(
        "10m",
        max_length=100,
        description="a delay or until when, e.g. '10m', '1 hour 30 minutes', 'morning', "
        "'until 5pm', 'tomorrow at 9am', 'friday' (its next run's time of day that day)",
    )


class NoteOut(BaseModel):
    """A note."""

    id: int = Field(description="Its number among your notes: 1 for your first ('note #1')")
    content: str
    tags: list[str]
    created_at: datetime


class MeOut(BaseModel):
    """Who the token belongs to."""

    user_id: str
    timezone: str
    timezone_chosen: bool = Field(
        description="Whether the user chose the zone (/tz, or a page from its browser); "
        "otherwise it is the default, and PUT /me/timezone sets it"
    )
    max_message_chars: int = Field(
        MAX_MESSAGE_CHARS, description="The longest message /agent/chat and /agent/stream take."
    )


class ZoneRequest(BaseModel):
    """The zone to use from now on."""

    timezone: str = Field(description="An IANA zone name, e.g. 'Europe/Berlin'", max_length=64)


class ZoneOut(BaseModel):
    """What setting the zone did."""

    timezone: str
    notice: str = Field(description="What changed, in a sentence for the person")
    moved: list[str] = Field(
        description="The tasks that moved to the zone at the same clock times (made under "
        "the default before the first choice)"
    )


class HistoryOut(BaseModel):
    """A message of a conversation, as a page shows it again: what you said, and the
    assistant's answer (tool calls and their results are left out)."""

    role: Literal["user", "assistant"]
    text: str
    at: datetime | None = Field(description="When its turn was stored, in your zone.")


class HealthOut(BaseModel):
    """Whether the scheduler is alive."""

    status: Literal["ok", "degraded"]
    scheduler_running: bool
    last_tick: datetime | None
    overdue: int | None = Field(
        description="Tasks due more than a minute ago and not yet run (null: unknown)."
    )
    late_seconds: float | None = Field(
        description="How late runs start now: the most of those started in the last minute, "
        "of those waiting for a worker, and of due runs not claimed yet (null: unknown)."
    )
    max_late_seconds: float = Field(
        description="How late they may start before the status is degraded "
        "(ASSISTANT_HEALTH_MAX_LATE_SECONDS)."
    )


class ErrorOut(BaseModel):
    """What was wrong with a request."""

    detail: str


# -- issue 28: quiet hours, the morning briefing, monitors, snoozed messages --------------------


class QuietRequest(BaseModel):
    """Quiet hours to keep from now on."""

    model_config = ConfigDict(extra="forbid")

    hours: str = Field(
        max_length=100, description="e.g. '22:00-07:00' or 'from 10pm to 7am' ('off' ends them)"
    )


class QuietOut(BaseModel):
    """Your quiet hours: messages due then wait and arrive together when they end."""

    hours: str | None = Field(description="e.g. '22:00-07:00'; null: none")
    timezone: str
    held: int = Field(description="How many messages they hold now")
    notice: str = Field("", description="What a change did, in a sentence")


class BriefingRequest(BaseModel):
    """When the morning briefing comes."""

    model_config = ConfigDict(extra="forbid")

    at: str = Field(max_length=100, description="e.g. '7:30', '7am', 'every weekday at 7'")


class BriefingOut(BaseModel):
    """Your morning briefing (null: none)."""

    task: TaskOut | None
    notice: str = ""


class MonitorRequest(BaseModel):
    """A page (or a JSON API's field) to watch; it speaks only when it changes or its
    condition comes to hold."""

    model_config = ConfigDict(extra="forbid")

    url: str = Field(max_length=4000, description="The page or JSON document")
    selector: str | None = Field(None, max_length=300, description="Only what it picks counts")
    field: str | None = Field(None, max_length=200, description="A JSON field, e.g. 'data.price'")
    condition: str | None = Field(
        None,
        max_length=300,
        description="e.g. \"contains 'in stock'\" or '< 300'; none: any change",
    )
    every: str = Field("every hour", max_length=100, description="How often it looks")
    description: str | None = Field(None, max_length=200)


class LaterRequest(BaseModel):
    """When to show a delivered message again."""

    model_config = ConfigDict(extra="forbid")

    delay: str = Field(
        "10m",
        max_length=100,
        description="a delay or until when: '10m', '1h', 'morning', 'until 5pm'",
    )


class LaterOut(BaseModel):
    """When the message comes again."""

    notice: str
    at: datetime


class ObservationOut(BaseModel):
    """What a monitor saw at its last look."""

    value: str
    observed_at: datetime
    changed_at: datetime
    holds: bool | None = Field(description="Whether its condition held (null: it has none)")
    checks: int = Field(description="How many times it looked")
    changes: int = Field(description="How many times what it saw changed since its first look")


# -- issue 27: calendar feeds, imports and the calendars read for your days -------------------


class CalendarSourceOut(BaseModel):
    """A calendar read for your days."""

    name: str = Field(description="'caldav' for the synced calendar, else its name.")
    url: str
    fetched_at: datetime | None
    error: str | None = Field(description="Why the last read failed, when it did.")


class CalendarOut(BaseModel):
    """Your calendar feed, the sync, and the calendars read for your days."""

    feed_created_at: datetime | None = Field(
        description="When your feed's address was made (its token is kept only hashed, so "
        "the address itself is shown only when made); null: no feed."
    )
    syncing: bool = Field(description="Whether your reminders are kept in step with CalDAV.")
    sources: list[CalendarSourceOut]


class FeedOut(BaseModel):
    """A new feed address: a secret; anyone with it sees your tasks."""

    url: str
    note: str


class ImportItemOut(BaseModel):
    """A reminder an import makes."""

    summary: str
    schedule: str
    first: datetime | None
    note: str


class ImportRefusalOut(BaseModel):
    """An event with an alarm the schedule language cannot say exactly."""

    summary: str
    reason: str


class ImportOut(BaseModel):
    """What a calendar file becomes: previewed, or made (``created``)."""

    preview: str = Field(description="All of it in words, as the chat says it.")
    items: list[ImportItemOut]
    refused: list[ImportRefusalOut]
    skipped: list[str] = Field(description="Events left out, and why.")
    created: list[str] = Field(description="The ids of the reminders made (confirm=true).")
    error: str | None = Field(None, description="What stopped the import part way, if any.")

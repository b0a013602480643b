"""The typed values the memory store takes and returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from zoneinfo import ZoneInfo

from tools import ToolCall


class MessageRole(StrEnum):
    """Who wrote a stored message (the same values as the agent's roles)."""

    SYSTEM = "system"
    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"


class HitKind(StrEnum):
    """Where a search hit came from."""

    NOTE = "note"
    MESSAGE = "message"


FROM_OUTSIDE = "from-outside"
"""Among the comma-separated names of a stored message: its text came from outside (a task's
delivered result: a web search, an HTTP answer, an agent task's reply). A conversation that
holds one steers the model like a fetched page does (``tools.provenance``)."""


@dataclass(frozen=True, slots=True)
class StoredMessage:
    """One message of a conversation, as memory keeps it.

    The agent converts its own message type to and from this one, so ``memory`` never
    depends on the agent.

    Attributes:
        role: Who wrote it.
        content: Its text.
        tool_calls: Calls an assistant message made natively (id, name and arguments kept).
        tool_call_id: For a ``TOOL`` message, the id of the call it answers.
        name: For a ``TOOL`` message, the tool's name (several, comma-separated, for one
            message carrying several results); for a message a front end recorded, what
            it was (``delivery``, and ``FROM_OUTSIDE`` when its text came from outside).
        turn_id: The turn it belongs to; set by the store when loading (``None`` before).
        created_at: When its turn was stored; set by the store when loading.
    """

    role: MessageRole
    content: str
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    name: str | None = None
    turn_id: int | None = None
    created_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class ConversationContext:
    """What a new turn starts from, read in one go: the user's profile and the chat's history.

    Attributes:
        user: What memory knows about the user, or ``None``.
        messages: The newest whole turns of the chat within the budget, oldest first.
    """

    user: UserProfile | None
    messages: tuple[StoredMessage, ...]


@dataclass(frozen=True, slots=True)
class Note:
    """A note a user asked the assistant to keep.

    Attributes:
        id: Its id in the store (shared by all users).
        user_id: Whose it is.
        content: Its text.
        tags: Its tags.
        created_at: When it was saved.
        number: Its number among the user's own notes: 1 for their first ("note #1").
    """

    id: int
    user_id: str
    content: str
    tags: tuple[str, ...]
    created_at: datetime
    number: int = 0


@dataclass(frozen=True, slots=True)
class MemoryHit:
    """One result of ``search_memory``: a note or a past message.

    Attributes:
        kind: Whether it is a note or a conversation message.
        id: The note id or the message id.
        text: The note's or the message's full text.
        score: Relevance, higher is better (the negated FTS5 bm25 rank).
        matched_all: Whether every search term occurs in it (such hits rank first).
        created_at: When the note or the message was stored.
        tags: The note's tags (empty for messages).
        role: Who wrote the message (``None`` for notes).
        chat_id: The chat the message was written in (``None`` for notes).
        number: A note's number among the user's notes (``note #3``); 0 for messages.
    """

    kind: HitKind
    id: int
    text: str
    score: float
    matched_all: bool
    created_at: datetime
    tags: tuple[str, ...] = ()
    role: MessageRole | None = None
    chat_id: str | None = None
    number: int = 0


@dataclass(frozen=True, slots=True)
class UserProfile:
    """What memory knows about a user.

    Attributes:
        user_id: The user's id.
        timezone: The IANA zone name the user chose, or ``None`` when never set.
        settings: Free-form string settings.
        created_at: When the user was first stored.
    """

    user_id: str
    timezone: str | None
    created_at: datetime
    settings: dict[str, str] = field(default_factory=dict)

    @property
    def zone(self) -> ZoneInfo | None:
        """The user's zone as a ``ZoneInfo``, or ``None`` when never set."""
        return ZoneInfo(self.timezone) if self.timezone is not None else None


@dataclass(frozen=True, slots=True)
class SettingHolder:
    """A user who has a setting: its value, and their zone (``None``: never chosen).

    Attributes:
        user_id: The user.
        value: The setting's value.
        timezone: The IANA zone the user chose, or ``None``.
    """

    user_id: str
    value: str
    timezone: str | None


@dataclass(frozen=True, slots=True)
class CalendarFeed:
    """A user's calendar feed: its address holds a token that memory keeps only hashed.

    Attributes:
        user_id: Whose tasks it serves.
        created_at: When its address was made.
    """

    user_id: str
    created_at: datetime


@dataclass(frozen=True, slots=True)
class CalendarLink:
    """A task and the CalDAV event it is kept in step with, as the last sync left them.

    Attributes:
        user_id: The owner.
        uid: The event's UID.
        task_id: The task's id.
        href: Where the event is on the server.
        etag: The server's ETag of the event when last seen ("" when unknown).
        local_state: What the task was when both sides were last in step (a signature).
        remote_state: What the event was then (a signature).
        conflict: Why the two sides disagree and which way a person must settle it
            (``None``: in step); while set, the sync changes neither side.
        updated_at: When the link last changed.
    """

    user_id: str
    uid: str
    task_id: str
    href: str
    etag: str
    local_state: str
    remote_state: str
    conflict: str | None
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class CalendarSource:
    """A calendar the assistant reads for the user's days: the CalDAV calendar it syncs, or
    one the user subscribed to by its address.

    Attributes:
        user_id: Whose calendar.
        name: ``caldav``, or the subscription's name.
        url: Where it is read from (shown without a password).
        ics: The calendar as last read (an iCalendar text; "" before the first read).
        fetched_at: When it was last read successfully.
        error: Why the last read failed (``None``: it did not).
    """

    user_id: str
    name: str
    url: str
    ics: str = ""
    fetched_at: datetime | None = None
    error: str | None = None

"""Data the Bot API stand-in keeps and returns: errors, calls, sent messages, answers."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class ApiError:
    """An error reply in Telegram's shape."""

    status: int
    description: str
    retry_after: int | None = None

    @classmethod
    def rate_limited(cls, retry_after: int = 1) -> ApiError:
        """Return Telegram's 429 reply."""
        return cls(429, f"Too Many Requests: retry after {retry_after}", retry_after)

    @classmethod
    def blocked(cls) -> ApiError:
        """Return Telegram's reply when the user blocked the bot."""
        return cls(403, "Forbidden: bot was blocked by the user")

    @classmethod
    def bad_request(cls, what: str) -> ApiError:
        """Return a 400 reply saying ``what``."""
        return cls(400, f"Bad Request: {what}")

    def body(self) -> dict[str, Any]:
        """Return the JSON body Telegram sends with this error."""
        body: dict[str, Any] = {
            "ok": False,
            "error_code": self.status,
            "description": self.description,
        }
        if self.retry_after is not None:
            body["parameters"] = {"retry_after": self.retry_after}
        return body


class DropConnection(Exception):
    """Raised inside the server to close the connection without answering."""


@dataclass(frozen=True, slots=True)
class ApiCall:
    """One request the bot made."""

    method: str
    params: dict[str, Any]
    at: float


@dataclass(frozen=True, slots=True)
class Button:
    """One inline keyboard button the bot sent."""

    text: str
    callback_data: str


@dataclass(slots=True)
class SentMessage:
    """A message the bot sent, as it stands now (edits applied)."""

    chat_id: int
    message_id: int
    text: str
    buttons: list[list[Button]]
    parse_mode: str | None = None
    edits: int = 0
    deleted: bool = False

    def button(self, label_part: str) -> Button:
        """Return the first button whose label contains ``label_part``."""
        for row in self.buttons:
            for button in row:
                if label_part in button.text:
                    return button
        labels = [b.text for row in self.buttons for b in row]
        raise AssertionError(f"no button with {label_part!r} on message; buttons: {labels}")

    @property
    def labels(self) -> list[str]:
        """All button labels, row by row."""
        return [b.text for row in self.buttons for b in row]


@dataclass(frozen=True, slots=True)
class CallbackAnswer:
    """How the bot answered a button press."""

    query_id: str
    text: str | None
    show_alert: bool


@dataclass(slots=True)
class Failure:
    """A failure injected for the next calls of a method."""

    method: str
    chat_id: int | None
    error: ApiError | None  # None: drop the connection
    times: int


@dataclass(frozen=True, slots=True)
class Draft:
    """One ``sendMessageDraft`` call: the text a private chat showed as a growing reply."""

    chat_id: int
    draft_id: int
    text: str


@dataclass(slots=True)
class StandinState:
    """Everything the stand-in knows; mutated only on the event loop."""

    updates: list[dict[str, Any]] = field(default_factory=list)
    calls: list[ApiCall] = field(default_factory=list)
    messages: dict[tuple[int, int], SentMessage] = field(default_factory=dict)
    answers: dict[str, CallbackAnswer] = field(default_factory=dict)
    open_queries: set[str] = field(default_factory=set)
    chats: dict[int, dict[str, Any]] = field(default_factory=dict)
    blocked: set[int] = field(default_factory=set)
    failures: list[Failure] = field(default_factory=list)
    commands: list[dict[str, str]] = field(default_factory=list)
    drafts: list[Draft] = field(default_factory=list)
    drafts_supported: bool = True
    webhook_url: str = ""
    webhook_secret: str = ""
    files: dict[str, tuple[str, bytes]] = field(default_factory=dict)
    """Files users sent, by file id: their path under /file/bot<token>/ and their bytes."""

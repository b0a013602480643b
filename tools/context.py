"""The per-call context a tool receives instead of reaching for globals."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any, TypeVar
from zoneinfo import ZoneInfo

from tools.errors import ToolError
from tools.provenance import Provenance

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class ToolContext:
    """Who is calling, where, when, and the services a tool may use.

    A tool receives it by declaring a parameter annotated ``ToolContext``; that parameter
    never appears in the tool's schema.

    Attributes:
        user_id: The user on whose behalf the tool runs.
        chat_id: The chat the request came from (where replies and reminders go).
        timezone: The user's IANA time zone.
        now: The current instant (timezone-aware), injected so tests control time.
        services: Objects tools may need, keyed by their type; see ``service``.
        resolved: Values of dynamic schema providers, filled by ``ToolRegistry.prepare``;
            keyed by ``(tool, parameter, key)``.
        prepared: Whether ``ToolRegistry.prepare`` filled ``resolved`` for this context.
        profile: What is known about the user besides their id and zone (their settings,
            what the interface knows of them), by field name.
        provenance: Where the turn's content came from, which decides whether a call runs,
            asks the user first or is refused (``tools.provenance``); the planner's own
            calls carry an unchecked one.
    """

    user_id: str = "local"
    chat_id: str = "local"
    timezone: ZoneInfo = field(default_factory=lambda: ZoneInfo("UTC"))
    now: datetime = field(default_factory=lambda: datetime.now(UTC))
    services: Mapping[type, object] = field(default_factory=dict)
    resolved: Mapping[tuple[str, str, str], Any] = field(default_factory=dict)
    prepared: bool = False
    profile: Mapping[str, str] = field(default_factory=dict)
    provenance: Provenance = field(default_factory=Provenance)

    @property
    def local_now(self) -> datetime:
        """The current time in the user's zone."""
        return self.now.astimezone(self.timezone)

    def user_context(self) -> dict[str, Any]:
        """Return the caller as plain data: the profile, ``user_id``, ``chat_id``,
        ``timezone`` (its IANA name) and ``now`` (ISO 8601), for tools that take a dict."""
        return {
            **self.profile,
            "user_id": self.user_id,
            "chat_id": self.chat_id,
            "timezone": self.timezone.key,
            "now": self.now.isoformat(),
        }

    def service(self, kind: type[T]) -> T:
        """Return the service registered under ``kind``.

        Raises:
            ToolError: when no such service was given to this context.
        """
        found = self.services.get(kind)
        if found is None:
            raise ToolError(f"the service {kind.__name__!r} is not available in this context")
        if not isinstance(found, kind):
            raise ToolError(f"the service registered as {kind.__name__!r} has the wrong type")
        return found

    def with_resolved(self, resolved: Mapping[tuple[str, str, str], Any]) -> ToolContext:
        """Return a prepared copy that carries ``resolved`` dynamic values."""
        return replace(self, resolved={**self.resolved, **resolved}, prepared=True)

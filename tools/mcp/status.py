"""What people and callers are told about an MCP server's connection, and how long it waits
before trying again; no SDK here, so that reading it costs nothing."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum


class ServerState(StrEnum):
    """Where a server's connection stands."""

    STARTING = "starting"
    UP = "up"
    DOWN = "down"
    """It stopped or could not be reached; another attempt is due at ``retry_at``."""
    FAILED = "failed"
    """It cannot be started as configured; it is not tried again until a restart."""
    STOPPED = "stopped"
    LEFT_OUT = "left out"
    """A mistake in the configuration left it out (``error`` says which)."""
    DISABLED = "disabled"
    """The configuration disables it."""


@dataclass(frozen=True, slots=True)
class ServerStatus:
    """One server as people are told about it (``assistant tools``, logs).

    Attributes:
        name: The server's name (its tools are ``name.tool``).
        transport: How it is reached: ``stdio: COMMAND ARGS`` or ``http: URL`` ("" for a
            server that was left out or is disabled).
        state: Where its connection stands.
        tools: Our names of its tools, as last listed.
        error: Why it is down or failed.
        retry_at: When it is tried again (``DOWN`` only).
    """

    name: str
    transport: str
    state: ServerState
    tools: tuple[str, ...] = ()
    error: str | None = None
    retry_at: datetime | None = None

    def as_json(self) -> dict[str, object]:
        """The status as JSON values (``assistant tools --format json``)."""
        return {
            "name": self.name,
            "transport": self.transport or None,
            "state": self.state.value,
            "tools": list(self.tools),
            "error": self.error,
            "retry_at": self.retry_at.isoformat() if self.retry_at else None,
        }

    def line(self) -> str:
        """The status in one line: ``files (stdio: npx ...): up, 11 tools``."""
        how = f" ({self.transport})" if self.transport else ""
        head = f"{self.name}{how}: {self.state.value}"
        if self.state is ServerState.UP:
            return f"{head}, {len(self.tools)} tools"
        if self.state is ServerState.DOWN and self.retry_at is not None:
            return f"{head}, {self.error}; next attempt at {self.retry_at:%H:%M:%S} UTC"
        return f"{head}, {self.error}" if self.error else head


@dataclass(frozen=True, slots=True)
class Backoff:
    """How long to wait before each attempt to reconnect: ``first`` seconds, times ``factor``
    after each failure, at most ``limit``; back to ``first`` once connected."""

    first: float = 1.0
    factor: float = 2.0
    limit: float = 300.0

    def delay(self, failures: int) -> float:
        """The wait after ``failures`` failed attempts in a row (the first failure: 1)."""
        return float(min(self.limit, self.first * self.factor ** max(0, failures - 1)))

"""Per-tool counters and latency percentiles."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from tools.calls import ToolStatus

_WINDOW = 2048


@dataclass(frozen=True, slots=True)
class ToolStats:
    """What one tool has done since the executor started.

    Attributes:
        calls: Calls that reached the tool or were refused for it.
        errors: Calls that ended invalid, in an error or in a timeout.
        p50_ms, p90_ms, p99_ms: Latency percentiles over the recent window, milliseconds.
    """

    calls: int
    errors: int
    p50_ms: float
    p90_ms: float
    p99_ms: float


class Telemetry:
    """Collects call outcomes and durations per tool."""

    def __init__(self, *, window: int = _WINDOW) -> None:
        self._calls: dict[str, int] = {}
        self._errors: dict[str, int] = {}
        self._durations: dict[str, deque[float]] = {}
        self._window = window

    def record(self, tool: str, status: ToolStatus, duration: float) -> None:
        """Count one call of ``tool`` that ended with ``status`` after ``duration`` seconds."""
        self._calls[tool] = self._calls.get(tool, 0) + 1
        if status in (ToolStatus.INVALID, ToolStatus.ERROR, ToolStatus.TIMEOUT):
            self._errors[tool] = self._errors.get(tool, 0) + 1
        if status in (ToolStatus.OK, ToolStatus.ERROR, ToolStatus.TIMEOUT):
            window = self._durations.setdefault(tool, deque(maxlen=self._window))
            window.append(duration)

    def stats(self) -> dict[str, ToolStats]:
        """Return the statistics of every tool called so far."""
        return {name: self._stats_for(name) for name in sorted(self._calls)}

    def _stats_for(self, tool: str) -> ToolStats:
        ordered = sorted(self._durations.get(tool, ()))
        return ToolStats(
            calls=self._calls.get(tool, 0),
            errors=self._errors.get(tool, 0),
            p50_ms=_percentile(ordered, 0.50) * 1000,
            p90_ms=_percentile(ordered, 0.90) * 1000,
            p99_ms=_percentile(ordered, 0.99) * 1000,
        )


def _percentile(ordered: list[float], fraction: float) -> float:
    """Return the nearest-rank percentile of an ascending list (0.0 when empty)."""
    if not ordered:
        return 0.0
    rank = max(0, min(len(ordered) - 1, round(fraction * len(ordered) + 0.5) - 1))
    return ordered[rank]

"""Whether native tool calls really come back from a server and model (``ToolMode.AUTO``).

A server may accept ``tools`` and silently ignore them (llama.cpp's Python server with a
model's own chat template answers 200 and never calls a tool), so ``AUTO`` cannot wait for a
rejection. Before its first native request it asks once, with a tiny request that any model
with working tool calls answers with a call (``wire.probe_payload``); without a call back,
the backend uses the text contract. The verdict is kept per base URL and model, and looked at
again when native replies keep coming back without calls long after it was made (the server
may have been restarted with another model or template).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum


class ToolSupport(StrEnum):
    """What a server and model do with native tools."""

    NATIVE = "native"
    """Native calls came back."""
    IGNORED = "ignored"
    """The request was accepted, but no call came back: use the text contract."""


@dataclass(frozen=True, slots=True)
class Verdict:
    """What a probe found, and when.

    Attributes:
        support: What the server and model do with native tools.
        reason: What was seen, for the log.
        checked_at: When, on the cache's monotonic clock.
    """

    support: ToolSupport
    reason: str
    checked_at: float


class ToolSupportCache:
    """Probe verdicts per (base URL, model); share one between backends of one process.

    Args:
        recheck_after: Seconds after which a native verdict is checked again when a native
            reply comes back without any call.
        monotonic: The clock.
    """

    def __init__(
        self, *, recheck_after: float = 600.0, monotonic: Callable[[], float] = time.monotonic
    ) -> None:
        self._recheck_after = recheck_after
        self._monotonic = monotonic
        self._verdicts: dict[tuple[str, str], Verdict] = {}

    def get(self, base_url: str, model: str) -> Verdict | None:
        """Return the verdict for this server and model, or ``None`` when it must be probed."""
        return self._verdicts.get((base_url, model))

    def record(self, base_url: str, model: str, support: ToolSupport, reason: str) -> Verdict:
        """Keep what a probe found."""
        verdict = Verdict(support, reason, self._monotonic())
        self._verdicts[(base_url, model)] = verdict
        return verdict

    def saw_reply_without_calls(self, base_url: str, model: str) -> None:
        """Note a native reply without calls; an old native verdict is then probed again."""
        verdict = self.get(base_url, model)
        if verdict is not None and self._monotonic() - verdict.checked_at >= self._recheck_after:
            del self._verdicts[(base_url, model)]

"""System tools: the current time in the user's zone, and Python code run in a sandbox.

``execute_code`` runs code in a ``CodeSandbox`` (``assistant.builtin.sandbox``): a bubblewrap
sandbox of its own per run, which no process outlives, with no network, no view of the host's
files beyond the system directories, and resource limits.
"""

from __future__ import annotations

from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from assistant.builtin.sandbox import (
    MAX_CODE_TIMEOUT,
    CodeRun,
    CodeSandbox,
    SandboxLimits,
)
from tools import ToolContext, ToolError, tool

__all__ = [
    "CodeRun",
    "CodeSandbox",
    "SandboxLimits",
    "SystemTools",
    "get_current_time",
]


def _zone(ctx: ToolContext, tz: str | None) -> ZoneInfo:
    if tz is None or not tz.strip():
        return ctx.timezone
    try:
        return ZoneInfo(tz.strip())
    except (ZoneInfoNotFoundError, ValueError):
        raise ToolError(
            f"unknown time zone {tz!r}; use an IANA name such as 'Europe/Berlin' or "
            f"'America/New_York' (your zone is {ctx.timezone.key!r})"
        ) from None


@tool(llm_format="{weekday} {date} {time} ({timezone}, UTC{utc_offset})", parallel=True)
def get_current_time(ctx: ToolContext, tz: str | None = None) -> dict[str, str]:
    """Return the current date and time.

    Args:
        tz: IANA time zone name such as 'Asia/Tokyo'; defaults to the user's zone.
    """
    zone = _zone(ctx, tz)
    now = ctx.now.astimezone(zone)
    offset = now.strftime("%z")
    return {
        "iso": now.isoformat(timespec="seconds"),
        "date": now.strftime("%Y-%m-%d"),
        "time": now.strftime("%H:%M:%S"),
        "weekday": now.strftime("%A"),
        "timezone": zone.key,
        "utc_offset": f"{offset[:3]}:{offset[3:]}",
    }


class SystemTools:
    """The sandboxed code tool.

    Args:
        sandbox: Where ``execute_code`` runs code; a default ``CodeSandbox`` if omitted.
    """

    def __init__(self, *, sandbox: CodeSandbox | None = None) -> None:
        self._sandbox = sandbox or CodeSandbox()

    @tool(
        requires_approval=True,
        risk_level="high",
        timeout=MAX_CODE_TIMEOUT + 15,
        llm_format=CodeRun.render,
    )
    async def execute_code(self, code: str, timeout: float = 10) -> CodeRun:  # noqa: ASYNC109
        """Run Python code in a sandboxed subprocess and return what it printed.

        The code runs alone in a sandbox: no network, no input, a private working
        directory, only the system's own files visible, limited CPU time, memory, disk
        and processes. Only the standard library is available; print what you want to see.

        Args:
            code: The Python source to run.
            timeout: Seconds before the run is stopped (1 to 60).
        """
        return await self._sandbox.run(code, seconds=timeout)

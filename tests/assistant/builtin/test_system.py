"""Tests for get_current_time and the execute_code tool (the sandbox itself: test_sandbox.py)."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from assistant.builtin import CodeSandbox, SandboxUnavailableError, SystemTools, get_current_time
from tools import (
    RiskLevel,
    ToolCall,
    ToolContext,
    ToolError,
    ToolExecutor,
    ToolRegistry,
    ToolStatus,
)

BERLIN = ZoneInfo("Europe/Berlin")
NOW = datetime(2025, 3, 30, 0, 30, tzinfo=UTC)  # 01:30 CET, half an hour before DST starts


def context() -> ToolContext:
    return ToolContext(user_id="u1", chat_id="c1", timezone=BERLIN, now=NOW)


def test_current_time_is_in_the_users_zone() -> None:
    result = get_current_time(context())
    assert result == {
        "iso": "2025-03-30T01:30:00+01:00",
        "date": "2025-03-30",
        "time": "01:30:00",
        "weekday": "Sunday",
        "timezone": "Europe/Berlin",
        "utc_offset": "+01:00",
    }


def test_current_time_in_another_zone() -> None:
    result = get_current_time(context(), tz="Asia/Kolkata")
    assert (result["time"], result["utc_offset"]) == ("06:00:00", "+05:30")


def test_an_unknown_zone_is_explained() -> None:
    with pytest.raises(ToolError, match=r"unknown time zone 'Mars/Olympus'.*Europe/Berlin"):
        get_current_time(context(), tz="Mars/Olympus")


async def test_current_time_through_the_executor_reads_well() -> None:
    executor = ToolExecutor(ToolRegistry([get_current_time]))
    result = await executor.execute(ToolCall("get_current_time", {}), context())
    assert result.status is ToolStatus.OK
    assert result.text == "Sunday 2025-03-30 01:30:00 (Europe/Berlin, UTC+01:00)"


async def test_execute_code_always_needs_approval_and_is_high_risk() -> None:
    registry = ToolRegistry([SystemTools()])
    executor = ToolExecutor(registry)
    result = await executor.execute(ToolCall("execute_code", {"code": "print(1)"}), context())
    assert result.status is ToolStatus.PENDING_APPROVAL
    assert result.approval is not None
    assert result.approval.arguments == {"code": "print(1)"}
    assert registry["execute_code"].risk_level is RiskLevel.HIGH


async def test_execute_code_runs_in_the_sandbox_and_renders_the_run() -> None:
    sandbox = CodeSandbox()
    try:
        await sandbox.check()
    except SandboxUnavailableError as exc:
        pytest.fail(str(exc))  # not a skip: the check must not pass without a sandbox
    tools = SystemTools(sandbox=sandbox)
    run = await tools.execute_code("import socket\nprint(socket.gethostname())", timeout=10)
    assert run.render().splitlines()[1:] == ["stdout:", "sandbox"]

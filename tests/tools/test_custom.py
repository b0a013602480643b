"""Tests for loading custom tool files from a directory."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from tools import ToolCall, ToolContext, ToolExecutor, ToolRegistry, ToolStatus, load_custom_tools

GOOD = '''
from tools import tool

HELPER = "shared name"


@tool
def shout(text: str) -> str:
    """Return the text in capitals.

    Args:
        text: What to shout.
    """
    return text.upper()


@tool(name="add_numbers")
def add(a: int, b: int = 1) -> int:
    """Add two numbers."""
    return a + b


def not_a_tool() -> None:
    """Plain helpers are ignored."""
'''

SECOND = '''
from tools import tool

HELPER = "same helper name, different module"


@tool
def whisper(text: str) -> str:
    """Return the text in small letters."""
    return text.lower()
'''


def write(directory: Path, name: str, text: str) -> Path:
    path = directory / name
    path.write_text(text, encoding="utf-8")
    return path


def test_good_files_load_and_broken_ones_are_skipped_with_a_reason(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    good = write(tmp_path, "good.py", GOOD)
    second = write(tmp_path, "second.py", SECOND)
    syntax = write(tmp_path, "syntax.py", "from tools import tool\n@tool\ndef broken(:\n")
    raising = write(tmp_path, "raising.py", "x = 1\nraise RuntimeError('no config found')\n")
    missing = write(tmp_path, "missing.py", "import package_that_does_not_exist_42\n")
    exiting = write(tmp_path, "exiting.py", "import sys\nsys.exit(3)\n")
    empty = write(tmp_path, "empty.py", "VALUE = 1\n")
    write(tmp_path, "_helpers.py", "raise RuntimeError('never imported')\n")
    write(tmp_path, "notes.txt", "not python")

    with caplog.at_level(logging.WARNING, logger="tools.catalog.custom"):
        report = load_custom_tools(tmp_path)

    assert report.names == ["shout", "add_numbers", "whisper"]
    assert report.loaded == (good, second)
    errors = {failure.path: failure.error for failure in report.failures}
    assert set(errors) == {syntax, raising, missing, exiting, empty}
    assert errors[syntax].startswith("failed to import: SyntaxError")
    assert errors[raising] == "failed to import: RuntimeError: no config found (line 2)"
    assert "ModuleNotFoundError" in errors[missing]
    assert "package_that_does_not_exist_42" in errors[missing]
    assert errors[exiting] == "failed to import: SystemExit: 3 (line 2)"
    assert errors[empty].startswith("defines no @tool function")
    assert f"{raising}: skipped: failed to import: RuntimeError" in report.summary()
    assert f"{good}: shout, add_numbers" in report.summary()
    assert "no config found" in caplog.text


async def test_loaded_tools_join_a_registry_and_run(tmp_path: Path) -> None:
    write(tmp_path, "good.py", GOOD)
    report = load_custom_tools(tmp_path)
    executor = ToolExecutor(ToolRegistry(report.tools))
    result = await executor.execute(ToolCall("add_numbers", {"a": 2}), ToolContext())
    assert (result.status, result.output) == (ToolStatus.OK, 3)
    result = await executor.execute(ToolCall("shout", {"text": "hi"}), ToolContext())
    assert result.output == "HI"


def test_a_name_taken_by_a_builtin_or_an_earlier_file_is_skipped(tmp_path: Path) -> None:
    write(tmp_path, "a_first.py", SECOND)
    clash = write(tmp_path, "b_clash.py", SECOND.replace("small letters", "lower case"))
    builtin = write(tmp_path, "c_builtin.py", GOOD)
    report = load_custom_tools(tmp_path, reserved_names=frozenset({"shout"}))
    assert report.names == ["whisper"]
    assert [(f.path, f.error) for f in report.failures] == [
        (clash, "tool name 'whisper' is already taken by another tool"),
        (builtin, "tool name 'shout' is already taken by another tool"),
    ]


def test_a_tool_that_cannot_be_described_is_reported(tmp_path: Path) -> None:
    bad = write(
        tmp_path,
        "untyped.py",
        "from tools import tool\n\n@tool\ndef untyped(x):\n    '''No types.'''\n    return x\n",
    )
    report = load_custom_tools(tmp_path)
    assert report.tools == ()
    assert report.failures[0].path == bad
    assert "has no type annotation" in report.failures[0].error


def test_a_missing_directory_gives_an_empty_report(tmp_path: Path) -> None:
    report = load_custom_tools(tmp_path / "nowhere")
    assert (report.tools, report.failures) == ((), ())
    assert report.summary() == f"no custom tools in {tmp_path / 'nowhere'}"

"""Load user-supplied tools: the ``@tool`` functions of Python files in a directory.

Each ``*.py`` file (names starting with ``_`` or ``.`` are skipped) is imported under its own
module name, so two files may share helper names. A file that fails to import, defines no
tool, or defines a tool whose name another file already uses is reported and skipped; the
others still load. Loading runs the files' code: only put files there that you trust.
"""

from __future__ import annotations

import hashlib
import importlib.util
import inspect
import logging
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from tools.catalog.binding import Tool
from tools.define import is_tool
from tools.errors import ToolDefinitionError

DEFAULT_CUSTOM_TOOLS_DIR = Path("data/custom_tools")
MODULE_PREFIX = "assistant_custom_tools"

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class LoadFailure:
    """A file that was skipped, and why.

    Attributes:
        path: The file.
        error: What went wrong, one line (exception type and message, with the line number
            inside the file where there is one).
    """

    path: Path
    error: str

    def __str__(self) -> str:
        return f"{self.path}: {self.error}"


@dataclass(frozen=True, slots=True)
class LoadReport:
    """What loading a directory of custom tools produced.

    Attributes:
        directory: The directory that was searched.
        tools: The tools found, bound and ready to register, in file then definition order.
        loaded: The files that loaded, with at least one tool each.
        failures: The files that were skipped.
    """

    directory: Path
    tools: tuple[Tool, ...] = ()
    loaded: tuple[Path, ...] = ()
    failures: tuple[LoadFailure, ...] = ()

    @property
    def names(self) -> list[str]:
        """The names of the loaded tools."""
        return [t.name for t in self.tools]

    def summary(self) -> str:
        """One line per file: what loaded and what was skipped."""
        lines = [
            f"{path}: {', '.join(t.name for t in self.tools if _source(t) == path)}"
            for path in self.loaded
        ]
        lines += [f"{failure.path}: skipped: {failure.error}" for failure in self.failures]
        return "\n".join(lines) if lines else f"no custom tools in {self.directory}"


def load_custom_tools(
    directory: Path = DEFAULT_CUSTOM_TOOLS_DIR, *, reserved_names: frozenset[str] = frozenset()
) -> LoadReport:
    """Import every tool file in ``directory`` and collect its ``@tool`` functions.

    Args:
        directory: Where the files are; a missing directory gives an empty report.
        reserved_names: Tool names already taken (the built-in tools); a custom tool with
            one of these names is reported as a failure instead of clashing later.

    Returns:
        The report; it never raises for a broken file.
    """
    if not directory.is_dir():
        return LoadReport(directory=directory)
    tools: list[Tool] = []
    loaded: list[Path] = []
    failures: list[LoadFailure] = []
    taken = set(reserved_names)
    for path in sorted(directory.glob("*.py")):
        if path.name.startswith(("_", ".")):
            continue
        try:
            found = _tools_of(_import(path), path)
            _check_names(found, taken)
        except _Skip as skip:
            failures.append(LoadFailure(path, str(skip)))
            log.warning("custom tool file %s skipped: %s", path, skip)
            continue
        taken.update(t.name for t in found)
        tools.extend(found)
        loaded.append(path)
        log.info("custom tools from %s: %s", path, ", ".join(t.name for t in found))
    return LoadReport(directory, tuple(tools), tuple(loaded), tuple(failures))


class _Skip(Exception):
    """A file cannot be used; the message says why."""


def _module_name(path: Path) -> str:
    digest = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:10]
    stem = "".join(c if c.isalnum() else "_" for c in path.stem)
    return f"{MODULE_PREFIX}.{stem}_{digest}"


def _import(path: Path) -> ModuleType:
    name = _module_name(path)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise _Skip("cannot be imported as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and typing look modules up while they load
    try:
        spec.loader.exec_module(module)
    except (Exception, SystemExit) as exc:
        sys.modules.pop(name, None)
        raise _Skip(f"failed to import: {_describe(exc, path)}") from None
    return module


def _describe(exc: BaseException, path: Path) -> str:
    """Return ``Type: message`` plus the line of ``path`` where it happened, if any."""
    text = f"{type(exc).__name__}: {exc}"
    if isinstance(exc, SyntaxError):
        return text
    lines = [f.lineno for f in traceback.extract_tb(exc.__traceback__) if f.filename == str(path)]
    return f"{text} (line {lines[-1]})" if lines else text


def _tools_of(module: ModuleType, path: Path) -> list[Tool]:
    functions: list[Callable[..., Any]] = [
        member
        for _, member in inspect.getmembers(module, inspect.isfunction)
        if is_tool(member) and member.__module__ == module.__name__
    ]
    if not functions:
        raise _Skip("defines no @tool function (decorate functions with `from tools import tool`)")
    functions.sort(key=lambda f: f.__code__.co_firstlineno)
    try:
        return [Tool.from_function(func) for func in functions]
    except ToolDefinitionError as exc:
        raise _Skip(f"has a tool that cannot be used: {exc}") from None


def _check_names(found: list[Tool], taken: set[str]) -> None:
    for item in found:
        names = {item.name, *item.aliases}
        clash = sorted(names & taken)
        if clash:
            raise _Skip(f"tool name {clash[0]!r} is already taken by another tool")


def _source(item: Tool) -> Path:
    return Path(inspect.getfile(item.spec.func))

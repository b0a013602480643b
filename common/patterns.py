"""Regular expressions compiled when first used, and their compiled form kept between runs.

Python compiles a pattern in Python code, and the schedule language and the planner hold
hundreds of them: compiling them was most of ``assistant ask``'s start. ``LazyPattern`` takes
the same arguments as ``re.compile`` and answers the same calls; the first call compiles it.
``PatternCache`` keeps what compiling made (the matcher's code, as ``re`` hands it to
``_sre``) in a file beside the package's bytecode, the way Python keeps compiled modules, so a
later run builds each pattern from its code instead of parsing it again. The file is read
once; what is new is written when the process ends (not when bytecode may not be written, or
the folder cannot be). An entry is written only after the pattern it makes compared equal to
``re.compile``'s, and the file names the Python and ``re`` versions it is good for; anything
unexpected (another version, a damaged file, a change in ``re``'s internals) falls back to
``re.compile``.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib
import marshal
import os
import re
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

Entry = tuple[int, list[int], int, dict[str, int], tuple[str | None, ...]]
"""What ``_sre.compile`` takes besides the pattern: flags, code, groups, and their names."""


@dataclass(frozen=True, slots=True)
class _Internals:
    """The parts of ``re`` that compiling is made of (``re._compiler.compile``'s steps)."""

    build: Callable[..., re.Pattern[str]]  # _sre.compile
    code: Callable[[Any, int], list[int]]  # re._compiler._code
    parse: Callable[[str, int], Any]  # re._parser.parse
    magic: int  # re._constants.MAGIC


def _internals() -> _Internals | None:
    """``re``'s internals, or ``None`` when this Python's are not laid out as expected."""
    try:
        sre = importlib.import_module("_sre")
        compiler = importlib.import_module("re._compiler")
        parser = importlib.import_module("re._parser")
        constants = importlib.import_module("re._constants")
        return _Internals(sre.compile, compiler._code, parser.parse, int(constants.MAGIC))
    except (ImportError, AttributeError, TypeError, ValueError):
        return None


class PatternCache:
    """Compiled patterns kept in a file between runs (see the module docstring).

    Args:
        path: The file; ``None`` keeps nothing between runs.
        write: Whether ``save`` writes it (by default as Python writes bytecode:
            not with ``PYTHONDONTWRITEBYTECODE``).
    """

    def __init__(self, path: Path | None, *, write: bool | None = None) -> None:
        self._path = path
        self._write = not sys.dont_write_bytecode if write is None else write
        self._entries: dict[tuple[str, int], Entry] | None = None
        self._added = False
        self._re = _internals()
        self._version = f"{sys.version} re {self._re.magic if self._re else None}"

    def compile(self, source: str, flags: int) -> re.Pattern[str]:
        """``re.compile(source, flags)``, built from the kept code when there is some."""
        internals = self._re
        if internals is None:
            return re.compile(source, flags)
        entries = self._load()
        key = (source, int(flags))
        kept = entries.get(key)
        if kept is not None:
            try:
                return internals.build(source, *kept)
            except (TypeError, ValueError, RuntimeError):
                entries.pop(key, None)
        compiled = re.compile(source, flags)
        entry = _entry(internals, source, int(flags))
        if entry is not None and internals.build(source, *entry) == compiled:
            entries[key] = entry
            self._added = True
        return compiled

    def save(self) -> None:
        """Write what was added this run (nothing when bytecode may not be written)."""
        if not self._added or self._path is None or not self._write:
            return
        self._added = False
        merged = {**_read(self._path, self._version), **(self._entries or {})}
        with contextlib.suppress(OSError):
            self._path.parent.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=self._path.parent, prefix=".patterns-")
            try:
                with os.fdopen(handle, "wb") as out:
                    marshal.dump((self._version, merged), out)
                Path(temporary).replace(self._path)
            except BaseException:
                Path(temporary).unlink(missing_ok=True)
                raise

    def _load(self) -> dict[tuple[str, int], Entry]:
        if self._entries is None:
            self._entries = {} if self._path is None else _read(self._path, self._version)
        return self._entries


def _entry(internals: _Internals, source: str, flags: int) -> Entry | None:
    """What ``re._compiler.compile`` hands to ``_sre.compile`` for ``source``."""
    try:
        parsed = internals.parse(source, flags)
        code = internals.code(parsed, flags)
        state = parsed.state
        groups: dict[str, int] = dict(state.groupdict)
        names: list[str | None] = [None] * state.groups
        for name, index in groups.items():
            names[index] = name
        # The code holds named int constants: plain ints, so marshal can keep them.
        return (
            int(flags | state.flags),
            [int(op) for op in code],
            state.groups - 1,
            groups,
            tuple(names),
        )
    except (AttributeError, TypeError, re.error):
        return None


def _read(path: Path, version: str) -> dict[tuple[str, int], Entry]:
    """The entries kept in ``path`` for ``version``; none when it is missing or unreadable."""
    try:
        found: Any = marshal.loads(path.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    if not (isinstance(found, tuple) and len(found) == 2 and found[0] == version):
        return {}
    entries = found[1]
    return entries if isinstance(entries, dict) else {}


_CACHE = PatternCache(
    Path(__file__).with_name("__pycache__") / f"patterns.{sys.implementation.cache_tag}.marshal"
)
atexit.register(_CACHE.save)


_METHODS = ("findall", "finditer", "fullmatch", "match", "search", "split", "sub")


class LazyPattern:
    """``re.compile(source, flags)``, compiled at its first use (from ``PatternCache``).

    It answers ``match``, ``fullmatch``, ``search``, ``finditer``, ``findall``, ``sub`` and
    ``split`` as the compiled pattern does: the first of them compiles it and puts the
    compiled pattern's own methods in their place, so a pattern in a hot loop costs what a
    compiled one does.

    Args:
        source: The pattern.
        flags: ``re`` flags.
    """

    __slots__ = ("_compiled", "_flags", "_source", *_METHODS)

    match: Callable[..., re.Match[str] | None]
    fullmatch: Callable[..., re.Match[str] | None]
    search: Callable[..., re.Match[str] | None]
    finditer: Callable[..., Iterator[re.Match[str]]]
    findall: Callable[..., list[Any]]
    sub: Callable[..., str]
    split: Callable[..., list[str | Any]]

    def __init__(self, source: str, flags: int | re.RegexFlag = 0) -> None:
        self._source = source
        self._flags = flags

    @property
    def compiled(self) -> re.Pattern[str]:
        """The compiled pattern (compiled now, the first time)."""
        try:
            return self._compiled
        except AttributeError:
            return self._compile()

    @property
    def pattern(self) -> str:
        """The pattern's source."""
        return self._source

    def __getattr__(self, name: str) -> Any:
        # Only a method not looked up yet gets here: compile, then answer from the pattern.
        if name not in _METHODS:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        return getattr(self._compile(), name)

    def _compile(self) -> re.Pattern[str]:
        compiled: re.Pattern[str] = _CACHE.compile(self._source, int(self._flags))
        self._compiled = compiled
        for method in _METHODS:
            setattr(self, method, getattr(compiled, method))
        return compiled

    def __repr__(self) -> str:
        return f"LazyPattern({self._source!r}, {self._flags!r})"

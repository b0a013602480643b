"""Regular expressions compiled when first used, not when their module is imported.

Python compiles a pattern in Python code, and the schedule language and the planner hold
hundreds of them: compiled at import they were two thirds of ``assistant ask``'s imports,
though one message uses a few. ``LazyPattern`` takes the same arguments as ``re.compile`` and
answers the same calls; the first call compiles it (``re`` keeps it cached from then on).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

_METHODS = ("findall", "finditer", "fullmatch", "match", "search", "split", "sub")


class LazyPattern:
    """``re.compile(source, flags)``, compiled at its first use.

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
        compiled = re.compile(self._source, self._flags)
        self._compiled = compiled
        for method in _METHODS:
            setattr(self, method, getattr(compiled, method))
        return compiled

    def __repr__(self) -> str:
        return f"LazyPattern({self._source!r}, {self._flags!r})"

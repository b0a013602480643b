"""Regular expressions compiled when first used, not when their module is imported.

Python compiles a pattern in Python code, and the schedule language and the planner hold
hundreds of them: compiled at import they were two thirds of ``assistant ask``'s imports,
though one message uses a few. ``LazyPattern`` takes the same arguments as ``re.compile`` and
answers the same calls; the first call compiles it (``re`` keeps it cached from then on).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator
from typing import Any


class LazyPattern:
    """``re.compile(source, flags)``, compiled at its first use.

    Args:
        source: The pattern.
        flags: ``re`` flags.
    """

    __slots__ = ("_compiled", "_flags", "_source")

    def __init__(self, source: str, flags: int | re.RegexFlag = 0) -> None:
        self._source = source
        self._flags = flags
        self._compiled: re.Pattern[str] | None = None

    @property
    def compiled(self) -> re.Pattern[str]:
        """The compiled pattern (compiled now, the first time)."""
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = re.compile(self._source, self._flags)
        return compiled

    @property
    def pattern(self) -> str:
        """The pattern's source."""
        return self._source

    def match(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        """As ``re.Pattern.match``."""
        return self.compiled.match(string, pos, endpos)

    def fullmatch(
        self, string: str, pos: int = 0, endpos: int = sys.maxsize
    ) -> re.Match[str] | None:
        """As ``re.Pattern.fullmatch``."""
        return self.compiled.fullmatch(string, pos, endpos)

    def search(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        """As ``re.Pattern.search``."""
        return self.compiled.search(string, pos, endpos)

    def finditer(
        self, string: str, pos: int = 0, endpos: int = sys.maxsize
    ) -> Iterator[re.Match[str]]:
        """As ``re.Pattern.finditer``."""
        return self.compiled.finditer(string, pos, endpos)

    def findall(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> list[Any]:
        """As ``re.Pattern.findall``."""
        return self.compiled.findall(string, pos, endpos)

    def sub(self, repl: str | Callable[[re.Match[str]], str], string: str, count: int = 0) -> str:
        """As ``re.Pattern.sub``."""
        return self.compiled.sub(repl, string, count)

    def split(self, string: str, maxsplit: int = 0) -> list[str | Any]:
        """As ``re.Pattern.split``."""
        return self.compiled.split(string, maxsplit)

    def __repr__(self) -> str:
        return f"LazyPattern({self._source!r}, {self._flags!r})"

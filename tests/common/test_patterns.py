"""Regular expressions compiled at first use, and their compiled code kept between runs."""

from __future__ import annotations

import marshal
import re
from pathlib import Path

from common import LazyPattern, PatternCache

SOURCES = [
    (r"(?P<hour>\d{1,2})(?::(?P<minute>\d{2}))? ?(?P<half>am|pm)?", re.IGNORECASE),
    (r"\b(every|each) (other )?(day|week)s?\b", 0),
    (r"^remind me (?:to )?(.+?)(?: at (.+))?$", re.IGNORECASE | re.DOTALL),
]
TEXTS = ["Remind me to call mom at 9:30 PM", "every other week", "7 am", "", "REMIND ME\nx"]


def _behaviour(pattern: re.Pattern[str]) -> list[object]:
    found: list[object] = [pattern.groupindex, pattern.groups, pattern.flags]
    for text in TEXTS:
        match = pattern.search(text)
        found.append(None if match is None else (match.span(), match.groups()))
    return found


def test_a_pattern_built_from_kept_code_behaves_as_re_compiles_it(tmp_path: Path) -> None:
    path = tmp_path / "patterns.marshal"
    first = PatternCache(path, write=True)
    made = [first.compile(source, flags) for source, flags in SOURCES]
    first.save()
    again = PatternCache(path, write=True)
    kept = [again.compile(source, flags) for source, flags in SOURCES]

    assert path.stat().st_size > 0
    for (source, flags), one, other in zip(SOURCES, made, kept, strict=True):
        expected = re.compile(source, flags)
        assert one == expected and other == expected
        assert _behaviour(other) == _behaviour(expected)


def test_a_damaged_or_foreign_cache_file_is_ignored(tmp_path: Path) -> None:
    damaged = tmp_path / "damaged.marshal"
    damaged.write_bytes(b"\x00not marshal data at all")
    foreign = tmp_path / "foreign.marshal"
    foreign.write_bytes(marshal.dumps(("another python", {(r"a", 0): (0, [1, 2, 3], 0, {}, ())})))
    for path in (damaged, foreign):
        cache = PatternCache(path)
        assert cache.compile(r"a", 0).fullmatch("a") is not None


def test_a_lazy_pattern_answers_as_the_compiled_one() -> None:
    lazy = LazyPattern(r"(\w+)@(\w+)\.com", re.IGNORECASE)
    plain = re.compile(r"(\w+)@(\w+)\.com", re.IGNORECASE)
    text = "Mail BOB@example.com or amy@host.com"

    assert lazy.pattern == plain.pattern
    assert lazy.search(text) is not None and plain.search(text) is not None
    assert lazy.findall(text) == plain.findall(text)
    assert lazy.sub(r"<\2>", text) == plain.sub(r"<\2>", text)
    assert lazy.split(text) == plain.split(text)
    assert [m.span() for m in lazy.finditer(text)] == [m.span() for m in plain.finditer(text)]
    assert lazy.fullmatch("a@b.com") is not None and lazy.match("x a@b.com") is None

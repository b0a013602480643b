"""LazyPattern answers as the pattern re.compile makes, compiling at its first use."""

from __future__ import annotations

import re

import pytest

from common import LazyPattern


def test_a_lazy_pattern_answers_every_call_as_the_compiled_one() -> None:
    source, flags = r"(?P<hour>\d{1,2}):(?P<minute>\d{2})", re.IGNORECASE
    lazy, compiled = LazyPattern(source, flags), re.compile(source, flags)
    text = "at 9:30 and 17:05"
    assert lazy.search(text).groupdict() == compiled.search(text).groupdict()  # type: ignore[union-attr]
    assert lazy.match(text) is None and compiled.match(text) is None
    assert lazy.fullmatch("9:30") is not None
    assert lazy.findall(text) == compiled.findall(text)
    assert [m.span() for m in lazy.finditer(text)] == [m.span() for m in compiled.finditer(text)]
    assert lazy.sub("<t>", text) == compiled.sub("<t>", text)
    assert lazy.split(text) == compiled.split(text)
    assert lazy.pattern == source
    assert lazy.compiled is re.compile(source, flags)


def test_a_lazy_pattern_is_not_compiled_until_used() -> None:
    broken = LazyPattern("(unclosed")  # a mistake shows at first use, not at import
    with pytest.raises(re.error):
        broken.search("x")


def test_a_lazy_pattern_has_only_the_patterns_methods() -> None:
    with pytest.raises(AttributeError, match="no attribute 'scanner'"):
        LazyPattern("a").scanner  # noqa: B018

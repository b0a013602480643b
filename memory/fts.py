"""Turning what a person typed into FTS5 queries that can never be a syntax error.

Every word becomes a quoted FTS5 string (the text between the quotes holds only letters
and digits, so quotes, operators such as ``AND``/``NEAR`` and column filters are plain
words). Two queries come out: one that needs every word (ranked first) and one that
accepts any word, so "wifi password?" still finds "The wifi password is hunter2" and
"what is the wifi password" does not need the word "what".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from common import LazyPattern

_WORD = LazyPattern(r"[^\W_]+")

# Words that carry no meaning for recall; dropped unless nothing else is left.
_STOP_WORDS_TEXT = """
a about am an and any are as at be been but by can could did do does for from had has have how
i in is it its me my of on or our please remember should so tell than that the their them there
these they this those to was we were what when where which who whom why will with would you your
"""
STOP_WORDS = frozenset(_STOP_WORDS_TEXT.split())

MAX_TERMS = 12
MIN_PREFIX_CHARS = 3


@dataclass(frozen=True, slots=True)
class FtsQuery:
    """The query strings for one search (FTS5 ``MATCH`` strings, or PostgreSQL's tsquery
    text when built with its terms and operators).

    Attributes:
        all_terms: Matches rows that contain every term.
        any_terms: Matches rows that contain at least one term; ``None`` with one term.
    """

    all_terms: str
    any_terms: str | None


def _fts5_term(word: str, prefix: bool) -> str:
    # A word holds no '"', so quoting it cannot break out; '*' makes it a prefix.
    return f'"{word}"*' if prefix else f'"{word}"'


def build_query(
    text: str,
    *,
    term: Callable[[str, bool], str] = _fts5_term,
    every: str = " AND ",
    either: str = " OR ",
) -> FtsQuery | None:
    """Return the queries for ``text``, or ``None`` when it holds no words at all.

    The words are letters and digits only, each once, stop words dropped unless nothing else
    is left, at most ``MAX_TERMS``; words of ``MIN_PREFIX_CHARS`` or more match as prefixes.

    Args:
        text: What the person typed.
        term: Quotes one word (and whether it is a prefix) for the query language; FTS5's
            quoting by default.
        every: Joins the terms into the every-term query.
        either: Joins them into the any-term query.
    """
    words = _distinct(_WORD.findall(text))
    meaningful = [w for w in words if w.lower() not in STOP_WORDS] or words
    terms = [term(w, len(w) >= MIN_PREFIX_CHARS) for w in meaningful[:MAX_TERMS]]
    if not terms:
        return None
    return FtsQuery(
        all_terms=every.join(terms),
        any_terms=either.join(terms) if len(terms) > 1 else None,
    )


def _distinct(words: list[str]) -> list[str]:
    seen: set[str] = set()
    kept: list[str] = []
    for word in words:
        key = word.lower()
        if key not in seen:
            seen.add(key)
            kept.append(word)
    return kept

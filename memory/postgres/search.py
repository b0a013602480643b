"""Turning what a person typed into ``tsquery`` text that can never be a syntax error.

The words are ``memory.fts.search_words``'s (letters and digits only, so quoting each one
cannot break out), each a prefix when it is long enough; ``to_tsquery`` then stems them as the
documents were stemmed. Two queries come out, as for FTS5: every word (ranked first) and any
word.
"""

from __future__ import annotations

from dataclasses import dataclass

from memory.fts import is_prefix, search_words


@dataclass(frozen=True, slots=True)
class TsQuery:
    """The ``to_tsquery`` texts for one search.

    Attributes:
        all_terms: Matches rows that contain every term.
        any_terms: Matches rows that contain at least one term; ``None`` with one term.
    """

    all_terms: str
    any_terms: str | None


def build_tsquery(text: str) -> TsQuery | None:
    """Return the queries for ``text``, or ``None`` when it holds no words at all."""
    terms = [f"'{w}':*" if is_prefix(w) else f"'{w}'" for w in search_words(text)]
    if not terms:
        return None
    return TsQuery(" & ".join(terms), " | ".join(terms) if len(terms) > 1 else None)

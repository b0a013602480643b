"""Turning what a person typed into ``tsquery`` text that can never be a syntax error.

The words are ``memory.fts.build_query``'s (letters and digits only, so quoting each one
cannot break out), each a prefix when it is long enough; ``to_tsquery`` then stems them as the
documents were stemmed. Two queries come out, as for FTS5: every word (ranked first) and any
word; ``memory.sql.full_text_search`` runs them in that order.
"""

from __future__ import annotations

from memory.fts import FtsQuery, build_query


def build_tsquery(text: str) -> FtsQuery | None:
    """Return the ``to_tsquery`` texts for ``text``, or ``None`` when it holds no words."""
    return build_query(text, term=_term, every=" & ", either=" | ")


def _term(word: str, prefix: bool) -> str:
    # A word holds no "'", so quoting it cannot break out; ':*' makes it a prefix.
    return f"'{word}':*" if prefix else f"'{word}'"

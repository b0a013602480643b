"""Turning what a person typed into ``tsquery`` text that can never be a syntax error.

The words are ``memory.fts.build_query``'s (letters and digits only, so quoting each one
cannot break out), each a prefix when it is long enough; ``to_tsquery`` then stems them as the
documents were stemmed. Two queries come out, as for FTS5: every word (ranked first) and any
word; ``all_then_any`` runs them in that order.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Hashable
from typing import TypeVar

from memory.fts import FtsQuery, build_query

Hit = TypeVar("Hit")


def build_tsquery(text: str) -> FtsQuery | None:
    """Return the ``to_tsquery`` texts for ``text``, or ``None`` when it holds no words."""
    return build_query(text, term=_term, every=" & ", either=" | ")


def _term(word: str, prefix: bool) -> str:
    # A word holds no "'", so quoting it cannot break out; ':*' makes it a prefix.
    return f"'{word}':*" if prefix else f"'{word}'"


async def all_then_any(
    query: FtsQuery,
    limit: int,
    match: Callable[[str, int, bool], Awaitable[list[Hit]]],
    key: Callable[[Hit], Hashable],
) -> list[Hit]:
    """Up to ``limit`` hits: those matching every term first, then those matching any.

    Args:
        query: The two queries.
        limit: How many hits at most.
        match: Runs one query (its text, a limit, whether it is the every-term one) and
            returns its hits, best first.
        key: What makes two hits the same (the second query finds the first's again).
    """
    found = await match(query.all_terms, limit, True)
    if len(found) < limit and query.any_terms is not None:
        seen = {key(hit) for hit in found}
        more = await match(query.any_terms, limit + len(seen), False)
        found += [hit for hit in more if key(hit) not in seen]
    return found[:limit]

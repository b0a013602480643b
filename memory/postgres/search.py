"""Turning what a person typed into ``tsquery`` text that can never be a syntax error.

The words are ``memory.fts.search_words``'s (letters and digits only, so quoting each one
cannot break out), each a prefix when it is long enough; ``to_tsquery`` then stems them as the
documents were stemmed. Two queries come out, as for FTS5: every word (ranked first) and any
word; ``all_then_any`` runs them in that order.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass
from typing import TypeVar

from memory.fts import is_prefix, search_words

Hit = TypeVar("Hit")


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


async def all_then_any(
    query: TsQuery,
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

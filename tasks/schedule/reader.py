"""Read tokens with the grammar: where each rule matches, and how a phrase splits into pieces.

``matches(tokens)`` lists every rule's matches at every token (each match covers whole tokens).
``covers(tokens)`` gives the ways a whole phrase splits into matches and filler words, best
first: fewest matches, then fewest filler words, then the earliest rules. The caller combines
the pieces of each cover in turn and keeps the first that makes a schedule, so a phrase the
grammar can read two ways ("every hour 10 to 5": an hour, or a window) is read the way that
means something. A phrase with words no rule reads gets ``Unread``, naming them.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from dataclasses import dataclass

from tasks.schedule.grammar import RULES, Rule
from tasks.schedule.pieces import Piece
from tasks.schedule.tokens import Token, canonical

FILLERS = frozenset(
    {
        "at", "on", "the", "of", "and", "around", "about", "approximately", "approx", "ca",
        "sometime", "by", "for", "in", "this", "coming", "/", "then", "also", "again",
        "roughly", "say", "like", "or", "so", "sharp", "exactly",
    }
)  # fmt: skip
"""Words a phrase may hold between its pieces without changing what it means."""
MAX_COVERS = 12
"""How many ways of splitting one phrase are tried at most."""


@dataclass(frozen=True, slots=True)
class Match:
    """One rule's reading of the tokens ``first`` to ``end`` (exclusive).

    Attributes:
        rule: The rule.
        order: The rule's place in ``RULES`` (earlier is preferred).
        first: The first token.
        end: The token after the last.
        pieces: What it read.
    """

    rule: Rule
    order: int
    first: int
    end: int
    pieces: tuple[Piece, ...]


@dataclass(frozen=True, slots=True)
class Cover:
    """A phrase split into matches and fillers, in order.

    Attributes:
        matches: The matches, left to right.
        unread: The tokens no rule and no filler covers (empty for a full reading).
    """

    matches: tuple[Match, ...]
    unread: tuple[int, ...] = ()

    @property
    def pieces(self) -> list[Piece]:
        """Every piece of every match, in order."""
        return [piece for match in self.matches for piece in match.pieces]


def matches(tokens: list[Token]) -> list[list[Match]]:
    """Every rule's matches starting at each token (``result[i]`` starts at token ``i``)."""
    text = canonical(tokens)
    starts: list[int] = []
    ends: dict[int, int] = {}
    offset = 0
    for index, token in enumerate(tokens):
        starts.append(offset)
        offset += len(token.text)
        ends[offset] = index + 1
        offset += 1
    found: list[list[Match]] = [[] for _ in tokens]
    for index, start in enumerate(starts):
        for order, rule in enumerate(RULES):
            hit = rule.pattern.match(text, start)
            if hit is None or hit.end() not in ends:
                continue
            end = ends[hit.end()]
            if any(token.stop for token in tokens[index : end - 1]):
                continue  # a full stop inside: two sentences
            pieces = tuple(rule.build(hit))
            if pieces:
                found[index].append(Match(rule, order, index, end, pieces))
    return found


def covers(tokens: list[Token], found: list[list[Match]] | None = None) -> Iterator[Cover]:
    """The ways ``tokens`` split into matches and fillers, best first (at most
    ``MAX_COVERS``); when none reads every word, one ``Cover`` whose ``unread`` names the
    words left over."""
    found = matches(tokens) if found is None else found
    size = len(tokens)
    # best[i]: the cheapest ways to read tokens[i:], as (cost, matches) sorted by cost.
    best: list[list[tuple[tuple[int, int, int], tuple[Match, ...]]]] = [[] for _ in range(size + 1)]
    best[size] = [((0, 0, 0), ())]
    for index in range(size - 1, -1, -1):
        options: list[tuple[tuple[int, int, int], tuple[Match, ...]]] = []
        if tokens[index].text in FILLERS:
            options += [((c[0], c[1] + 1, c[2]), rest) for c, rest in best[index + 1]]
        for match in found[index]:
            options += [
                ((c[0] + 1, c[1], c[2] + match.order), (match, *rest))
                for c, rest in best[match.end]
            ]
        best[index] = heapq.nsmallest(MAX_COVERS, options, key=lambda option: option[0])
    if best[0]:
        for _, chosen in best[0]:
            yield Cover(chosen)
        return
    yield _partial(tokens, found)


def _partial(tokens: list[Token], found: list[list[Match]]) -> Cover:
    """The reading that leaves the fewest words unread, and which words those are."""
    size = len(tokens)
    cost: list[tuple[int, int]] = [(0, 0)] * (size + 1)
    choice: list[Match | None] = [None] * (size + 1)
    for index in range(size - 1, -1, -1):
        skip = 0 if tokens[index].text in FILLERS else 1
        cost[index] = (cost[index + 1][0] + skip, cost[index + 1][1])
        choice[index] = None
        for option in found[index]:
            candidate = (cost[option.end][0], cost[option.end][1] + 1)
            if candidate < cost[index]:
                cost[index], choice[index] = candidate, option
    chosen: list[Match] = []
    unread: list[int] = []
    index = 0
    while index < size:
        picked = choice[index]
        if picked is None:
            if tokens[index].text not in FILLERS:
                unread.append(index)
            index += 1
        else:
            chosen.append(picked)
            index = picked.end
    return Cover(tuple(chosen), tuple(unread))

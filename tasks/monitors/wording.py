"""What a person is told when a monitor cannot be made: a sentence and examples that work.

A monitor's parts (its address, selector, field, condition, how often) are checked one by
one; what could not be read is said in words, never as the data the task would keep.
"""

from __future__ import annotations

from common import LazyPattern

PAGE_EXAMPLE = "https://shop.example/kettle"
"""An address a monitor could watch (a page, not an API call)."""
EVERY_EXAMPLES = "'every 30 minutes' or 'every day at 9am'"
"""How often a monitor could look."""
MONITOR_EXAMPLES = (
    f"'tell me when {PAGE_EXAMPLE} says in stock' or 'every 30 minutes check "
    "https://api.example/kettle.json field price and tell me when it is below 300'"
)
"""Two whole sentences that make a monitor."""
_OFFERED = LazyPattern(r"[;,]?\s*(?:say\s+)?e\.g\.\s+'[^']*'(?:\s+or\s+'[^']*')?\s*\.?$")


def how_often_problem(reason: str) -> str:
    """``reason`` (why a schedule could not be read) with the examples of a monitor's: a
    monitor repeats, so "tomorrow at 9am" is no example for it."""
    bare = _OFFERED.sub("", reason.strip())
    return f"{bare}; a monitor looks again and again: say how often, e.g. {EVERY_EXAMPLES}"


def problems_sentence(problems: list[str]) -> str:
    """The problems of a monitor's parts in one sentence, with examples of monitors."""
    said = "; ".join(problem.rstrip(". ") for problem in problems)
    return f"{said}. Monitors that work: {MONITOR_EXAMPLES}"

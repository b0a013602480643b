"""Golden phrases of the rule in ``agent/planner/rules_watch.py``: monitors.

A page, what a CSS selector picks on it, a JSON field, or a web search's top results,
watched on a schedule (every hour unless said), speaking on any change or on a condition.
The goldens' user has no search key, so a search monitor is refused with the reason.
"""

from __future__ import annotations

from tasks import TaskType
from testing.golden.check import Creates, Golden, says

HOURLY = "every hour"
FIRST_LOOK = "2026-03-10 14:30"
"""A monitor's first look is at once (the goldens' now), whatever its schedule."""


def watches(sentence: str, text: str, repeats: str = HOURLY) -> Golden:
    """A golden that creates a monitor (``text`` is its description)."""
    return Golden(sentence, Creates(FIRST_LOOK, text, repeats, TaskType.MONITOR))


CASES: dict[str, tuple[Golden, ...]] = {
    "monitors that speak only on a change or a condition": (
        # the sentences
        watches(
            "tell me when https://example.com/news changes",
            "watch https://example.com/news",
        ),
        watches(
            "every hour check https://shop.example/kettle and tell me if it contains 'in stock'",
            "watch https://shop.example/kettle for contains 'in stock'",
        ),
        watches(
            "tell me when the price at https://api.example.com/kettle.json drops below 300",
            "watch price at https://api.example.com/kettle.json for < 300",
        ),
        # more ways to say it
        watches(
            "let me know if https://shop.example/kettle says 'in stock'",
            "watch https://shop.example/kettle for contains 'in stock'",
        ),
        watches(
            "every 30 minutes check https://shop.example/kettle and tell me when it no longer "
            "says sold out",
            "watch https://shop.example/kettle for lacks 'sold out'",
            "every 30 minutes",
        ),
        watches(
            "watch #price on https://shop.example/kettle for a price below 300",
            "watch https://shop.example/kettle (#price) for price < 300",
        ),
        watches(
            "keep an eye on https://example.com/jobs",
            "watch https://example.com/jobs",
        ),
        watches(
            "monitor https://example.com/status every day at 9am",
            "watch https://example.com/status",
            "every day at 09:00",
        ),
        watches(
            "notify me as soon as https://tickets.example/show mentions 'sold out'",
            "watch https://tickets.example/show for contains 'sold out'",
        ),
        watches(
            "watch the field data.rate of https://api.example.com/fx and tell me when it is "
            "above 1.2",
            "watch data.rate at https://api.example.com/fx for > 1.2",
        ),
        watches(
            "track .availability on https://shop.example/tv for changes",
            "watch https://shop.example/tv (.availability)",
        ),
        # a search needs a search service; a one-time check is a request, not a monitor
        Golden(
            "watch the search results for 'python 3.14'",
            says("can't watch the search results for 'python 3.14'", "SERPAPI_API_KEY"),
        ),
        Golden(
            "tell me when the top results for rust 2 change",
            says("can't watch the search results for 'rust 2'"),
        ),
        Golden(
            "tell me when https://shop.example/kettle costs a fortune",
            says("could not read 'costs a fortune' as a condition", "'price < 300'"),
        ),
    ),
}

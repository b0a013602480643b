"""Lists kept as notes: "add milk to my shopping list", "put eggs on the grocery list".

Each addition is a note that names its list ("shopping list: milk") and is tagged with it
(``#shopping``), so "what's on my shopping list?" finds every item by the notes' search.
"""

from __future__ import annotations

import re

from agent.planner.intents import Intent, SaveNote
from agent.planner.rule import Context, Rule
from agent.planner.text import Message, trim, unquote
from common import LazyPattern

_ADD = LazyPattern(
    r"(?:add|put|write|stick|jot)\s+(?P<items>.+?)\s+(?:to|on|onto|in|into)\s+"
    r"(?:my|the|our)\s+(?P<name>(?:[\w'-]+\s+){0,2}?)(?:list)",
    re.IGNORECASE,
)
_NAME = LazyPattern(r"[\w'-]+")


def list_item(message: Message, context: Context) -> Intent | None:
    """An item added to a named list: a note of the list, tagged with its name."""
    match = _ADD.fullmatch(message.text)
    if match is None:
        return None
    items = unquote(trim(match["items"]))
    words = [w.lower() for w in _NAME.findall(match["name"])]
    if not items or not _NAME.search(items):
        return None
    title = " ".join([*words, "list"])
    tags = ("-".join(words),) if words else ("list",)
    return SaveNote(f"{title}: {items}", tags)


LISTS = Rule("items added to a list", list_item)

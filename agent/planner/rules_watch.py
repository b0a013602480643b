"""Monitors: "tell me when https://... changes", "let me know if https://shop/k says 'in
stock'", "every hour check https://... and tell me if it contains 'in stock'", "watch #price
on https://... for a price below 300", "tell me when the price at https://api/k.json drops
below 300", "watch the search results for 'python 3.14'".

What is watched comes from the words before the address: nothing (the page), a CSS selector
("#price", ".stock", "the element div.price"), or a field ("the price at", "the field
data.price of") of a JSON address (one that ends in ``.json`` or has ``/api`` in it, or when
"field" is said). The condition is the rest, read by ``tasks.parse_condition`` when the tool
runs; "changes" is none. How often comes from a repeating time anywhere in the sentence
(every hour by default). A sentence that only says "check https://..." is a request, not a
monitor: ``rules_jobs`` and ``rules_chat`` have it.
"""

from __future__ import annotations

import re

from agent.planner import answers
from agent.planner.intents import Intent, Say, Watch
from agent.planner.rule import Context, Rule
from agent.planner.text import Message, trim, unquote
from common import LazyPattern
from tasks import find_time, read_condition

DEFAULT_EVERY = "every hour"
_F = re.IGNORECASE
_URL = LazyPattern(r"https?://[^\s<>\"'`]+", _F)
_HERE = "⟨address⟩"  # stands for the address while the rest of the sentence is read
_TELL = LazyPattern(
    r"(?:(?:tell|let)\s+me(?:\s+know)?|notify\s+me|alert\s+me|ping\s+me|message\s+me"
    r"|text\s+me|warn\s+me)\s+(?:when(?:ever)?|if|once|as\s+soon\s+as|in\s+case)\s+",
    _F,
)
_LOOK = LazyPattern(
    r"(?:watch|monitor|track|follow|observe|keep\s+(?:an?\s+)?eye\s+on|keep\s+watching"
    r"|keep\s+checking|check)\s+(?:for\s+me\s+)?",
    _F,
)
_TAIL = LazyPattern(
    r"\s*,?\s*(?:(?:and\s+)?(?:then\s+)?(?:(?:tell|let)\s+me(?:\s+know)?|notify\s+me|alert\s+me"
    r"|ping\s+me|message\s+me)\s+)?(?:when(?:ever)?|if|once|as\s+soon\s+as|in\s+case)\s+"
    r"(?P<cond>.+)$"
    r"|\s+for\s+(?P<wanted>.+)$",
    _F,
)
_SEARCH = LazyPattern(
    r"(?:the\s+)?(?:top\s+|first\s+)?(?:\d+\s+)?(?:web\s+|google\s+)?(?:search\s+)?results?"
    r"\s+(?:for|of|on)\s+(?P<query>'[^']+'|\"[^\"]+\"|“[^”]+”|.+?)"
    r"(?=$|\s+(?:change|changes|changed|and|for|when|if|differ|differs|update|updates)\b)",
    _F,
)
_SELECTOR = LazyPattern(
    r"(?:the\s+)?(?:elements?\s+|selector\s+|part\s+)?(?P<sel>'[^']+'|\"[^\"]+\"|[#.\[][^\s]*"
    r"|[a-z][a-z0-9]*[#.\[][^\s]*)(?:\s+(?:element|elements|part|selector))?",
    _F,
)
_FIELD = LazyPattern(
    r"(?:the\s+)?(?:json\s+)?(?P<named>field\s+|value\s+of\s+|key\s+)?"
    r"(?P<field>[A-Za-z_][\w-]*(?:(?:\.[A-Za-z_][\w-]*)|\[-?\d+\])*)",
    _F,
)
_PAGE_WORDS = frozenset({"", "it", "the page", "page", "the site", "site", "the website",
                         "website", "this page", "that page", "the url", "url"})  # fmt: skip
_AFTER_TARGET = LazyPattern(r"\s+(?:at|on|of|in|from)$", _F)
_ANY_CHANGE = LazyPattern(
    r"(?:it|the\s+page|anything|something|that|this|they|the\s+(?:content|text|value|results?))?"
    r"\s*(?:changes?|changed|is\s+changed|are\s+changed|is\s+updated|updates?|gets\s+updated"
    r"|differs?|there\s+is\s+a\s+change|(?:has|have)\s+changed)(?:\s+at\s+all)?",
    _F,
)
_CHANGES = LazyPattern(r"(?:any\s+)?changes?|updates?|anything\s+new", _F)
# Any address with a scheme: one that is not http(s) is refused, not read as something else.
_ADDRESS = LazyPattern(r"\b[a-z][a-z0-9+.-]*://[^\s<>\"'`]*", _F)
# A monitor's lead ("check" alone is a request: "check https://... tomorrow at 9").
_WATCH_LEAD = LazyPattern(
    r"(?:watch|monitor|track|keep\s+(?:an?\s+)?eye\s+on|keep\s+watching|keep\s+checking)\b",
    _F,
)
_FIELD_AFTER = LazyPattern(
    r"\s*(?:'s\s+|,\s*)?(?:the\s+)?(?:json\s+)?(?:field|key)\s+"
    r"(?P<field>[A-Za-z_$][\w$-]*(?:(?:\.[A-Za-z_][\w-]*)|\[-?\d+\])*)",
    _F,
)
# A part of the page in a few words ("the price at", "the top story on"): the page itself.
_NOUN_PHRASE = LazyPattern(r"(?:(?:the|its|my|a|an)\s+)?[\w-]+(?:\s+[\w-]+){0,2}", _F)


def watch(message: Message, context: Context) -> Intent | None:
    """A monitor of a page, a JSON field or a web search's top results."""
    found = _URL.search(message.text)
    url = found[0].rstrip(".,;)!?") if found else None
    body = message.text if found is None else (
        message.text[: found.start()] + _HERE + message.text[found.start() + len(url or ""):]
    )  # fmt: skip
    every = DEFAULT_EVERY
    phrase = find_time(body)
    if phrase is not None:
        if phrase.kind != "recurring" or phrase.problem is not None:
            rest = trim(phrase.without(body))
            monitor = _WATCH_LEAD.match(rest) or _TELL.search(rest)
            if monitor and _ADDRESS.search(message.text):
                # "tell me when https://... changes every 0 minutes": a monitor, badly timed
                problem = phrase.problem or f"{phrase.text!r} happens once"
                return Say(answers.watch_every(problem))
            return None
        every, body = phrase.text, trim(phrase.without(body))
    told = _TELL.match(body)
    lead = told or _LOOK.match(body)
    if lead is None:
        return None
    rest = body[lead.end() :]
    if url is None:
        if (other := _ADDRESS.search(rest)) is not None:
            return Say(answers.watch_scheme(other[0].rstrip(".,;)!?")))
        return _search(rest, told is not None, every, context)
    target, condition = _split_said(rest) if told else _split_tail(rest)
    if told is None and lead[0].lower().startswith("check") and condition is None:
        return None  # "every hour check https://...": a request, whose answer is sent
    if _HERE not in target:
        return None
    head, _, after = target.partition(_HERE)
    named = _AFTER_TARGET.sub("", head.strip())
    if condition is None and _said_condition(named):
        # "'sold out' disappears from ⟨address⟩": the condition came first.
        condition, named = named, ""
    selector, field = _what(named, url)
    if (more := _FIELD_AFTER.match(after)) is not None:
        field = more["field"]  # "⟨address⟩ field data.price"
    return Watch(every, url=url, selector=selector, field=field, condition=condition)


def _said_condition(words: str) -> bool:
    """Whether the words before the address state a condition rather than name a part of
    the page ("the price at"): they read as one, or they are more than a few words."""
    if not words or words.lower() in _PAGE_WORDS or _SELECTOR.fullmatch(words):
        return False
    if read_condition(words) is not None:
        return True
    return _NOUN_PHRASE.fullmatch(words) is None


def _split_said(rest: str) -> tuple[str, str | None]:
    """ "⟨address⟩ says in stock": the target up to the address, the rest a condition
    (after a field the address names: "⟨address⟩ field price is below 300")."""
    head, _, tail = rest.partition(_HERE)
    field = _FIELD_AFTER.match(tail)
    if field is not None:
        return f"{head}{_HERE}{field[0]}", _condition(tail[field.end() :])
    return f"{head}{_HERE}", _condition(tail)


def _split_tail(rest: str) -> tuple[str, str | None]:
    """ "⟨address⟩ and tell me if it contains X", "#p on ⟨address⟩ for 'in stock'"."""
    after = rest.find(_HERE)
    start = after + len(_HERE) if after >= 0 else 0
    tail = _TAIL.search(rest, start)
    if tail is None:
        return rest, None
    if tail["wanted"] is not None:
        return rest[: tail.start()], _wanted(tail["wanted"])
    return rest[: tail.start()], _condition(tail["cond"])


def _condition(words: str) -> str | None:
    said = trim(words)
    if not said or _ANY_CHANGE.fullmatch(said):
        return None
    return said


def _wanted(words: str) -> str | None:
    """ "for 'in stock'" is a text it must contain; "for changes" is none; the rest is a
    condition as it is ("for a price below 300")."""
    said = trim(words)
    if _CHANGES.fullmatch(said):
        return None
    quoted = unquote(said)
    if quoted != said:
        return f"contains '{quoted}'"
    return re.sub(r"^(?:an?\s+|the\s+)", "", said, flags=_F)


def _what(before: str, url: str) -> tuple[str | None, str | None]:
    """The selector or the JSON field the words before the address name."""
    named = _AFTER_TARGET.sub("", before.strip())
    if named.lower() in _PAGE_WORDS:
        return None, None
    if (picked := _SELECTOR.fullmatch(named)) is not None:
        return unquote(picked["sel"]), None
    if (field := _FIELD.fullmatch(named)) is not None and (field["named"] or _json(url)):
        return None, field["field"]
    return None, None  # words about the page ("the price on"): the page itself


def _json(url: str) -> bool:
    path = url.split("?", 1)[0].lower()
    return path.endswith(".json") or "/api" in path or "format=json" in url.lower()


def _search(rest: str, told: bool, every: str, context: Context) -> Intent | None:
    """ "the search results for 'python 3.14' (change)": a monitor of the top results."""
    searched = _SEARCH.match(rest)
    if searched is None:
        return None
    tail = rest[searched.end() :]
    if told:
        condition = _condition(tail)
    else:
        found = _TAIL.match(tail)
        if found is None and trim(tail):
            return None
        condition = None if found is None else (
            _wanted(found["wanted"]) if found["wanted"] is not None else _condition(found["cond"])
        )  # fmt: skip
    query = unquote(searched["query"])
    if not context.search_configured:
        return Say(answers.watch_search_off(query))
    return Watch(every, query=query, condition=condition)


WATCH = Rule("monitors that speak only on a change or a condition", watch)

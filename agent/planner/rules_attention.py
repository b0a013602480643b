"""When the assistant may speak: quiet hours ("quiet from 22:00 to 07:00", "don't disturb me
between 11pm and 7am", "no more quiet hours"), the morning briefing ("morning briefing at
7:30", "every morning at 7 send me a briefing", "stop the morning briefing") and
acknowledging a reminder ("done", "I did it", "done with the pills").

The times stay the user's words: the tools read them (``tasks.parse_quiet_hours``, the
schedule language).
"""

from __future__ import annotations

import re

from agent.planner.intents import Action, Brief, Intent, OnTask, Quiet
from agent.planner.rule import Context, Rule
from agent.planner.text import Message, trim
from common import LazyPattern
from tasks import find_time

_F = re.IGNORECASE
_QUIET_OFF = LazyPattern(
    r"(?:(?:turn|switch)\s+off|disable|stop|end|cancel|remove|clear|delete|no\s+more|drop)"
    r"\s+(?:the\s+|my\s+)?(?:quiet\s+hours?|do\s+not\s+disturb|don'?t\s+disturb|dnd)"
    r"|(?:no|without)\s+quiet\s+hours?|(?:quiet\s+hours?|do\s+not\s+disturb|dnd)\s+off",
    _F,
)
_QUIET_SHOW = LazyPattern(
    r"(?:what\s+are|show(?:\s+me)?|when\s+are|tell\s+me|list)?\s*(?:my\s+|the\s+)?"
    r"quiet\s+hours?(?:\s+(?:now|set))?",
    _F,
)
_QUIET_SET = LazyPattern(
    r"(?:(?:set|make|change|put)\s+(?:my\s+|the\s+)?quiet\s+hours?\s*(?:to|as|at|:)?"
    r"|(?:my\s+)?quiet\s+hours?\s*(?:are|is|to|:)?"
    r"|(?:be\s+|keep\s+)?(?:quiet|silent)"
    r"|(?:(?:do\s+not|don'?t)\s+disturb(?:\s+me)?|dnd|no\s+(?:messages|notifications|pings)"
    r"(?:\s+please)?))"
    r"\s+(?P<hours>(?:from|between)\s+.+|\d{1,2}(?:[:.]\d{2})?\s*(?:[ap]m)?\s*(?:-|–|to|till|until)"
    r"\s*.+)",
    _F,
)
_BRIEFING = r"(?:morning\s+|daily\s+)?(?:briefing|brief|digest\s+of\s+my\s+day|day\s+summary)"
_BRIEF_OFF = LazyPattern(
    rf"(?:stop|cancel|end|(?:turn|switch)\s+off|disable|no\s+more|drop|remove|delete)\s+"
    rf"(?:the\s+|my\s+)?{_BRIEFING}s?",
    _F,
)
_BRIEF_SHOW = LazyPattern(
    rf"(?:when\s+is|what\s+time\s+is|show(?:\s+me)?)\s+(?:my\s+|the\s+)?{_BRIEFING}", _F
)
_BRIEF_AT = LazyPattern(
    rf"(?:(?:send|give|start|set\s+up|schedule)\s+(?:me\s+)?)?(?:a\s+|my\s+|the\s+)?{_BRIEFING}"
    rf"(?:\s+(?:every\s+(?:morning|day)|daily))?\s+at\s+(?P<at>.+)"
    rf"|brief\s+me\s+(?:every\s+(?:morning|day)\s+|daily\s+)?at\s+(?P<brief_at>.+)",
    _F,
)
_BRIEF_WORDS = LazyPattern(
    r"(?:send|give|bring)\s+me\s+(?:a|my|the)\s+(?:morning\s+|daily\s+)?briefing"
    r"|brief\s+me|(?:my\s+)?day\s+in\s+one\s+message",
    _F,
)
_DONE = LazyPattern(
    r"(?:(?:i'?m|i\s+am|it'?s|that'?s|all|we'?re)\s+)?(?:done|finished|complete|completed)"
    r"(?:\s+(?:with|for)\s+(?P<what>.+?))?(?:\s+now)?"
    r"|(?:i\s+)?(?:did|done)\s+(?:it|that|this)(?:\s+already)?"
    r"|(?:mark|tick|check)\s+(?:it|that|this|(?:the\s+)?(?P<named>.+?))\s+(?:as\s+)?(?:done|off)"
    r"|(?:got\s+it\s+done|job\s+done|task\s+done)",
    _F,
)


def quiet_hours(message: Message, context: Context) -> Intent | None:
    """Set, show or end quiet hours."""
    text = message.text
    if _QUIET_OFF.fullmatch(text):
        return Quiet("off")
    if _QUIET_SHOW.fullmatch(text) and "quiet" in text.lower():
        return Quiet(None)
    # "no notifications from 22 to 7": the politeness trimmed from ``text`` took the "no".
    found = _QUIET_SET.fullmatch(text) or _QUIET_SET.fullmatch(message.said)
    return None if found is None else Quiet(trim(found["hours"]))


def briefing(message: Message, context: Context) -> Intent | None:
    """Start, move, show or stop the morning briefing."""
    text = message.text
    if _BRIEF_OFF.fullmatch(text):
        return Brief("off")
    if _BRIEF_SHOW.fullmatch(text):
        return Brief(None)
    if (found := _BRIEF_AT.fullmatch(text)) is not None:
        return Brief(trim(found["at"] or found["brief_at"]))
    if _BRIEF_WORDS.search(text) is None:
        return None
    phrase = find_time(text)  # "every morning at 7 send me a briefing"
    if phrase is None or phrase.problem is not None or phrase.kind != "recurring":
        return None
    left = trim(phrase.without(text))
    return Brief(phrase.text) if _BRIEF_WORDS.fullmatch(left) else None


def done(message: Message, context: Context) -> Intent | None:
    """ "done": the one named, else the reminder that repeats until done, else the one that
    went off last (the tool finds them: the task the conversation was last about may be one
    just made, which has not come yet)."""
    found = _DONE.fullmatch(message.text)
    if found is None:
        return None
    named = found["what"] or found["named"]
    words = tuple(w for w in re.split(r"\W+", (named or "").lower()) if w and w not in _FILLER)
    if words:
        return OnTask(Action.DONE, words=words)
    return OnTask(Action.DONE)


_FILLER = frozenset(
    {"the", "a", "an", "my", "reminder", "reminders", "task", "it", "that", "this", "one"}
)

QUIET = Rule("quiet hours", quiet_hours)
BRIEFING = Rule("the morning briefing", briefing)
DONE = Rule("acknowledging a reminder (done)", done)

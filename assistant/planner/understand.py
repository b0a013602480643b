"""Recognise what one user message asks for: ``recognize(text) -> Intent``.

Recognisers are tried in a fixed order and the first that applies wins, so the order in
``_ORDER`` is part of the behaviour: small talk and help first; notes before the scheduler so
"note: remind me..." is kept as a note; recurring schedules before one-time reminders; task
commands before reminders ("cancel the oven reminder" names a task); the task list before
questions about notes ("what are my tasks?" is not a note search).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from assistant.planner import answers
from assistant.planner import patterns as ph
from assistant.planner import understand_tasks as tasks
from assistant.planner.intents import Flow, Intent, JsonValue, PlannedCall, reply, single

_F = re.IGNORECASE
Recognizer = Callable[[str], Intent | None]

_POLITE_HEAD_RE = re.compile(
    r"^(?:(?:hey|hi|hello|ok|okay|so|um|uh|assistant|bot)\b[,!]?\s+)?"
    r"(?:(?:can|could|would|will)\s+you\s+)?(?:please\s+|pls\s+|plz\s+|kindly\s+)?",
    _F,
)
_POLITE_TAIL_RE = re.compile(
    r"(?:[\s,]+(?:please|pls|plz|thanks|thank\s+you|thx|for\s+me))+$|[\s.!?\u2026]+$", _F
)
_SMALL_TALK = (
    (
        re.compile(
            r"(?:hi|hello|hey|hiya|howdy|yo|hallo|greetings|good\s+(?:morning|afternoon|evening|day))"
            r"(?:\s+(?:there|assistant|bot|friend))?",
            _F,
        ),
        answers.GREETING,
    ),
    (
        re.compile(
            r"(?:thanks?|thank\s+you|thx|ty|cheers|great|perfect|awesome|cool|nice|ok(?:ay)?"
            r"|got\s+it)(?:\s+(?:so\s+much|a\s+lot|very\s+much|again))?",
            _F,
        ),
        answers.THANKS,
    ),
    (
        re.compile(r"(?:bye|goodbye|bye\s+bye|see\s+you(?:\s+later)?|good\s*night|later)", _F),
        answers.GOODBYE,
    ),
    (re.compile(r"how\s+are\s+you(?:\s+doing)?(?:\s+today)?", _F), answers.HOW_ARE_YOU),
    (
        re.compile(
            r"/?(?:help(?:\s+me)?|what\s+can\s+you\s+do|what\s+do\s+you\s+(?:do|understand|know)"
            r"|how\s+do\s+(?:i|you)\s+(?:use|work)(?:\s+(?:you|this|it))?|commands|examples|usage"
            r"|what\s+are\s+your\s+(?:commands|features|skills|abilities)|who\s+are\s+you"
            r"|what\s+are\s+you)",
            _F,
        ),
        answers.HELP,
    ),
)

_NOTE_RE = re.compile(
    r"(?:(?:take|make|save|add|write|create|keep)\s+(?:a\s+|this\s+|the\s+)?note|note(?:\s+down)?"
    r"|remember(?!\s+to\b)|don't\s+forget(?!\s+to\b)|write\s+down|jot\s+down|memo|keep\s+in\s+mind)"
    r"(?:\s+that\b)?(?:\s*[:,\-]\s*|\s+)(?P<content>.+)",
    _F,
)
_NOTE_ALONE_RE = re.compile(r"(?:(?:take|make|save|add)\s+a\s+)?note|remember\s+this", _F)
_TRAILING_TAGS_RE = re.compile(r"(?:\s+#[\w\-]+)+$")
_TAG_RE = re.compile(r"#(?P<tag>\w[\w\-]*)")

_SUMMARIZE_VERB_RE = re.compile(
    r"\b(?:summari[sz]e|summary|tl;?dr|what(?:'s|\s+is)\s+(?:on|at|in)|read|fetch|open"
    r"|what\s+does|get|show\s+me)\b",
    _F,
)
_SUMMARIZE_ALONE_RE = re.compile(r"(?:summari[sz]e|tl;?dr)(?:\s+(?:this|it|that|a\s+page))?", _F)

_TIME_RE = re.compile(
    r"(?:what(?:'s|\s+is)?\s+the\s+(?:current\s+|local\s+)?(?:time|date)|what\s+time\s+is\s+it"
    r"|what\s+time\s+it\s+is|tell\s+me\s+the\s+time|(?:the\s+)?(?:current\s+|local\s+)?time"
    r"|(?:today's\s+|the\s+|current\s+)?date|what\s+day\s+is\s+(?:it|today)|what\s+date\s+is\s+it"
    r"|what(?:'s|\s+is)\s+today's\s+date)(?:\s+(?:now|right\s+now|today))?"
    r"(?:\s+(?:in|at|for)\s+(?P<place>.+?))?(?:\s+(?:now|right\s+now))?",
    _F,
)

_RECALL_RE = re.compile(
    r"(?:(?:what|where|when|who|which|how)(?:'s|'re|\s+is|\s+are|\s+was|\s+were)\s+(?:my|the|our)"
    r"|where\s+did\s+i\s+(?:put|leave|park)(?:\s+my)?"
    r"|what\s+did\s+i\s+(?:say|write|note|save|tell\s+you)(?:\s+(?:about|on|regarding))?"
    r"|what\s+do\s+you\s+know\s+about|do\s+you\s+remember|recall"
    r"|did\s+i\s+(?:say|note|save|mention)\s+anything\s+about"
    r"|what\s+(?:notes?\s+)?do\s+i\s+have\s+(?:about|on)"
    r"|(?:search|look\s+(?:through|in)|find\s+in|check)\s+(?:my\s+)?(?:notes|memory)"
    r"(?:\s+(?:for|about))?)\s*:?\s+(?P<topic>.+)",
    _F,
)
_RECALL_STOPWORDS = frozenset(
    {
        "the", "a", "an", "my", "me", "i", "about", "is", "are", "was", "were", "of", "for",
        "to", "please", "did", "do", "you", "your", "that", "this", "it", "again", "what",
        "where", "when", "who", "which", "how", "anything",
    }
)  # fmt: skip
_WORD_RE = re.compile(r"[\w'\-/.@:]+")


def clean(text: str) -> str:
    """Normalise a message for matching: spacing, quotes, politeness, final punctuation."""
    text = ph.unquote(ph.squash(text))
    previous = None
    while previous != text:
        previous = text
        text = _POLITE_TAIL_RE.sub("", text)
        text = _POLITE_HEAD_RE.sub("", text, count=1).strip()
    return ph.unquote(text)


def recognize(text: str, *, max_chars: int = 4000) -> Intent:
    """Return what ``text`` asks for; a request it does not know gets examples and no call."""
    light = ph.unquote(ph.squash(text)).rstrip(" .!?\u2026")
    if len(light) > max_chars:
        return reply(
            f"That message is {len(light)} characters long; I read up to {max_chars}. "
            "Please send a shorter request."
        )
    for pattern, answer in _SMALL_TALK:
        if pattern.fullmatch(light):
            return reply(answer)
    cleaned = clean(light)
    if not cleaned:
        return reply(answers.HELP)
    for recognizer in _ORDER:
        intent = recognizer(cleaned)
        if intent is not None:
            return intent
    return reply(answers.UNKNOWN)


def note(text: str) -> Intent | None:
    """Notes: "note: ...", "remember that ...", "save a note ..." with optional #tags."""
    if _NOTE_ALONE_RE.fullmatch(text):
        return reply(answers.ASK_NOTE)
    match = _NOTE_RE.fullmatch(text)
    if match is None:
        return None
    content = ph.unquote(match.group("content"))
    tags = list(dict.fromkeys(m.group("tag").lower() for m in _TAG_RE.finditer(content)))
    content = _TRAILING_TAGS_RE.sub("", " " + content).strip()
    content = _TAG_RE.sub(lambda m: m.group("tag"), content).strip()
    if not content:
        return reply(answers.ASK_NOTE)
    arguments: dict[str, JsonValue] = {"content": content}
    if tags:
        arguments["tags"] = list(tags)
    return single("save_note", arguments, "Saving that note.")


def summarize(text: str) -> Intent | None:
    """Pages: "summarize https://...", "what's on https://...", or a bare address."""
    url_match = ph.URL_RE.search(text)
    if url_match is None:
        return reply(answers.ASK_FETCH) if _SUMMARIZE_ALONE_RE.fullmatch(text) else None
    url = url_match.group(0).rstrip(".,;)")
    bare = text.strip("<> ") == url_match.group(0)
    if not bare and _SUMMARIZE_VERB_RE.search(text) is None:
        return None
    call = PlannedCall("fetch_url", {"url": url}, f"Reading {url}.")
    return Intent(Flow.SUMMARIZE, calls=(call,))


def current_time(text: str) -> Intent | None:
    """The time: "what time is it", "time in Tokyo", "what's the date in Europe/Paris"."""
    match = _TIME_RE.fullmatch(text)
    if match is None:
        return None
    place = match.group("place")
    if place is None:
        return single("get_current_time", {}, "Checking the time.")
    zone = ph.zone_for(place)
    if zone is None:
        return reply(
            f"I don't know the time zone of {place!r}. Ask with a city I know (Tokyo, London, "
            "New York, ...) or an IANA zone name such as 'Europe/Paris'."
        )
    return single("get_current_time", {"tz": zone}, f"Checking the time in {zone}.")


def recall(text: str) -> Intent | None:
    """Questions answered from notes: "what is my wifi password?", "what did I say about X?"."""
    match = _RECALL_RE.fullmatch(text)
    if match is None:
        return None
    topic = ph.unquote(match.group("topic"))
    words = [w for w in _WORD_RE.findall(topic) if w.lower() not in _RECALL_STOPWORDS]
    if not words:
        return reply(answers.ASK_TOPIC)
    query = " ".join(words)
    call = PlannedCall("search_memory", {"query": query}, "Looking through your notes.")
    return Intent(Flow.RECALL, calls=(call,), words=(query,))


def web_search(text: str) -> Intent | None:
    """Web search: "search for X", "google X", "look up X and show me the top 3"."""
    body, limit = tasks.split_top_n(text)
    match = tasks.SEARCH_RE.fullmatch(body)
    if match is None:
        return reply(answers.ASK_QUERY) if re.fullmatch(r"search|google", text, _F) else None
    query = ph.unquote(match.group("q"))
    arguments: dict[str, JsonValue] = {"query": query}
    if limit is not None:
        arguments["limit"] = limit
    return single("search_web", arguments, f'Searching the web for "{query}".')


_ORDER: tuple[Recognizer, ...] = (
    note,
    tasks.recurring,
    tasks.task_command,
    tasks.reminder,
    tasks.http_call,
    summarize,
    tasks.list_tasks,
    current_time,
    recall,
    web_search,
)

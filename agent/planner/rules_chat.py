"""Everything but tasks: small talk and help, notes, questions about notes, the time, web
searches and pages, and the honest answer to whatever else is asked."""

from __future__ import annotations

import re

from agent.planner import answers
from agent.planner.handover import AnswerInWords
from agent.planner.intents import Intent, ReadPage, Recall, SaveNote, Say, SearchWeb, TellTime
from agent.planner.places import zone_for
from agent.planner.rule import Context, Rule
from agent.planner.rules_jobs import SEARCH, split_top_n
from agent.planner.text import Message, unquote
from common import LazyPattern

_F = re.IGNORECASE
_SMALL_TALK: tuple[tuple[re.Pattern[str], str], ...] = (
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
_NOTE = LazyPattern(
    r"(?:(?:take|make|save|add|write|create|keep)\s+(?:a\s+|this\s+|the\s+)?note|note(?:\s+down)?"
    r"|remember(?!\s+to\b)|write\s+down|jot\s+down|memo|keep\s+in\s+mind)"
    r"(?:\s+that\b)?(?:\s*[:,\-]\s*|\s+)(?P<content>.+)",
    _F,
)
_NOTE_ALONE = LazyPattern(
    r"(?:(?:(?:take|make|save|add)\s+a\s+)?note|remember\s+this|jot\s+down|memo)\s*[:\-]?", _F
)
_TRAILING_TAGS = LazyPattern(r"(?:\s+#[\w\-]+)+$")
_TAG = LazyPattern(r"#(?P<tag>\w[\w\-]*)")
_URL = LazyPattern(r"\bhttps?://[^\s<>\"'`]+", _F)
_SUMMARIZE_VERB = LazyPattern(
    r"\b(?:summari[sz]e|summary|tl;?dr|what(?:'s|\s+is)\s+(?:on|at|in)|read|fetch|open"
    r"|what\s+does|get|show\s+me)\b",
    _F,
)
_SUMMARIZE_ALONE = LazyPattern(r"(?:summari[sz]e|tl;?dr)(?:\s+(?:this|it|that|a\s+page))?", _F)
_TIME = LazyPattern(
    r"(?:what(?:'s|\s+is)?\s+the\s+(?:current\s+|local\s+)?(?:time|date)|what\s+time\s+is\s+it"
    r"|what\s+time\s+it\s+is|tell\s+me\s+the\s+time|(?:the\s+)?(?:current\s+|local\s+)?time"
    r"|(?:today's\s+|the\s+|current\s+)?date|what\s+day\s+is\s+(?:it|today)|what\s+date\s+is\s+it"
    r"|what(?:'s|\s+is)\s+today's\s+date)(?:\s+(?:now|right\s+now|today|here))?"
    r"(?:\s+(?:in|at|for)\s+(?P<place>.+?))?(?:\s+(?:now|right\s+now))?",
    _F,
)
_RECALL = LazyPattern(
    r"(?:(?P<whose>(?:what|where|when|who|which|how)(?:'s|'re|\s+is|\s+are|\s+was|\s+were)\s+"
    r"(?P<owner>my|the|our))"
    r"|(?P<mine>where\s+did\s+i\s+(?:put|leave|park)(?:\s+my)?"
    r"|what\s+did\s+i\s+(?:say|write|note|save|tell\s+you)(?:\s+(?:about|on|regarding))?"
    r"|what\s+do\s+you\s+know\s+about|do\s+you\s+remember|recall"
    r"|did\s+i\s+(?:say|note|save|mention)\s+anything\s+about"
    r"|what\s+(?:notes?\s+)?do\s+i\s+have\s+(?:about|on)"
    r"|(?:search|look\s+(?:through|in)|find\s+in|check)\s+(?:my\s+)?(?:notes|memory)"
    r"(?:\s+(?:for|about))?))\s*:?\s+(?P<topic>.+)",
    _F,
)
_PARKED = LazyPattern(r"where\s+did\s+(?:i|we)\s+park(?:\s+(?:the|my|our)\s+car)?", _F)
_STOPWORDS = frozenset(
    {
        "the",
        "a",
        "an",
        "my",
        "me",
        "i",
        "about",
        "is",
        "are",
        "was",
        "were",
        "of",
        "for",
        "to",
        "please",
        "did",
        "do",
        "you",
        "your",
        "that",
        "this",
        "it",
        "again",
        "what",
        "where",
        "when",
        "who",
        "which",
        "how",
        "anything",
    }
)
_ASKING = _STOPWORDS | frozenset(
    {"does", "will", "can", "could", "should", "would", "have", "has", "had", "why", "whom",
     "whose", "our", "tell", "explain", "define", "translate", "calculate", "any", "some",
     "there", "know", "be", "in", "on", "at", "and", "or", "with"}
)  # fmt: skip
_LIST_NOTES = LazyPattern(
    r"(?:(?:show|list|give|display)(?:\s+me)?\s+(?:all\s+)?(?:of\s+)?my\s+notes"
    r"|what\s+notes\s+do\s+i\s+have|(?:do\s+i\s+have\s+any|which)\s+notes|my\s+notes)\??",
    _F,
)
_WORD = LazyPattern(r"[\w'\-/.@:]+")
_QUESTION = LazyPattern(
    r"^(?:what|who|whom|whose|where|when|why|how|which|is|are|was|were|do|does|did|can|could"
    r"|should|would|will|tell\s+me|explain|define|translate|calculate)\b",
    _F,
)


def small_talk(message: Message, context: Context) -> Intent | None:
    """Greetings, thanks, goodbyes and help."""
    for pattern, answer in _SMALL_TALK:
        if pattern.fullmatch(message.said):
            return Say(answer)
    return None


def note(message: Message, context: Context) -> Intent | None:
    """Notes: "note: ...", "remember that ...", "save a note ..." with optional #tags."""
    if _NOTE_ALONE.fullmatch(message.text):
        return Say(answers.ASK_NOTE)
    match = _NOTE.fullmatch(message.text)
    if match is None:
        return None
    content = unquote(match["content"])
    tags = tuple(dict.fromkeys(m["tag"].lower() for m in _TAG.finditer(content)))
    content = _TRAILING_TAGS.sub("", " " + content).strip()
    content = _TAG.sub(lambda m: m["tag"], content).strip()
    return Say(answers.ASK_NOTE) if not content else SaveNote(content, tags)


def read_page(message: Message, context: Context) -> Intent | None:
    """Pages: "summarize https://...", "what's on https://...", or a bare address."""
    url_match = _URL.search(message.text)
    if url_match is None:
        return Say(answers.ASK_FETCH) if _SUMMARIZE_ALONE.fullmatch(message.text) else None
    url = url_match[0].rstrip(".,;)")
    bare = message.text.strip("<> ") == url_match[0]
    if not bare and _SUMMARIZE_VERB.search(message.text) is None:
        return None
    return ReadPage(url)


def current_time(message: Message, context: Context) -> Intent | None:
    """The time: "what time is it", "time in Tokyo", "what's the date in Europe/Paris"."""
    match = _TIME.fullmatch(message.text)
    if match is None:
        return None
    place = match["place"]
    if place is None:
        return TellTime()
    zone = zone_for(place)
    if zone is None:
        return Say(
            f"I don't know the time zone of {place!r}. Ask with a city I know (Tokyo, London, "
            "New York, ...) or an IANA zone name such as 'Europe/Paris'."
        )
    return TellTime(zone)


def recall(message: Message, context: Context) -> Intent | None:
    """Questions answered from notes: "what is my wifi password?", "what did I say about X?"."""
    if _PARKED.fullmatch(message.text):
        return Recall("park car", personal=True)
    match = _RECALL.fullmatch(message.text)
    if match is None:
        return None
    topic = unquote(match["topic"])
    words = [w for w in _WORD.findall(topic) if w.lower() not in _STOPWORDS]
    if not words:
        return Say(answers.ASK_TOPIC)
    personal = match["mine"] is not None or (match["owner"] or "").lower() in ("my", "our")
    return Recall(" ".join(words), personal)


def web_search(message: Message, context: Context) -> Intent | None:
    """Web search now: "search for X", "google X", "look up X and show me the top 3"."""
    body, limit = split_top_n(message.text)
    match = SEARCH.fullmatch(body)
    if match is None:
        return Say(answers.ASK_QUERY) if re.fullmatch(r"search|google", message.text, _F) else None
    if not context.search_configured:
        return Say(answers.SEARCH_OFF)
    return SearchWeb(unquote(match["q"]), limit)


def question(message: Message, context: Context) -> Intent | None:
    """Whatever else is asked: looked up in the notes by its content words ("when does my
    passport expire?"); when nothing is found there, the honest answer that no language model
    is connected."""
    if _LIST_NOTES.fullmatch(message.text):
        return Say(answers.LIST_NOTES)
    asked = message.text.endswith("?") or _QUESTION.match(message.text) is not None
    if not asked:
        return None
    words = [w for w in _WORD.findall(message.text) if w.lower() not in _ASKING]
    if not words:
        return Say(answers.QUESTION, AnswerInWords(message.said))
    # "me" alone asks for something ("tell me a joke"), not about the user's own things.
    personal = any(w.lower() in {"my", "i", "our"} for w in _WORD.findall(message.text))
    return Recall(" ".join(words), personal)


SMALL_TALK = Rule("greetings, thanks and help", small_talk)

NOTES = Rule("notes", note)

PAGES = Rule("reading a page", read_page)

TIME = Rule("the time", current_time)

RECALL = Rule("questions answered from notes", recall)

SEARCHES = Rule("web searches", web_search)

QUESTIONS = Rule("anything else asked", question)

"""Repeating jobs other than reminders: "every day at 8am search the web for X and send me the
top 3", "every monday at 10am ask: summarise my week", "at 1am daily POST http://...", and
one-time HTTP requests.

A job is scheduled only when it can run: a search needs a search service, and a prompt must
be one the offline assistant itself can answer; otherwise the answer says why and offers the
closest thing that works (a reminder).
"""

from __future__ import annotations

import re

from agent.planner import answers
from agent.planner.handover import WritePrompt
from agent.planner.intents import AskJob, HttpJob, Intent, Job, Repeat, Request, Say, SearchJob
from agent.planner.rule import Context, Rule
from agent.planner.rules_remind import reminder_text
from agent.planner.text import Message, trim, unquote
from common import LazyPattern
from tasks import find_time

_F = re.IGNORECASE
_THEN = LazyPattern(r"^(?:(?:and|then|,)\s*)+", _F)
TOP_N = LazyPattern(
    r"[\s,]*(?:and\s+)?(?:then\s+)?(?:send|give|show|tell|bring|get|mail|email)\s+me\s+"
    r"(?:the\s+)?top\s+(?P<n>\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten)"
    r"(?:\s+(?:results?|hits?|links?|items?|stories|headlines|articles))?$",
    _F,
)
SEARCH = LazyPattern(
    r"(?:search|google|look\s+up|lookup|web\s+search|find)(?:\s+(?:the\s+)?"
    r"(?:web|internet|net|online|google))?(?:\s+for)?\s*:?\s+(?P<q>.+)",
    _F,
)
_ASK = LazyPattern(
    r"ask(?:\s+(?:the\s+)?(?:assistant|agent|ai|bot|yourself))?(?:\s*[:,]\s*|\s+)(?P<p>.+)", _F
)
HTTP = LazyPattern(
    r"(?:call\s+the\s+(?:api|url|endpoint)\s*:?\s*)?(?:(?:send|make|do)\s+an?\s+)?(?P<m>get|post|put|patch|delete|head)\s+(?:request\s+)?"
    r"(?:to\s+)?(?P<url>https?://\S+)(?:\s+(?:with\s+)?(?:body|data|payload)?\s*:?\s*(?P<body>.+))?",
    _F,
)
_GET_URL = LazyPattern(r"(?:call|hit|ping|request|check|open)\s+(?P<url>https?://\S+)", _F)
_DEVICE = LazyPattern(
    r"\b(?:turn|switch|power|shut|dim|lock|unlock|open|close|start|stop|trigger|toggle)\b", _F
)
_URL = LazyPattern(r"\bhttps?://", _F)
_NUMBERS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5,
    "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
}  # fmt: skip
_DEFAULT_LIMIT = 5


def split_top_n(text: str) -> tuple[str, int | None]:
    """Split "X and send me the top 3" into ``("X", 3)``; ``(text, None)`` without that tail."""
    match = TOP_N.search(text)
    if match is None:
        return text, None
    n = match["n"].lower()
    return trim(text[: match.start()]), int(n) if n.isdigit() else _NUMBERS[n]


def read_http(text: str) -> HttpJob | None:
    """ "POST http://home.lan/lights/off", "GET https://x with body {...}", "call https://x"."""
    if (match := HTTP.fullmatch(text)) is not None:
        body = unquote(match["body"]) if match["body"] else None
        return HttpJob(match["m"].upper(), match["url"].rstrip(".,;)"), body)
    if (match := _GET_URL.fullmatch(text)) is not None:
        return HttpJob("GET", match["url"].rstrip(".,;)"))
    return None


def scheduled_job(message: Message, context: Context) -> Intent | None:
    """A time (usually repeating) and a job: a search, a prompt or an HTTP call."""
    phrase = find_time(message.text)
    if phrase is None:
        return None
    leading = phrase.spans[0][0] == 0
    rest = trim(_THEN.sub("", trim(phrase.without(message.text))))
    job = _job(rest)
    if phrase.problem is not None:
        if job is None and not leading:
            return None
        return Say(answers.cannot_use_time(phrase, lambda when: f"{when} {rest}".strip()))
    if job is None:
        if _DEVICE.search(rest) and not _URL.search(rest):
            return Say(answers.ASK_URL)
        # A message that opens with a time is surely about scheduling; one that merely ends
        # with a time may be anything, so it is left to the other rules.
        if not leading:
            return None
        if phrase.kind != "recurring":
            return Say(answers.ask_action(phrase.text, repeats=False))
        # A language model, when there is one, writes the prompt of an agent task for it.
        return Say(answers.ask_action(phrase.text, repeats=True), WritePrompt(phrase.text, rest))
    if phrase.kind == "once":
        return Say(answers.once_only(phrase.text, rest))
    return _checked(Repeat(phrase.text, job), context)


def _job(rest: str) -> Job | None:
    if (http := read_http(rest)) is not None:
        return http
    if (asked := _ASK.fullmatch(rest)) is not None:
        return AskJob(reminder_text(unquote(asked["p"])))
    query, limit = split_top_n(rest)
    if (search := SEARCH.fullmatch(query)) is not None:
        return SearchJob(unquote(search["q"]), limit or _DEFAULT_LIMIT)
    return None


def _checked(repeat: Repeat, context: Context) -> Intent:
    """The job, if it can run when its time comes; else why not and what would work."""
    job = repeat.job
    if isinstance(job, SearchJob) and not context.search_configured:
        return Say(answers.search_off_scheduled(repeat.schedule, job.query))
    if isinstance(job, AskJob) and not context.understands(job.prompt):
        return Say(answers.cannot_ask_offline(repeat.schedule, job.prompt))
    return repeat


def http_request(message: Message, context: Context) -> Intent | None:
    """A one-time HTTP request now: "POST http://home.lan/lights/on"."""
    job = read_http(message.text)
    return None if job is None else Request(job)


JOBS = Rule("repeating searches, prompts and HTTP calls", scheduled_job)

REQUESTS = Rule("one-time HTTP requests", http_request)

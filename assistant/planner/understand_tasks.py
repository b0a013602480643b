"""Recognisers for the scheduler: reminders, recurring tasks, listing and task commands.

Each recogniser takes a cleaned message and returns an ``Intent`` or ``None`` (not mine).
Times and schedules are copied from the user's words; ``tasks`` resolves them.
"""

from __future__ import annotations

import re

from assistant.planner import answers
from assistant.planner import patterns as ph
from assistant.planner.intents import Flow, Intent, JsonValue, PlannedCall, reply, single
from tasks import DEFAULT_SNOOZE

_F = re.IGNORECASE

_REMIND_HEAD = (
    r"(?:remind\s+me|(?:set|create|add|make|schedule)\s+(?:me\s+)?an?\s+reminder"
    r"|new\s+reminder|reminder)(?:\s+(?:please|pls|plz))?"
)
# A bare "reminder" starts a request only at the very beginning ("reminder: ... at 5pm");
# elsewhere it names a task ("cancel the oven reminder").
_REMIND_HEAD_RE = re.compile(
    r"\b(?:remind\s+me|(?:set|create|add|make|schedule)\s+(?:me\s+)?an?\s+reminder"
    r"|new\s+reminder|^reminder|^remember(?=\s+to\b)|^don't\s+forget(?=\s+to\b))\b"
    r"(?:\s+(?:please|pls|plz)\b)?",
    _F,
)
_CONNECTOR_RE = re.compile(r"^(?::\s*|(?:to|that|about|of|for)\b\s*)", _F)
_ONCE_RE = re.compile(ph.ONCE_WHEN, _F)
_LEAD_WHEN_RE = re.compile(rf"(?:for\s+)?(?P<when>{ph.ONCE_WHEN})(?=$|[\s,:])", _F)
_TAIL_WHEN_RE = re.compile(rf"(?:^|(?<=[\s,]))(?:for\s+)?(?P<when>{ph.ONCE_WHEN})$", _F)

_REC_START_RE = re.compile(rf"{ph.RECURRING}(?=$|[\s,:])", _F)
_REC_AFTER_HEAD_RE = re.compile(rf"(?P<head>{_REMIND_HEAD})\s+{ph.RECURRING}(?=$|[\s,:])", _F)
_REC_END_RE = re.compile(rf"(?:^|(?<=[\s,])){ph.RECURRING}$", _F)

_TAIL_CLOCK_RE = re.compile(rf"(?:^|(?<=[\s,]))(?P<clock>(?:at|@)\s*{ph.CLOCK_AT})$", _F)
_NO_CLOCK_RE = re.compile(
    r"every\s+(?:other\s+)?(?:day|weekday|weekend|week|[a-z]+day(?:s|\s+and\s+[a-z]+day)*)",
    _F,
)
_SCHEDULED_REMIND_RE = re.compile(
    rf"{_REMIND_HEAD}(?:\s*[:,]\s*|\s+(?:to|that|about|of)\b\s*|\s+)(?P<what>.+)", _F
)
_TOP_N_RE = re.compile(
    r"[\s,]*(?:and\s+)?(?:then\s+)?(?:send|give|show|tell|bring|get|mail|email)\s+me\s+"
    r"(?:the\s+)?top\s+(?P<n>\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten)"
    r"(?:\s+(?:results?|hits?|links?|items?|stories|headlines|articles))?$",
    _F,
)
SEARCH_RE = re.compile(
    r"(?:search|google|look\s+up|lookup|web\s+search)(?:\s+(?:the\s+)?"
    r"(?:web|internet|net|online|google))?(?:\s+for)?\s*:?\s+(?P<q>.+)",
    _F,
)
_ASK_RE = re.compile(
    r"ask(?:\s+(?:the\s+)?(?:assistant|agent|ai|bot|yourself))?(?:\s*[:,]\s*|\s+)(?P<p>.+)", _F
)
_HTTP_RE = re.compile(
    r"(?:(?:send|make|do)\s+an?\s+)?(?P<m>get|post|put|patch|delete|head)\s+(?:request\s+)?"
    r"(?:to\s+)?(?P<url>https?://\S+)(?:\s+(?:with\s+)?(?:body|data|payload)?\s*:?\s*(?P<body>.+))?",
    _F,
)
_GET_URL_RE = re.compile(r"(?:call|hit|ping|request|check|open)\s+(?P<url>https?://\S+)", _F)
_DEVICE_RE = re.compile(
    r"\b(?:turn|switch|power|shut|dim|lock|unlock|open|close|start|stop|trigger|toggle)\b", _F
)
_NUMBERS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5,
    "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
}  # fmt: skip

_LIST_RE = re.compile(
    r"/?(?:(?:what|which)(?:'s|\s+are|\s+is)?\s+|(?:list|show|display|view|see|get|give|tell)"
    r"\s+(?:me\s+)?|do\s+i\s+have\s+(?:any\s+)?|any\s+)?(?:all\s+)?(?:of\s+)?(?:my\s+|the\s+)?"
    r"(?:current\s+|active\s+|scheduled\s+|upcoming\s+|pending\s+|next\s+)?"
    r"(?:tasks?|reminders?|schedules?|jobs?|timers?)(?:\s+(?:do\s+i\s+have|i\s+have|are\s+there"
    r"|are\s+scheduled|scheduled|list))?(?:\s+(?:now|today|right\s+now))?"
    r"|(?:what(?:'s|\s+is)|is\s+anything|anything)\s+(?:scheduled|planned)(?:\s+for\s+me)?",
    _F,
)
_TASK_CMD_RE = re.compile(
    r"/?(?P<verb>cancel|delete|remove|drop|kill|unschedule|stop|pause|suspend|resume|unpause"
    r"|reactivate|snooze|postpone|delay)(?:\s+(?P<rest>.+))?",
    _F,
)
_VERB_TOOLS = {
    "cancel": "cancel_task", "delete": "cancel_task", "remove": "cancel_task",
    "drop": "cancel_task", "kill": "cancel_task", "unschedule": "cancel_task",
    "stop": "cancel_task", "pause": "pause_task", "suspend": "pause_task",
    "resume": "resume_task", "unpause": "resume_task", "reactivate": "resume_task",
    "snooze": "snooze_task", "postpone": "snooze_task", "delay": "snooze_task",
}  # fmt: skip
_VERB_LEADS = {
    "cancel_task": "Cancelling task {id}.",
    "pause_task": "Pausing task {id}.",
    "resume_task": "Resuming task {id}.",
    "snooze_task": "Snoozing task {id} by {delay}.",
}
_SNOOZE_TAIL_RE = re.compile(
    r"(?:^|\s+)(?:for\s+|by\s+)?(?P<span>\d+\s*(?:seconds?|secs?|minutes?|mins?|hours?|hrs?"
    r"|days?|weeks?|[smhdw]))$",
    _F,
)
_TOKEN_SPLIT_RE = re.compile(r"[\s,;]+|\band\b", _F)
_TASK_STOPWORDS = frozenset(
    {
        "the", "a", "an", "my", "this", "that", "these", "those", "task", "tasks", "reminder",
        "reminders", "job", "jobs", "one", "about", "to", "for", "of", "on", "at", "in", "and",
        "id", "please", "scheduled", "recurring", "called", "named", "with", "me", "it", "alarm",
    }
)  # fmt: skip
_ALL_WORDS = frozenset({"all", "every", "everything", "each"})


_PAST_RE = re.compile(
    r"(?:yesterday|last\s+(?:night|week|month|year|monday|tuesday|wednesday|thursday|friday"
    r"|saturday|sunday)|\d+\s+\w+\s+ago)\b\s*",
    re.IGNORECASE,
)


def reminder(text: str) -> Intent | None:
    """Reminders: "remind me in 10 minutes to X", "at 9am remind me to X", "X tomorrow at 6pm"."""
    head = _REMIND_HEAD_RE.search(text)
    if head is None:
        return None
    prefix = text[: head.start()].strip(" ,;:-")
    rest = text[head.end() :].strip(" ,;:-")
    when = prefix if prefix and _ONCE_RE.fullmatch(prefix) else None
    if when is None and (lead := _LEAD_WHEN_RE.match(rest)) is not None:
        when = lead.group("when")
        rest = rest[lead.end() :].strip(" ,;:-")
    body = _CONNECTOR_RE.sub("", rest, count=1).strip()
    if when is None and (tail := _TAIL_WHEN_RE.search(body)) is not None:
        when = tail.group("when")
        body = body[: tail.start()]
    message = ph.unquote(body.strip(" ,;:-"))
    if when is None and (past := _PAST_RE.match(message)) is not None:
        return reply(
            f"{past.group(0).strip().capitalize()!s} is in the past, so I can't remind you then. "
            + answers.ASK_WHEN.format(
                what=_CONNECTOR_RE.sub("", message[past.end() :]).strip() or "check the oven"
            )
        )
    if when is None:
        unclear = f"I couldn't tell when {prefix!r} is. " if prefix else ""
        return reply(unclear + answers.ASK_WHEN.format(what=message or "check the oven"))
    when = ph.normalize_when(when)
    if not message:
        return reply(answers.ASK_WHAT.format(when=when))
    return single("add_reminder", {"when": when, "message": message}, "Setting a reminder.")


def recurring(text: str) -> Intent | None:
    """A schedule at the start or end of the message, or right after "remind me", plus an action."""
    match = _REC_START_RE.match(text)
    head = ""
    if match is None and (match := _REC_AFTER_HEAD_RE.match(text)) is not None:
        head = match.group("head")
    if match is None:
        match = _REC_END_RE.search(text)
    if match is None:
        return None
    schedule = ph.normalize_schedule(match)
    leading = match.start() == 0
    before = head if head else text[: match.start()]
    rest = ph.squash(f"{before} {text[match.end() :]}")
    rest = re.sub(r"^(?:then|and)\s+", "", rest.strip(" ,;:-"), flags=_F)
    if (clock := _TAIL_CLOCK_RE.search(rest)) is not None and _NO_CLOCK_RE.fullmatch(schedule):
        # "every day remind me to stretch at 9am": the time belongs to the schedule.
        schedule = f"{schedule} {ph.normalize_when(clock.group('clock'))}"
        rest = rest[: clock.start()].rstrip(" ,")
    intent = _scheduled_action(rest, schedule)
    if intent is not None:
        return intent
    if head:
        return reply(answers.ASK_WHAT.format(when=schedule))
    # A message that opens with a schedule is surely a scheduling request; one that merely
    # ends with "every day" may be anything, so it is left to the other recognisers.
    return reply(answers.ASK_ACTION) if leading else None


def _scheduled_action(rest: str, schedule: str) -> Intent | None:
    if (m := _SCHEDULED_REMIND_RE.fullmatch(rest)) is not None:
        what = ph.unquote(m.group("what"))
        return _recurring_call(schedule, "reminder", what, {"message": what})
    if (m := _HTTP_RE.fullmatch(rest)) is not None:
        return _recurring_http(schedule, m.group("m").upper(), m.group("url"), m.group("body"))
    if (m := _GET_URL_RE.fullmatch(rest)) is not None:
        return _recurring_http(schedule, "GET", m.group("url"), None)
    if (m := _ASK_RE.fullmatch(rest)) is not None:
        prompt = ph.unquote(m.group("p"))
        return _recurring_call(schedule, "agent_task", prompt, {"prompt": prompt})
    query, limit = split_top_n(rest)
    if (m := SEARCH_RE.fullmatch(query)) is not None:
        q = ph.unquote(m.group("q"))
        data: dict[str, JsonValue] = {"query": q, "limit": limit or 5}
        return _recurring_call(schedule, "web_search", q, data)
    if _DEVICE_RE.search(rest) and ph.URL_RE.search(rest) is None:
        return reply(answers.ASK_URL)
    return None


def _recurring_http(schedule: str, method: str, url: str, body: str | None) -> Intent:
    url = url.rstrip(".,;)")
    data: dict[str, JsonValue] = {"method": method, "url": url}
    if body:
        data["body"] = ph.unquote(body)
    return _recurring_call(schedule, "api_call", f"{method} {url}", data)


def _recurring_call(
    schedule: str, task_type: str, description: str, data: dict[str, JsonValue]
) -> Intent:
    if not description:
        return reply(answers.ASK_ACTION)
    arguments: dict[str, JsonValue] = {
        "schedule": schedule,
        "task_type": task_type,
        "description": description,
        "execution_data": data,
    }
    return single("add_recurring_task", arguments, f"Scheduling that ({schedule}).")


def split_top_n(text: str) -> tuple[str, int | None]:
    """Split "X and send me the top 3" into ``("X", 3)``; ``(text, None)`` without that tail."""
    match = _TOP_N_RE.search(text)
    if match is None:
        return text, None
    n = match.group("n").lower()
    return text[: match.start()].strip(" ,"), int(n) if n.isdigit() else _NUMBERS[n]


def http_call(text: str) -> Intent | None:
    """A one-time "POST http://..." request."""
    match = _HTTP_RE.fullmatch(text)
    if match is None:
        return None
    method, url = match.group("m").upper(), match.group("url").rstrip(".,;)")
    arguments: dict[str, JsonValue] = {"url": url, "method": method}
    if match.group("body"):
        arguments["body"] = ph.unquote(match.group("body"))
    return single("api_call", arguments, f"Sending {method} {url}.")


def list_tasks(text: str) -> Intent | None:
    """Listing: "what are my tasks?", "list my reminders", "show tasks"."""
    if _LIST_RE.fullmatch(text) is None:
        return None
    return single("list_tasks", {}, "Checking your tasks.")


def task_command(text: str) -> Intent | None:
    """cancel / pause / resume / snooze, by id ("cancel a1b2c3") or by words ("the oven one")."""
    match = _TASK_CMD_RE.fullmatch(text)
    if match is None:
        return None
    tool = _VERB_TOOLS[match.group("verb").lower()]
    rest = match.group("rest") or ""
    extra: dict[str, JsonValue] = {}
    if tool == "snooze_task":
        tail = _SNOOZE_TAIL_RE.search(rest)
        delay = ph.snooze_delay(tail.group("span")) if tail else None
        extra["delay"] = delay or DEFAULT_SNOOZE
        rest = rest[: tail.start()] if tail else rest
    tokens = [t for t in _TOKEN_SPLIT_RE.split(rest) if t]
    words = [t.strip("`'\"#").lower() for t in tokens if t.lower() not in _TASK_STOPWORDS]
    words = [w for w in words if w]
    if not words:
        return reply(answers.ASK_TASK)
    ids = [m.group("id") for w in words if (m := ph.TASK_ID_RE.fullmatch(w)) is not None]
    if len(ids) == len(words):
        return Intent(Flow.CALL, calls=tuple(task_call(tool, i, extra) for i in ids))
    if tool == "cancel_task" and _ALL_WORDS.intersection(words):
        words = []
    return Intent(
        Flow.TASK_BY_WORDS,
        calls=(PlannedCall("list_tasks", {}, "Looking for that task."),),
        action=tool,
        words=tuple(words),
        extra=extra,
    )


def task_call(tool: str, task_id: str, extra: dict[str, JsonValue]) -> PlannedCall:
    """The call that applies ``tool`` to ``task_id`` (with a snooze delay in ``extra``)."""
    lead = _VERB_LEADS[tool].format(id=task_id, delay=extra.get("delay", ""))
    return PlannedCall(tool, {"task_id": task_id, **extra}, lead)

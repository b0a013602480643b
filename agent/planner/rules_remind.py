"""Reminders: "remind me ...", "ping me ...", "don't let me forget ...", "wake me up ...",
"set an alarm ...", with the time anywhere in the sentence.

The time expression is found by ``tasks.find_time``; the reminder's text is the sentence
without it and without the command words ("remind me", "to", "about", "that").

A reminder may nag (issue 28): "... and keep reminding me every 10 minutes until I say done",
"nag me every 15 minutes to call the bank", "remind me at 9 to take the pills until done"
(every 10 minutes unless said). One said to be urgent ("urgent: ...", "remind me urgently"),
and any alarm ("wake me up", "set an alarm"), passes quiet hours.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta

from agent.planner import answers
from agent.planner.intents import Intent, Remind, Say
from agent.planner.rule import Context, Rule
from agent.planner.text import Message, trim, unquote
from common import LazyPattern
from tasks import (
    ScheduleError,
    TaskDataError,
    TimePhrase,
    edit_distance,
    find_time,
    in_the_morning,
    parse_schedule,
    read_nag,
)

_F = re.IGNORECASE


def _head(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, _F)


@dataclass(frozen=True, slots=True)
class _Head:
    """Command words: how they read, the text when nothing else is said, whether a bare
    hour means the morning ("wake me up at 6:45", an alarm, which passes quiet hours), and
    whether the reminder nags until done ("nag me ...")."""

    pattern: re.Pattern[str]
    default: str = ""
    morning: bool = False
    nags: bool = False


_HEADS = (
    _Head(
        # Only at the start: "remind me at 9 ... and keep reminding me ..." is a clause.
        _head(r"^(?:(?:nag|pester|bug)\s+me|keep\s+(?:on\s+)?(?:reminding|nagging)\s+me)\b"),
        nags=True,
    ),
    _Head(_head(r"\bwake\s+me(?:\s+up)?\b"), "wake up", morning=True),
    _Head(
        _head(r"\b(?:set|create|add|make|give|put)\s+(?:me\s+)?an?\s+alarm(?:\s+for)?\b"),
        "Alarm",
        morning=True,
    ),
    _Head(_head(r"^alarm(?:\s+for)?\b"), "Alarm", morning=True),
    _Head(_head(r"\b(?:set|start|create|put)\s+(?:me\s+)?an?\s+timer(?:\s+for)?\b"), "Timer"),
    _Head(
        _head(
            r"\b(?:remind(?:ing)?|ping|nudge|alert|notify|message|text|buzz|poke)\s+me\b"
            r"|\bbe\s+reminded\b"
            r"|\b(?:don'?t|do\s+not)\s+let\s+me\s+forget\b"
            r"|\b(?:set|create|add|make|schedule|put\s+in|give)\s+(?:me\s+)?(?:an?\s+)?reminder"
            r"(?:\s+for\b)?|\bnew\s+reminder\b|^reminder\b|^remember(?=\s+to\b)"
            r"|^(?:don'?t|do\s+not)\s+forget(?=\s+to\b)|^tell\s+me(?=\s+to\b)"
        )
    ),
)
# Words that make a time part of what is said: "leave before 6pm", "finish it by friday".
_NOT_WHEN = frozenset({"before", "by", "until", "till", "since", "for"})
_SEVERAL = LazyPattern(
    r"\b(?P<n>twice|(?:[2-9]|[1-9]\d+|two|three|four)\s+times)\s+(?:(?:a|an|per|each|every)\s+"
    r"(?P<per>day|week|hour)|(?P<daily>daily))\b",
    _F,
)
_TIMES = {"twice": 2, "two": 2, "three": 3, "four": 4}
_SOME_DAY = datetime(2001, 1, 1, tzinfo=UTC)  # a Monday: how many times a day, not when


def _fires_a_day(words: str) -> int:
    """How many times a day a daily repetition fires ("every day at 9am and 9pm": 2); 0 when
    the words are no repetition of every day at set times."""
    try:
        schedule = parse_schedule(words, now=_SOME_DAY, tz="UTC")
    except ScheduleError:
        return 0
    fires, at = [], schedule.next_after(_SOME_DAY)
    while at is not None and at < _SOME_DAY + timedelta(days=2):
        fires.append(at)
        at = schedule.next_after(at)
    days = {fire.date() for fire in fires}
    return len(fires) // 2 if len(days) == 2 and len(fires) % 2 == 0 else 0


_UNCLEAR = LazyPattern(
    r"(?P<when>(?:at|on|in|after|before|by|around|this|next|during|later|sometime|early|end)\b"
    r".*?)\s+(?:to|that|about)\s+(?P<what>.+)",
    _F,
)
_LEADING = LazyPattern(
    r"^(?:(?:and|then|so|please|again|once\s+more|also)\b[\s,]*)*"
    r"(?:to|that|about|of|for|re|regarding)\b\s*",
    _F,
)
_AGAIN = LazyPattern(r"^(?:again|once\s+more)\b\s*", _F)
# Misspellings of "remind" ("remnd me", "rmind me"): one edit from it, but not the words near it.
_REMIND = "remind"
_NOT_REMIND = frozenset({"rewind", "remand", "remain", "remains", "rebind", "retina"})
# Words before what is said that name a day the schedule language does not know ("on
# Easter", "Diwali morning"): scheduling the rest would be a confident wrong day.
_UNKNOWN_DAY = (
    LazyPattern(r"on\s+(?P<when>\S+(?:\s+\S+){0,3}?)\s+(?:to|that|about)\s+(?P<what>.+)", _F),
    LazyPattern(
        r"(?P<when>(?!I\b)[A-Z][\w'’]*(?:\s+[A-Z][\w'’]*){0,2}"
        r"(?:\s+(?:day|eve|morning|afternoon|evening|night))?)\s+(?:to|that|about)\s+(?P<what>.+)"
    ),
)
_LONE = LazyPattern(r"^(?:to|that|about|of|for|please|and|then|on|at|in)$", _F)


# How often, as the schedule language reads it after "every" (``tasks.read_nag``).
_SPAN = (
    r"(?:\d{1,4}|a|an|one|two|three|four|five|six|ten|fifteen|twenty|thirty|forty(?:-|\s)?five"
    r"|half\s+an|other|second|third|couple\s+of)\s*(?:min(?:ute)?s?|hours?|hrs?|h|m)"
    r"|minute|hour|half\s+(?:an\s+)?hour|quarter\s+(?:of\s+an\s+)?hour"
)
_UNTIL_DONE = (
    r"until\s+(?:i\s+(?:say|press|tap|type|mark\s+it(?:\s+as)?|tell\s+you)\s+(?:it'?s\s+)?"
    r"|it'?s\s+|i'?m\s+|i\s+have\s+)?(?:['\"]?done['\"]?|finished|acknowledged"
    r"|i\s+(?:confirm|acknowledge)(?:\s+it)?|i\s+do\s+it)"
)
_NAG_CLAUSES = (
    # "... and keep reminding me every 10 minutes (until done)"
    LazyPattern(
        r"[,;]?\s*(?:and\s+)?(?:then\s+)?(?:keep\s+(?:on\s+)?(?:reminding|nagging)(?:\s+me)?"
        rf"|nag\s+me|repeat(?:\s+it)?|remind\s+me\s+again)\s+every\s+(?P<span>{_SPAN})"
        rf"(?:\s+{_UNTIL_DONE})?",
        _F,
    ),
    LazyPattern(rf"[,;]?\s*every\s+(?P<span>{_SPAN})\s+{_UNTIL_DONE}", _F),
    LazyPattern(rf"[,;]?\s*(?:and\s+)?(?:repeat(?:\s+it)?\s+)?{_UNTIL_DONE}", _F),
)
_NAG_START = LazyPattern(rf"^every\s+(?P<span>{_SPAN})\b\s*", _F)
_URGENT = LazyPattern(r"\burgent(?:ly)?\b\s*[:,!]?\s*|\(urgent\)\s*|\bimportant\s*:\s*", _F)
DEFAULT_NAG = "10 minutes"
"""How often a reminder that nags repeats when the user does not say."""


def remind(message: Message, context: Context) -> Intent | None:
    """A reminder: the command words, a time anywhere, and what to be reminded of."""
    text = _read_remind(message.text)
    text, urgent = _urgency(text)
    for head in _HEADS:
        found = head.pattern.search(text)
        if found is None:
            continue
        after, nag = _nagging(text[found.end() :])
        if head.nags:
            after, nag = _nag_start(after, nag)
        if nag is not None:
            try:
                nag = _every(read_nag(f"every {nag}"))
            except TaskDataError as exc:
                return Say(f"{str(exc)[:1].upper()}{str(exc)[1:]}; nothing was set.")
            if head.nags and find_time(after) is None:
                after = f"in {nag} {after}"  # "nag me every 15 minutes to ...": from now on
        text = f"{text[: found.end()]} {after}"
        found = head.pattern.search(text)
        assert found is not None  # the head is still where it was
        intent = _reminder(text, found, head)
        if not isinstance(intent, Remind):
            return intent
        return replace(intent, urgent=urgent or head.morning, nag=nag)
    return None


def _urgency(text: str) -> tuple[str, bool]:
    """The text without "urgent" (and whether it was said)."""
    stripped = _URGENT.sub("", text, count=1)
    if stripped == text:
        return text, False
    return trim(stripped.replace("an reminder", "a reminder")), True


def _nagging(text: str) -> tuple[str, str | None]:
    """The text (what follows the command words) without a "keep reminding me every N
    minutes until done" clause, and how often it nags ("10 minutes"), or ``None``."""
    for clause in _NAG_CLAUSES:
        found = clause.search(text)
        if found is not None:
            span = found.groupdict().get("span") or DEFAULT_NAG
            return trim(text[: found.start()] + " " + text[found.end() :]), span
    return text, None


def _read_remind(text: str) -> str:
    """The text with a misspelt "remind" among its first words read as "remind"."""
    words = text.split(" ")
    for index, word in enumerate(words[:4]):
        lower = word.lower()
        if lower in _NOT_REMIND or lower == _REMIND or not 5 <= len(lower) <= 7:
            continue
        if edit_distance(lower, _REMIND, limit=1) <= 1:
            words[index] = _REMIND
            return " ".join(words)
    return text


def _nag_start(after: str, nag: str | None) -> tuple[str, str]:
    """After "nag me": "every 15 minutes" says how often it nags, not when (the text
    without it, and how often; ``DEFAULT_NAG`` when not said)."""
    after = trim(after)
    if (start := _NAG_START.match(after)) is not None:
        nag, after = start["span"], trim(after[start.end() :])
    return after, nag or DEFAULT_NAG


def _every(minutes: int) -> str:
    """How often a reminder nags, in words the task tools read back: "1 minute"."""
    return "1 minute" if minutes == 1 else f"{minutes} minutes"


def _reminder(text: str, found: re.Match[str], head: _Head) -> Intent:
    before, after = trim(text[: found.start()]), trim(text[found.end() :])
    if head.morning and after.split(maxsplit=1)[:1] and after.split()[0].replace(":", "").isdigit():
        after = f"at {after}"  # "set an alarm for 7": the number is the clock time
    # What stood before the command words ("at 9am, remind me ...") stays a separate stretch.
    body = f"{before}; {after}" if before else after
    if (several := _SEVERAL.search(body)) is not None:
        per = "day" if several["daily"] else several["per"].lower()
        daily = body.replace(several[0], "every day", 1)
        said = find_time(daily) if per == "day" else None
        count = _TIMES.get(several["n"].split()[0].lower()) or int(several["n"].split()[0])
        if said is not None and said.kind == "recurring" and _fires_a_day(said.text) == count:
            body = daily  # "twice a day at 9am and 9pm": the times are said, as many as asked
        else:
            rest = body.replace(several[0], "")
            if (times := find_time(rest)) is not None:
                rest = times.without(rest)  # the example says its own times
            return Say(answers.several_a_day(several[0], reminder_text(rest), count, per))
    phrase = find_time(body)
    if phrase is None or phrase.marker in _NOT_WHEN:
        return _ask_when(body, phrase, head)
    what = reminder_text(phrase.without(body)) or head.default
    if phrase.problem is not None:
        what = what or "do it"
        return Say(answers.cannot_use_time(phrase, lambda when: f"remind me {when} to {what}"))
    if not what:
        return Say(answers.ask_what(phrase.text))
    if (unknown := _unknown_day(what)) is not None:
        clock = phrase.text if re.search(r"\d|noon|midnight", phrase.text) else "at 9am"
        return Say(answers.unknown_day(unknown["when"], clock, unknown["what"]))
    return Remind(in_the_morning(phrase.text) if head.morning else phrase.text, what)


def _unknown_day(what: str) -> re.Match[str] | None:
    """ "on Easter to call grandma": a day named but not understood, or ``None``."""
    return next((m for pattern in _UNKNOWN_DAY if (m := pattern.fullmatch(what))), None)


def _ask_when(body: str, phrase: TimePhrase | None, head: _Head) -> Say:
    """No time to remind at: ask for one, quoting words that looked like a time."""
    if phrase is not None and phrase.marker == "before":
        what = reminder_text(phrase.without(body).removesuffix("before").strip())
        return Say(
            answers.ask_exact(f"before {phrase.text}", f"15 minutes before {phrase.text}", what)
        )
    what = reminder_text(body) or head.default
    unclear = _UNCLEAR.fullmatch(what) if phrase is None else None
    if unclear is not None:
        return Say(answers.ask_when(reminder_text(unclear["what"]), unclear=unclear["when"]))
    return Say(answers.ask_when(what or "check the oven"))


def reminder_text(rest: str) -> str:
    """The reminder's text: the words left, without connectors ("to", "about", "that")."""
    what = trim(rest.replace(";", " "))
    previous = None
    while previous != what:
        previous = what
        what = trim(_AGAIN.sub("", _LEADING.sub("", what)))
    what = unquote(what)
    return "" if _LONE.fullmatch(what) else what


REMIND = Rule("reminders, one-time or repeating", remind)

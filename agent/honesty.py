"""No claim without a tool result: catch a reply that says it did what no tool did.

A model that says "Done, I'll remind you at 9" when no reminder exists is the failure people
report most. ``check_honesty`` reads a reply sentence by sentence; a sentence claims an action
when it says, in the first person or of a thing, that something was (or will be) scheduled,
cancelled, changed, saved or sent. Questions, offers, conditions and negations claim nothing
("Shall I remind you?", "I can set one", "once you approve", "I could not save it",
"No reminder was set."), and a sentence about reminders in general is no claim. Each claim
needs a successful call in the same turn of a tool that does that kind of thing; a reply with
a claim no call backs is replaced by the truth, naming a related call that failed when there
was one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from common import LazyPattern
from tools import ToolResult, ToolStatus


class Action(StrEnum):
    """A kind of thing a reply may claim to have done, worded for the truth ("I did not ...")."""

    SCHEDULE = "schedule"
    CANCEL = "cancel"
    CHANGE = "change"
    SAVE = "save"
    SEND = "send or run"


_LATER = frozenset({Action.SEND, Action.SCHEDULE})
_VERBS: dict[str, frozenset[Action]] = {
    "remind": frozenset({Action.SCHEDULE}),
    "schedul": frozenset({Action.SCHEDULE}),
    "set": frozenset({Action.SCHEDULE}),
    "creat": frozenset({Action.SCHEDULE, Action.SAVE}),
    "add": frozenset({Action.SCHEDULE, Action.SAVE}),
    "book": frozenset({Action.SCHEDULE}),
    "cancel": frozenset({Action.CANCEL}),
    "delet": frozenset({Action.CANCEL, Action.SAVE}),
    "remov": frozenset({Action.CANCEL, Action.SAVE}),
    "paus": frozenset({Action.CHANGE}),
    "resum": frozenset({Action.CHANGE}),
    "snooz": frozenset({Action.CHANGE}),
    "postpon": frozenset({Action.CHANGE}),
    "reschedul": frozenset({Action.CHANGE, Action.SCHEDULE}),
    "mov": frozenset({Action.CHANGE}),
    "sav": frozenset({Action.SAVE}),
    "not": frozenset({Action.SAVE}),
    "stor": frozenset({Action.SAVE}),
    "remember": frozenset({Action.SAVE}),
    "record": frozenset({Action.SAVE}),
    # "I'll send you the news every morning" is backed by a scheduled task as well.
    "sen": _LATER,
    "post": _LATER,
    "turn": _LATER,
    "switch": _LATER,
    "execut": frozenset({Action.SEND}),
    "ran": frozenset({Action.SEND}),
}
"""Verb stems (as written: 'scheduled' -> 'schedul') and what each claims."""

_SCHEDULES = ("add_reminder", "add_recurring_task", "snooze_task", "reschedule_task")
_CHANGES = ("pause_task", "resume_task", "snooze_task", "reschedule_task")
_TOOLS: dict[Action, frozenset[str]] = {
    Action.SCHEDULE: frozenset({*_SCHEDULES, "add_monitor", "morning_briefing"}),
    Action.CANCEL: frozenset({"cancel_task", "morning_briefing"}),
    Action.CHANGE: frozenset({*_CHANGES, "quiet_hours", "morning_briefing", "acknowledge_task"}),
    Action.SAVE: frozenset({"save_note"}),
    Action.SEND: frozenset({"api_call", "execute_code"}),
}
"""The built-in tools that do each kind of thing."""

_STEMS: dict[Action, tuple[str, ...]] = {
    Action.SCHEDULE: ("remind", "schedul", "recurring", "alarm", "timer", "event"),
    Action.CANCEL: ("cancel", "delete", "remove"),
    Action.CHANGE: ("pause", "resume", "snooze", "reschedul", "move"),
    Action.SAVE: ("note", "save", "memor", "list", "add", "store"),
    Action.SEND: ("call", "post", "send", "turn", "switch", "light", "run", "execute", "http"),
}
"""Words in a custom tool's name that tell what kind of thing it does."""

_LOOKUPS = ("list", "search", "get", "find", "show")
"""A tool whose name holds one of these looks things up: it backs a reply that describes
how things stand ("your reminder is set for 9")."""

_STEM = "|".join(sorted(_VERBS, key=len, reverse=True))
_ANY_FORM = rf"(?P<verb>{_STEM})(?:led|ling|e|ed|es|ing|d|t)?\b"
# No bare "d": "sen" + "d" is "send", an order, where "sen" + "t" is "sent".
_PAST_FORM = rf"(?P<verb>{_STEM})(?:led|ed|t)\b|(?P<same>set|ran)\b"
_ADVERBS = r"(?:just\s+|now\s+|already\s+|successfully\s+|also\s+|gone ahead and\s+)*"
_THINGS = r"(?:reminder|task|alarm|timer|note|event|request|message|light)s?"

_WILL_OR_HAVE = LazyPattern(
    r"\b(?:i've|i have|i'll|i will|i am|i'm|we've|we have|we'll|we will)\s+"
    + _ADVERBS
    + r"(?:going to\s+)?"
    + _ANY_FORM
)
_I_DID = LazyPattern(r"\b(?:i|we)\s+" + _ADVERBS + r"(?:" + _PAST_FORM + r")")
_YOU_WILL_BE = LazyPattern(r"\byou(?:'ll| will) be (?P<verb>remind)ed\b")
_DONE_TO_A_THING = LazyPattern(
    rf"\b{_THINGS}\b[^.!?]*?\b"
    r"(?P<tense>has been|have been|was|were|is now|are now|is|are|'s)\s+"
    r"(?:now\s+|successfully\s+|all\s+)*(?:" + _PAST_FORM + r")"
)
_BARE_PARTICIPLE = LazyPattern(
    r"^(?:done[,:!]?\s*)?(?:" + rf"{_THINGS}\s+(?:" + _PAST_FORM + r")"
    r"|(?P<verb2>schedul|creat|add|cancell?|delet|remov|paus|resum|snooz|sav|not|sen|post)"
    r"(?:led|ed|t)\b)"
)
_DONE = LazyPattern(r"^(?:done|all set|all done)\b")
_NOT_A_CLAIM = LazyPattern(
    r"\b(?:not|never|nothing|cannot|can't|unable|failed|fail|couldn|wasn|didn|won|don|isn|"
    r"aren|haven|hasn|if|whether|unless|i can|i could|i would|i'd|i might|i may|shall i|"
    r"should i|can i|may i|want me to|like me to|would you|do you want|let me know|"
    r"how to|to do so|approv\w*|(?:once|after|when|until|as soon as) you)\b"
)
# "No reminder was set." denies; "No problem, I set it." still claims (its "I set" does).
_NO_THING = LazyPattern(rf"^\W*no\s+{_THINGS}\b")
# A sentence ends at a stop followed by a space or the end: "home.lan" and "3.5" stay whole.
_SENTENCES = LazyPattern(r"(?:[^.!?\n]|[.!?]+(?=[^\s.!?]))+[.!?]*")


@dataclass(frozen=True, slots=True)
class Statement:
    """One sentence that claims an action.

    Attributes:
        sentence: The sentence, as written.
        actions: What it claims (any one of them backs it).
        describes: It describes how things stand ("is set for 9"), so a look-up backs it.
    """

    sentence: str
    actions: frozenset[Action]
    describes: bool = False


@dataclass(frozen=True, slots=True)
class HonestyCheck:
    """The verdict on a reply.

    Attributes:
        text: What the user should see: the reply, or the truth instead of it.
        caught: The claims no successful call backed (empty when the reply is honest).
    """

    text: str
    caught: tuple[Statement, ...] = ()


def find_statements(text: str) -> list[Statement]:
    """Return the sentences of ``text`` that claim an action."""
    found: list[Statement] = []
    for match in _SENTENCES.finditer(text):
        sentence = match.group().strip()
        statement = _statement_in(sentence)
        if statement is not None:
            found.append(statement)
    return found


def check_honesty(text: str, results: Sequence[ToolResult]) -> HonestyCheck:
    """Return ``text`` if every action it claims was done by a successful call in
    ``results``, else the truth in its place."""
    done = [r.call.tool_name for r in results if r.status is ToolStatus.OK]
    caught = tuple(s for s in find_statements(text) if not _backed(s, done))
    if not caught:
        return HonestyCheck(text=text)
    # The truth speaks of the most specific claim ("I'll remind you" rather than "Done").
    specific = min(caught, key=lambda s: len(s.actions))
    return HonestyCheck(text=_truth(specific, results), caught=caught)


def _statement_in(sentence: str) -> Statement | None:
    lowered = sentence.lower().replace("\u2019", "'")
    if lowered.endswith("?") or _NOT_A_CLAIM.search(lowered) or _NO_THING.search(lowered):
        return None
    for pattern in (_WILL_OR_HAVE, _I_DID, _YOU_WILL_BE):
        hit = pattern.search(lowered)
        if hit is not None:
            return Statement(sentence, _actions(hit))
    thing = _DONE_TO_A_THING.search(lowered)
    if thing is not None:
        state = thing.group("tense") in ("is", "are", "'s")
        return Statement(sentence, _actions(thing), describes=state)
    bare = _BARE_PARTICIPLE.search(lowered)
    if bare is not None:
        return Statement(sentence, _actions(bare))
    if _DONE.search(lowered):
        return Statement(sentence, frozenset(Action), describes=True)
    return None


def _actions(hit: re.Match[str]) -> frozenset[Action]:
    """What the verb a pattern matched claims."""
    found = hit.groupdict()
    word = found.get("verb") or found.get("same") or found.get("verb2") or ""
    stem = word if word in _VERBS else next(s for s in _VERBS if word.startswith(s))
    return _VERBS[stem]


def _backed(statement: Statement, done: Sequence[str]) -> bool:
    for name in done:
        if statement.describes and any(word in name for word in _LOOKUPS):
            return True
        if any(_does(name, action) for action in statement.actions):
            return True
    return False


def _does(tool_name: str, action: Action) -> bool:
    if tool_name in _TOOLS[action]:
        return True
    if any(tool_name in names for names in _TOOLS.values()):
        return False
    if any(stem in tool_name for stem in _STEMS[action]):
        return True
    # A tool of the user's own or of an MCP server may do what its name does not say
    # ("tracker.create_issue" saves, "lights.toggle" sends): one that is no look-up backs any
    # claim but a reminder's, which only a tool that schedules backs.
    return action is not Action.SCHEDULE and not _looks_up(tool_name)


def _looks_up(tool_name: str) -> bool:
    """Whether a tool's name says it only looks things up (``files.read_text_file``)."""
    own_name = tool_name.rpartition(".")[2]
    return any(word in own_name for word in (*_LOOKUPS, "read"))


def _truth(statement: Statement, results: Sequence[ToolResult]) -> str:
    action = sorted(statement.actions)[0] if len(statement.actions) == 1 else None
    did = f"I did not {action.value} anything" if action else "I did not do that"
    failed = [
        r
        for r in results
        if r.status is not ToolStatus.OK
        and any(_does(r.call.tool_name, a) for a in statement.actions)
    ]
    if failed:
        last = failed[-1]
        reason = (last.error or last.text or last.status.value).strip().rstrip(".")
        return f"{did}: {last.call.tool_name} did not succeed ({reason}). Please try again."
    return (
        f"{did}: no tool did it in this turn, although my first answer said so. "
        "Please ask again, for example 'remind me in 10 minutes to check the oven'."
    )

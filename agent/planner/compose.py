"""Turn tool results into the offline planner's words.

Tools return typed values (dataclasses, pydantic models, dicts, lists or text); these helpers
read the few fields the planner needs (a task's id and description, a note's text, a page's
title and text) from whichever shape arrives, and fall back to the result's text. What a call
was meant to do ("set the reminder") comes from the ``Wording`` the planner builds from its
toolbox, so no tool is named here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from agent.planner.text import squash, stem
from common import LazyPattern
from tools import ToolResult, ToolStatus

_LIST_KEYS = ("tasks", "items", "results", "hits", "notes", "matches")
_TASK_LINE_RE = LazyPattern(
    r"^\s*(?:[-*\u2022]\s*)?[\[`(]?(?P<id>(?=[A-Za-z_-]*\d)[A-Za-z0-9_-]{3,32})[\]`)]?"
    r"\s*[:|\u2013\u2014-]?\s+(?P<label>\S.*)$"
)
_NOTHING_RE = LazyPattern(r"^(?:no\b|nothing|not\s+found|0\s+(?:results|hits|notes))", re.I)
_BULLET_RE = LazyPattern(r"^\s*(?:[-*\u2022]|\d+[.)])\s*")
_SENTENCE_END_RE = LazyPattern(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")
_TOKEN_RE = LazyPattern(r"\w+")
# How ``search_memory`` writes a hit as text: "[note #3, 2026-03-10] ..." or "[user message, ...]".
_HIT_LINE_RE = LazyPattern(r"^\[(?P<source>note\b|\w+ message\b)[^\]]*\]\s*(?P<text>\S.*)$", re.I)


@dataclass(frozen=True, slots=True)
class TaskEntry:
    """One task as the planner sees it in a task listing."""

    id: str
    label: str
    shown: str
    haystack: frozenset[str]
    stems: frozenset[str] = frozenset()

    def line(self) -> str:
        """A bullet line for a person: ``- a1b2c3: check the oven (today at 18:00 ...)``."""
        return f"- {self.shown}"


_SEE_IDS = "Say 'list my tasks' to see your tasks and their ids."


class Wording:
    """What each tool does, as words after "I couldn't ...": "set the reminder".

    Args:
        actions: The words per tool name.
    """

    def __init__(self, actions: Mapping[str, str]) -> None:
        self._actions = dict(actions)

    def action(self, tool: str) -> str:
        """What calling ``tool`` does."""
        return self._actions.get(tool, "do that")

    def outcome(self, result: ToolResult) -> str:
        """Say what one call did, from its status and its text for people."""
        return outcome(result, self.action(result.call.tool_name))

    def report(self, results: Sequence[ToolResult]) -> str:
        """Say what each call did, one paragraph per call."""
        return "\n".join(self.outcome(r) for r in results) or "Done."


def outcome(result: ToolResult, action: str) -> str:
    """Say what one call did, from its status and its text for people (``display``).

    A failure is told in the person's words only: what a result says to a model ("Fix the
    call and send it again", its ``text`` and ``error``) never reaches them.
    """
    reason = result.display.strip()
    if result.status is ToolStatus.OK:
        return _clock_sentence(result) or (result.display or result.text).strip() or "Done."
    if result.status is ToolStatus.DENIED:
        return f"I did not {action}: the request was not approved."
    if result.status is ToolStatus.PENDING_APPROVAL:
        return f"I need your approval to {action}."
    if result.status is ToolStatus.TIMEOUT:
        return (
            f"I couldn't {action}: {reason or 'it took too long and was stopped'}".rstrip(".") + "."
        )
    if result.status is ToolStatus.INVALID and "is not a task id" in reason:
        # "'6x99ty' is not a task id I can use here": say where the ids are.
        return f"I couldn't {action}." + _suffix(reason) + " " + _SEE_IDS
    return f"I couldn't {action}." + _suffix(reason)


def task_entries(result: ToolResult) -> list[TaskEntry] | None:
    """Read the tasks out of a ``list_tasks`` result; ``None`` when their shape is unknown."""
    items = _items(result.output)
    if items is not None:
        entries = [e for e in (_entry(item) for item in items) if e is not None]
        return entries if entries or not items else None
    lines = (result.text or result.display).splitlines()
    parsed = [m for line in lines if (m := _TASK_LINE_RE.match(line)) is not None]
    if parsed:
        return [_make_entry(m["id"], m["label"].strip(), "", "", None) for m in parsed]
    text = (result.text or result.display).strip()
    return [] if not text or _NOTHING_RE.match(text) or text in ("[]", "{}") else None


def match_tasks(entries: Sequence[TaskEntry], words: Sequence[str]) -> list[TaskEntry]:
    """The entry whose id is one of ``words``; else the entries that name an address among
    ``words`` whole (not the others on its host); else the entries all ``words`` point at;
    failing that, the best majority match.

    Case does not matter ("alarm" is the task "Alarm"), and neither does the form of a word
    ("stretching" is the task "stand up and stretch"): words are compared by their stems.
    """
    by_id = [e for e in entries if e.id.lower() in {w.lower() for w in words}]
    if by_id:
        return by_id
    addresses = [w for w in words if "://" in w]
    if addresses:
        # An address means the tasks of that very address, not every one on its host.
        exact = [e for e in entries if all(_names_address(e, a) for a in addresses)]
        others = [w for w in words if "://" not in w]
        if exact:
            return (match_tasks(exact, others) if others else []) or exact
    # Whole words first: "plan" is "plan the week", not "water the plants".
    exact = [e for e in entries if all(w.lower() in e.haystack for w in words)]
    if exact:
        return exact
    rooted = [e for e in entries if all(stem(w) in e.stems for w in words)]
    if rooted:
        return rooted
    scored = [(sum(_word_in(w, e) for w in words), e) for e in entries]
    full = [e for score, e in scored if score == len(words)]
    if full:
        return full
    best = max((score for score, _ in scored), default=0)
    if best == 0 or best * 2 < len(words):
        return []
    return [e for score, e in scored if score == best]


def note_hits(result: ToolResult) -> list[str] | None:
    """The texts of the notes in a ``search_memory`` result, best first.

    Only notes answer "From your notes": a past message (a question asked before, a line
    said in the chat) is never one, whoever wrote it. Returns ``None`` when the result's
    shape is unknown.
    """
    items = _items(result.output)
    if items is None:
        return _notes_from_text(result.text or result.display)
    notes = []
    for item in items:
        kind = _text(_field(item, "kind", "source", "type")).lower()
        text = squash(_text(_field(item, "text", "content", "snippet")))
        if kind in ("note", "notes") and text:
            notes.append(text)
    return notes


def page(result: ToolResult) -> tuple[str, str]:
    """The ``(title, text)`` of a ``fetch_url`` result."""
    output = result.output
    if isinstance(output, str):
        return "", output
    if output is not None and not isinstance(output, list | tuple):
        body = _text(_field(output, "text", "content", "body", "markdown"))
        if body:
            return _text(_field(output, "title")), body
    return "", result.text or result.display


def summary(text: str, *, title: str = "", sentences: int = 3, max_chars: int = 600) -> str:
    """The first few sentences of the page's prose lines (lines of six words or more)."""
    lines = [squash(line) for line in text.splitlines()]
    lines = [line for line in lines if line and line != title]
    prose = [line for line in lines if len(line.split()) >= 6] or lines
    picked: list[str] = []
    size = 0
    for sentence in _SENTENCE_END_RE.split(" ".join(prose)):
        if len(picked) == sentences or size >= max_chars:
            break
        room = max_chars - size
        picked.append(sentence if len(sentence) <= room else sentence[: room - 1].rstrip() + "…")
        size += len(picked[-1]) + 1
    return " ".join(picked)


def _clock_sentence(result: ToolResult) -> str:
    """Say a clock reading ({time, weekday, date, timezone}) as "It's 14:35 on Monday,
    2026-01-05 (Asia/Tokyo)."."""
    output = result.output
    if not isinstance(output, Mapping):
        return ""
    clock, day, date = (str(output.get(k, "")) for k in ("time", "weekday", "date"))
    if not (clock and day and date):
        return ""
    zone = output.get("timezone")
    return f"It's {clock[:5]} on {day}, {date}" + (f" ({zone})." if zone else ".")


def _suffix(reason: str) -> str:
    if not reason:
        return ""
    end = "" if reason[-1] in ".!?" else "."
    return f" {reason[0].upper()}{reason[1:]}{end}"


def _items(output: object) -> list[object] | None:
    listed = getattr(output, "tasks", None)
    if isinstance(listed, list | tuple):
        return list(listed)
    if isinstance(output, Mapping):
        for key in _LIST_KEYS:
            value = output.get(key)
            if isinstance(value, list | tuple):
                return list(value)
        return None
    if isinstance(output, list | tuple):
        return list(output)
    return None


def _field(item: object, *names: str) -> object:
    for name in names:
        value = item.get(name) if isinstance(item, Mapping) else getattr(item, name, None)
        if value is not None and value != "":
            return value
    return None


def _text(value: object) -> str:
    if value is None:
        return ""
    describe = getattr(value, "describe", None)
    if callable(describe):
        return str(describe())
    if isinstance(value, datetime):
        return value.isoformat(timespec="minutes")
    return str(value)


def _entry(item: object) -> TaskEntry | None:
    task_id = _text(_field(item, "id", "task_id"))
    if not task_id:
        return None
    execution = _field(item, "execution", "execution_data")
    detail = _text(_field(execution, "message", "prompt", "query", "url")) if execution else ""
    label = _text(_field(item, "description", "message", "text", "name")) or detail
    schedule = _text(_field(item, "schedule_text", "schedule", "when"))
    kind = _text(_field(item, "task_type", "type"))
    own_line = getattr(item, "line", None)
    shown = own_line if isinstance(own_line, str) else None
    return _make_entry(task_id, label, schedule, f"{detail} {kind}", shown)


def _make_entry(task_id: str, label: str, schedule: str, more: str, shown: str | None) -> TaskEntry:
    text = f"{task_id} {label} {schedule} {more}".lower().replace("_", " ")
    words = _TOKEN_RE.findall(text)
    label = label or "(no description)"
    when = f" ({schedule})" if schedule else ""
    shown = shown or f"{task_id}: {label}{when}"
    return TaskEntry(task_id, label, shown, frozenset(words), frozenset(map(stem, words)))


def _names_address(entry: TaskEntry, address: str) -> bool:
    """Whether ``entry`` names ``address`` whole (not a longer address that begins so)."""
    pattern = re.escape(address.rstrip("/")) + r"/?(?=$|[\s)\]'\",;])"
    return any(re.search(pattern, text, re.IGNORECASE) for text in (entry.label, entry.shown))


def names_entry(entry: TaskEntry, words: Sequence[str]) -> bool:
    """Whether every one of ``words`` names ``entry``: its id, or a word of its text."""
    return all(w.lower() == entry.id.lower() or _word_in(w, entry) for w in words)


def _word_in(word: str, entry: TaskEntry) -> bool:
    word = word.lower()
    if word in entry.haystack or stem(word) in entry.stems:
        return True
    return len(word) >= 3 and any(token.startswith(word) for token in entry.haystack)


def _notes_from_text(text: str) -> list[str] | None:
    """The notes of a search result written as lines: ``- [note #3, 2026-03-10] text``;
    ``None`` when the lines are not hits."""
    text = text.strip()
    if not text or text in ("[]", "{}") or _NOTHING_RE.match(text):
        return []
    lines = [_BULLET_RE.sub("", line).strip() for line in text.splitlines()]
    hits = [m for line in lines if (m := _HIT_LINE_RE.match(line)) is not None]
    if not hits:
        return None
    return [m["text"] for m in hits if m["source"].lower().startswith("note")]

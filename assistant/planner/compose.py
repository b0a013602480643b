"""Turn tool results into the offline planner's words.

Tools return typed values (dataclasses, pydantic models, dicts, lists or text); these helpers
read the few fields the planner needs (a task's id and description, a note's text, a page's
title and text) from whichever shape arrives, and fall back to the result's text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from assistant.planner import patterns as ph
from tools import ToolResult, ToolStatus

_ACTIONS = {
    "add_reminder": "set the reminder",
    "add_recurring_task": "schedule that",
    "list_tasks": "list your tasks",
    "cancel_task": "cancel the task",
    "pause_task": "pause the task",
    "resume_task": "resume the task",
    "snooze_task": "snooze the task",
    "save_note": "save the note",
    "search_memory": "search your notes",
    "get_current_time": "get the time",
    "search_web": "search the web",
    "fetch_url": "read that page",
    "api_call": "make that request",
    "execute_code": "run that code",
}
_LIST_KEYS = ("tasks", "items", "results", "hits", "notes", "matches")
_TASK_LINE_RE = re.compile(
    r"^\s*(?:[-*\u2022]\s*)?[\[`(]?(?P<id>(?=[A-Za-z_-]*\d)[A-Za-z0-9_-]{3,32})[\]`)]?"
    r"\s*[:|\u2013\u2014-]?\s+(?P<label>\S.*)$"
)
_NOTHING_RE = re.compile(r"^(?:no\b|nothing|not\s+found|0\s+(?:results|hits|notes))", re.I)
_BULLET_RE = re.compile(r"^\s*(?:[-*\u2022]|\d+[.)])\s*")
_SENTENCE_END_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")
_TOKEN_RE = re.compile(r"\w+")


@dataclass(frozen=True, slots=True)
class TaskEntry:
    """One task as the planner sees it in a ``list_tasks`` result."""

    id: str
    label: str
    schedule: str
    haystack: frozenset[str]

    def line(self) -> str:
        """A bullet line for a person: ``- a1b2c3: check the oven (once at ...)``."""
        when = f" ({self.schedule})" if self.schedule else ""
        return f"- {self.id}: {self.label}{when}"


def action_words(tool: str) -> str:
    """What calling ``tool`` does, as words after "I couldn't ..."."""
    return _ACTIONS.get(tool, f"run {tool}")


def outcome(result: ToolResult) -> str:
    """Say what one call did, from its status, display text, text and error."""
    action = action_words(result.call.tool_name)
    reason = (result.error or result.text or result.display).strip()
    if result.status is ToolStatus.OK:
        return _clock_sentence(result) or (result.display or result.text).strip() or "Done."
    if result.status is ToolStatus.DENIED:
        return f"I did not {action}: the request was not approved."
    if result.status is ToolStatus.PENDING_APPROVAL:
        return f"I need your approval to {action}."
    if result.status is ToolStatus.TIMEOUT:
        return f"I couldn't {action}: it took too long and was stopped." + _suffix(reason)
    return f"I couldn't {action}." + _suffix(reason)


def report(results: Sequence[ToolResult]) -> str:
    """Say what each call did, one paragraph per call."""
    return "\n".join(outcome(r) for r in results) or "Done."


def task_entries(result: ToolResult) -> list[TaskEntry] | None:
    """Read the tasks out of a ``list_tasks`` result; ``None`` when their shape is unknown."""
    items = _items(result.output)
    if items is not None:
        entries = [e for e in (_entry(item) for item in items) if e is not None]
        return entries if entries or not items else None
    lines = (result.text or result.display).splitlines()
    parsed = [m for line in lines if (m := _TASK_LINE_RE.match(line)) is not None]
    if parsed:
        return [_make_entry(m.group("id"), m.group("label").strip(), "", "") for m in parsed]
    text = (result.text or result.display).strip()
    return [] if not text or _NOTHING_RE.match(text) or text in ("[]", "{}") else None


def match_tasks(entries: Sequence[TaskEntry], words: Sequence[str]) -> list[TaskEntry]:
    """The entries all ``words`` point at; failing that, the best majority match."""
    scored = [(sum(_word_in(w, e.haystack) for w in words), e) for e in entries]
    full = [e for score, e in scored if score == len(words)]
    if full:
        return full
    best = max((score for score, _ in scored), default=0)
    if best == 0 or best * 2 < len(words):
        return []
    return [e for score, e in scored if score == best]


def note_hits(result: ToolResult, question: str) -> list[str] | None:
    """The hit texts of a ``search_memory`` result, notes first, the question itself left out.

    Returns ``None`` when the result's shape is unknown.
    """
    items = _items(result.output)
    if items is None:
        return _hits_from_text(result.text or result.display)
    notes: list[str] = []
    others: list[str] = []
    asked = ph.squash(question).lower()
    for item in items:
        text = item if isinstance(item, str) else _text(_field(item, "text", "content", "snippet"))
        text = ph.squash(text)
        if not text or text.lower() == asked or text.endswith("?"):
            continue
        kind = _text(_field(item, "kind", "source", "type")).lower()
        if kind in ("note", "notes", ""):
            notes.append(text)
        elif _text(_field(item, "role")).lower() in ("user", ""):
            # What the assistant said before is no source of facts; what the user said is.
            others.append(text)
    return notes + others


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
    lines = [ph.squash(line) for line in text.splitlines()]
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
    """Say a ``get_current_time`` result as "It's 14:35 on Monday, 2026-01-05 (Asia/Tokyo)."."""
    output = result.output
    if result.call.tool_name != "get_current_time" or not isinstance(output, Mapping):
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
    return _make_entry(task_id, label, schedule, f"{detail} {kind}")


def _make_entry(task_id: str, label: str, schedule: str, more: str) -> TaskEntry:
    words = _TOKEN_RE.findall(f"{task_id} {label} {schedule} {more}".lower())
    return TaskEntry(task_id, label or "(no description)", schedule, frozenset(words))


def _word_in(word: str, haystack: frozenset[str]) -> bool:
    word = word.lower()
    if word in haystack:
        return True
    return len(word) >= 3 and any(token.startswith(word) for token in haystack)


def _hits_from_text(text: str) -> list[str] | None:
    text = text.strip()
    if not text or text in ("[]", "{}") or _NOTHING_RE.match(text):
        return []
    lines = [_BULLET_RE.sub("", line).strip() for line in text.splitlines()]
    return [line for line in lines if line] or None

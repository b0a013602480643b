"""The planner's reading of a turn, for a pipeline that has a language model behind it.

``OfflinePlanner.read`` reads the conversation and says one of three things:

    Planned   understood completely: the planner's own next message (its calls, or its
              answer once the results are in); no model is asked
    Partial   understood in part: what the planner read, and the one part a model supplies
              (``AnswerInWords``: the answer to a question; ``WritePrompt``: the prompt of an
              agent task on a schedule the planner read)
    Unread    not understood: the model's, as if there were no planner

``Partial`` and ``Unread`` carry what the planner says when no model can help (``offline``):
with no model configured, or with one that failed to load.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal, TypeAlias

from agent.planner import answers
from agent.planner.handover import AnswerInWords, WritePrompt
from common import LazyPattern
from tasks import find_time

MAX_PROMPT_CHARS = 300
"""The longest prompt a model may write for an agent task."""

HELP_WITH_MODEL = (
    "I understand these myself and do them at once: reminders and repeating tasks (and "
    "listing, moving, snoozing, pausing and cancelling them), notes and questions about them, "
    "lists, the time, arithmetic, web searches (with SERPAPI_API_KEY) and page summaries. "
    f"Try:\n{answers.EXAMPLES}\nEverything else goes to the language model."
)
"""The answer to "help" when a language model answers what the planner does not."""

_WORD = LazyPattern(r"[a-z0-9]+")
_LABEL = LazyPattern(r"^(?:instruction|prompt|task|answer)\s*:\s*", re.IGNORECASE)
_QUOTES = "\"'\u201c\u201d\u2018\u2019`"
_ABOUT_THE_CHAT = LazyPattern(r"\bthe (?:user|assistant)\b|\bthe user's\b", re.IGNORECASE)
_STOPWORDS = frozenset(
    _WORD.findall(
        "a an and are at be by do does for from give get i in is it me my of on or our please "
        "send show tell that the this to what when with you your"
    )
)


@dataclass(frozen=True, slots=True)
class Planned:
    """The planner's own next message: fenced calls, or the final answer.

    Attributes:
        text: The message.
        calls: Whether it is the planner's calls. Only then is it read for calls: an answer
            may quote what a tool returned (a page, search results), and what a page says
            is never a call.
    """

    text: str
    calls: bool = False
    kind: Literal["planned"] = "planned"


@dataclass(frozen=True, slots=True)
class Partial:
    """Understood in part: the planner's reading and the part a model supplies.

    Attributes:
        missing: What the model supplies.
        offline: What the planner says without a model.
    """

    missing: AnswerInWords | WritePrompt
    offline: str
    kind: Literal["partial"] = "partial"


@dataclass(frozen=True, slots=True)
class Unread:
    """Not understood: the model's turn, with its tools.

    Attributes:
        offline: What the planner says without a model.
    """

    offline: str
    kind: Literal["unread"] = "unread"


Reading: TypeAlias = Planned | Partial | Unread


def offline_text(reading: Reading) -> str:
    """What the planner says of ``reading`` when no model can help."""
    return reading.text if isinstance(reading, Planned) else reading.offline


def usable_prompt(proposal: str, words: str, schedule: str = "") -> str | None:
    """The prompt a model wrote for an agent task about ``words``, or ``None`` if unusable.

    Its first line, without a label or quotes, is used when it is about the user's words
    (it shares a content word with them), speaks to the assistant rather than about the
    conversation ("The user wants ..."), names no schedule or clock time of its own (the
    schedule is the planner's reading; "today's news" is fine), and is at most
    ``MAX_PROMPT_CHARS`` long.
    """
    line = next((each.strip() for each in proposal.splitlines() if each.strip()), "")
    line = _LABEL.sub("", line).strip().strip(_QUOTES).strip()
    if not line or len(line) > MAX_PROMPT_CHARS or _ABOUT_THE_CHAT.search(line):
        return None
    if (schedule and schedule.lower() in line.lower()) or _names_a_time(line):
        return None
    if not _stems(line) & _stems(words):
        return None
    return line


def _names_a_time(text: str) -> bool:
    """Whether ``text`` names a schedule or a clock time or date ("at 9pm", "every day")."""
    found = find_time(text)
    return found is not None and (
        found.kind == "recurring" or any(char.isdigit() for char in found.text)
    )


def _stems(text: str) -> set[str]:
    """The content words of ``text``, cut to their first four letters ("summary" and
    "summarize" meet)."""
    return {word[:4] for word in _WORD.findall(text.lower()) if word not in _STOPWORDS}

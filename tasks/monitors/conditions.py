"""A monitor's condition: in words or as a simple expression, read into a ``Condition``.

What people say, and what it becomes (its canonical form, which the task keeps)::

    "when it contains 'in stock'", "says in stock"        contains 'in stock'
    "when 'sold out' disappears", "no longer says X"      lacks 'sold out'
    "when price < 300", "drops below 300", "under 300"    price < 300   (or < 300)
    "at most 300" <=, "above 300" / "over" >, "at least" >=, "is 42" =, "is not 42" !=

Text is compared without regard to case or runs of white space. A comparison reads the first
number of what the monitor saw ("€1,299.00" is 1299), so a JSON field or a CSS selector that
picks the price makes it exact. "changes" (or nothing) is no condition: the monitor speaks on
any change.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from common import LazyPattern
from tasks.errors import TaskDataError, TaskError

MAX_CONDITION_CHARS = 300
EXAMPLES = "'contains in stock', 'no longer says sold out', 'price < 300' or 'above 1000'"


class ConditionKind(StrEnum):
    """What a condition asks of what the monitor saw."""

    CONTAINS = "contains"
    LACKS = "lacks"
    BELOW = "<"
    AT_MOST = "<="
    ABOVE = ">"
    AT_LEAST = ">="
    EQUALS = "="
    DIFFERS = "!="

    @property
    def compares(self) -> bool:
        """Whether it compares a number (rather than looking for text)."""
        return self not in (ConditionKind.CONTAINS, ConditionKind.LACKS)


_SAID = {
    ConditionKind.BELOW: "below",
    ConditionKind.AT_MOST: "at most",
    ConditionKind.ABOVE: "above",
    ConditionKind.AT_LEAST: "at least",
    ConditionKind.EQUALS: "exactly",
    ConditionKind.DIFFERS: "not",
}


@dataclass(frozen=True, slots=True)
class Condition:
    """When a monitor speaks: a text it contains or lacks, or a number compared.

    Attributes:
        kind: What it asks.
        text: The text looked for (``CONTAINS``, ``LACKS``).
        number: The number compared with (the comparisons).
        subject: What the number is, as the user named it ("price"), or ``None``.
    """

    kind: ConditionKind
    text: str = ""
    number: float = 0.0
    subject: str | None = None

    def canonical(self) -> str:
        """The form the task keeps, which ``parse_condition`` reads back as this value."""
        if not self.kind.compares:
            return f"{self.kind.value} {_quoted(self.text)}"
        head = f"{self.subject} " if self.subject else ""
        return f"{head}{self.kind.value} {format_number(self.number)}"

    def words(self) -> str:
        """The condition for a person: ``it contains 'in stock'``, ``price is below 300``."""
        if self.kind is ConditionKind.CONTAINS:
            return f"it contains {_quoted(self.text)}"
        if self.kind is ConditionKind.LACKS:
            return f"it no longer contains {_quoted(self.text)}"
        return f"{self.subject or 'the value'} is {_SAID[self.kind]} {format_number(self.number)}"

    def holds(self, seen: str) -> bool:
        """Whether the condition holds for ``seen``.

        Raises:
            TaskError: when it compares a number and ``seen`` holds none.
        """
        if self.kind is ConditionKind.CONTAINS:
            return _folded(self.text) in _folded(seen)
        if self.kind is ConditionKind.LACKS:
            return _folded(self.text) not in _folded(seen)
        value = first_number(seen)
        if value is None:
            shown = " ".join(seen.split())[:80]
            raise TaskError(
                f"the condition '{self.canonical()}' needs a number, and what the monitor saw "
                f"has none ({shown!r}); watch a JSON field or a CSS selector that picks it"
            )
        return _compare(self.kind, value, self.number)

    def source(self, seen: str) -> str:
        """Which number a comparison read in ``seen``, and where: ``read 3 from 'Version 3
        of the page'`` (empty for a text condition, when ``seen`` has no number, and when
        it is all one short line, which says it all)."""
        found = number_in(seen) if self.kind.compares else None
        if found is None or found[1] == " ".join(seen.split()):
            return ""
        value, where = found
        return f"read {format_number(value)} from {where!r}"


def _compare(kind: ConditionKind, value: float, number: float) -> bool:
    if kind is ConditionKind.BELOW:
        return value < number
    if kind is ConditionKind.AT_MOST:
        return value <= number
    if kind is ConditionKind.ABOVE:
        return value > number
    if kind is ConditionKind.AT_LEAST:
        return value >= number
    if kind is ConditionKind.EQUALS:
        return value == number
    return value != number


_F = re.IGNORECASE
_NUMBER = (
    r"(?P<number>[-+]?\s?[$€£¥]?\s?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?)"
    r"(?:\s*[^\d\s.,;:!?]{1,12})?"  # a unit: "€", "%", "euros", "°C"
)
# Longest first: "is at most" before "is", "drops below" before "below".
_OPERATORS: tuple[tuple[str, ConditionKind], ...] = (
    (r"<=|=<|≤", ConditionKind.AT_MOST),
    (r">=|=>|≥", ConditionKind.AT_LEAST),
    (r"!=|<>|≠", ConditionKind.DIFFERS),
    (r"==?", ConditionKind.EQUALS),
    (r"<", ConditionKind.BELOW),
    (r">", ConditionKind.ABOVE),
    (r"(?:is\s+)?(?:at\s+most|no\s+more\s+than|not\s+above|not\s+over)", ConditionKind.AT_MOST),
    (r"(?:is\s+)?(?:at\s+least|no\s+less\s+than|not\s+below|not\s+under)", ConditionKind.AT_LEAST),
    (
        r"(?:drops?|falls?|dips?|goes|gets|is|comes|sinks?)\s+(?:to\s+)?(?:below|under|beneath)"
        r"|(?:is\s+)?(?:below|under|less\s+than|lower\s+than|cheaper\s+than|beneath)",
        ConditionKind.BELOW,
    ),
    (r"(?:drops?|falls?|sinks?)\s+to", ConditionKind.AT_MOST),
    (
        r"(?:rises?|goes|gets|climbs?|is|jumps?)\s+(?:to\s+)?(?:above|over|beyond)"
        r"|(?:is\s+)?(?:above|over|more\s+than|greater\s+than|higher\s+than|exceeds?|tops?)",
        ConditionKind.ABOVE,
    ),
    (r"(?:rises?|climbs?|gets)\s+to|reach(?:es)?|hits?", ConditionKind.AT_LEAST),
    (r"is\s+not|isn'?t|is\s+no\s+longer", ConditionKind.DIFFERS),
    (r"is|equals?|is\s+equal\s+to|becomes?", ConditionKind.EQUALS),
)
_COMPARISON = LazyPattern(
    r"(?:(?P<subject>[A-Za-z_][\w .\[\]-]{0,60}?)\s*)?(?P<op>"
    + "|".join(f"(?:{pattern})" for pattern, _ in _OPERATORS)
    + r")\s*"
    + _NUMBER,
    _F,
)
_KINDS = [(re.compile(pattern, _F), kind) for pattern, kind in _OPERATORS]
_TEXT_VERBS = r"(?:contains?|says?|shows?|mentions?|has|have|includes?|reads?|lists?)"
_CONTAINS = LazyPattern(rf"(?:it\s+|the\s+page\s+|the\s+text\s+)?{_TEXT_VERBS}\s+(?P<text>.+)", _F)
_LACKS = LazyPattern(
    r"(?:it\s+|the\s+page\s+)?(?:no\s+longer|doesn'?t|does\s+not|stops?|stopped|lacks)\s*"
    rf"(?:{_TEXT_VERBS}|saying|showing|containing|mentioning|listing)?\s+(?P<text>.+)",
    _F,
)
_APPEARS = LazyPattern(
    r"(?P<text>.+?)\s+(?:appears|shows\s+up|is\s+(?:back|there|listed|mentioned|available)"
    r"|comes\s+back|turns\s+up)",
    _F,
)
_DISAPPEARS = LazyPattern(
    r"(?P<text>.+?)\s+(?:disappears|is\s+gone|goes\s+away|vanishes|is\s+removed|is\s+no\s+longer"
    r"\s+(?:there|listed|shown))",
    _F,
)
_LEAD = LazyPattern(
    r"^(?:(?:and|then|,)\s+)*(?:tell\s+me\s+|let\s+me\s+know\s+|notify\s+me\s+|alert\s+me\s+)?"
    r"(?:only\s+)?(?:when(?:ever)?|if|once|as\s+soon\s+as|in\s+case)\s+",
    _F,
)
_ANY_CHANGE = LazyPattern(
    r"(?:it|the\s+page|anything|something|that|this|the\s+(?:content|text|value|results?))?\s*"
    r"(?:changes?|is\s+changed|is\s+updated|updates?|gets\s+updated|differs?)(?:\s+at\s+all)?",
    _F,
)
_VERBS = frozenset(
    {
        "drop", "drops", "fall", "falls", "dip", "dips", "go", "goes", "get", "gets", "is",
        "rise", "rises", "climb", "climbs", "sink", "sinks", "jump", "jumps", "come", "comes",
    }
)  # fmt: skip
_IT_IS = LazyPattern(r"\b(it|that|this|the\s+\w+)['’]s\b", _F)  # "it's at least 300"
_PLAIN_SUBJECTS = frozenset({"it", "that", "this", "the value", "value", "the number", "number"})
_QUOTES = ("''", '""', "“”", "‘’", "«»")


def parse_condition(text: str | None) -> Condition | None:
    """Read a condition in words or as an expression; ``None`` for "on any change".

    Raises:
        TaskDataError: quoting ``text``, with examples of conditions that work.
    """
    if text is None:
        return None
    if not isinstance(text, str):
        raise TaskDataError(f"a condition is text such as {EXAMPLES}, got {text!r}")
    said = " ".join(text.split()).rstrip(" .!?")
    if len(said) > MAX_CONDITION_CHARS:
        raise TaskDataError(
            f"the condition is {len(said)} characters long; say it in at most "
            f"{MAX_CONDITION_CHARS}, e.g. {EXAMPLES}"
        )
    bare = _LEAD.sub("", said)
    if not bare or _ANY_CHANGE.fullmatch(bare):
        return None
    found = read_condition(bare)
    if found is None:
        raise TaskDataError(
            f"I could not read {text!r} as a condition; say e.g. {EXAMPLES}, or nothing to "
            "hear of every change"
        )
    return found


def read_condition(text: str) -> Condition | None:
    """The condition ``text`` states (without lead words like "when"), or ``None``."""
    bare = _IT_IS.sub(r"\1 is", " ".join(text.split()).rstrip(" .!?"))
    if (match := _COMPARISON.fullmatch(bare)) is not None:
        return _comparison(match)
    for pattern, kind in (
        (_LACKS, ConditionKind.LACKS),
        (_DISAPPEARS, ConditionKind.LACKS),
        (_CONTAINS, ConditionKind.CONTAINS),
        (_APPEARS, ConditionKind.CONTAINS),
    ):
        if (match := pattern.fullmatch(bare)) is not None:
            wanted = _unquoted(match["text"])
            if wanted:
                return Condition(kind, text=wanted)
    return None


def _comparison(match: re.Match[str]) -> Condition:
    op = " ".join(match["op"].lower().split())
    kind = next(kind for pattern, kind in _KINDS if pattern.fullmatch(op))
    number = first_number(match["number"])
    assert number is not None  # the pattern matched a number
    words = (match["subject"] or "").split()
    while words and words[-1].lower() in _VERBS:
        words.pop()  # "the price drops below 300": the verb is the operator's
    subject = re.sub(r"^(?:the|its|my)\s+", "", " ".join(words), flags=_F).strip()
    if subject.lower() in _PLAIN_SUBJECTS or not subject:
        return Condition(kind, number=number)
    return Condition(kind, number=number, subject=subject)


def first_number(text: str) -> float | None:
    """The first number in ``text``: ``"€1,299.00"`` is 1299, ``"-3.5 °C"`` is -3.5."""
    found = re.search(r"[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?", text.replace(" ", ""))
    if found is None:
        return None
    return float(found[0].replace(",", ""))


def number_in(text: str, *, width: int = 60) -> tuple[float, str] | None:
    """The first number in ``text`` (as ``first_number`` reads it) and the words around it
    (its line, cut to about ``width`` characters around the number)."""
    for line in text.splitlines():
        value = first_number(line)
        if value is None:
            continue
        flat = " ".join(line.split())
        if len(flat) <= width:
            return value, flat
        digit = next(i for i, char in enumerate(flat) if char.isdigit())
        start = max(0, digit - width // 3)
        shown = flat[start : start + width].strip()
        return value, ("…" if start else "") + shown + ("…" if start + width < len(flat) else "")
    return None


def format_number(number: float) -> str:
    """``300`` for 300.0, ``289.99`` for 289.99."""
    return str(int(number)) if number == int(number) else f"{number:g}"


def _unquoted(text: str) -> str:
    text = text.strip().strip(".!?,").strip()
    for pair in _QUOTES:
        if len(text) >= 2 and text[0] == pair[0] and text[-1] == pair[1]:
            return text[1:-1].strip()
    return text


def _quoted(text: str) -> str:
    return f"'{text}'" if "'" not in text else f'"{text}"'


def _folded(text: str) -> str:
    return " ".join(text.casefold().split())

"""Reading a message: spacing, quotes and politeness trimmed, the words kept as written."""

from __future__ import annotations

import re
from dataclasses import dataclass

_SPACES = re.compile(r"\s+")
_QUOTES = {'"': '"', "'": "'", "\u201c": "\u201d", "\u2018": "\u2019", "\u00ab": "\u00bb", "`": "`"}
_POLITE_HEAD = re.compile(
    r"^(?:(?:hey|hi|hello|ok|okay|so|um|uh|oh|assistant|bot|actually|wait|sorry|also|and|btw"
    r"|by\s+the\s+way|yes|yeah|no|alright|right|listen|oops|hmm|quick\s+one)\b[,!]?\s+)*"
    r"(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?(?:mind\s+|just\s+)?"
    r"|(?:do|would)\s+you\s+mind\s+|i\s+(?:need|want|would\s+like|'d\s+like)\s+you\s+to\s+"
    r"|i\s+(?:need|want)\s+to\s+(?=be\s+reminded)|please\s+could\s+you\s+)?"
    r"(?:please\s+|pls\s+|plz\s+|kindly\s+|just\s+)?",
    re.IGNORECASE,
)
_POLITE_TAIL = re.compile(
    r"(?:[\s,]+(?:please|pls|plz|thanks|thank\s+you|thx|for\s+me))+$|[\s.!?\u2026]+$",
    re.IGNORECASE,
)
_EDGES = " ,;:-\u2013\u2014"


def squash(text: str) -> str:
    """Collapse runs of whitespace to one space and trim the ends."""
    return _SPACES.sub(" ", text).strip()


def unquote(text: str) -> str:
    """Strip one pair of matching quotes around ``text`` (after trimming)."""
    text = text.strip()
    if len(text) >= 2 and _QUOTES.get(text[0]) == text[-1]:
        return text[1:-1].strip()
    return text


def trim(text: str) -> str:
    """Trim spaces, commas, colons and dashes from both ends."""
    return squash(text).strip(_EDGES)


@dataclass(frozen=True, slots=True)
class Message:
    """One message as the rules read it.

    Attributes:
        text: The words as written, politeness and final punctuation trimmed.
        lower: ``text`` in lower case, for matching.
        said: The words as written with only spacing, quotes and final punctuation trimmed
            ("thanks!" is "thanks" here, and nothing in ``text``).
    """

    text: str
    lower: str
    said: str

    @classmethod
    def read(cls, raw: str) -> Message:
        """Trim ``raw`` the way every rule wants it."""
        text = unquote(squash(raw))
        said = text.rstrip(" .!?\u2026")
        previous = None
        while previous != text:
            previous = text
            text = _POLITE_TAIL.sub("", text)
            text = _POLITE_HEAD.sub("", text, count=1).strip()
        text = unquote(text)
        return cls(text, text.lower(), said)

"""Reading a message: spacing, quotes and politeness trimmed, the words kept as written (a
contraction typed without its apostrophe gets it back); and words compared by their stems."""

from __future__ import annotations

import re
from dataclasses import dataclass

from common import LazyPattern

_SPACES = LazyPattern(r"\s+")
_QUOTES = {'"': '"', "'": "'", "\u201c": "\u201d", "\u2018": "\u2019", "\u00ab": "\u00bb", "`": "`"}
_POLITE_HEAD = LazyPattern(
    r"^(?:(?:hey|hi|hello|yo|ok|okay|so|um|uh|oh|assistant|bot|actually|wait|sorry|also|and|btw"
    r"|by\s+the\s+way|yes|yeah|no|alright|right|listen|oops|hmm|quick\s+one)\b[,!]?\s+)*"
    r"(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?(?:mind\s+|just\s+)?"
    r"|(?:do|would)\s+you\s+mind\s+|i\s+(?:need|want|would\s+like|'d\s+like)\s+you\s+to\s+"
    r"|i\s+(?:need|want)\s+to\s+(?=be\s+reminded)|please\s+could\s+you\s+)?"
    r"(?:please\s+|pls\s+|plz\s+|kindly\s+|just\s+)?",
    re.IGNORECASE,
)
_POLITE_TAIL = LazyPattern(
    r"(?:[\s,]+(?:please|pls|plz|thanks|thank\s+you|thx|for\s+me))+$|[\s.!?\u2026]+$",
    re.IGNORECASE,
)
_EDGES = " ,;:-\u2013\u2014"
# Contractions typed without the apostrophe. Only words that are nothing else: "its", "ill",
# "well", "were", "lets", "id" ("I'd", and a task's id) and "hell" stay as typed.
_CONTRACTIONS = {
    word.replace("'", ""): word
    for word in (
        "what's", "where's", "when's", "who's", "how's", "that's", "there's", "here's",
        "don't", "doesn't", "didn't", "isn't", "aren't", "wasn't", "weren't", "can't",
        "couldn't", "wouldn't", "shouldn't", "won't", "haven't", "hasn't", "hadn't", "i'm",
        "i've", "you're", "they're", "today's", "tomorrow's",
    )
}  # fmt: skip
_BARE_CONTRACTION = LazyPattern(r"\b(?:" + "|".join(_CONTRACTIONS) + r")\b", re.IGNORECASE)
# A typographic apostrophe between letters is the apostrophe: "what\u2019s".
_CURLY_APOSTROPHE = LazyPattern(r"(?<=\w)[\u2019\u02bc](?=\w)")
_DOUBLED_END = LazyPattern(r"([b-df-hj-km-np-rtv-z])\1$")


def squash(text: str) -> str:
    """Collapse runs of whitespace to one space and trim the ends."""
    return _SPACES.sub(" ", text).strip()


def unquote(text: str) -> str:
    """Strip one pair of matching quotes around ``text`` (after trimming)."""
    text = text.strip()
    if len(text) >= 2 and _QUOTES.get(text[0]) == text[-1]:
        return text[1:-1].strip()
    return text


def with_apostrophes(text: str) -> str:
    """Put back the apostrophe of contractions typed without one: "whats" is "what's",
    "dont" is "don't", "im" is "I'm"; a typographic apostrophe becomes the plain one."""
    text = _CURLY_APOSTROPHE.sub("'", text)

    def restore(match: re.Match[str]) -> str:
        typed = match[0]
        full = _CONTRACTIONS[typed.lower()]
        if full.startswith("i'"):
            return "I" + full[1:]
        return full[0].upper() + full[1:] if typed[0].isupper() else full

    return _BARE_CONTRACTION.sub(restore, text)


def stem(word: str) -> str:
    """A word's stem, for comparing words by their root: "stretching", "stretches" and
    "stretch" are all "stretch"; "alarms" is "alarm"; "called" is "call".

    A light suffix stripper (plurals and possessives, -ing, -ed, a final -e), not a
    dictionary: two forms of one word get one stem, and a stem need not be a word.
    """
    w = word.lower().strip("'")
    w = w.removesuffix("'s")
    if len(w) > 4 and w.endswith("ies"):
        w = w[:-3] + "y"
    elif len(w) > 3 and w.endswith("es") and w[:-2].endswith(("s", "x", "z", "ch", "sh")):
        w = w[:-2]
    elif len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    for suffix in ("ing", "ed"):
        if len(w) > len(suffix) + 2 and w.endswith(suffix) and not w.endswith("eed"):
            w = w[: -len(suffix)]
            if len(w) >= 4:
                w = _DOUBLED_END.sub(r"\1", w)  # "running" is "run"; "calling" keeps its ll
            break
    if len(w) > 3 and w.endswith("e"):
        w = w[:-1]
    return w


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
        text = unquote(with_apostrophes(squash(raw)))
        said = text.rstrip(" .!?\u2026")
        previous = None
        while previous != text:
            previous = text
            text = _POLITE_TAIL.sub("", text)
            text = _POLITE_HEAD.sub("", text, count=1).strip()
        text = unquote(text)
        return cls(text, text.lower(), said)

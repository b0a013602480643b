"""Cut text into the tokens the grammar reads, each in one canonical spelling.

``tokenize("Remind me tmrw @ 8:45a, twenty-first of Aug")`` gives tokens whose ``text`` is
``remind me tomorrow at 8:45am 21st of aug``: lower case, slang and misspellings read as the
vocabulary word (``read_as`` keeps what was written, for the reply), spelled numbers as digits
("twenty one" 21, "two and a half" 2.5, "six oh five" 6 05), ordinals as ``21st``, clock times
as ``h:mm[:ss][am|pm]``, compact durations ("1h30m") as their words. Every token keeps the
characters it came from (``start``, ``end``), so a sentence can be cut around its time.
Commas, brackets and quotes are dropped; a full stop, "!", "?" or ";" marks the token before it
(``stop``): a time expression does not cross it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Literal

from common import LazyPattern
from tasks.schedule.lexicon import (
    CARDINALS,
    KNOWN_WORDS,
    MONTHS,
    ORDINAL_UNITS,
    ORDINAL_WORDS,
    SLANG,
    TENS,
    UNITS,
    WEEKDAYS,
    ordinal,
    repair,
    slang,
)

TokenKind = Literal["word", "number", "ordinal", "clock", "date", "iso", "punct", "cron"]

MAX_TOKENS = 4000
"""The most tokens one text is cut into; the rest is ignored (a message is shorter)."""


@dataclass(frozen=True, slots=True)
class Token:
    """One token of the text.

    Attributes:
        text: Its canonical spelling, what the grammar matches.
        kind: What it is.
        start: Where it starts in the original text.
        end: Where it ends (exclusive).
        read_as: When a slang word or a misspelling was read as a vocabulary word: the
            words as written ("tmrw"), for the reply to name; else ``None``.
        repaired: Whether the reading is a guess at a misspelling (not a known short form).
        stop: Whether a full stop, "!", "?" or ";" follows it.
    """

    text: str
    kind: TokenKind
    start: int
    end: int
    read_as: str | None = None
    repaired: bool = False
    stop: bool = False


_AP = r"(?:\s?[ap]\.\s?m\b\.?|\s?[ap]m\b|[ap](?![a-z\d]))"
_SCAN = LazyPattern(
    rf"""
    (?P<iso>\d{{4}}-\d{{2}}-\d{{2}}(?:[t\ ]\d{{2}}:\d{{2}}(?::\d{{2}}(?:\.\d+)?)?
        (?:z|[+-]\d{{2}}(?::?\d{{2}})?)?)?(?![\d:])(?!-))
    | (?P<ish>\d{{1,2}}(?::\d{{2}})?(?:\s?[ap]m)?-?ish(?![a-z]))
    | (?P<ymd>\d{{4}}/\d{{1,2}}/\d{{1,2}}(?![\d/]))
    | (?P<slashed>\d{{1,2}}/\d{{1,2}}(?:/(?:\d{{4}}|\d{{2}}))?(?![\d/]))
    | (?P<dotted>\d{{1,2}}\.\d{{1,2}}\.(?:\d{{4}}|\d{{2}})?(?![\d.]))
    | (?P<clock>\d{{1,2}}(?::\d{{2}}){{1,2}}(?![\d:]){_AP}?)
    | (?P<dotclock>\d{{1,2}}\.\d{{2}}{_AP})
    | (?P<hclock>\d{{1,2}}h\d{{2}}(?![\d:a-z]))
    | (?P<ampm>\d{{1,2}}{_AP})
    | (?P<milclock>\d{{3,4}}(?:\s?[ap]\.\s?m\b\.?|\s?[ap]m\b))
    | (?P<compact>(?:\d+(?:\.\d+)?(?:secs?|s|mins?|m|hrs?|h|d|wks?|w)){{2,}}(?![a-z\d])
        | \d+(?:\.\d+)?(?:secs?|mins?|hrs?|wks?|[smhdw])(?![a-z\d]))
    | (?P<ordinal>\d{{1,2}}(?:st|nd|rd|th)(?![a-z]))
    | (?P<slang>2(?:moro|morrow|mrw|mro|day|nite|night)(?![a-z]))
    | (?P<number>\d+(?:\.\d+)?)
    | (?P<word>[a-z][a-z'’]*(?:-[a-z]+)*)
    | (?P<punct>[-/&@*+])
    | (?P<stop>[.!?;:]+)
    | (?P<other>\S)
    """,
    re.VERBOSE | re.IGNORECASE,
)
_CODE = LazyPattern(r"(?<![\w'’])(?P<letters>[a-z]+)\d[a-z\d]*(?![\w'’])", re.IGNORECASE)
"""Letters then digits, as one word: an order number, a ticket, a task id ("hac2nd", "kx5d")."""
_GLUED_TO_A_TIME = KNOWN_WORDS | SLANG.keys() | {"at", "in", "on", "by", "for", "x"}
"""Words a time may be written against ("at8pm", "jan5", "fri3pm"): these still split."""
_MERIDIEM = LazyPattern(r"(?<=[\d\s])([ap])")
_DROPPED = frozenset(",()[]{}\"'“”‘’«»")
"""Characters left out: commas, brackets and quotes say nothing about a time."""
_COMPACT_PART = LazyPattern(r"(\d+(?:\.\d+)?)(secs?|s|mins?|m|hrs?|h|d|wks?|w)")
_PUNCT_WORDS = {"&": "and", "@": "at", "+": "and"}
# A dot after these is an abbreviation's, not the end of a sentence ("fri. at 5pm").
_ABBREVIATIONS = frozenset(
    {name for name in WEEKDAYS if len(name) <= 4}
    | {name for name in MONTHS if len(name) <= 4}
    | {"st", "nd", "rd", "th", "mins", "min", "hrs", "hr", "sec", "secs", "approx", "ca", "jr"}
)


def tokenize(text: str) -> list[Token]:
    """Cut ``text`` into canonical tokens (see the module's docstring)."""
    raw = _scan(text)
    words = _read_words(raw)
    return _read_numbers(words)


def canonical(tokens: list[Token]) -> str:
    """The tokens' canonical spellings joined by single spaces."""
    return " ".join(token.text for token in tokens)


def _scan(text: str) -> list[Token]:
    tokens: list[Token] = []
    codes = _codes(text)
    for match in _SCAN.finditer(text):
        if len(tokens) >= MAX_TOKENS:
            break
        kind = match.lastgroup
        start, end = match.span()
        while codes and codes[-1][1] <= start:
            codes.pop()
        if codes and codes[-1][0] <= start:
            code_start, code_end = codes[-1]
            if start == code_start:
                tokens.append(Token(text[code_start:code_end].lower(), "word", start, code_end))
            continue
        said = match.group().lower().replace("’", "'")
        if kind == "stop":
            if tokens and not (said == "." and tokens[-1].text in _ABBREVIATIONS):
                tokens[-1] = replace(tokens[-1], stop=True)
            continue
        if kind == "other":
            if said not in _DROPPED:
                tokens.append(Token(said, "punct", start, end))  # "2^10" is no clock time
            continue
        tokens.extend(_tokens_of(kind, said, start, end))
    return tokens


def _codes(text: str) -> list[tuple[int, int]]:
    """Where ``text`` holds a code of letters and digits ("ticket ab2nd", "invoice kx5d"),
    last first: its end would otherwise read as a time ("2nd", "5 days"). A code that
    starts with a word a time is written against ("at8pm", "jan5") is no code."""
    found = [
        match.span()
        for match in _CODE.finditer(text)
        if match["letters"].lower() not in _GLUED_TO_A_TIME
    ]
    return found[::-1]


def _tokens_of(kind: str | None, said: str, start: int, end: int) -> list[Token]:
    if kind == "iso":
        return [Token(said.upper().replace(" ", "T"), "iso", start, end)]
    if kind in {"ymd", "slashed"}:
        return [Token(said, "date", start, end)]
    if kind == "dotted":  # "22.04." keeps its dot: "22.04" alone is a number (or 22:04)
        return [Token(said if said.count(".") == 2 else f"{said}.", "date", start, end)]
    if kind == "slang":
        return [Token(said, "word", start, end)]
    if kind == "ish":  # "7ish", "5pm-ish": about then, read as then ("7ish" as "at 7")
        core = said.removesuffix("ish").rstrip("-")
        found = _SCAN.fullmatch(core)
        assert found is not None
        tokens = _tokens_of(found.lastgroup, core, start, end)
        if found.lastgroup == "number":
            return [Token("at", "word", start, end), *tokens]
        return tokens
    if kind in {"clock", "dotclock", "hclock", "ampm", "milclock"}:
        return [Token(_clock_text(kind, said), "clock", start, end)]
    if kind == "compact":
        parts: list[Token] = []
        for amount, unit in _COMPACT_PART.findall(said):
            parts.append(Token(amount, "number", start, end))
            parts.append(Token(UNITS[unit] + "s", "word", start, end))
        return parts
    if kind == "ordinal":
        return [Token(said, "ordinal", start, end)]
    if kind == "number":
        return [Token(said, "number", start, end)]
    if kind == "punct":
        word = _PUNCT_WORDS.get(said)
        return [Token(word, "word", start, end)] if word else [Token(said, "punct", start, end)]
    return [Token(said.replace("’", "'"), "word", start, end)]


def _clock_text(kind: str, said: str) -> str:
    """A clock token as ``h:mm[:ss]`` with ``am`` or ``pm`` when it said one."""
    found = _MERIDIEM.search(said)
    meridiem = f"{found.group(1)}m" if found else ""
    digits = re.findall(r"\d+", said)
    if kind == "ampm":
        return f"{digits[0]}:00{meridiem}"
    if kind == "milclock":
        return f"{digits[0][:-2]}:{digits[0][-2:]}{meridiem}"
    return ":".join([digits[0], *(f"{d:0>2}" for d in digits[1:3])]) + meridiem


def _read_words(tokens: list[Token]) -> list[Token]:
    """Slang and misspellings read as vocabulary words; the spelling kept in ``read_as``."""
    read: list[Token] = []
    for token in tokens:
        if token.kind != "word":
            read.append(token)
            continue
        word = token.text.strip("'")
        halves = word.split("-")
        if len(halves) == 2 and all(half in WEEKDAYS for half in halves):  # "mon-fri"
            read += [replace(token, text=halves[0]), replace(token, text="-", kind="punct")]
            read.append(replace(token, text=halves[1]))
            continue
        if word.endswith("ish") and word[:-3] in {"noon", "midnight", "midday", "lunchtime"}:
            word = word[:-3]  # "noonish"
        if (short := slang(word)) is not None:
            read.append(replace(token, text=short, read_as=word))
        elif (fixed := repair(word)) is not None:
            read.append(replace(token, text=fixed, read_as=word, repaired=True))
        else:
            read.append(replace(token, text=word or token.text))
    return read


def _read_numbers(tokens: list[Token]) -> list[Token]:
    """Spelled numbers as digits: "twenty one" 21, "twenty-first" 21st, "two and a half"
    2.5, "six oh five" 6 05, "a couple of" 2, "a dozen" 12."""
    out: list[Token] = []
    index = 0
    while index < len(tokens):
        merged, used = _number_at(tokens, index)
        if merged is None:
            out.append(tokens[index])
            index += 1
            continue
        out.append(merged)
        index += used
    return out


def _number_at(tokens: list[Token], index: int) -> tuple[Token | None, int]:
    token = tokens[index]
    word = token.text
    following = tokens[index + 1] if index + 1 < len(tokens) else None
    nxt = following.text if following is not None and not token.stop else ""
    if word in ORDINAL_WORDS and word != "second":
        return _joined(tokens, index, 1, f"{ordinal(ORDINAL_WORDS[word])}", "ordinal"), 1
    if "-" in word and word.split("-", 1)[0] in TENS:
        tens, unit = word.split("-", 1)
        if unit in CARDINALS and 1 <= CARDINALS[unit] <= 9:
            return _joined(tokens, index, 1, str(TENS[tens] + CARDINALS[unit]), "number"), 1
    if word == "three" and nxt == "quarters" and _text_at(tokens, index + 2) == "of":
        used = 4 if _text_at(tokens, index + 3) in {"a", "an"} else 3
        return _joined(tokens, index, used, "0.75", "number"), used
    if word in TENS:
        if nxt in CARDINALS and 1 <= CARDINALS[nxt] <= 9:
            return _joined(tokens, index, 2, str(TENS[word] + CARDINALS[nxt]), "number"), 2
        if (nxt in ORDINAL_UNITS and ORDINAL_UNITS[nxt] <= 9) or nxt == "second":
            day = TENS[word] + (2 if nxt == "second" else ORDINAL_UNITS[nxt])
            return _joined(tokens, index, 2, ordinal(day), "ordinal"), 2
        return _with_half(tokens, index, TENS[word])
    if word in CARDINALS:
        return _with_half(tokens, index, CARDINALS[word])
    if word == "oh" and _after_hour(tokens, index):
        digit = CARDINALS.get(nxt)
        if digit is not None and 1 <= digit <= 9:
            return _joined(tokens, index, 2, f"0{digit}", "number"), 2
    if word in {"a", "one"} and nxt == "hundred":
        return _joined(tokens, index, 2, "100", "number"), 2
    if word == "a" and nxt in {"couple", "dozen", "few"}:
        value = {"couple": 2, "dozen": 12, "few": 3}[nxt]
        used = 3 if _text_at(tokens, index + 2) == "of" and nxt == "couple" else 2
        return _joined(tokens, index, used, str(value), "number"), used
    if token.kind == "number" and not token.stop:
        return _with_half(tokens, index, None)
    return None, 1


def _after_hour(tokens: list[Token], index: int) -> bool:
    """Whether the "oh" at ``index`` follows an hour ("six oh five", "7 oh 5")."""
    if index == 0 or tokens[index - 1].stop:
        return False
    before = tokens[index - 1]
    return before.kind == "number" or before.text in CARDINALS


_FRACTION_WORDS = {"half": 0.5, "quarter": 0.25}


def _with_half(tokens: list[Token], index: int, value: int | None) -> tuple[Token | None, int]:
    """A number, "N and a half" as N.5, "N and a quarter" as N.25, "N hundred" as N00."""
    words = [_text_at(tokens, index + k) for k in range(1, 4)]
    base = float(value) if value is not None else float(tokens[index].text)
    if (
        words[:2] == ["and", "a"]
        and words[2] in _FRACTION_WORDS
        and not any(t.stop for t in tokens[index : index + 3])
    ):
        return _joined(
            tokens, index, 4, _number_text(base + _FRACTION_WORDS[words[2]]), "number"
        ), 4
    if words[0] == "hundred" and not tokens[index].stop and base.is_integer():
        return _joined(tokens, index, 2, _number_text(base * 100), "number"), 2
    if value is None:
        return None, 1
    return _joined(tokens, index, 1, str(value), "number"), 1


def _number_text(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def _text_at(tokens: list[Token], index: int) -> str:
    return tokens[index].text if index < len(tokens) else ""


def _joined(tokens: list[Token], index: int, count: int, text: str, kind: TokenKind) -> Token:
    """One token standing for ``tokens[index:index + count]``."""
    first, last = tokens[index], tokens[index + count - 1]
    said = [t.read_as for t in tokens[index : index + count] if t.read_as]
    return Token(
        text,
        kind,
        first.start,
        last.end,
        read_as=" ".join(said) if said else None,
        repaired=any(t.repaired for t in tokens[index : index + count]),
        stop=last.stop,
    )

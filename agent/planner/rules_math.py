"""Arithmetic: "what is 12 times 12?", "calculate (3 + 4) * 2", "what's 15% of 80".

Computed exactly (fractions, never floating point) by a small parser of its own: numbers,
``+ - * / ^``, the words for them, parentheses and "N% of". Anything else in the sentence
and the rule does not apply, so "what is 9 to 5" stays a question for the other rules.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from agent.planner.intents import Intent, Say
from agent.planner.rule import Context, Rule
from agent.planner.text import Message
from common import LazyPattern

_F = re.IGNORECASE
_ASKED = LazyPattern(
    r"(?:(?:what|how\s+much)(?:'s|\s+is|\s+are|\s+does)|calculate|compute|evaluate|solve)"
    r"\s+(?P<sum>.+?)(?:\s+(?:equal|make|come\s+to))?\s*=?\s*\??",
    _F,
)
_BARE = LazyPattern(r"(?P<sum>[\d\s.,()+\-*/x×÷^%]+?)\s*=?\s*\??", _F)
_WORDS = (
    (re.compile(r"\bmultiplied\s+by\b|\btimes\b|\bx\b|×", _F), "*"),
    (re.compile(r"\bdivided\s+by\b|\bover\b|÷", _F), "/"),
    (re.compile(r"\bplus\b|\band\b", _F), "+"),
    (re.compile(r"\bminus\b|\bless\b", _F), "-"),
    (re.compile(r"\bto\s+the\s+power\s+of\b", _F), "^"),
    (re.compile(r"\bsquared\b", _F), "^2"),
    (re.compile(r"\bcubed\b", _F), "^3"),
    (re.compile(r"%\s*of\b|\bpercent\s+of\b", _F), "%*"),
)
_TOKEN = LazyPattern(r"\s*(?:(?P<number>\d+(?:\.\d+)?|\.\d+)|(?P<op>[-+*/^()%]))")
_ISO_DATE = LazyPattern(r"\d{4}-\d{1,2}-\d{1,2}")
_THOUSANDS = LazyPattern(r"(?<=\d),(?=\d{3}\b)")
_MAX_DIGITS = 40
_MAX_POWER = 64


class _NotArithmetic(ValueError):
    """The text is not an expression this rule reads."""


@dataclass(frozen=True, slots=True)
class Computed:
    """An expression and its value.

    Attributes:
        shown: The expression as it is written back ("12 × 12").
        value: Its exact value, or ``None`` when it has none (a division by zero).
    """

    shown: str
    value: Fraction | None


def compute(text: str) -> Computed | None:
    """The value of the arithmetic ``text`` states, or ``None`` when it is not arithmetic."""
    if _ISO_DATE.search(text):
        return None
    spelled = _THOUSANDS.sub("", text)
    for pattern, symbol in _WORDS:
        spelled = pattern.sub(f" {symbol} ", spelled)
    tokens = _tokens(spelled)
    if tokens is None or not any(t in "+-*/^%" for t in tokens) or len(tokens) < 3:
        return None
    try:
        reader = _Reader(tokens)
        value = reader.expression()
        reader.end()
    except _NotArithmetic:
        return None
    except ZeroDivisionError:
        return Computed(_shown(tokens), None)
    return Computed(_shown(tokens), value)


def arithmetic(message: Message, context: Context) -> Intent | None:
    """ "what is 12 times 12?": the answer, computed."""
    match = _ASKED.fullmatch(message.said) or _BARE.fullmatch(message.said)
    if match is None:
        return None
    computed = compute(match["sum"])
    if computed is None:
        return None
    if computed.value is None:
        return Say(f"{computed.shown} has no value: it divides by zero.")
    return Say(f"{computed.shown} = {_number(computed.value)}")


def _tokens(text: str) -> list[str] | None:
    tokens: list[str] = []
    position = 0
    text = text.strip()
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None:
            return None
        tokens.append(match["number"] or match["op"])
        position = match.end()
        while position < len(text) and text[position].isspace():
            position += 1
    return tokens


class _Reader:
    """Reads tokens by precedence: sums of products of signed powers of atoms."""

    def __init__(self, tokens: list[str]) -> None:
        self._tokens = tokens
        self._at = 0

    def end(self) -> None:
        if self._at != len(self._tokens):
            raise _NotArithmetic(self._tokens[self._at])

    def expression(self) -> Fraction:
        value = self._product()
        while self._peek() in ("+", "-"):
            op = self._take()
            right = self._product()
            value = value + right if op == "+" else value - right
        return value

    def _product(self) -> Fraction:
        value = self._power()
        while self._peek() in ("*", "/", "%"):
            op = self._take()
            if op == "%":  # "15% of 80": a percentage times what follows
                if self._peek() != "*":
                    raise _NotArithmetic("%")
                self._take()
                value = value / 100 * self._power()
                continue
            right = self._power()
            value = value * right if op == "*" else value / right
        return value

    def _power(self) -> Fraction:
        if self._peek() in ("+", "-"):
            sign = -1 if self._take() == "-" else 1
            return sign * self._power()
        base = self._atom()
        if self._peek() != "^":
            return base
        self._take()
        exponent = self._power()
        if exponent.denominator != 1 or abs(exponent) > _MAX_POWER:
            raise _NotArithmetic(str(exponent))
        return base ** int(exponent)

    def _atom(self) -> Fraction:
        token = self._take()
        if token == "(":
            value = self.expression()
            if self._take() != ")":
                raise _NotArithmetic("(")
            return value
        if token and (token[0].isdigit() or token[0] == "."):
            if len(token) > _MAX_DIGITS:
                raise _NotArithmetic(token)
            return Fraction(token)
        raise _NotArithmetic(token)

    def _peek(self) -> str:
        return self._tokens[self._at] if self._at < len(self._tokens) else ""

    def _take(self) -> str:
        token = self._peek()
        self._at += 1
        return token


_SYMBOLS: dict[str, str] = {"*": "×", "/": "÷"}


def _shown(tokens: list[str]) -> str:
    """The expression written back: binary operators spaced, signs and powers not."""
    out = ""
    previous = ""
    for token in tokens:
        unary = token in "+-" and (not previous or previous in "+-*/^%(")
        if token in "()%^" or unary or token[0].isdigit() or token[0] == ".":
            out += token
        else:
            out += f" {_SYMBOLS.get(token, token)} "
        previous = token
    return re.sub(r"\s+", " ", out.replace("% × ", "% of ")).strip()


def _number(value: Fraction) -> str:
    if value.denominator == 1:
        return f"{value.numerator:,}" if abs(value) >= 10_000 else str(value.numerator)
    decimal = f"{float(value):.10g}"
    exact = Fraction(decimal) == value
    return decimal if exact else f"{decimal} (about; exactly {value})"


ARITHMETIC = Rule("arithmetic", arithmetic)

"""Text a server wrote, made fit to show: to the model, in a catalog, in a log line.

A server's descriptions, answers and error messages may carry what is not text for anyone: a
terminal's escape sequences (colours, clearing the screen), control characters, characters
that reverse the direction of what follows (and so hide what a line says), NUL and lone
surrogates (which no database stores). They are removed here, once for every use.
"""

from __future__ import annotations

from common import LazyPattern, clean_text

_ESCAPE = LazyPattern(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|[@-Z\\-_])")
_CONTROL = LazyPattern(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")


def readable(text: str) -> str:
    """``text`` without escape sequences and control characters (lines and tabs kept)."""
    return clean_text(_CONTROL.sub("", _ESCAPE.sub("", text)))


def one_line(value: object, limit: int = 300) -> str:
    """``value`` (text, else nothing) as one readable line of at most ``limit`` characters."""
    text = " ".join(readable(value).split()) if isinstance(value, str) else ""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"

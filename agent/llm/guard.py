"""Stop a small model that loops or recites its prompt, and cut what it wrote that way.

Models of a few hundred million parameters fall into loops ("I'm sorry for any other
mistakes." thirty times, "ArgumentParser(" for 500 tokens) and recite the tool catalog they
were shown. A ``ReplyGuard`` watches the text as it is decoded: it says stop once the text's
tail has appeared more than ``MAX_REPEATS`` times, or once a whole line of it is a line of the
prompt (or the start of one); ``cut`` then keeps only what came before the loop or the recital.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

MAX_REPEATS = 3
"""The tail of a reply may appear this many times; once more and decoding stops."""
TAIL_CHARS = 24
"""How much of the reply's end is looked for earlier in it."""
ECHO_CHARS = 24
"""A line at least this long that is also a line of the prompt is a recital."""

_SENTENCE_END = re.compile(r"[.!?](?=\s|$)|\n")


class ReplyGuard:
    """Watches a reply as it is decoded; see the module docstring.

    Args:
        prompt_lines: The lines of the text the model was given (system prompt, tools).
    """

    def __init__(self, prompt_lines: Iterable[str] = ()) -> None:
        every = frozenset(line.strip() for line in prompt_lines if line.strip())
        self._every = every
        self._prompt = frozenset(line for line in every if len(line) >= ECHO_CHARS)
        self._text = ""
        self._checked_lines = 0

    def feed(self, piece: str) -> bool:
        """Take the next decoded piece; return ``True`` when decoding should stop."""
        self._text += piece
        return self._loops() or self._recites()

    def cut(self, text: str) -> str:
        """Return ``text`` without its loop or recital (``text`` itself when it has neither)."""
        kept = _before_loop(text)
        lines = kept.split("\n")
        for index, line in enumerate(lines):
            if self._recited(line):
                # The lines just before it that are the prompt's too (a heading) go with it.
                while index and (
                    not lines[index - 1].strip() or lines[index - 1].strip() in self._every
                ):
                    index -= 1
                kept = "\n".join(lines[:index])
                break
        return kept.strip()

    def _loops(self) -> bool:
        return _repeats(self._text) > MAX_REPEATS

    def _recites(self) -> bool:
        lines = self._text.split("\n")
        fresh, self._checked_lines = lines[self._checked_lines : -1], len(lines) - 1
        return any(map(self._recited, fresh)) or (
            len(lines[-1]) >= 2 * ECHO_CHARS and (self._recited(lines[-1]))
        )

    def _recited(self, line: str) -> bool:
        """Whether ``line`` is a line of the prompt, or the start of one (decoding stopped)."""
        said = line.strip()
        if len(said) < ECHO_CHARS:
            return False
        return said in self._prompt or any(each.startswith(said) for each in self._prompt)


def _repeats(text: str) -> int:
    """How many times the end of ``text`` appears in it (0 while it is short or blank)."""
    tail = text[-TAIL_CHARS:]
    if len(tail) < TAIL_CHARS or not tail.strip():
        return 0
    return text.count(tail)


def _before_loop(text: str) -> str:
    """``text`` up to where its loop starts again, ended at a sentence when one ends there."""
    for end in range(len(text), TAIL_CHARS - 1, -1):
        if _repeats(text[:end]) > MAX_REPEATS:
            tail = text[end - TAIL_CHARS : end]
            first = text.find(tail)
            again = text.find(tail, first + 1)
            # One whole turn of the loop, then back to the last sentence's end in it.
            stops = [m.end() for m in _SENTENCE_END.finditer(text[: again + TAIL_CHARS])]
            return text[: stops[-1]] if stops else text[:again]
    return text

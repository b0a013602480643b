"""Keep a model's plain answer on the subject: cut it at the first sign of drift.

Small models answer a question and then go on: they ask themselves the next question and
answer it, write the next turn of the chat ("User: ..."), talk about the conversation ("The
user asked you to ..."), repeat the question or the examples they were shown, or slide into
words of another script. ``judge`` reads an answer sentence by sentence (a sentence ends at
``.``, ``!``, ``?`` or a line break) and keeps what came before the first such sign; a
question the answer merely repeats at its start is dropped. For a small model (``small``)
the answer is also capped (``MAX_SENTENCES``, ``MAX_CHARS``) and a trailing fragment after
its last whole sentence is left out. ``DriftGuard`` applies the same judgement while the
answer streams, so decoding stops at the first sign and only judged text is shown.

When nothing of an answer is left, it was off the subject from its first word: the agent
then says so instead of showing it (``OFF_TOPIC``).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from agent.llm.grammar import CALL_OPENERS
from common import LazyPattern

MAX_SENTENCES = 3
"""The most sentences a small model's answer keeps."""
MAX_CHARS = 480
"""The most characters a small model's answer keeps."""

OFF_TOPIC = (
    "I have no good answer to that: the language model's reply went off the subject, so I "
    "left it out. Try asking it another way. Reminders, repeating tasks, notes, lists, the "
    "time and arithmetic I do myself, without the model (say 'help')."
)

_ENDS = ".!?"
_CLOSERS = "\"')]\u201d\u2019"
_ROLE = LazyPattern(
    r"^\s*(?:user|assistant|human|ai|bot|model|system|q|a|question|answer|response"
    r"|instruction|you|me)\s*:",
    re.IGNORECASE,
)
_ABOUT_THE_CHAT = LazyPattern(
    r"\bthe (?:user|assistant)\b|\byour (?:response|answer|reply)\b", re.IGNORECASE
)
_WORD = LazyPattern(r"[^\W_]+")
_SENTENCE_END = LazyPattern(r"[.!?][\"')\]\u201d\u2019]*$")
_ECHO_CHARS = 12
_ECHO_SHARE = 0.8


@dataclass(frozen=True, slots=True)
class Judged:
    """An answer after the judgement.

    Attributes:
        text: What is kept.
        settled: How much of ``text`` stands whatever follows (shown while streaming).
        stop: Decoding should stop: drift was seen, or the cap was reached.
        drifted: Something was cut or dropped as drift (not merely capped).
    """

    text: str
    settled: str
    stop: bool
    drifted: bool

    @property
    def off_topic(self) -> bool:
        """Nothing is left of an answer that drifted from its start."""
        return self.drifted and not self.text.strip()


@dataclass(frozen=True, slots=True)
class _Piece:
    text: str
    whole: bool  # its end was seen (a sentence end or a line break)


def judge(
    text: str,
    *,
    question: str,
    examples: Sequence[str] = (),
    small: bool = False,
    finished: bool = True,
) -> Judged:
    """Keep ``text`` up to its first sign of drift; see the module docstring.

    Args:
        text: The answer so far.
        question: The user's message it answers.
        examples: Other texts the model was shown (example exchanges): repeating one is drift.
        small: The model is small: cap the answer, cut trailing fragments.
        finished: The answer is complete (else its last piece may still grow).
    """
    text, foreign = _before_foreign_script(text, [question, *examples], small=small)
    pieces = _pieces(text, small=small, finished=finished)
    asked = _normal(question)
    shown = [_normal(each) for each in examples if len(_normal(each)) >= _ECHO_CHARS]
    chat_words = bool(_ABOUT_THE_CHAT.search(question))
    kept: list[_Piece] = []
    drifted, stop = foreign, foreign
    for index, piece in enumerate(pieces):
        said = piece.text.strip()
        if not said:
            kept.append(piece)
            continue
        if not piece.whole:
            kept.append(piece)
            break
        normal = _normal(said)
        opening = not any(p.text.strip() for p in kept)
        if opening and _echoes(normal, asked):
            drifted = True
            continue
        # A question answered by what follows it: the model asks and answers itself.
        after = next((p.text.strip() for p in pieces[index + 1 :] if p.text.strip()), "")
        answered = bool(after) and not _ROLE.match(after)
        if (
            _ROLE.match(said)
            or any(_echoes(normal, each) for each in shown)
            or (not opening and _echoes(normal, asked))
            or (_ABOUT_THE_CHAT.search(said) and not chat_words)
            or (said.endswith("?") and not opening and answered and _answered(kept))
        ):
            drifted = stop = True
            break
        kept.append(piece)
        if small and _over_cap(kept):
            kept.pop()
            stop = True
            break
    if small and (finished or stop):
        whole = _whole_sentences(kept, drifted=drifted)
        drifted = drifted or "".join(p.text for p in kept[len(whole) :]).strip() != ""
        kept = whole
    kept_text = "".join(p.text for p in kept).strip()
    return Judged(kept_text, _settled(kept, finished or stop), stop, drifted)


class DriftGuard:
    """``judge`` applied while an answer streams.

    ``feed`` takes each piece the model writes and returns what may be shown now; once
    ``stop`` is true the rest of the answer is not wanted (the caller closes the stream).
    ``finish`` judges the whole answer.
    """

    def __init__(
        self,
        *,
        question: str,
        examples: Sequence[str] = (),
        small: bool = False,
        tools: bool = False,
    ) -> None:
        """Watch one answer.

        Args:
            question: The user's message it answers.
            examples: Other texts the model was shown; repeating one is drift.
            small: The model is small (see ``judge``).
            tools: The model was offered tools, so its text may hold calls.
        """
        self._question = question
        self._examples = tuple(examples)
        self._small = small
        self._tools = tools
        self._text = ""
        self._shown = ""
        self.stop = False
        self.calls = False

    def feed(self, piece: str) -> str:
        """Take the next piece; return the text newly judged fit to show ("" if none).

        Text that may open a tool call (in the text contract) ends the judging: a call is
        no answer to judge, and nothing after its opening is shown while it streams.
        """
        if self.stop or self.calls:
            return ""
        if self._tools and any(char in CALL_OPENERS for char in piece):
            self.calls = True
            piece = piece[: min(piece.index(c) for c in CALL_OPENERS if c in piece)]
        self._text += piece
        judged = judge(
            self._text,
            question=self._question,
            examples=self._examples,
            small=self._small,
            finished=False,
        )
        self.stop = judged.stop
        if not judged.settled.startswith(self._shown):
            return ""
        fresh, self._shown = judged.settled[len(self._shown) :], judged.settled
        return fresh

    def finish(self, text: str) -> Judged:
        """Judge the whole answer (``text``: as the backend returned it)."""
        return judge(text, question=self._question, examples=self._examples, small=self._small)


def _pieces(text: str, *, small: bool, finished: bool) -> list[_Piece]:
    """``text`` cut into sentences and lines, each with the spacing before it."""
    pieces: list[_Piece] = []
    start = 0
    index = 0
    while index < len(text):
        char = text[index]
        end = None
        if char == "\n":
            end = index + 1
        elif char in _ENDS:
            stop = index + 1
            while stop < len(text) and (text[stop] in _ENDS or text[stop] in _CLOSERS):
                stop += 1
            after = text[stop] if stop < len(text) else ""
            # A small model glues words to a sentence's end ("Paris.iatrics"): a new piece.
            if after.isspace() or (small and after.isalpha()) or (not after and finished):
                end = stop
            index = stop - 1
        if end is not None:
            pieces.append(_Piece(text[start:end], whole=True))
            start = end
        index += 1
    if start < len(text):
        pieces.append(_Piece(text[start:], whole=finished))
    return pieces


def _answered(kept: Sequence[_Piece]) -> bool:
    """Whether something was said that is not itself a question (a joke may open with one)."""
    return any(p.text.strip() and not p.text.strip().endswith("?") for p in kept)


def _over_cap(kept: Sequence[_Piece]) -> bool:
    sentences = sum(1 for p in kept if p.text.strip().endswith(tuple(_ENDS)))
    return sentences > MAX_SENTENCES or len("".join(p.text for p in kept).strip()) > MAX_CHARS


def _whole_sentences(kept: list[_Piece], *, drifted: bool) -> list[_Piece]:
    """``kept`` without the fragments after its last whole sentence; when it has none, the
    fragment stands, unless drift was cut around it (it is then debris of the drift)."""
    ends = [i for i, p in enumerate(kept) if _SENTENCE_END.search(p.text.strip())]
    if ends:
        return kept[: ends[-1] + 1]
    return [] if drifted else kept


def _settled(kept: Sequence[_Piece], finished: bool) -> str:
    """What of ``kept`` stands whatever comes next: whole pieces, and while the answer
    runs, not a trailing question (it is drift if an answer to it follows)."""
    whole = [p for p in kept if p.whole]
    if not finished:
        while whole and (not whole[-1].text.strip() or whole[-1].text.strip().endswith("?")):
            whole.pop()
    return "".join(p.text for p in whole).strip()


def _normal(text: str) -> str:
    return " ".join(_WORD.findall(text.lower()))


def _echoes(said: str, source: str) -> bool:
    """Whether ``said`` repeats ``source`` (or starts it, or a long stretch of it), both
    normalised: the same words, or nearly ("what's" for "what is")."""
    if len(said) < _ECHO_CHARS or len(source) < _ECHO_CHARS:
        return False
    if said.startswith(source) or source.startswith(said):
        return True
    if len(said) >= 2 * _ECHO_CHARS and said in source:
        return True
    ours, theirs = _long_words(said), _long_words(source)
    return len(theirs) >= 3 and len(ours & theirs) >= _ECHO_SHARE * len(ours | theirs)


def _long_words(text: str) -> set[str]:
    return {word for word in text.split() if len(word) >= 3}


def _before_foreign_script(text: str, given: Sequence[str], *, small: bool) -> tuple[str, bool]:
    """``text`` up to its first letter, after the first sentence, of a script none of
    ``given`` uses (Latin is always allowed), and whether it was cut. The first sentence may
    hold any script ("Say こんにちは"): slid into after it, one is drift."""
    allowed = {"LATIN"} | {_script(c) for each in given for c in each if _is_letter(c)}
    start = 0
    for piece in _pieces(text, small=small, finished=True):
        start += len(piece.text)
        if piece.text.strip():
            break
    for index in range(start, len(text)):
        char = text[index]
        if _is_letter(char) and _script(char) not in allowed:
            return text[:index], True
    return text, False


def _is_letter(char: str) -> bool:
    return char.isalpha() and ord(char) > 0x24F


def _script(char: str) -> str:
    return unicodedata.name(char, "UNKNOWN").split(" ")[0]

"""Find the time expression inside a sentence: "remind me every sunday evening at 7 to plan the
week" holds "every sunday evening at 7", wherever it stands (front, middle or end).

``find_time`` needs no clock: it reads the sentence as words, takes each stretch of words that
the schedule language could own ("at", "tomorrow", "9am", "every", "3 days", ...) and asks
``parse_schedule`` which part of it is a phrase, longest first. Whether a phrase is a time does
not depend on the instant it is read at, except for having passed, so the phrases are tried
against a fixed instant and a time that has merely passed there still counts. ``find_schedule``
then resolves the phrase it found at the real instant, with the DST policy.

Choosing among several time expressions in one sentence:

- parts that only make sense together are joined ("remind me tomorrow to call mom at 6pm" is
  "tomorrow at 6pm");
- an expression right after "for", "until", "since" or "before" belongs to what is said, not to
  when ("remind me at 9am to book the flight for March 3"), unless it is the only one (its
  ``marker`` then says which word it follows, for the caller to judge);
- a bare duration ("10 minutes", "a day") is a time only where it opens the sentence or
  follows "for" or "by" ("snooze it by an hour"): elsewhere it says how long something
  lasts ("twice a day");
- a clock time after "the", "a", "my", ... names a thing ("take the 8:15 train");
- otherwise the expression that opens the sentence wins, then the one that closes it ("remind
  me at 7 to leave at 7:30": 7 o'clock).

Every step is linear in the length of the sentence: one pass to cut it into words, and at most
``MAX_ATTEMPTS`` phrases of at most ``MAX_WORDS`` words each are tried.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from tasks.errors import PastTimeError, ScheduleError
from tasks.schedule.model import Schedule, ScheduleKind
from tasks.schedule.parsing import parse_schedule
from tasks.schedule.phrases import MONTHS, NUMBER_WORDS, ORDINAL_WORDS, WEEKDAYS, read_delay

MAX_WORDS = 12
"""The longest time expression, in words, that the search tries."""
MAX_ATTEMPTS = 40
"""How many phrases one search may try at most (each costs one ``parse_schedule``)."""
_REFERENCE = datetime(1900, 1, 1, tzinfo=UTC)  # a Monday midnight: nothing said has passed yet

_TOKEN = re.compile(r"\S+")
_LEADING = "\"'([{“‘«<"
_TRAILING = "\"')]}”’»>,;:!?."
_HARD_STOPS = frozenset(";:!?.")
_AMPM_TOKEN = re.compile(r"(?:\d{1,2}(?::\d{2})?)?[ap]\.m\.?", re.IGNORECASE)
_CLOCK = re.compile(
    r"\d{1,2}(?:[:.]\d{2})?(?::\d{2})?\s*(?:[ap]m|[ap]\.m\.?)|\d{1,2}:\d{2}(?::\d{2})?|@\d{1,2}"
)
_ISO = re.compile(r"\d{4}-\d{2}-\d{2}(?:t[\d:.+\-z]*)?")
_COMPACT = re.compile(r"(?:\d+(?:\.\d+)?(?:s|m|h|d|w|secs?|mins?|hrs?|wks?))+")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_ORDINAL_DIGITS = re.compile(r"\d{1,2}(?:st|nd|rd|th)")
_CRON_FIELD = re.compile(r"[\d*/,\-?]+")

_CLEAR_MONTHS = frozenset(MONTHS) - {"may", "march", "mar", "jun", "june", "dec", "sat"}
_DAY_WORDS = frozenset(
    {
        "today", "tomorrow", "tonight", "tonite", "noon", "midnight", "midday", "morning",
        "afternoon", "evening", "night", "daily", "nightly", "hourly", "weekly", "monthly",
        "yearly", "annually", "everyday", "fortnightly", "biweekly", "weekday", "weekdays",
        "weekend", "weekends", "workday", "workdays", "fortnight", "yesterday",
    }
)  # fmt: skip
_CLEAR_WEEKDAYS = frozenset(
    name for name in WEEKDAYS if len(name) > 3 or name in {"mon", "tue", "thu", "fri"}
) | frozenset(f"{name}s" for name in WEEKDAYS if len(name) > 3)
_UNITS = frozenset(
    {
        "second", "seconds", "sec", "secs", "minute", "minutes", "min", "mins", "hour", "hours",
        "hr", "hrs", "day", "days", "week", "weeks", "wk", "wks",
    }
)  # fmt: skip
_SPELLED_AMOUNTS = frozenset({"half", "quarter", "couple", "few"})
_AMOUNTS = frozenset(NUMBER_WORDS) | _SPELLED_AMOUNTS
_AMPM = frozenset({"am", "pm", "a.m.", "p.m.", "a.m", "p.m"})
_GLUE = frozenset(
    {
        "at", "on", "in", "the", "of", "and", "&", "next", "this", "coming", "other", "every",
        "each", "from", "now", "later", "after", "o'clock", "oclock", "month", "months",
        "year", "years", "last", "a", "an", "@", "ago", "before", "past", "couple", "few",
    }
)  # fmt: skip
_NO_START = frozenset(
    {"and", "&", "of", "from", "now", "later", "o'clock", "oclock", "other", "before"}
)
_NO_END = frozenset(
    {"at", "on", "in", "the", "of", "and", "&", "next", "this", "coming", "every", "each",
     "a", "an", "from", "after", "other", "@", "last", "before"}
)  # fmt: skip
_DETERMINERS = frozenset(
    {"the", "a", "an", "my", "your", "our", "his", "her", "their", "this", "that", "its"}
)
_WEAK_AFTER = frozenset({"for", "until", "till", "since", "before", "by"})
_DURATION_AFTER = frozenset({"for", "by"})
_PAST_OR_TO = frozenset({"past", "to"})
_CLOCK_FRACTIONS = frozenset({"quarter", "half", "ten", "twenty", "five", "twenty-five"})
_ANCHORS = frozenset({"every", "each", "next", "this", "coming"})


@dataclass(frozen=True, slots=True)
class TimePhrase:
    """The time expression of a sentence.

    Attributes:
        text: The expression as the schedule language reads it ("every sunday evening at 7");
            when the sentence splits it ("tomorrow ... at 6pm"), its parts joined by a space.
        spans: Where its parts stand in the sentence, as ``(start, end)`` character offsets.
        kind: ``"once"`` or ``"recurring"``, or ``None`` when ``problem`` is set.
        problem: ``None``, or why words that are plainly a time cannot be used ("in -5
            minutes" is in the past), with one phrasing that works.
        example: The phrasing that works, when ``problem`` offers one.
        marker: The word right before it when that word makes it part of what is said rather
            than when ("for", "before", "until", "by", ...), else ``None``.
    """

    text: str
    spans: tuple[tuple[int, int], ...]
    kind: ScheduleKind | None
    problem: str | None = None
    example: str | None = None
    marker: str | None = None

    def without(self, sentence: str) -> str:
        """``sentence`` with the expression's words taken out (spaces tidied)."""
        kept, last = [], 0
        for start, end in self.spans:
            kept.append(sentence[last:start])
            last = end
        kept.append(sentence[last:])
        return " ".join(" ".join(kept).split())


@dataclass(frozen=True, slots=True)
class ScheduleMatch:
    """A time expression found in a sentence and resolved.

    Attributes:
        phrase: Where it stands and what it says.
        schedule: What it means, resolved in the zone at the instant given.
    """

    phrase: TimePhrase
    schedule: Schedule


def find_time(sentence: str) -> TimePhrase | None:
    """Find the time expression in ``sentence`` without resolving it; ``None`` when it has none.

    A stretch of words that is plainly a time but cannot be used ("in -5 minutes") is returned
    with its ``problem`` when the sentence has no usable time expression.
    """
    words = _words(sentence)
    found, refused = _Search(words).run()
    if not found:
        return refused
    strong = [c for c in found if not c.weak] or found
    if len(strong) > 1 and (joined := _joined(strong)) is not None:
        return joined
    last = len(words) - 1
    chosen = next((c for c in strong if c.first == 0), None)
    chosen = chosen or next((c for c in strong if c.last == last), strong[0])
    return chosen.phrase


def find_schedule(
    sentence: str, *, now: datetime, tz: ZoneInfo | str, recurring: bool | None = None
) -> ScheduleMatch | None:
    """Find the time expression in ``sentence`` and resolve it as of ``now`` in ``tz``.

    Returns ``None`` when the sentence holds no time expression.

    Raises:
        ScheduleError: when it holds one that cannot be used (it has passed, it is not
            recurring when it must be, ...), with what was understood and one that works.
    """
    phrase = find_time(sentence)
    if phrase is None:
        return None
    if phrase.problem is not None:
        raise ScheduleError(phrase.problem)
    return ScheduleMatch(phrase, parse_schedule(phrase.text, now=now, tz=tz, recurring=recurring))


@dataclass(frozen=True, slots=True)
class _Word:
    """One word of the sentence, its punctuation trimmed."""

    text: str  # as written
    lower: str
    start: int
    end: int
    stop_after: bool  # a full stop, colon, ... ends the stretch of time words here


def _words(sentence: str) -> list[_Word]:
    words: list[_Word] = []
    for match in _TOKEN.finditer(sentence):
        raw = match.group()
        lead = len(raw) - len(raw.lstrip(_LEADING))
        body = raw[lead:]
        keep = body if _AMPM_TOKEN.fullmatch(body) else body.rstrip(_TRAILING)
        if not keep:
            continue
        trailing = body[len(keep) :]
        start = match.start() + lead
        lower = keep.lower().replace("’", "'")
        words.append(
            _Word(keep, lower, start, start + len(keep), any(c in _HARD_STOPS for c in trailing))
        )
    return words


@dataclass(frozen=True, slots=True)
class _Found:
    phrase: TimePhrase
    first: int
    last: int

    @property
    def weak(self) -> bool:
        return self.phrase.marker is not None


class _Search:
    """Leftmost-longest search for phrases the schedule language accepts."""

    def __init__(self, words: list[_Word]) -> None:
        self._words = words
        self._attempts = 0

    def run(self) -> tuple[list[_Found], TimePhrase | None]:
        found: list[_Found] = []
        refused: TimePhrase | None = None
        index = 0
        while index < len(self._words) and self._attempts < MAX_ATTEMPTS:
            if not self._may_start(index):
                index += 1
                continue
            hit, problem, skip = self._longest_from(index)
            if hit is not None:
                found.append(hit)
            refused = refused or problem
            index = skip
        return found, refused

    def _longest_from(self, first: int) -> tuple[_Found | None, TimePhrase | None, int]:
        """The longest phrase from word ``first``, or the refusal of the whole stretch, and
        where to go on searching.

        When the longest stretch is plainly a time that cannot be used ("2 days ago",
        "tomorrow at 9am and at 5pm"), a shorter piece of it would change what was said, so
        the stretch is refused as a whole and skipped.
        """
        stretch = self._stretch(first)
        tried_longest = False
        for last in range(stretch, first - 1, -1):
            if self._words[last].lower in _NO_END or not self._has_core(first, last):
                continue
            if self._attempts >= MAX_ATTEMPTS:
                break
            self._attempts += 1
            text = " ".join(w.text for w in self._words[first : last + 1])
            span = ((self._words[first].start, self._words[last].end),)
            kind, problem = _read(text)
            before = self._words[first - 1].lower if first > 0 else ""
            marker = before if before in _WEAK_AFTER else None
            if problem is None:
                if first > 0 and marker not in _DURATION_AFTER and _bare(text):
                    return None, None, last + 1  # "twice a day": how long, not when
                phrase = TimePhrase(text, span, kind, marker=marker)
                return _Found(phrase, first, last), None, last + 1
            if not tried_longest and marker is None and problem.example is not None:
                refusal = TimePhrase(text, span, None, str(problem), problem.example)
                return None, refusal, last + 1
            tried_longest = True
        return None, None, first + 1

    def _stretch(self, first: int) -> int:
        """The last word of the stretch of time-like words that starts at ``first``."""
        last = first
        limit = min(len(self._words), first + MAX_WORDS) - 1
        while last < limit and not self._words[last].stop_after and self._joins(last + 1):
            last += 1
        return last

    def _joins(self, index: int) -> bool:
        """Whether word ``index`` continues a stretch: a time word, or the "to" of "quarter to
        five" (elsewhere "to" starts what is said: "remind me at 5 to call mom")."""
        word = self._words[index].lower
        if word != "to":
            return _timeish(word)
        following = self._words[index + 1].lower if index + 1 < len(self._words) else ""
        return self._words[index - 1].lower in _CLOCK_FRACTIONS and _hourish(following)

    def _may_start(self, index: int) -> bool:
        word = self._words[index].lower
        if not _timeish(word) or word in _NO_START:
            return False
        following = self._words[index + 1].lower if index + 1 < len(self._words) else ""
        before = self._words[index - 1].lower if index > 0 else ""
        if _is_clock(word) or _COMPACT.fullmatch(word):
            return before not in _DETERMINERS  # "the 8:15 train", "my 5pm call"
        if word == "the":
            return _is_ordinal(following) or following in {"day", "last", "next"}
        if word == "day":
            return following == "after"
        if _NUMBER.fullmatch(word) or word in _AMOUNTS:
            return _pairs(word, following)
        if word in ORDINAL_WORDS:
            return following in {"of", "day"} or following in MONTHS
        return True

    def _has_core(self, first: int, last: int) -> bool:
        """Whether words ``first..last`` hold something only a time says (not just "at the")."""
        words = [w.lower for w in self._words[first : last + 1]]
        for index, word in enumerate(words):
            following = words[index + 1] if index + 1 < len(words) else ""
            if _is_core(word) or (word in _ANCHORS and following):
                return True
            if (_NUMBER.fullmatch(word) or word in _AMOUNTS) and _pairs(word, following):
                return True
            if word in MONTHS and (_NUMBER.fullmatch(following) or _is_ordinal(following)):
                return True
            if word in {"at", "@"} and _NUMBER.fullmatch(following):
                return True
            if word in ORDINAL_WORDS and (following in {"of", "day"} or _on_the(words, index)):
                return True  # "the first of next month", "on the first"
            if word == "last" and following == "day":
                return True
            if word in _PAST_OR_TO and following and _hourish(following):
                return True  # "quarter past 3", "ten to six"
        return False


def _bare(text: str) -> bool:
    """Whether ``text`` is a duration alone ("10 minutes", "half an hour"), not "in 10 minutes"."""
    lead = text.split(maxsplit=1)[0].lower()
    return lead not in {"in", "within", "after"} and read_delay(text) is not None


def _hourish(word: str) -> bool:
    return word.isdigit() or word in NUMBER_WORDS


def _on_the(words: list[str], index: int) -> bool:
    return index >= 2 and words[index - 2 : index] == ["on", "the"]


def _read(text: str) -> tuple[ScheduleKind | None, ScheduleError | None]:
    """Whether ``text`` is a phrase of the schedule language, whatever the instant."""
    try:
        return parse_schedule(text, now=_REFERENCE, tz="UTC").kind, None
    except PastTimeError:
        return "once", None  # a time all the same; the real instant decides
    except ScheduleError as exc:
        return None, exc


def _joined(parts: list[_Found]) -> TimePhrase | None:
    """The parts read as one phrase ("tomorrow" + "at 6pm"), when they make one."""
    text = " ".join(p.phrase.text for p in parts)
    kind, problem = _read(text)
    if problem is not None:
        return None
    spans = tuple(span for p in parts for span in p.phrase.spans)
    return TimePhrase(text, spans, kind)


def _timeish(word: str) -> bool:
    return (
        _is_core(word)
        or word in _GLUE
        or word in _UNITS
        or word in _AMOUNTS
        or word in _AMPM
        or word in MONTHS
        or word in WEEKDAYS
        or word in ORDINAL_WORDS
        or _NUMBER.fullmatch(word) is not None
        or _CRON_FIELD.fullmatch(word) is not None
    )


def _is_core(word: str) -> bool:
    """Words only a time says: "tomorrow", "9am", "17:45", "friday", "2026-03-03", "10m"."""
    return (
        word in _DAY_WORDS
        or word in _CLEAR_WEEKDAYS
        or word in _CLEAR_MONTHS
        or _is_clock(word)
        or _ISO.fullmatch(word) is not None
        or _COMPACT.fullmatch(word) is not None
        or _ORDINAL_DIGITS.fullmatch(word) is not None
        or ("*" in word and _CRON_FIELD.fullmatch(word) is not None)
    )


def _is_clock(word: str) -> bool:
    return _CLOCK.fullmatch(word) is not None or word in {"noon", "midnight", "midday"}


def _is_ordinal(word: str) -> bool:
    return word in ORDINAL_WORDS or _ORDINAL_DIGITS.fullmatch(word) is not None


def _pairs(amount: str, following: str) -> bool:
    """Whether an amount before ``following`` is part of a time: "5 minutes", "9 am", "3 may",
    "half an hour", "0 9 * * 1-5"."""
    if following in _UNITS or following in {"ago"}:
        return True
    if amount in _SPELLED_AMOUNTS:
        return following in {"an", "a", "of", "hour"}
    if _NUMBER.fullmatch(amount) is None:
        return False
    return (
        following in _AMPM
        or following in MONTHS
        or following in {"o'clock", "oclock"}
        or _NUMBER.fullmatch(following) is not None
        or ("*" in following and _CRON_FIELD.fullmatch(following) is not None)
    )

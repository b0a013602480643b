"""Find the time expression inside a sentence: "remind me every sunday evening at 7 to plan the
week" holds "every sunday evening at 7", wherever it stands (front, middle or end).

``find_time`` needs no clock: it reads the sentence's tokens with the grammar, takes each
stretch that the grammar reads (time words and the fillers between them) and, from its left,
the longest part that makes a schedule. Whether a phrase is a time does not depend on the
instant it is read at, except for having passed, so phrases are tried against a fixed instant
and a time that has merely passed there still counts. ``find_schedule`` then resolves the
phrase it found at the real instant, with the DST policy.

Choosing among several time expressions in one sentence:

- parts that only make sense together are joined ("remind me tomorrow to call mom at 6pm" is
  "tomorrow at 6pm");
- an expression right after "for", "until", "since", "before" or "by" belongs to what is said,
  not to when ("remind me at 9am to book the flight for March 3"), unless it is the only one
  (its ``marker`` then says which word it follows, for the caller to judge);
- a bare duration ("10 minutes", "a day") is a time only where it opens the sentence or
  follows "for" or "by" ("snooze it by an hour"): elsewhere it says how long ("twice a day");
- a clock time after "the", "a", "my", ... names a thing ("take the 8:15 train"); so do a
  holiday inside what is said ("buy christmas presents") and the short weekday names that are
  also words ("the sun", "sat down") when nothing around them makes them a time;
- otherwise the expression that opens the sentence wins, then the one that closes it ("remind
  me at 7 to leave at 7:30": 7 o'clock).

A stretch that is plainly a time but cannot be used ("in -5 minutes", "tomorrow at 9am and at
5pm") comes back with its problem. So does a time read next to words that look like part of it
but are not ("tomorrow at noom"): a fragment is never read with the rest defaulted.

Every step is linear in the length of the sentence: one pass to cut it into tokens, one to
match the grammar, and at most ``MAX_ATTEMPTS`` phrases of at most ``MAX_WORDS`` tokens each
are tried.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from common import LazyPattern
from tasks.errors import PastTimeError, ScheduleError
from tasks.schedule.days import DateOrder, Landmark, OnHoliday, OnWeekday
from tasks.schedule.lexicon import edit_distance
from tasks.schedule.model import Schedule, ScheduleKind
from tasks.schedule.once import ONCE_EXAMPLE, Context
from tasks.schedule.parsing import build_schedule, read_schedule
from tasks.schedule.pieces import (
    Bad,
    Clock,
    Count,
    Day,
    Delay,
    Every,
    Except,
    Gone,
    Lasting,
    Leave,
    LeaveHolidays,
    Offset,
    Part,
    Piece,
    Repeat,
    Starting,
    Until,
    Weekdays,
    Window,
)
from tasks.schedule.reader import FILLERS, Match, covers, matches
from tasks.schedule.tokens import Token, tokenize

MAX_WORDS = 14
"""The longest time expression, in tokens, that the search tries."""
MAX_ATTEMPTS = 40
"""How many phrases one search may try at most (each costs one reading)."""
_REFERENCE = Context(text="", now=datetime(1900, 1, 1, tzinfo=UTC), tz=ZoneInfo("UTC"))

_LEADING = frozenset({"at", "on", "@"})
_WEAK_AFTER = frozenset({"for", "until", "till", "since", "before", "by"})
_DURATION_AFTER = frozenset({"for", "by"})
_MARKERS_ONLY = frozenset({"from", "till", "til"})
_MEALS = frozenset({"breakfast", "lunch", "dinner", "supper"})
_NOT_NOUNS = frozenset(
    {"to", "that", "about", "and", "then", "so", "please", "me", "us", "him", "her", "them",
     "it", "if", "when", "until", "till", "before", "after", "starting", "from", "with", "or",
     "but", "unless", "except", "is", "are", "will", "should", "would", "can", "could"}
)  # fmt: skip
_ADVERBS = frozenset(
    {"hourly", "daily", "weekly", "monthly", "yearly", "annually", "quarterly", "nightly",
     "fortnightly", "biweekly"}
)  # fmt: skip
_MEAL_LEADS = frozenset({"at", "around", "by", "for", "@"})
_DETERMINERS = frozenset(
    {"the", "a", "an", "my", "your", "our", "his", "her", "their", "this", "that", "its"}
)
_NOUN_DETERMINERS = _DETERMINERS - {"this", "that"}
_ARTICLES = frozenset({"the", "a", "an"})
_WEEK_NOUNS = frozenset({"weekend", "mid_week"})
_HOLIDAY_AFTER = frozenset(
    {"on", "at", "this", "next", "coming", "for", "until", "till", "by", "before", "since",
     "and", "every", "each", "from", "after", "over"}
)  # fmt: skip
_WORDLIKE_WEEKDAYS = frozenset({"sat", "sun", "wed", "mar", "tue", "thu", "mon"})
_DAY_LEADS = frozenset({"on", "this", "next", "every", "each", "by", "until", "till", "from"})
_CRON = LazyPattern(r"(?<![\w*/,\-?])[\d*/,\-?]+(?: [\d*/,\-?a-z#]+){4}(?![\w*/,\-?#])", re.I)
_TIME_WORDS = (
    "noon", "midnight", "midday", "tonight", "today", "tomorrow", "morning", "evening",
    "afternoon", "minutes", "minute", "hours", "hour", "weeks", "days", "months",
)  # fmt: skip


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
        read_as: ``(written, read)`` for each word read as another ("tmrw", "tomorrow").
    """

    text: str
    spans: tuple[tuple[int, int], ...]
    kind: ScheduleKind | None
    problem: str | None = None
    example: str | None = None
    marker: str | None = None
    read_as: tuple[tuple[str, str], ...] = ()

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
    tokens = _with_cron(sentence, tokenize(sentence))
    found, refused = _Search(sentence, tokens).run()
    if not found:
        return refused
    strong = [c for c in found if not c.weak] or found
    if len(strong) > 1 and (joined := _joined(sentence, strong)) is not None:
        return joined
    last = len(tokens) - 1
    chosen = next((c for c in strong if c.first == 0), None)
    chosen = chosen or next((c for c in strong if c.last == last), strong[0])
    return chosen.phrase


def find_schedule(
    sentence: str,
    *,
    now: datetime,
    tz: ZoneInfo | str,
    recurring: bool | None = None,
    date_order: DateOrder = "mdy",
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
    reading = read_schedule(phrase.text, now=now, tz=tz, recurring=recurring, date_order=date_order)
    return ScheduleMatch(phrase, reading.schedule)


def _with_cron(sentence: str, tokens: list[Token]) -> list[Token]:
    """A five-field cron expression in the sentence as one token."""
    for found in _CRON.finditer(sentence):
        if "*" not in found.group():
            continue
        start, end = found.span()
        inside = [t for t in tokens if start <= t.start and t.end <= end]
        if not inside:
            continue
        first = tokens.index(inside[0])
        cron = Token(found.group(), "cron", start, end, stop=inside[-1].stop)
        tokens = [*tokens[:first], cron, *tokens[first + len(inside) :]]
    return tokens


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

    def __init__(self, sentence: str, tokens: list[Token]) -> None:
        self._sentence = sentence
        self._tokens = tokens
        self._found = matches(tokens) if tokens else []
        self._attempts = 0

    def run(self) -> tuple[list[_Found], TimePhrase | None]:
        found: list[_Found] = []
        refused: TimePhrase | None = None
        for first, end in self._stretches():
            index = first
            while index < end and self._attempts < MAX_ATTEMPTS:
                if not self._may_start(index, end):
                    index += 1
                    continue
                hit, problem, after = self._longest_from(index, end)
                if hit is not None:
                    found.append(hit)
                refused = refused or problem
                index = after
        return found, refused

    def _stretches(self) -> list[tuple[int, int]]:
        """Runs of tokens the grammar covers (matches, and fillers between them)."""
        size = len(self._tokens)
        covered = [False] * size
        for index, options in enumerate(self._found):
            for match in options:
                for k in range(index, match.end):
                    covered[k] = True
        for index, token in enumerate(self._tokens):
            if token.kind == "cron":
                covered[index] = True
        stretches: list[tuple[int, int]] = []
        index = 0
        while index < size:
            if not covered[index]:
                index += 1
                continue
            end = index
            while end < size and (covered[end] or self._tokens[end].text in FILLERS):
                if self._tokens[end].stop:
                    end += 1
                    break
                end += 1
            start = index
            while (
                start > 0
                and not self._tokens[start - 1].stop
                and (self._tokens[start - 1].text in _LEADING)
            ):
                start -= 1
            stretches.append((start, end))
            index = end
        return stretches

    def _may_start(self, index: int, end: int) -> bool:
        """Whether a phrase may start at token ``index``: a match does, or "at"/"on" before
        one; never "for", "until", "by", ... (they say what the time is part of)."""
        token = self._tokens[index]
        if token.text in _WEAK_AFTER or token.text in _MARKERS_ONLY:
            return False
        if token.kind == "cron" or self._found[index]:
            return True
        following = index + 1
        return (
            token.text in _LEADING
            and following < end
            and not token.stop
            and (bool(self._found[following]) or self._tokens[following].kind == "cron")
        )

    def _longest_from(self, first: int, end: int) -> tuple[_Found | None, TimePhrase | None, int]:
        """The longest phrase from token ``first``, or the refusal of the whole stretch, and
        where to go on searching.

        When the longest phrase is plainly a time that cannot be used ("2 days ago",
        "tomorrow at 9am and at 5pm"), a shorter piece of it would change what was said, so
        the stretch is refused as a whole and skipped.
        """
        marker = self._marker(first)
        tried_longest = False
        for last in range(min(end, first + MAX_WORDS) - 1, first - 1, -1):
            if self._tokens[last].text in FILLERS or self._attempts >= MAX_ATTEMPTS:
                continue
            self._attempts += 1
            reading = self._read(first, last + 1)
            if reading is None:
                continue
            problem = reading.problem
            if problem is None:
                if not self._stands(first, last, list(reading.pieces), marker):
                    return None, None, last + 1
                span = ((self._tokens[first].start, self._tokens[last].end),)
                near = self._near_miss(first, last)
                if near is not None:
                    return None, self._refusal(first, last, near), last + 2
                phrase = TimePhrase(
                    self._text(first, last),
                    span,
                    reading.kind,
                    marker=marker,
                    read_as=reading.read_as,
                )
                return _Found(phrase, first, last), None, last + 1
            if not tried_longest and marker is None and not _DAYS_DISAGREE.search(problem.text):
                # Plainly a time that cannot be used: a shorter piece would change it. Two
                # days that disagree ("on wednesday about the weekend") are two things said,
                # and a shorter piece is tried.
                return None, self._refusal(first, last, problem), last + 1
            tried_longest = True
        return None, None, first + 1

    def _read(self, first: int, end: int) -> _Reading | None:
        """What tokens ``first`` to ``end`` read as; ``None`` when they are no time at all."""
        if self._tokens[first].kind == "cron":
            if end != first + 1:
                return None
            text = self._tokens[first].text
            try:
                schedule = read_schedule(text, now=_REFERENCE.now, tz="UTC").schedule
            except ScheduleError as exc:
                return _Reading(None, _Problem(str(exc), None))
            return _Reading(schedule.kind)
        tokens = self._tokens[first:end]
        found = [
            [_shifted(m, -first) for m in options if m.end <= end]
            for options in self._found[first:end]
        ]
        cover = next(covers(tokens, found))
        if cover.unread:
            return None
        pieces = tuple(cover.pieces)
        if not _plainly_a_time(list(pieces)):
            return None
        read_as = tuple(
            dict.fromkeys((t.read_as, t.text) for t in tokens if t.read_as and not t.text.isdigit())
        )
        context = _reference(self._text(first, end - 1))
        try:
            schedule = build_schedule(list(pieces), context, None)
        except PastTimeError:
            return _Reading("once", None, pieces, read_as)
        except OverflowError:  # "1000000 weeks": past the calendar's end, as parse_schedule says
            problem = str(context.refuse("it is too far from now; say e.g. 'in 5 minutes'"))
            return _Reading(None, _Problem(problem, _example_of(problem)), pieces, read_as)
        except ScheduleError as exc:
            if _WEEKDAY_OF_DATE.search(str(exc)):
                # whether "friday december 4" agree depends on the year: the reading at the
                # real now (``find_schedule``) says so, not this one at the reference instant
                return _Reading("once", None, pieces, read_as)
            return _Reading(None, _Problem(str(exc), _example_of(str(exc))), pieces, read_as)
        return _Reading(schedule.kind, None, pieces, read_as)

    def _stands(self, first: int, last: int, pieces: list[Piece], marker: str | None) -> bool:
        """Whether a phrase that reads is a time here, not a part of what is said."""
        before = self._word(first - 1)
        lead = first + 1 if self._tokens[first].text in _LEADING else first
        head = pieces[0] if pieces else None
        if self._tokens[lead].text in _MEALS and before not in _MEAL_LEADS and lead == first:
            return False  # "buy lunch", "after lunch": a meal named, not a time
        if self._adjective(first, pieces) or self._time_noun(first, last, pieces):
            return False  # "the weekly report", "my daily standup", "the weekend shift"
        if all(isinstance(p, Delay) and p.bare for p in pieces) and pieces:
            return first == 0 or marker in _DURATION_AFTER
        leads = self._tokens[first].text in _LEADING
        if isinstance(head, Clock) and not leads and before in _DETERMINERS:
            return False  # "the 8:15 train", "my 5pm call"
        if isinstance(head, Day) and isinstance(head.ref, OnHoliday):
            stop_before = first == 0 or self._tokens[first - 1].stop
            leads = self._tokens[first].text in _HOLIDAY_AFTER
            return stop_before or before in _HOLIDAY_AFTER or lead != first or leads
        if (
            len(pieces) == 1
            and isinstance(head, Day)
            and isinstance(head.ref, OnWeekday)
            and self._tokens[lead].read_as is None
            and self._tokens[lead].text in _WORDLIKE_WEEKDAYS
        ):
            return before in _DAY_LEADS or lead != first
        return True

    def _adjective(self, first: int, pieces: list[Piece]) -> bool:
        """Whether a lone "weekly", "daily", ... qualifies the noun after it."""
        if (
            first == 0  # "hourly water the plants": an order, said with when first
            or len(pieces) != 1
            or not isinstance(pieces[0], Every)
            or self._tokens[first].text not in _ADVERBS
            or self._tokens[first].stop
        ):
            return False
        return self._noun_at(first + 1)

    def _time_noun(self, first: int, last: int, pieces: list[Piece]) -> bool:
        """Whether "the weekend", "a midweek", "the morning" or a repetition qualifies the noun
        after it ("send the weekend report at 5pm", "the morning meeting", "the weeknights
        rota", "the every 2 hours alert"), rather than saying when ("this weekend", "at the
        weekend", "in the morning")."""
        head = pieces[0] if len(pieces) == 1 else None
        if any(isinstance(p, Every | Weekdays | Repeat) for p in pieces):
            # after an article only: "call her every day while ..." says when
            qualifies = self._word(first - 1) in _ARTICLES
        elif (isinstance(head, Day) and isinstance(head.ref, Landmark)) or isinstance(head, Part):
            if isinstance(head, Part):
                named = not head.period.today
            else:
                named = isinstance(head.ref, Landmark) and head.ref.name in _WEEK_NOUNS
            qualifies = named and (
                self._tokens[first].text in _NOUN_DETERMINERS
                or self._word(first - 1) in _NOUN_DETERMINERS
            )
        else:
            qualifies = False
        return qualifies and self._noun_at(last + 1) and not self._tokens[last].stop

    def _noun_at(self, index: int) -> bool:
        """Whether the token at ``index`` is a word that can be a noun, not yet read as time."""
        if index >= len(self._tokens):
            return False
        token = self._tokens[index]
        return (
            token.kind == "word"
            and token.text not in FILLERS
            and token.text not in _NOT_NOUNS
            and not self._found[index]
        )

    def _marker(self, first: int) -> str | None:
        before = self._word(first - 1)
        return before if before in _WEAK_AFTER else None

    def _word(self, index: int) -> str:
        if index < 0 or self._tokens[index].stop:
            return ""
        return self._tokens[index].text

    def _text(self, first: int, last: int) -> str:
        """The phrase as written: the sentence's characters from its first to its last token."""
        start, end = self._tokens[first].start, self._tokens[last].end
        return " ".join(self._sentence[start:end].replace(",", " ").split())

    def _near_miss(self, first: int, last: int) -> _Problem | None:
        """Words right after the phrase that look like part of a time but are not."""
        following = last + 1
        after_at = False
        while (
            following < len(self._tokens)
            and not self._tokens[following - 1].stop
            and self._tokens[following].text in _LEADING
        ):
            after_at = True
            following += 1
        if following >= len(self._tokens) or self._tokens[following - 1].stop:
            return None
        token = self._tokens[following]
        if self._found[following] or token.kind == "cron":
            return None  # a time of its own, read on its own
        glued = token.start == self._tokens[following - 1].end and token.kind != "punct"
        word = token.text
        close = any(
            edit_distance(word, known, limit=1) <= 1 for known in _TIME_WORDS if word != known
        )
        if glued or (close and len(word) >= 4) or (after_at and token.kind != "word"):
            said = self._sentence[self._tokens[first].start : token.end]
            understood = self._text(first, last)
            return _Problem(
                f"could not read {said!r} as a time: did not understand {token.text!r}; say "
                f"e.g. '{understood}'",
                understood,
            )
        return None

    def _refusal(self, first: int, last: int, problem: _Problem) -> TimePhrase:
        span = ((self._tokens[first].start, self._tokens[last].end),)
        text, example = problem.text, problem.example
        if example is None:
            example = ONCE_EXAMPLE
            text = f"{text}; say e.g. '{example}'"
        return TimePhrase(self._text(first, last), span, None, text, example)


@dataclass(frozen=True, slots=True)
class _Problem:
    text: str
    example: str | None

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True, slots=True)
class _Reading:
    """What a stretch of tokens reads as: a kind of schedule, or why it cannot be one."""

    kind: ScheduleKind | None
    problem: _Problem | None = None
    pieces: tuple[Piece, ...] = ()
    read_as: tuple[tuple[str, str], ...] = ()


def _shifted(match: Match, by: int) -> Match:
    return Match(match.rule, match.order, match.first + by, match.end + by, match.pieces)


def _reference(text: str) -> Context:
    return Context(text=text, now=_REFERENCE.now, tz=_REFERENCE.tz)


def _plainly_a_time(pieces: list[Piece]) -> bool:
    """Whether the pieces hold something only a time says (not just "every", "until")."""
    weak = (Repeat, Until, Starting, Count, Except, Leave, LeaveHolidays, Window, Offset, Lasting)
    if any(isinstance(p, Bad | Gone) for p in pieces):
        return True
    return any(not isinstance(p, weak) for p in pieces) or any(
        isinstance(p, Lasting) for p in pieces
    )


_EXAMPLE = LazyPattern(r"e\.g\. '([^']+)'")


def _example_of(message: str) -> str | None:
    found = _EXAMPLE.search(message)
    return found.group(1) if found else None


_DAYS_DISAGREE = LazyPattern(r"is not a day of the weekend")
_WEEKDAY_OF_DATE = LazyPattern(r"\d{4} is an? \w+day, not an? \w+day")
_WEEKDAY = r"(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)(?:day)?s?\b"
_NAMES_DAYS = LazyPattern(
    r"\b(?:weekends?|weeknights?|school nights?|weekdays?|workdays?|business days?)\b"
    rf"|\b{_WEEKDAY}"
)
_A_DAY = LazyPattern(rf"\b(?P<day>{_WEEKDAY})")
_WITHIN_DAY = LazyPattern(r"\b(?:hours?|hourly|minutes?|mins?|seconds?|secs?)\b")
_SPAN_PART = LazyPattern(
    r"(?:(?:in|for|during|over|through|throughout|on|at) )?(?:the )?(?:this |next |coming )?"
    r"(?:week|weekend|month)(?: after next)?"
)


def _joined(sentence: str, parts: list[_Found]) -> TimePhrase | None:
    """The parts read as one phrase ("tomorrow" + "at 6pm"), when they make one. A week, a
    weekend, a month or a day apart from a repetition is not the span it runs through ("every
    sunday to plan next week"), and a day apart from a repetition that names its own days is
    not one of them ("tuesday to tell the kids no tv on school nights"): they belong to what
    is said."""
    once = [p.phrase.text.lower() for p in parts if p.phrase.kind == "once"]
    repeating = [p.phrase.text.lower() for p in parts if p.phrase.kind == "recurring"]
    within_day = any(_WITHIN_DAY.search(text) for text in repeating)  # "every hour ... today"
    if repeating and not within_day and any(_SPAN_PART.fullmatch(text) for text in once):
        return None
    for text in once:
        said = _A_DAY.search(text)
        if said is None or not any(_NAMES_DAYS.search(r) for r in repeating):
            continue
        if not any(said["day"][:3] in r for r in repeating):
            return None  # "tuesday ... no tv on school nights"; "sunday ... every sunday" joins
    text = " ".join(p.phrase.text for p in parts)
    try:
        schedule = read_schedule(text, now=_REFERENCE.now, tz="UTC").schedule
        kind: ScheduleKind = schedule.kind
    except PastTimeError:
        kind = "once"
    except ScheduleError:
        return None
    spans = tuple(span for p in parts for span in p.phrase.spans)
    read_as = tuple(pair for p in parts for pair in p.phrase.read_as)
    return TimePhrase(text, spans, kind, read_as=read_as)

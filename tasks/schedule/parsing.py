"""Turn the user's words ("tomorrow at 9am", "weekdays 6pm", "0 9 * * 1-5") into a Schedule.

``read_schedule`` reads a whole phrase with the grammar (``tasks.schedule.grammar``) and says
which words it read as other words ("tmrw" as "tomorrow"); ``parse_schedule`` returns only the
schedule. A cron expression or an ISO 8601 time is read as such. Words the grammar cannot read
are refused, naming them, with a phrasing that works built from what was understood; the
policy for days and times is that of docs/time-language.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime
from zoneinfo import ZoneInfo

from common import LazyPattern
from tasks.errors import PastTimeError, ScheduleError
from tasks.schedule.days import DateOrder
from tasks.schedule.model import CronSchedule, OnceSchedule, Schedule, resolve_local, zone_from_name
from tasks.schedule.once import (
    DEFAULT_TIME,
    ONCE_EXAMPLE,
    Context,
    aware,
    future_once,
    once_schedule,
)
from tasks.schedule.pieces import (
    Bad,
    Clock,
    Count,
    Cron,
    Delay,
    Every,
    Except,
    Gone,
    Iso,
    LastWorkday,
    Leave,
    LeaveHolidays,
    Part,
    Piece,
    Repeat,
    Starting,
    Until,
    Weekdays,
    Window,
)
from tasks.schedule.reader import Cover, covers, matches
from tasks.schedule.repeat import repeating_schedule
from tasks.schedule.tokens import Token, tokenize

MAX_LENGTH = 200
_CRON_LIKE = LazyPattern(
    r"[\d*/,\-?]+ [\d*/,\-?]+ [\d*/,\-?lw]+ [\d*/,\-a-z?]+ [\d*/,\-a-z#?l]+",
    re.IGNORECASE | re.ASCII,
)
# Near misses (a field too many or too few) still go to the cron reader for a precise refusal.
_CRON_NEAR = LazyPattern(r"[\d*/,\-]+(?: [\d*/,\-?a-z#]+){3,6}", re.IGNORECASE | re.ASCII)
_ISO_LIKE = LazyPattern(
    r"\d{4}-\d{2}-\d{2}(?:[t ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:z|[+-]\d{2}(?::?\d{2})?)?)?",
    re.IGNORECASE | re.ASCII,
)
_DOTTED_DATE_END = LazyPattern(r"\d\.\d{1,2}\.$")
_ISO_LEAD = LazyPattern(r"^(?:on|at|for)\s+(?=\d{4}-)", re.IGNORECASE)
_REPEATING = (
    Every, Repeat, Weekdays, Window, Cron, LastWorkday, Until, Starting, Count, Except, Leave,
    LeaveHolidays,
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Reading:
    """A phrase read: its schedule, and the words read as other words.

    Attributes:
        schedule: What the phrase means.
        read_as: ``(written, read)`` for each slang word or misspelling read as a vocabulary
            word ("tmrw", "tomorrow"), for the reply to say.
    """

    schedule: Schedule
    read_as: tuple[tuple[str, str], ...] = ()

    def note(self) -> str:
        """Say the readings, or nothing: ``read 'tmrw' as 'tomorrow'``."""
        if not self.read_as:
            return ""
        return "read " + ", ".join(f"{said!r} as {read!r}" for said, read in self.read_as)


def parse_schedule(
    text: str,
    *,
    now: datetime,
    tz: ZoneInfo | str,
    recurring: bool | None = None,
    date_order: DateOrder = "mdy",
) -> Schedule:
    """Read a schedule phrase, resolving it in the time zone ``tz`` as of ``now``.

    Args:
        text: The user's words, an ISO 8601 time or a five-field cron expression.
        now: The current instant; a naive value is read as local wall time in ``tz``.
        tz: The IANA zone (or its name) in which the words are meant.
        recurring: ``None`` to infer; ``True`` when it must repeat ("monday 10am" then means
            every Monday); ``False`` when it must be one time.
        date_order: How "4/5" is read when both numbers could be the month: ``mdy`` (April 5)
            or ``dmy`` (4 May).

    Raises:
        ScheduleError: with what was understood and a phrasing that works.
    """
    return read_schedule(text, now=now, tz=tz, recurring=recurring, date_order=date_order).schedule


def read_schedule(
    text: str,
    *,
    now: datetime,
    tz: ZoneInfo | str,
    recurring: bool | None = None,
    date_order: DateOrder = "mdy",
) -> Reading:
    """Like ``parse_schedule``, and say which words were read as other words.

    Raises:
        ScheduleError: with what was understood and a phrasing that works.
    """
    if not isinstance(text, str):
        raise ScheduleError(f"a schedule must be text, got {text!r}; say e.g. '{ONCE_EXAMPLE}'")
    if len(text) > MAX_LENGTH:
        raise ScheduleError(
            f"the schedule {text[:40]!r}... is {len(text)} characters long; a schedule is a "
            f"short phrase (at most {MAX_LENGTH} characters), e.g. '{ONCE_EXAMPLE}'"
        )
    zone = tz if isinstance(tz, ZoneInfo) else zone_from_name(tz)
    context = Context(text=text, now=aware(now, zone), tz=zone, order=date_order)
    try:
        reading = _read(context, recurring)
    except OverflowError as exc:
        raise context.refuse("it is too far from now; say e.g. 'in 5 minutes'") from exc
    schedule = reading.schedule
    if recurring is False and schedule.kind == "recurring":
        raise ScheduleError(
            f"{text!r} repeats ({schedule.describe()}), but a one-time schedule is needed; "
            f"say e.g. '{ONCE_EXAMPLE}'"
        )
    if recurring is True and schedule.kind == "once":
        raise context.refuse(
            f"it happens once ({schedule.describe()}), but a repeating schedule is needed; "
            "say e.g. 'every weekday at 9am'"
        )
    return reading


def _read(context: Context, recurring: bool | None) -> Reading:
    stripped = context.text.strip().rstrip("!?;")
    if not _DOTTED_DATE_END.search(stripped):
        stripped = stripped.rstrip(".!?;")
    if not stripped:
        raise ScheduleError(
            f"the schedule {context.text!r} is empty; say e.g. 'in 5 minutes' or "
            "'every weekday at 9am'"
        )
    fields = " ".join(stripped.split())
    if _CRON_LIKE.fullmatch(fields) or ("*" in fields and _CRON_NEAR.fullmatch(fields)):
        return Reading(CronSchedule(stripped, context.tz))
    iso = _ISO_LEAD.sub("", stripped)  # "on 2026-04-01T09:00" is that ISO time
    if _ISO_LIKE.fullmatch(iso):
        return Reading(iso_once(context, iso))
    tokens = tokenize(stripped)
    found = matches(tokens)
    first_error: ScheduleError | None = None
    fillers: set[int] | None = None
    for cover in covers(tokens, found):
        if cover.unread:
            raise _unread(context, tokens, cover)
        # Another reading may group the words differently, never drop one as a filler.
        used = {i for match in cover.matches for i in range(match.first, match.end)}
        if fillers is None:
            fillers = set(range(len(tokens))) - used
        elif set(range(len(tokens))) - used != fillers:
            continue
        try:
            schedule = build_schedule(cover.pieces, context, recurring)
        except ScheduleError as exc:
            if isinstance(exc, PastTimeError) or _definite(cover.pieces):
                raise _quoted(context, exc) from None
            first_error = first_error or _quoted(context, exc)
            continue
        return Reading(schedule, _readings(tokens, cover))
    assert first_error is not None
    raise first_error


def build_schedule(pieces: list[Piece], context: Context, recurring: bool | None) -> Schedule:
    """The schedule the pieces of one phrase make (``recurring`` as for ``parse_schedule``)."""
    isos = [p for p in pieces if isinstance(p, Iso)]
    if isos:
        if len(pieces) > 1:
            raise context.refuse(f"an ISO 8601 time stands alone; say e.g. '{isos[0].text}'")
        return iso_once(context, isos[0].text)
    if recurring or any(isinstance(p, _REPEATING) for p in pieces):
        return repeating_schedule(pieces, context)
    return once_schedule(pieces, context)


def iso_once(context: Context, stripped: str) -> OnceSchedule:
    """An ISO 8601 date (at 09:00) or time, as a one-time schedule."""
    try:
        if len(stripped) == len("2026-01-01"):
            wall = datetime.combine(date.fromisoformat(stripped), DEFAULT_TIME)
        else:
            wall = datetime.fromisoformat(stripped.upper())
    except ValueError as exc:
        raise context.refuse(
            f"it looks like an ISO 8601 time but is not valid ({exc}); say e.g. '2026-11-23T14:35'"
        ) from exc
    fire = wall if wall.utcoffset() is not None else resolve_local(wall, context.tz)
    return future_once(context, fire, example=ONCE_EXAMPLE)


def _readings(tokens: list[Token], cover: Cover) -> tuple[tuple[str, str], ...]:
    used = {index for match in cover.matches for index in range(match.first, match.end)}
    found = [(t.read_as, t.text) for i, t in enumerate(tokens) if i in used and t.read_as]
    return tuple((said, read) for said, read in dict.fromkeys(found) if said)


def _unread(context: Context, tokens: list[Token], cover: Cover) -> ScheduleError:
    """Refuse words no rule reads, naming them, with the understood part as an example."""
    words = [tokens[i].read_as or tokens[i].text for i in cover.unread]
    named = ", ".join(repr(word) for word in dict.fromkeys(words))
    example = _example(context, tokens, cover)
    return context.refuse(f"did not understand {named}; say e.g. '{example}'")


def _example(context: Context, tokens: list[Token], cover: Cover) -> str:
    """What was understood, completed into a phrase that reads (or the standard example)."""
    said = " ".join(
        " ".join(t.text for t in tokens[match.first : match.end]) for match in cover.matches
    )
    pieces = cover.pieces
    if said and not any(isinstance(p, Clock | Part | Delay) for p in pieces):
        said += " at 9am"
    if not said:
        return ONCE_EXAMPLE
    try:
        build_schedule(pieces if said == "" else list(_pieces_of(said)), context, None)
    except ScheduleError:
        return ONCE_EXAMPLE
    return said


def _pieces_of(said: str) -> list[Piece]:
    tokens = tokenize(said)
    for cover in covers(tokens):
        return [] if cover.unread else cover.pieces
    return []


def _definite(pieces: list[Piece]) -> bool:
    """Whether the best reading already says the words are a time that cannot be (the past,
    "13pm"): another reading must not make them mean something else."""
    return any(isinstance(p, Bad | Gone) for p in pieces)


def _quoted(context: Context, exc: ScheduleError) -> ScheduleError:
    """The error, quoting the user's words (of the same kind: a past time stays one)."""
    if repr(context.text) in str(exc):
        return exc
    return type(exc)(f"could not read {context.text!r} as a time: {exc}")

"""The words of the schedule language: durations, clock times, parts of the day, dates, names.

Each reader takes normalised text (``normalize``) and returns typed pieces; ``tasks.parsing``
assembles them into schedules.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, time, timedelta

from tasks.errors import ScheduleError

WEEKDAYS = {
    "monday": 0, "mon": 0, "tuesday": 1, "tue": 1, "tues": 1, "wednesday": 2, "wed": 2,
    "thursday": 3, "thu": 3, "thur": 3, "thurs": 3, "friday": 4, "fri": 4, "saturday": 5,
    "sat": 5, "sunday": 6, "sun": 6,
}  # fmt: skip
MONTHS = {
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4,
    "apr": 4, "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8,
    "september": 9, "sep": 9, "sept": 9, "october": 10, "oct": 10, "november": 11, "nov": 11,
    "december": 12, "dec": 12,
}  # fmt: skip
NUMBER_WORDS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15,
    "twenty": 20, "thirty": 30, "forty": 40, "forty-five": 45, "fifty": 50, "sixty": 60,
    "ninety": 90,
}  # fmt: skip
_UNIT_SECONDS = {
    "seconds": 1, "second": 1, "secs": 1, "sec": 1, "s": 1,
    "minutes": 60, "minute": 60, "mins": 60, "min": 60, "m": 60,
    "hours": 3600, "hour": 3600, "hrs": 3600, "hr": 3600, "h": 3600,
    "days": 86400, "day": 86400, "d": 86400,
    "weeks": 604800, "week": 604800, "wks": 604800, "wk": 604800, "w": 604800,
}  # fmt: skip
_DAY_SECONDS = 86400
_ORDINAL_NAMES = (
    "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
    "tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth",
    "seventeenth", "eighteenth", "nineteenth", "twentieth",
)  # fmt: skip
ORDINAL_WORDS = {
    **{name: number for number, name in enumerate(_ORDINAL_NAMES, start=1)},
    **{f"twenty-{name}": 20 + n for n, name in enumerate(_ORDINAL_NAMES[:9], start=1)},
    "thirtieth": 30,
    "thirty-first": 31,
}
"""Ordinal words up to the 31st: "first" is 1, "twenty-third" is 23."""


def _alternatives(words: Iterable[str]) -> str:
    return "|".join(sorted(map(re.escape, words), key=len, reverse=True))


_NUMBER = rf"(?:\d+(?:\.\d+)?|{_alternatives(NUMBER_WORDS)})"
_UNIT = _alternatives(_UNIT_SECONDS)
_TERM = rf"(?P<n>{_NUMBER})\s*(?P<u>{_UNIT})(?![a-z])"
_TERM_PLAIN = rf"{_NUMBER}\s*(?:{_UNIT})(?![a-z])"
DURATION = rf"{_TERM_PLAIN}(?:\s*{_TERM_PLAIN})*"
_AND = re.compile(r"\band\b|,")
_TERM_RE = re.compile(_TERM)
_DURATION_RE = re.compile(DURATION)
_SPELLED = (
    (re.compile(r"\b(?:an|one) hour and a half\b"), "90 minutes"),
    (re.compile(r"\b(?:a )?half (?:an |a )?hour\b"), "30 minutes"),
    (re.compile(r"\b(?:a )?quarter (?:of )?(?:an |a )?hour\b"), "15 minutes"),
    (re.compile(r"\bhalf a day\b"), "12 hours"),
    (re.compile(r"\bhalf a minute\b"), "30 seconds"),
    (re.compile(r"\ba couple (?:of )?"), "2 "),
    (re.compile(r"\ba few "), "3 "),
)
_HOUR_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
}  # fmt: skip
_PAST_MINUTES = {"five": 5, "ten": 10, "quarter": 15, "twenty": 20, "twenty-five": 25, "half": 30}
_HOUR = rf"(?P<hour>1[0-2]|0?[1-9]|{'|'.join(_HOUR_WORDS)})\b"
_PAST_OR_TO = re.compile(
    rf"\b(?:a\s+)?(?P<minutes>{'|'.join(sorted(_PAST_MINUTES, key=len, reverse=True))})\s+"
    rf"(?P<way>past|to)\s+{_HOUR}"
)
_AMPM = re.compile(r"\b([ap])\.\s?m\b\.?")
_COMPOUND_ORDINAL = re.compile(
    r"\b(twenty|thirty) (first|second|third|fourth|fifth|sixth|seventh|eighth|ninth)\b"
)
_SPACES = re.compile(r"\s+")

_CLOCK = re.compile(
    r"(?:\bat\s+|@\s*)?(?<![\d:.])(?:"
    r"(?P<h12>\d{1,2})(?:[:.](?P<m12>\d{2}))?\s*(?P<ampm>am|pm)(?![a-z])"
    r"|(?P<h24>\d{1,2}):(?P<m24>\d{2})(?::(?P<s24>\d{2}))?(?![\d:])"
    r"|(?<![a-z])(?P<word>noon|midday|midnight)(?![a-z])"
    r"|(?P<oclock>\d{1,2})\s*o'?clock(?![a-z])"
    r")"
    r"|\bat\s+(?P<bare>\d{1,2})(?![\d:.a-z])"
    # "7 in the evening", "11 tonight": an hour before a part of the day
    r"|(?<![\d:.])(?P<before>\d{1,2})"
    r"(?= (?:in the |this |at )?(?:morning|afternoon|evening|night|tonight)\b)"
)
_PERIOD = re.compile(
    r"\b(?:(?P<this>this|in the|at)\s+)?(?P<p>morning|afternoon|evening|night|tonight|tonite)\b"
)
PERIOD_DEFAULTS = {
    "morning": time(9),
    "afternoon": time(15),
    "evening": time(19),
    "night": time(20),
    "tonight": time(20),
}
"""The clock time a part of the day means when no time is said ("tomorrow morning": 09:00)."""
_LATER_PERIODS = frozenset({"afternoon", "evening", "night", "tonight"})
_NIGHT = frozenset({"night", "tonight"})
NIGHT_ENDS = time(5)
"""Clock times before this one "tonight" belong to the early hours of the next day."""
_DAY_OF_MONTH = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_MONTH_NAME = rf"(?P<month>{_alternatives(MONTHS)})\.?"
_YEAR = r"(?:\s+(?P<year>\d{4}))?"
_MONTH_DAY = re.compile(rf"{_MONTH_NAME}\s+{_DAY_OF_MONTH}{_YEAR}")
_DAY_MONTH = re.compile(rf"{_DAY_OF_MONTH}\s+{_MONTH_NAME}{_YEAR}")
_ISO_DATE = re.compile(r"(?P<year>\d{4})-(?P<month>\d{2})-(?P<day>\d{2})")


def normalize(text: str) -> str:
    """Lower-case, spell "a.m." as "am", drop commas and trailing punctuation, collapse spaces."""
    lowered = _AMPM.sub(r"\1m", text.lower())
    lowered = lowered.replace(",", " ").replace("’", "'")
    lowered = _COMPOUND_ORDINAL.sub(r"\1-\2", lowered)
    for pattern, replacement in _SPELLED:
        lowered = pattern.sub(replacement, lowered)
    lowered = _PAST_OR_TO.sub(_clock_words, lowered)
    return _SPACES.sub(" ", lowered).strip(" .!?;:")


def _clock_words(match: re.Match[str]) -> str:
    """ "quarter past 3" is 3:15, "half past six" 6:30, "ten to 5" 4:50 (bare hours all)."""
    said = match["hour"]
    hour = _HOUR_WORDS[said] if said in _HOUR_WORDS else int(said)
    minutes = _PAST_MINUTES[match["minutes"]]
    if match["way"] == "to":
        hour, minutes = (hour - 1) or 12, 60 - minutes
    return f"{hour}:{minutes:02d}"


@dataclass(frozen=True, slots=True)
class Span:
    """A length of time: whole days (added on the wall clock) plus elapsed time.

    Attributes:
        days: Whole days, from day and week units.
        elapsed: Everything else, as real elapsed time.
    """

    days: int
    elapsed: timedelta

    @property
    def total(self) -> timedelta:
        """The whole span as elapsed time."""
        return timedelta(days=self.days) + self.elapsed


def read_duration(text: str) -> Span | None:
    """Read ``text`` as a whole duration ("5m", "1 hour and 15 minutes"), or ``None``."""
    text = _AND.sub(" ", text).strip()
    if not _DURATION_RE.fullmatch(text):
        return None
    days = 0.0
    seconds = 0.0
    for term in _TERM_RE.finditer(text):
        number = term["n"]
        amount = float(NUMBER_WORDS.get(number, 0) or number)
        unit = _UNIT_SECONDS[term["u"]]
        if unit >= _DAY_SECONDS:
            days += amount * unit / _DAY_SECONDS
        else:
            seconds += amount * unit
    if not days.is_integer():
        seconds += days * _DAY_SECONDS
        days = 0.0
    try:
        return Span(days=int(days), elapsed=timedelta(seconds=seconds))
    except OverflowError as exc:
        raise ScheduleError(f"the duration {text!r} is too long") from exc


_DELAY_LEAD = re.compile(r"^(?:(?:in|by|for|after|within)\s+)?(?:another\s+|an\s+extra\s+)?")


def read_delay(text: str) -> Span | None:
    """Read a delay the way people say one: "10m", "in 10 minutes", "by half an hour", "for
    an hour and a half", "another 5 minutes"; ``None`` when the words are not one."""
    if not isinstance(text, str) or len(text) > 100:
        return None
    return read_duration(_DELAY_LEAD.sub("", normalize(text), count=1))


@dataclass(frozen=True, slots=True)
class ClockTime:
    """A clock time read from the text.

    Attributes:
        at: The time of day, as written (a bare "5" is 05:00 here).
        meridiem: Whether it said am/pm (or noon/midnight), so a part of the day cannot move it.
        ambiguous: Whether it is a bare hour of the 12-hour dial ("at 5", "3:15", not "05:00"
            or "17:45"), which may mean the morning or the afternoon (``bare_hour_times``).
    """

    at: time
    meridiem: bool
    ambiguous: bool = False


def take_clock_times(text: str) -> tuple[list[ClockTime], str]:
    """Take every clock time out of ``text``; return them and the rest of the text."""
    found = [_clock_time(match) for match in _CLOCK.finditer(text)]
    return found, _SPACES.sub(" ", _CLOCK.sub(" ", text)).strip()


def _clock_time(match: re.Match[str]) -> ClockTime:
    if match["word"]:
        return ClockTime(time(0) if match["word"] == "midnight" else time(12), meridiem=True)
    if match["ampm"]:
        hour, minute = int(match["h12"]), int(match["m12"] or 0)
        if not 1 <= hour <= 12 or minute > 59:
            raise _not_a_clock(match, hour, minute)
        return ClockTime(time(hour % 12 + (12 if match["ampm"] == "pm" else 0), minute), True)
    hour_text = match["h24"] or match["oclock"] or match["bare"] or match["before"]
    hour, minute, second = int(hour_text), int(match["m24"] or 0), int(match["s24"] or 0)
    if hour > 23 or minute > 59 or second > 59:
        raise _not_a_clock(match, hour, minute)
    ambiguous = 1 <= hour <= 12 and not hour_text.startswith("0")
    return ClockTime(time(hour, minute, second), meridiem=False, ambiguous=ambiguous)


AFTERNOON_HOURS = range(1, 7)
"""Bare hours read in the afternoon: "at 3" is 15:00, "at 6:30" is 18:30."""


def bare_hour_times(clock: ClockTime, *, day_named: bool) -> list[time]:
    """The times a clock time may mean, the way a person reads a bare hour.

    A bare hour from 1 to 6 is in the afternoon ("pick up the kids at 3:15"); 12 is noon;
    7 to 11 is its next occurrence ("at 9" is 21:00 at 14:30), and the morning when a day is
    named ("tomorrow at 9"). Anything else ("05:00", "17:45", "9am") means what it says.
    """
    at = clock.at
    if not clock.ambiguous or at.hour == 12:
        return [at]
    if at.hour in AFTERNOON_HOURS:
        return [at.replace(hour=at.hour + 12)]
    return [at] if day_named else [at, at.replace(hour=at.hour + 12)]


def in_the_morning(text: str) -> str:
    """Say that a bare hour in ``text`` is in the morning ("wake me up at 6:45").

    Returns ``text`` with "in the morning" added when its only clock time is a bare hour and
    no part of the day is named, else ``text`` as it is.
    """
    try:
        clocks, rest = take_clock_times(normalize(text))
    except ScheduleError:
        return text
    if len(clocks) != 1 or not clocks[0].ambiguous or _PERIOD.search(rest):
        return text
    return f"{text} in the morning"


def _not_a_clock(match: re.Match[str], hour: int, minute: int) -> ScheduleError:
    """Refuse "13pm" or "25:00", with the nearest time that works ("13:00", "9am")."""
    if hour <= 23 and minute <= 59:
        example = f"{hour}:{minute:02d}"  # "13pm" or "0am": say it on the 24-hour clock
    elif hour <= 23:
        example = f"{hour}:00"
    else:
        example = "9am"
    return ScheduleError(f"{match[0].strip()!r} is not a clock time; say e.g. {example!r}")


def format_clock(at: time) -> str:
    """Format a time of day as ``HH:MM`` (``:SS`` only when not zero)."""
    return at.strftime("%H:%M:%S" if at.second else "%H:%M")


def say_clock(at: time) -> str:
    """Say a time of day the way people type it: ``9am``, ``5:30pm``, ``noon``, ``midnight``."""
    if at.second:
        return format_clock(at)
    if at.minute == 0 and at.hour in (0, 12):
        return "midnight" if at.hour == 0 else "noon"
    hour = at.hour % 12 or 12
    minutes = f":{at.minute:02d}" if at.minute else ""
    return f"{hour}{minutes}{'am' if at.hour < 12 else 'pm'}"


@dataclass(frozen=True, slots=True)
class Period:
    """A part of the day read from the text.

    Attributes:
        name: ``morning``, ``afternoon``, ``evening``, ``night`` or ``tonight``.
        today: Whether it means today's ("this evening", "tonight"), not the next one.
    """

    name: str
    today: bool

    @property
    def default(self) -> time:
        """The clock time it means when no time is said."""
        return PERIOD_DEFAULTS[self.name]

    @property
    def night(self) -> bool:
        """Whether it is the night, whose early hours belong to the next day."""
        return self.name in _NIGHT


def take_period(text: str) -> tuple[Period | None, str]:
    """Take a part of the day ("morning", "this evening", "tonight") out of ``text``."""
    found = list(_PERIOD.finditer(text))
    if len(found) > 1:
        names = [match["p"] for match in found]
        raise ScheduleError(f"{text!r} names more than one part of the day: {names!r}")
    rest = _SPACES.sub(" ", _PERIOD.sub(" ", text)).strip()
    if not found:
        return None, rest
    name = "tonight" if found[0]["p"] == "tonite" else found[0]["p"]
    today = name == "tonight" or found[0]["this"] == "this"
    return Period(name, today), rest


def apply_period(clock: ClockTime | None, period: Period | None) -> time | None:
    """Combine a clock time with a part of the day: "tonight at 8" is 20:00.

    Morning keeps a bare hour in the morning; afternoon, evening and night move it after
    noon, except that "tonight at 12" is midnight and "tonight at 1" stays at 01:00.
    """
    if period is None:
        return None if clock is None else clock.at
    if clock is None:
        return period.default
    at = clock.at
    if clock.meridiem or period.name not in _LATER_PERIODS:
        return at
    if period.night and at.hour == 12:
        return at.replace(hour=0)
    if period.night and at < NIGHT_ENDS:
        return at
    return at.replace(hour=at.hour + 12) if at.hour < 12 else at


@dataclass(frozen=True, slots=True)
class MonthDay:
    """A calendar date that may leave out the year.

    Attributes:
        month: 1-12.
        day: 1-31.
        year: The year, or ``None`` for the next such date.
    """

    month: int
    day: int
    year: int | None

    def on_year(self, year: int) -> date:
        """The date in ``year``.

        Raises:
            ScheduleError: when there is no such date that year (31 April, 29 February).
        """
        try:
            return date(year, self.month, self.day)
        except ValueError as exc:
            raise ScheduleError(
                f"there is no day {self.day} in month {self.month} of {year}; "
                "say e.g. 'March 3 at 9am'"
            ) from exc


def read_month_day(text: str) -> MonthDay | None:
    """Read "march 3", "3rd march", "14 feb 2027" or "2027-02-14", or ``None``."""
    match = _MONTH_DAY.fullmatch(text) or _DAY_MONTH.fullmatch(text)
    if match:
        year = int(match["year"]) if match["year"] else None
        return _checked_month_day(text, MONTHS[match["month"]], int(match["day"]), year)
    match = _ISO_DATE.fullmatch(text)
    if match:
        month_day = _checked_month_day(
            text, int(match["month"]), int(match["day"]), int(match["year"])
        )
        month_day.on_year(int(match["year"]))
        return month_day
    return None


def _checked_month_day(text: str, month: int, day: int, year: int | None) -> MonthDay:
    if not 1 <= month <= 12 or not 1 <= day <= 31:
        raise ScheduleError(f"{text!r} is not a date; say e.g. 'March 3' or '2026-03-03'")
    if year is not None and not 1 <= year <= 9999:
        raise ScheduleError(f"{text!r} has a year out of range; say e.g. 'March 3 2027'")
    return MonthDay(month=month, day=day, year=year)


def read_ordinal_day(word: str) -> int | None:
    """Read a day of the month ("1st", "15th", "3", "first", "twenty-third"), or ``None``."""
    if word in ORDINAL_WORDS:
        return ORDINAL_WORDS[word]
    match = re.fullmatch(_DAY_OF_MONTH, word)
    if match is None:
        return None
    day = int(match["day"])
    if not 1 <= day <= 31:
        raise ScheduleError(f"{word!r} is not a day of the month; say e.g. 'the 1st'")
    return day

"""The grammar of the time language: each rule reads words into pieces.

A rule is a regular expression over canonical tokens (``tasks.schedule.tokens``: lower case,
numbers as digits, ordinals as ``15th``, clock times as ``h:mm[am|pm]``) and a function that
turns its match into pieces (``tasks.schedule.pieces``). Rules are grouped by what they read;
to teach the language a new phrase, add a rule to its group. ``RULES`` is every rule in order
of preference (a longer match always wins; among matches of one length, the earlier rule).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import time
from typing import get_args

from common import LazyPattern
from tasks.errors import ScheduleError
from tasks.schedule.clocks import ClockTime, PartName, Period, clock
from tasks.schedule.days import (
    Landmark,
    LandmarkName,
    OnDate,
    OnHoliday,
    OnMonth,
    OnMonthDay,
    OnNthWeekday,
    OnNumericDate,
    OnWeekday,
    OnWeekdayAndDay,
    Relative,
    Shifted,
    WeekdayWhich,
)
from tasks.schedule.durations import SPAN, span_of
from tasks.schedule.holidays import SPELLINGS
from tasks.schedule.lexicon import MONTHS, WEEKDAYS
from tasks.schedule.pieces import (
    Bad,
    Clock,
    Count,
    Day,
    Delay,
    Every,
    Except,
    Gone,
    Iso,
    Lasting,
    LastWorkday,
    Later,
    Leave,
    LeaveHolidays,
    NthWeekday,
    Offset,
    Part,
    Piece,
    Repeat,
    SameTime,
    Starting,
    Until,
    Weekdays,
    Window,
)

Build = Callable[[re.Match[str]], Sequence[Piece]]


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule: what it reads (a pattern over canonical tokens) and the pieces it gives.

    Attributes:
        name: What the rule reads, for tests and traces.
        pattern: The compiled pattern; it matches whole tokens only.
        build: Turns a match into pieces.
    """

    name: str
    pattern: LazyPattern
    build: Build


def _alternatives(words: Sequence[str]) -> str:
    return "|".join(sorted(map(re.escape, words), key=len, reverse=True))


_WD = _alternatives(list(WEEKDAYS))
_WD_PLURAL = _alternatives([f"{name}s" for name in WEEKDAYS if len(name) > 4])
_WD_ANY = rf"(?:{_WD_PLURAL}|{_WD})"
_WD_LIST = rf"{_WD_ANY}(?: (?:and |or |& )?{_WD_ANY})*"
_MONTH = _alternatives(list(MONTHS))
_ORD = r"\d{1,2}(?:st|nd|rd|th)"
_DAYNUM = rf"(?:{_ORD}|\d{{1,2}})"
_YEAR = r"\d{4}"
_HOLIDAY = _alternatives(list(SPELLINGS))
_AMPM = r"(?:am|pm)"
_CLOCKISH = (
    rf"(?:\d{{1,2}}:\d{{2}}(?::\d{{2}})?{_AMPM}?|\d{{1,2}}(?: {_AMPM})?|noon|midday|midnight)"
)
_PARTS = r"morning|afternoon|evening|night"
_NTH = {"1st": 1, "2nd": 2, "second": 2, "3rd": 3, "4th": 4, "5th": 5, "last": -1, "final": -1}
_EVERY_WORDS = {"couple of": 2, "couple": 2, "few": 3, "single": 1}
_EVERY_N = {"other": 2, "second": 2, "2nd": 2, "3rd": 3, "third": 3, "4th": 4, "5th": 5}
RULES: list[Rule] = []


def rule(name: str, pattern: str) -> Callable[[Build], Build]:
    """Add the decorated function to ``RULES`` as the rule ``name`` reading ``pattern``."""

    def add(build: Build) -> Build:
        # Compiled when first read: the rules' patterns were half of a command's start.
        RULES.append(Rule(name, LazyPattern(rf"(?:{pattern})(?=$| )"), build))
        return build

    return add


def _weekday(word: str) -> int:
    return WEEKDAYS[word[:-1] if word.endswith("s") and word[:-1] in WEEKDAYS else word]


def _weekday_set(words: str) -> frozenset[int]:
    return frozenset(_weekday(w) for w in words.split() if w not in {"and", "or", "&"})


def _day_number(text: str) -> int:
    digits = re.match(r"\d+", text)
    if digits is None:
        raise ValueError(f"no number at the start of {text!r}")  # a rule's pattern says there is
    return int(digits[0])


def _clock_or_bad(said: str, hour: int, minute: int = 0, second: int = 0,
                  meridiem: str | None = None) -> list[Piece]:  # fmt: skip
    try:
        return [Clock(clock(hour, minute, second, meridiem=meridiem))]
    except ValueError:
        if hour <= 23 and minute <= 59:
            example = f"{hour}:{minute:02d}"  # "13pm": say it on the 24-hour clock
        elif hour <= 23:
            example = f"{hour}:00"
        else:
            example = "9am"
        return [Bad(f"{said!r} is not a clock time; say e.g. 'at {example}'")]


# --- clock times ----------------------------------------------------------------------------


@rule("clock", rf"(?P<h>\d{{1,2}}):(?P<m>\d{{2}})(?::(?P<s>\d{{2}}))?(?P<ap>{_AMPM})?"
      r"(?: o'?clock)?")  # fmt: skip
def _clock(m: re.Match[str]) -> list[Piece]:
    pieces = _clock_or_bad(m[0], int(m["h"]), int(m["m"]), int(m["s"] or 0), m["ap"])
    if m["h"].startswith("0") and pieces and isinstance(pieces[0], Clock):
        return [Clock(replace(pieces[0].time, ambiguous=False))]  # "07:30" is the morning
    return pieces


@rule("hour and minutes, am/pm", rf"(?P<h>\d{{1,2}})(?: (?P<m>[0-5]\d))? (?P<ap>{_AMPM})")
def _hour_ampm(m: re.Match[str]) -> list[Piece]:
    return _clock_or_bad(m[0], int(m["h"]), int(m["m"] or 0), meridiem=m["ap"])


@rule("o'clock", rf"(?P<h>\d{{1,2}}) (?:o'?clock)(?: (?P<ap>{_AMPM}))?")
def _oclock(m: re.Match[str]) -> list[Piece]:
    return _clock_or_bad(m[0], int(m["h"]), meridiem=m["ap"])


@rule("noon, midnight", r"(?:12 )?(?P<w>noon|midday|midnight)")
def _noon(m: re.Match[str]) -> list[Piece]:
    if m["w"] == "midnight":
        return [Clock(ClockTime(clock(0).at, meridiem=True, midnight=True))]
    return [Clock(ClockTime(clock(12).at, meridiem=True))]


_MEALS = {"breakfast": 8, "lunch": 12, "dinner": 19, "supper": 19}


_MEAL = r"breakfast|lunch|dinner|supper"


@rule(
    "a meal",
    rf"(?:at|around|by|for) (?P<m1>{_MEAL})(?: ?time)?|(?P<m2>{_MEAL}) ?time"
    rf"|(?P<m3>lunchtime|dinnertime|suppertime)|(?P<m4>{_MEAL})",
)
def _meal(m: re.Match[str]) -> list[Piece]:
    word = (m["m1"] or m["m2"] or m["m3"] or m["m4"]).removesuffix("time")
    return [Clock(ClockTime(clock(_MEALS[word]).at, meridiem=True))]


@rule("first thing", r"1st thing(?: in the morning)?|early in the morning|bright and early")
def _first_thing(m: re.Match[str]) -> list[Piece]:
    return [Clock(ClockTime(clock(8).at, meridiem=True))]


@rule("around work", r"(?P<w>after|before) (?:work|the office)")
def _around_work(m: re.Match[str]) -> list[Piece]:
    """Office hours as people keep them: before work 08:00, after work 18:00."""
    return [Clock(ClockTime(clock(8 if m["w"] == "before" else 18).at, meridiem=True))]


_AFTER_MEALS = {"breakfast": 9, "lunch": 13, "dinner": 20, "supper": 20}


@rule("after a meal", rf"after (?P<m>{_MEAL})")
def _after_meal(m: re.Match[str]) -> list[Piece]:
    """An hour after the meal's time: after breakfast 09:00, lunch 13:00, dinner 20:00."""
    return [Clock(ClockTime(clock(_AFTER_MEALS[m["m"]]).at, meridiem=True))]


@rule("end of the day", r"(?:the )?(?:end|close) of (?:the )?(?:business |work |working )?day"
      r"|eod|cob|close of business|end of business")  # fmt: skip
def _end_of_day(m: re.Match[str]) -> list[Piece]:
    return [Clock(ClockTime(clock(17).at, meridiem=True))]


_FRACTIONS = {"quarter": 15, "half": 30}


@rule(
    "past and to",
    rf"(?:a )?(?P<q>quarter|half|(?P<n>5|10|20|25|\d{{1,2}} minutes?)) "
    rf"(?P<w>past|after|to|till|til|before|of) (?P<h>\d{{1,2}}|noon|midnight)"
    rf"(?: (?P<ap>{_AMPM})| o'?clock)?",
)
def _past_or_to(m: re.Match[str]) -> list[Piece]:
    way, said = m["w"], m["h"]
    if way == "of" and m["q"] != "quarter":
        return []
    if way in {"after", "before"} and m["n"] and "minute" in m["n"]:
        return []  # "10 minutes before 6pm" is an offset
    minutes = _FRACTIONS.get(m["q"]) or _day_number(m["q"])
    if minutes >= 60:
        return []
    if said in {"noon", "midnight"}:
        base, meridiem = (12 if said == "noon" else 24), True
    else:
        hour = int(said)
        if (m["ap"] and not 1 <= hour <= 12) or hour > 23:
            return [Bad(f"{m[0]!r} is not a clock time; say e.g. 'quarter past 3'")]
        meridiem = m["ap"] is not None
        base = hour % 12 + (12 if m["ap"] == "pm" else 0) if meridiem else hour
    total = (
        base * 60 + (-minutes if way in {"to", "till", "til", "before", "of"} else minutes)
    ) % 1440
    hour, minute = divmod(total, 60)
    if not meridiem and hour == 0:
        hour = 12  # "ten to one" is 12:50
    ambiguous = not meridiem and 1 <= hour <= 12
    said_hour = base if ambiguous and base != hour else None
    return [Clock(ClockTime(time(hour, minute), meridiem, ambiguous, said_hour=said_hour))]


@rule(
    "half an hour past, the British way", r"(?:at )?half (?P<h>\d{1,2})(?! (?:an?|hour|past|day))"
)
def _half_british(m: re.Match[str]) -> list[Piece]:
    hour = int(m["h"])
    if not 1 <= hour <= 12:
        return []
    return [Clock(ClockTime(time(hour % 12 or 12, 30), meridiem=False, ambiguous=True))]


@rule("hour and minutes in words", r"(?P<h>\d{1,2}) (?P<m>[0-5]\d)(?! ?(?:st|nd|rd|th))")
def _hour_minutes(m: re.Match[str]) -> list[Piece]:
    hour, minutes = int(m["h"]), m["m"]
    if hour > 12 or (int(minutes) < 10 and not minutes.startswith("0")):
        return []
    return _clock_or_bad(m[0], hour, int(minutes))


@rule("at an hour", r"(?:at|@|around|about|approximately|approx|circa|by) (?P<h>\d{1,2})")
def _at_hour(m: re.Match[str]) -> list[Piece]:
    pieces = _clock_or_bad(m[0], int(m["h"]))
    if m["h"].startswith("0") and pieces and isinstance(pieces[0], Clock):
        return [Clock(replace(pieces[0].time, ambiguous=False))]  # "at 07" is the morning
    return pieces


@rule("at a time with a dot", r"(?:at|@) (?P<h>\d{1,2})\.(?P<m>\d{2})")
def _at_dotted(m: re.Match[str]) -> list[Piece]:
    return _clock_or_bad(m[0], int(m["h"]), int(m["m"]))


@rule("sharp", r"(?P<h>\d{1,2}) sharp")
def _sharp(m: re.Match[str]) -> list[Piece]:
    return _clock_or_bad(m[0], int(m["h"]))


@rule("at hours", r"(?:at|@) (?P<list>\d{1,2}(?: (?:and|&|or|,) (?:at )?\d{1,2})+)")
def _at_hours(m: re.Match[str]) -> list[Piece]:
    pieces: list[Piece] = []
    for hour in re.findall(r"\d+", m["list"]):
        pieces += _clock_or_bad(f"at {hour}", int(hour))
    return pieces


@rule("at a military time", r"(?:at|@) (?P<hm>\d{3,4})")
def _at_military(m: re.Match[str]) -> list[Piece]:
    digits = m["hm"]
    pieces = _clock_or_bad(m[0], int(digits[:-2]), int(digits[-2:]))
    if len(digits) == 4 and pieces and isinstance(pieces[0], Clock):
        return [Clock(replace(pieces[0].time, ambiguous=False))]  # "at 0615", "at 1730": 24h
    return pieces


@rule(
    "an hour before a part of the day",
    rf"(?P<h>\d{{1,2}})(?= (?:in the |this |at |tomorrow |tonight|tomorrow$)?"
    rf"(?:{_PARTS}|tonight)(?:$| ))",
)
def _hour_before_part(m: re.Match[str]) -> list[Piece]:
    return _clock_or_bad(m[0], int(m["h"]))


@rule("an ISO date", r"(?P<y>\d{4})-(?P<mo>\d{2})-(?P<d>\d{2})")
def _iso_date(m: re.Match[str]) -> list[Piece]:
    month, day = int(m["mo"]), int(m["d"])
    if not 1 <= month <= 12:
        return [_bad_date(m[0])]
    return _date(m[0], month, day, m["y"])


@rule("an ISO time", r"\d{4}-\d{2}-\d{2}T[0-9:.+\-Z]+")
def _iso_time(m: re.Match[str]) -> list[Piece]:
    return [Iso(m[0])]


# --- parts of the day -----------------------------------------------------------------------

_PART_NAMES: dict[str, PartName] = {name: name for name in get_args(PartName)}


@rule("part of the day", rf"(?P<this>this |in the |during the |over the |at |later this )?"
      rf"(?P<p>{_PARTS})")  # fmt: skip
def _part(m: re.Match[str]) -> list[Piece]:
    today = m["this"] in {"this ", "later this "}
    return [Part(Period(_PART_NAMES[m["p"]], today))]


_EARLY_LATE = {
    ("early", "morning"): 8, ("late", "morning"): 11, ("early", "afternoon"): 13,
    ("late", "afternoon"): 16, ("early", "evening"): 18, ("late", "evening"): 21,
    ("late", "night"): 23,
}  # fmt: skip


@rule(
    "early or late in a part of the day",
    rf"(?:in the |during the )?(?P<el>early|late) (?:in the |at )?(?P<p>{_PARTS})",
)
def _early_late(m: re.Match[str]) -> list[Piece]:
    """ "late afternoon" is the afternoon at 16:00 unless a time is said, "early evening" 18:00,
    "late at night" 23:00. ("late tonight" and "early tomorrow" are left alone: "I'll be late
    tonight", "leave early tomorrow" say how, not when.)"""
    hour = _EARLY_LATE.get((m["el"], m["p"]))
    if hour is None:
        return []  # "early night": no hour people agree on
    return [Part(Period(_PART_NAMES[m["p"]], False, at=time(hour)))]


@rule("tonight", r"tonight")
def _tonight(m: re.Match[str]) -> list[Piece]:
    return [Part(Period("tonight", True))]


@rule("parts of the day, repeating", rf"(?:in the )?(?P<p>{_PARTS})s")
def _parts_plural(m: re.Match[str]) -> list[Piece]:
    return [Repeat(), Part(Period(_PART_NAMES[m["p"]], False))]


# --- days -----------------------------------------------------------------------------------


@rule("today, tomorrow", r"today|tomorrow|(?:the )?day after tomorrow|overmorrow")
def _relative_day(m: re.Match[str]) -> list[Piece]:
    days = {"today": 0, "tomorrow": 1}.get(m[0], 2)
    return [Day(Relative(days))]


_WHICH: dict[str, WeekdayWhich] = {
    "this": "coming", "coming": "coming", "this coming": "coming", "upcoming": "coming",
    "next": "next", "following": "next", "the following": "next", "next coming": "next",
}  # fmt: skip


@rule(
    "a weekday",
    rf"(?:(?P<which>this coming|next coming|the following|this|coming|upcoming|next|following) )?"
    rf"(?P<w>{_WD})(?: (?P<after>(?:of )?next week|(?:of )?this week|after next|week))?",
)
def _weekday_day(m: re.Match[str]) -> list[Piece]:
    which: WeekdayWhich = _WHICH.get(m["which"] or "", "coming")
    after = m["after"] or ""
    if after == "week":
        return [Day(Shifted(OnWeekday(_weekday(m["w"]), "coming"), days=7))]  # "tuesday week"
    if "next week" in after:
        which = "next_week"
    elif "this week" in after:
        which = "this_week"
    elif after == "after next":
        which = "after_next"
    return [Day(OnWeekday(_weekday(m["w"]), which))]


@rule("a week on a weekday", rf"a week (?:on|from|after) (?P<w>{_WD})")
def _week_on_weekday(m: re.Match[str]) -> list[Piece]:
    return [Day(Shifted(OnWeekday(_weekday(m["w"]), "coming"), days=7))]


@rule("next week's weekday", rf"next week(?: on)? (?P<w>{_WD})")
def _next_week_weekday(m: re.Match[str]) -> list[Piece]:
    return [Day(OnWeekday(_weekday(m["w"]), "next_week"))]


@rule("month and day", rf"(?P<m>{_MONTH}) (?:/ )?(?:the )?(?P<d>{_DAYNUM})(?: (?P<y>{_YEAR}))?")
def _month_day(m: re.Match[str]) -> list[Piece]:
    return _date(m[0], MONTHS[m["m"]], _day_number(m["d"]), m["y"])


@rule(
    "day and month",
    rf"(?:the )?(?P<d>{_DAYNUM}|second) (?:of )?(?P<m>{_MONTH})(?: (?P<y>{_YEAR}))?",
)
def _day_month(m: re.Match[str]) -> list[Piece]:
    day = 2 if m["d"] == "second" else _day_number(m["d"])
    return _date(m[0], MONTHS[m["m"]], day, m["y"])


def _date(said: str, month: int, day: int, year: str | None) -> list[Piece]:
    if not 1 <= day <= 31:
        return [Bad(f"{said!r} is not a date; say e.g. 'March 3' or '2027-03-03'")]
    return [Day(OnDate(month, day, int(year) if year else None))]


@rule(
    "a date in numbers",
    r"(?P<a>\d{1,4})/(?P<b>\d{1,2})(?:/(?P<c>\d{2,4}))?"
    r"|(?P<da>\d{1,2})\.(?P<db>\d{1,2})\.(?P<dc>\d{2,4})?",
)
def _numeric_date(m: re.Match[str]) -> list[Piece]:
    if m["da"] is not None:
        return _numbers_date(m[0], m["da"], m["db"], m["dc"], day_first=True)
    return _numbers_date(m[0], m["a"], m["b"], m["c"], day_first=None)


@rule("a date with dashes", r"(?P<a>\d{1,4}) - (?P<b>\d{1,2})(?: - (?P<c>\d{2,4}))?")
def _dashed_date(m: re.Match[str]) -> list[Piece]:
    return _numbers_date(m[0].replace(" ", ""), m["a"], m["b"], m["c"], day_first=None)


def _numbers_date(
    said: str, first: str, second: str, third: str | None, *, day_first: bool | None
) -> list[Piece]:
    a, b = int(first), int(second)
    if len(first) == 4:  # 2027/03/04, 2026-2-14
        if third is None:
            return []
        return _date(said, b, int(third), first) if 1 <= b <= 12 else [_bad_date(said)]
    year = None if third is None else int(third) + (2000 if len(third) == 2 else 0)
    if not (1 <= a <= 31 and 1 <= b <= 31) or (a > 12 and b > 12):
        return [_bad_date(said)]
    return [Day(OnNumericDate(a, b, year, day_first=day_first))]


def _bad_date(said: str) -> Bad:
    return Bad(f"{said!r} is not a date; say e.g. '4/22' (April 22) or '2027-04-22'")


@rule("a month", rf"(?P<at>in|this|next|coming|early|mid|late|the middle of|the end of"
      rf"|the beginning of|the start of|end of|beginning of|start of) (?P<m>{_MONTH})")  # fmt: skip
def _month(m: re.Match[str]) -> list[Piece]:
    day = {"mid": 15, "the middle of": 15, "late": -1, "the end of": -1, "end of": -1}
    return [Day(OnMonth(MONTHS[m["m"]], day.get(m["at"], 1)))]


_MONTH_REL = (
    r"(?: (?P<rel>of (?:the |this )?month|of next month|of the next month|next month|this month))?"
)


@rule("a day of the month", rf"(?:the |on the )?(?P<d>{_ORD})(?: day)?{_MONTH_REL}")
def _month_day_of(m: re.Match[str]) -> list[Piece]:
    return _day_of_month(m[0], _day_number(m["d"]), m["rel"])


@rule("the second", rf"(?:on )?the (?P<d>second){_MONTH_REL}")
def _the_second(m: re.Match[str]) -> list[Piece]:
    return _day_of_month(m[0], 2, m["rel"])


@rule("on the number", rf"on the (?P<d>\d{{1,2}}){_MONTH_REL}")
def _on_the_number(m: re.Match[str]) -> list[Piece]:
    return _day_of_month(m[0], int(m["d"]), m["rel"])


@rule("next month's day", rf"(?P<which>next|this) month(?: on)? (?:the )?(?P<d>{_ORD}|last day)")
def _next_month_day(m: re.Match[str]) -> list[Piece]:
    day = -1 if m["d"] == "last day" else _day_number(m["d"])
    return [Day(OnMonthDay(day, 1 if m["which"] == "next" else 0))]


def _day_of_month(said: str, day: int, rel: str | None) -> list[Piece]:
    if not 1 <= day <= 31:
        return [Bad(f"{said!r} is not a day of the month; say e.g. 'the 1st'")]
    ahead = None if rel is None else (1 if "next" in rel else 0)
    return [Day(OnMonthDay(day, ahead))]


@rule("the last day", r"(?:the )?(?:last day|end)(?: of (?P<rel>the month|this month|next month"
      r"|the next month))?")  # fmt: skip
def _last_day(m: re.Match[str]) -> list[Piece]:
    if m[0].endswith("end") and m["rel"] is None:
        return []
    ahead = None if m["rel"] is None else (1 if "next" in m["rel"] else 0)
    return [Day(OnMonthDay(-1, 0 if ahead is None else ahead))]


@rule("a weekday and a day", rf"(?P<w>{_WD}) (?:the (?P<d1>{_DAYNUM})|(?P<d2>{_ORD}))"
      rf"(?! (?:of )?(?:{_MONTH}))")  # fmt: skip
def _weekday_and_day(m: re.Match[str]) -> list[Piece]:
    day = _day_number(m["d1"] or m["d2"])
    if not 1 <= day <= 31:
        return [Bad(f"{m[0]!r} is not a date; say e.g. 'Friday the 13th'")]
    return [Day(OnWeekdayAndDay(_weekday(m["w"]), day))]


@rule(
    "the nth weekday",
    rf"(?:the )?(?P<n>1st|2nd|second|3rd|4th|5th|last|final) (?P<w>{_WD})"
    rf"(?: (?:of|in) (?P<of>the month|this month|next month|every month|each month|a month"
    rf"|the next month|(?P<month>{_MONTH})))?",
)
def _nth_weekday(m: re.Match[str]) -> list[Piece]:
    nth, weekday = _NTH[m["n"]], _weekday(m["w"])
    of = m["of"] or ""
    if nth == -1 and not of and not m[0].startswith("the "):
        return []  # "last friday" is the past; "the last friday (of the month)" is not
    if of in {"every month", "each month", "a month"}:
        return [NthWeekday(nth, weekday), Every(1, "month")]
    month = MONTHS[m["month"]] if m["month"] else None
    ahead = 1 if "next" in of else (0 if of == "this month" else None)
    return [
        Day(OnNthWeekday(nth, weekday, month=month, months_ahead=ahead)),
        NthWeekday(nth, weekday),
    ]


_NTH_WORD = r"1st|2nd|second|3rd|4th|5th"  # the tokenizer has made "first" "1st", ...


@rule(
    "several nth weekdays",
    rf"(?:(?:every|each|on) )?(?:the )?(?P<ns>(?:{_NTH_WORD})(?: (?:the )?(?:{_NTH_WORD}))*"
    rf" (?:and|&) (?:the )?(?:{_NTH_WORD})) (?P<w>{_WD})"
    rf"(?: (?:of|in) (?:the month|every month|each month|a month))?",
)
def _nth_weekdays(m: re.Match[str]) -> list[Piece]:
    """ "the 2nd and 4th tuesday (of every month)": several days of each month."""
    words = dict.fromkeys(re.findall(_NTH_WORD, m["ns"]))
    weekday = _weekday(m["w"])
    return [*(NthWeekday(_NTH[word], weekday) for word in words), Every(1, "month")]


@rule("a holiday", rf"(?:(?P<which>this|next|coming|this coming) )?(?P<h>{_HOLIDAY})"
      rf"(?: (?P<y>{_YEAR}))?")  # fmt: skip
def _holiday(m: re.Match[str]) -> list[Piece]:
    return [Day(OnHoliday(SPELLINGS[m["h"]], int(m["y"]) if m["y"] else None))]


_LANDMARKS: dict[str, LandmarkName] = {
    "next week": "next_week", "next month": "next_month", "next year": "next_year",
    "weekend": "weekend", "next weekend": "next_weekend", "end of week": "end_week",
    "end of month": "end_month",
    "end of year": "end_year", "beginning of next month": "start_next_month",
    "start of next month": "start_next_month", "middle of next month": "mid_next_month",
    "mid next month": "mid_next_month", "mid-next month": "mid_next_month",
    "beginning of next week": "next_week", "start of next week": "next_week",
    "early next week": "next_week", "end of next week": "end_next_week",
    "middle of next week": "mid_next_week", "mid next week": "mid_next_week",
    "mid-next week": "mid_next_week", "middle of week": "mid_week", "midweek": "mid_week",
    "mid-week": "mid_week", "mid week": "mid_week", "weekend after next": "weekend_after_next",
    "week after next": "week_after_next", "this week": "this_week", "this month": "this_month",
    "middle of month": "mid_month", "mid-month": "mid_month", "mid month": "mid_month",
    "year end": "end_year", "year-end": "end_year",
}  # fmt: skip


@rule(
    "a landmark",
    r"(?:the |this |this coming |on the |over the )?(?:weekend after next|weekend)"
    r"|next (?:weekend|week|month|year)|early next week|(?:in |during )?(?:the )?week after next"
    r"|(?:in |during )(?:the )?(?:end|beginning|start|middle) of next (?:week|month)"
    r"|(?:for |during |over |through |throughout )?this (?:week|month)"
    r"|(?:the )?(?:end|beginning|start|middle) of (?:the |this )?(?:week|month|year)"
    r"|(?:the )?(?:beginning|start|middle) of next (?:month|week)|(?:the )?end of next week"
    r"|mid[- ]?next (?:month|week)|mid[- ]?month|mid[- ]?week|(?:this )?midweek|year[- ]end",
)
def _landmark(m: re.Match[str]) -> list[Piece]:
    words = re.sub(r"^(?:for |during |over |through |throughout )(?=this )", "", m[0])
    words = re.sub(r"^(?:in |during )(?=the |week )", "", words)
    if words in {"this week", "this month"}:
        return [Day(Landmark(_LANDMARKS[words]))]
    words = re.sub(r"^(?:the |this coming |this |on the |over the )", "", words)
    words = words.replace("of the ", "of ").replace("of this ", "of ")
    if words.startswith(("beginning of", "start of")) and "next" not in words:
        return []  # "the beginning of the month": which one is not said
    name = _LANDMARKS.get(words)
    return [] if name is None else [Day(Landmark(name))]


@rule("a week from today", r"(?:a week (?:from )?today|today week|this day next week"
      r"|a week (?:from )?tomorrow|tomorrow week)")  # fmt: skip
def _week_today(m: re.Match[str]) -> list[Piece]:
    return [Day(Relative(8 if "tomorrow" in m[0] else 7))]


# --- delays and offsets ---------------------------------------------------------------------


@rule("a delay", rf"(?:in|within|after) (?:another |an extra |about |around |approximately |"
      rf"just |only |like |roughly |maybe )?"
      rf"(?P<span>{SPAN})(?: (?:from now|time|later|'s time))?")  # fmt: skip
def _delay(m: re.Match[str]) -> list[Piece]:
    return [Delay(span_of(m["span"]))]


@rule("a delay from now", rf"(?P<span>{SPAN}) (?:from now|later|hence|from right now)")
def _delay_from_now(m: re.Match[str]) -> list[Piece]:
    return [Delay(span_of(m["span"]))]


@rule("a duration", rf"(?P<span>{SPAN})")
def _duration(m: re.Match[str]) -> list[Piece]:
    return [Delay(span_of(m["span"]), bare=True)]


@rule("a span before or after", rf"(?P<span>{SPAN}|(?:the )?day|(?:the )?week) "
      r"(?P<way>before|after|from|prior to|ahead of)")  # fmt: skip
def _offset(m: re.Match[str]) -> list[Piece]:
    words = m["span"].removeprefix("the ")
    span = span_of(f"1 {words}") if words in {"day", "week"} else span_of(words)
    return [Offset(span, before=m["way"] in {"before", "prior to", "ahead of"})]


@rule("this time tomorrow", rf"(?:at )?(?:this|(?:the )?same) time (?P<rel>tomorrow|next week"
      rf"|next month|next year|on (?P<w>{_WD}))"
      r"|(?P<rel2>tomorrow) (?:at )?(?:the )?same time")  # fmt: skip
def _same_time(m: re.Match[str]) -> list[Piece]:
    rel = m["rel"] or m["rel2"]
    if rel == "tomorrow":
        return [SameTime(days=1)]
    if rel == "next week":
        return [SameTime(days=7)]
    if rel == "next month":
        return [SameTime(days=0, months=1)]
    if rel == "next year":
        return [SameTime(days=0, months=12)]
    return []


@rule("later", r"later(?: today| on| this day)?")
def _later(m: re.Match[str]) -> list[Piece]:
    return [Later()]


@rule("the past", rf"yesterday|the day before yesterday|last night|earlier today"
      rf"|last (?:week|month|year|weekend|(?P<w>{_WD}))|this past (?P<w2>{_WD})"
      rf"|(?P<span>{SPAN}) ago")  # fmt: skip
def _gone(m: re.Match[str]) -> list[Piece]:
    if m["span"]:
        return [Gone(m[0], f"in {m['span']}")]
    return [Gone(m[0], "tomorrow")]


@rule("a delay in the past", rf"(?:in )?- ?(?P<span>{SPAN})")
def _negative(m: re.Match[str]) -> list[Piece]:
    return [Bad(f"that is in the past; say e.g. 'in {m['span']}'")]


# --- repeating ------------------------------------------------------------------------------


@rule("every unit", r"(?:every|each|once (?:a|an|per|every)) (?:(?P<n>\d+|other|second|third|"
      r"2nd|3rd|4th|5th|couple(?: of)?|few|single) )?(?P<u>second|minute|hour|day|week|fortnight|"
      r"month|quarter|year)s?")  # fmt: skip
def _every_unit(m: re.Match[str]) -> list[Piece]:
    """ "every 2 hours", "every other day"; "every few hours" is every 3, as "in a few hours"
    is 3 hours from now."""
    said = m["n"] or "1"
    count = _EVERY_WORDS.get(said) or _EVERY_N.get(said) or int(said)
    unit = m["u"]
    if unit == "fortnight":
        return [Every(count * 2, "week")]
    if unit == "quarter":
        return [Every(count * 3, "month")]
    return [Every(count, unit)]


@rule("every span", rf"(?:every|each) (?P<span>{SPAN})")
def _every_span(m: re.Match[str]) -> list[Piece]:
    span = span_of(m["span"])
    if span.months:
        if span.days or span.elapsed:
            return [Bad(f"{m[0]!r} mixes months with days or hours; say e.g. 'every 2 months'")]
        return [Every(span.months, "month")]
    if span.days and not span.elapsed:
        return [Every(span.days, "day")]
    seconds = span.total.total_seconds()
    if not seconds.is_integer():
        return [Bad(f"{m[0]!r} is not whole seconds; say e.g. 'every 15 minutes'")]
    if seconds % 60:
        return [Every(int(seconds), "second")]
    return [Every(int(seconds) // 60, "minute")]


_ADVERBS: dict[str, tuple[int, str]] = {
    "hourly": (1, "hour"), "daily": (1, "day"), "everyday": (1, "day"),
    "weekly": (1, "week"), "fortnightly": (2, "week"), "biweekly": (2, "week"),
    "bi-weekly": (2, "week"), "monthly": (1, "month"), "quarterly": (3, "month"),
    "yearly": (1, "year"), "annually": (1, "year"), "semiannually": (6, "month"),
    "semi-annually": (6, "month"), "biannually": (6, "month"), "twice a year": (6, "month"),
}  # fmt: skip


@rule("an adverb of repetition", _alternatives(list(_ADVERBS)))
def _adverb(m: re.Match[str]) -> list[Piece]:
    count, unit = _ADVERBS[m[0]]
    return [Every(count, unit)]


@rule("on the hour", r"(?:every hour |hourly )?on the hour")
def _on_the_hour(m: re.Match[str]) -> list[Piece]:
    return [Every(1, "hour"), Window(clock(0), clock(23))]


@rule("nightly", r"nightly")
def _nightly(m: re.Match[str]) -> list[Piece]:
    return [Every(1, "day"), Part(Period("night", False))]


@rule("every part of the day", rf"(?:every|each) (?P<p>{_PARTS})")
def _every_part(m: re.Match[str]) -> list[Piece]:
    return [Repeat(), Part(Period(_PART_NAMES[m["p"]], False))]


@rule("every", r"every|each")
def _every(m: re.Match[str]) -> list[Piece]:
    return [Repeat()]


@rule("weekdays", rf"(?:(?:every|each|on) )?(?P<ws>{_WD_LIST})")
def _weekdays(m: re.Match[str]) -> list[Piece]:
    words = m["ws"].split()
    plural = any(w.endswith("s") and w[:-1] in WEEKDAYS for w in words)
    if not (plural or m[0].startswith(("every", "each"))):
        return []
    return [Weekdays(_weekday_set(m["ws"]))]


@rule("a range of weekdays", rf"(?:(?:every day |every |each |daily )?from )?(?P<a>{_WD}) "
      rf"(?:to|through|thru|till|until|-) (?P<b>{_WD})")  # fmt: skip
def _weekday_range(m: re.Match[str]) -> list[Piece]:
    first, last = _weekday(m["a"]), _weekday(m["b"])
    days = frozenset((first + k) % 7 for k in range((last - first) % 7 + 1))
    return [Weekdays(days)]


@rule("workdays", r"(?:(?:every|each|on|on all) )?(?:week ?days?|work ?days?|business days?"
      r"|working days?|weekdays?)")  # fmt: skip
def _workdays(m: re.Match[str]) -> list[Piece]:
    return [Weekdays(frozenset(range(5)))]


@rule("weekends", r"(?:(?:every|each|on) )?weekends|(?:every|each) weekend")
def _weekends(m: re.Match[str]) -> list[Piece]:
    return [Weekdays(frozenset({5, 6}))]


@rule("weeknights", r"(?:every|each|on) (?P<w>week ?nights?|school ?nights?)"
      r"|(?P<w2>week ?nights|school ?nights)")  # fmt: skip
def _weeknights(m: re.Match[str]) -> list[Piece]:
    """Weeknights are Monday to Friday's; school nights the nights before a school day."""
    days = {6, 0, 1, 2, 3} if (m["w"] or m["w2"]).startswith("school") else set(range(5))
    return [Weekdays(frozenset(days)), Part(Period("night", False))]


@rule("every other weekend", r"(?:every|each) (?P<n>other|second|third|2nd|3rd|4th|\d+) weekends?")
def _every_nth_weekend(m: re.Match[str]) -> list[Piece]:
    count = _EVERY_N.get(m["n"]) or int(m["n"])
    return [Every(count, "week"), Weekdays(frozenset({5, 6}))]


@rule("every nth weekday", rf"(?:every|each) (?P<n>other|second|third|2nd|3rd|4th|\d+) "
      rf"(?P<w>{_WD_ANY})")  # fmt: skip
def _every_nth_weekday(m: re.Match[str]) -> list[Piece]:
    count = _EVERY_N.get(m["n"]) or int(m["n"])
    return [Every(count, "week"), Weekdays(frozenset({_weekday(m["w"])}))]


@rule("the last workday", r"(?:the )?last (?:weekday|workday|business day|working day)"
      r"(?: of (?:the |every |each )?month)?")  # fmt: skip
def _last_workday(m: re.Match[str]) -> list[Piece]:
    return [LastWorkday(), Every(1, "month")]


@rule("of each quarter", r"(?:of|in) (?:each|every|the|a) quarter")
def _of_each_quarter(m: re.Match[str]) -> list[Piece]:
    return [
        Bad(
            f"{m[0]!r}: quarters of the calendar year are not supported; say the months, e.g. "
            "'the first monday of every 3 months'"
        )
    ]


@rule("of every month", r"(?:of |in )?(?:every|each|a) month")
def _of_every_month(m: re.Match[str]) -> list[Piece]:
    return [Every(1, "month")]


@rule(
    "a window of the day",
    rf"(?:between|from) (?P<a>{_CLOCKISH}) (?:and|to|till|until|-|through|thru) "
    rf"(?P<b>{_CLOCKISH})",
)
def _window(m: re.Match[str]) -> list[Piece]:
    return _window_of(m["a"], m["b"])


@rule("a short window", rf"(?P<a>{_CLOCKISH}) ?(?:-|to) ?(?P<b>{_CLOCKISH})")
def _short_window(m: re.Match[str]) -> list[Piece]:
    return _window_of(m["a"], m["b"])


@rule("work hours", r"(?:during|in|within|over) (?:the )?(?:work|working|business|office) "
      r"hours|(?:during|in) (?:the )?work ?day")  # fmt: skip
def _work_hours(m: re.Match[str]) -> list[Piece]:
    return [Window(clock(9), clock(17), workdays=True)]


def _window_of(first: str, second: str) -> list[Piece]:
    try:
        start, end = _window_clock(first), _window_clock(second)
    except ValueError:
        return []
    return [Window(start, end)]


def _window_clock(said: str) -> ClockTime:
    if said in {"noon", "midday"}:
        return ClockTime(clock(12).at, meridiem=True)
    if said == "midnight":
        return ClockTime(clock(0).at, meridiem=True, midnight=True)
    found = re.fullmatch(r"(\d{1,2})(?::(\d{2}))?(?::\d{2})? ?(am|pm)?", said)
    if found is None:
        raise ValueError(said)
    return clock(int(found[1]), int(found[2] or 0), meridiem=found[3])


@rule("until", r"until|till|til|through|thru|up to|up until|ending(?: on)?|ends(?: on)?"
      r"|no later than|through to")  # fmt: skip
def _until(m: re.Match[str]) -> list[Piece]:
    return [Until()]


@rule("starting", r"starting(?: from| on)?|beginning(?: on| from)?|from|as of|effective"
      r"|commencing|begin(?:ning)? on")  # fmt: skip
def _starting(m: re.Match[str]) -> list[Piece]:
    return [Starting()]


@rule("a number of times", r"(?:for )?(?:the next )?(?P<n>\d+) (?:times|occurrences|reminders|"
      r"more times)")  # fmt: skip
def _count(m: re.Match[str]) -> list[Piece]:
    return [Count(int(m["n"]))]


@rule("for how long", rf"for (?:the next |another |a further )?(?P<span>{SPAN})"
      r"|for the (?:next|coming) (?P<one>day|week|fortnight|month)")  # fmt: skip
def _lasting(m: re.Match[str]) -> list[Piece]:
    """ "for 2 weeks", "for the next 3 days"; "for the next week" is 7 days from the first."""
    return [Lasting(span_of(m["span"] or f"1 {m['one']}"))]


@rule("except", rf"(?:except|excluding|but not|but|apart from|other than|not on|except for|"
      rf"except on|save for|skipping) (?:on )?(?P<ws>{_WD_LIST}|weekends?|weekdays?)")  # fmt: skip
def _except(m: re.Match[str]) -> list[Piece]:
    words = m["ws"]
    if words.startswith("weekend"):
        return [Except(frozenset({5, 6}))]
    if words.startswith("weekday"):
        return [Except(frozenset(range(5)))]
    return [Except(_weekday_set(words))]


_LEAVING = (r"except|excluding|but not|apart from|other than|not on|except for|except on|"
            r"save for|skipping|skip")  # fmt: skip


@rule("except holidays", rf"(?:{_LEAVING}) (?:on )?(?:the )?(?:public |federal |us |national )?"
      r"holidays")  # fmt: skip
def _except_holidays(m: re.Match[str]) -> list[Piece]:
    return [LeaveHolidays()]


@rule("except bank holidays", rf"(?:{_LEAVING}) (?:on )?(?:the )?bank holidays")
def _except_bank_holidays(m: re.Match[str]) -> list[Piece]:
    return [Bad(f"{m[0]!r}: the only holidays known as a set are the US federal ones ('except "
                "holidays'); name the days instead, e.g. 'every weekday at 9am except "
                "december 25 and december 26'")]  # fmt: skip


@rule("except days", rf"(?:{_LEAVING})(?: on)?")
def _leave(m: re.Match[str]) -> list[Piece]:
    return [Leave()]


def shifted(base: Day, offset: Offset) -> Day:
    """``base`` moved by a calendar ``offset`` ("a week from friday", "3 days before easter").

    Raises:
        ScheduleError: when the offset is not whole days, weeks, months or years.
    """
    span = offset.span
    if not span.calendar:
        raise ScheduleError("only whole days, weeks, months or years move a day")
    sign = -1 if offset.before else 1
    return Day(Shifted(base.ref, days=sign * span.days, months=sign * span.months))

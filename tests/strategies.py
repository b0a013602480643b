"""Shared hypothesis strategies for the fuzz tests: adversarial model replies and schedule words.

Plain ``st.text()`` rarely produces the shapes that stress a tool-call parser or a schedule
reader, so these strategies mix random text with the fragments those readers react to
(fences, tags, braces, keys, clock words, cron fields) in random order and number.
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from hypothesis import strategies as st

ANY_CHARACTER = st.characters(codec="utf-8")
"""Any code point a Python ``str`` can hold in valid UTF-8: controls included, surrogates not."""

PARSER_FRAGMENTS = (
    "{", "}", "[", "]", "(", ")", '"', "'", "`", "```", "```json", "```JSON\n", "```\n",
    "~~~", "\n", " ", ",", ":", "\\", '\\"', "<tool_call>", "</tool_call>", "[TOOL_CALLS]",
    "[ARGS]", "<function=", "</function>", ">", "tool_code", '"name"', '"tool"', '"args"',
    '"arguments"', '"parameters"', '"function"', '"type"', '"tool_call"', '"final"', '"none"',
    '"reason"', "True", "False", "None", "null", "true", "1e999", "-0", "NaN", "Infinity",
    "f(", "a=1", "g()", "=", "search", '"search"', '{"name": "search", "arguments": {',
    '{"tool": "f", "args": {"q": "', '"}}', "}}", "]]", "\x00", "\x1b[31m", "\u202e", "\u200f",
    "\ufeff", "😀", "ß", "İ", "\r\n", "\t",
)  # fmt: skip

SCHEDULE_FRAGMENTS = (
    "in", "after", "at", "on", "every", "each", "daily", "weekly", "monthly", "yearly", "hourly",
    "weekdays", "weekends", "tomorrow", "today", "tonight", "next", "this", "from now", "later",
    "and", ",", "5", "0", "1", "12", "24", "25", "31", "59", "60", "99999999999999999999",
    "1.5", "minutes", "minute", "min", "m", "h", "hours", "days", "weeks", "seconds", "s",
    "half an hour", "a quarter hour", "9am", "9:30pm", "12am", "12pm", "00:00", "23:59",
    "24:00", "2:30", "02:30", "noon", "midnight", "morning", "evening", "monday", "fri",
    "sundays", "dec 25", "feb 29", "31st", "the 1st", "2026-03-29", "2026-03-29T02:30",
    "2026-11-01T01:30-05:00", "9999-12-31", "0001-01-01", "*", "*/5", "0 9 * * 1-5",
    "0 0 31 2 *", "1-5", "?", "L", "W", "#", "mon-fri", "jan", "-", "/", ".", "!", "\x00",
    "\u200f", "😀",
)  # fmt: skip

ZONE_NAMES = (
    "UTC", "Europe/Berlin", "America/New_York", "Asia/Kathmandu", "Australia/Lord_Howe",
    "Pacific/Chatham",
)  # fmt: skip
ZONES = tuple(ZoneInfo(name) for name in ZONE_NAMES)


def joined(fragments: tuple[str, ...], *, max_size: int = 30) -> st.SearchStrategy[str]:
    """Text built from ``fragments`` and random characters, in random order and number."""
    piece = st.one_of(st.sampled_from(fragments), st.text(ANY_CHARACTER, max_size=4))
    return st.lists(piece, max_size=max_size).map("".join)


def repeated(fragments: tuple[str, ...]) -> st.SearchStrategy[str]:
    """One fragment repeated many times, optionally after a prefix (long runs of ``{`` ...)."""
    return st.builds(
        lambda prefix, fragment, count: prefix + fragment * count,
        st.text(ANY_CHARACTER, max_size=5),
        st.sampled_from(fragments),
        st.integers(min_value=1, max_value=2000),
    )


def model_replies() -> st.SearchStrategy[str]:
    """Arbitrary text, adversarial fragment soup, or long runs of one fragment."""
    return st.one_of(
        st.text(ANY_CHARACTER, max_size=200),
        joined(PARSER_FRAGMENTS, max_size=40),
        repeated(PARSER_FRAGMENTS),
    )


def schedule_texts() -> st.SearchStrategy[str]:
    """Arbitrary text or a phrase of schedule words, numbers and cron fields."""
    words = st.lists(
        st.one_of(st.sampled_from(SCHEDULE_FRAGMENTS), st.text(ANY_CHARACTER, max_size=3)),
        max_size=8,
    )
    return st.one_of(
        st.text(ANY_CHARACTER, max_size=60),
        words.map(" ".join),
        words.map("".join),
    )


def aware_instants() -> st.SearchStrategy[datetime]:
    """Aware instants from 1971 to 2200 in one of ``ZONES`` (folds included)."""
    return st.datetimes(
        min_value=datetime(1971, 1, 1),
        max_value=datetime(2200, 1, 1),
        timezones=st.sampled_from(ZONES),
        allow_imaginary=False,
    )


def _clock_times() -> st.SearchStrategy[str]:
    hours = st.integers(min_value=0, max_value=30)
    minutes = st.integers(min_value=0, max_value=70)
    suffix = st.sampled_from(["", "am", "pm", " am", " PM", "h"])
    return st.builds(
        lambda h, m, s, colon: f"{h}:{m:02d}{s}" if colon else f"{h}{s}",
        hours,
        minutes,
        suffix,
        st.booleans(),
    )


def _cron_fields() -> st.SearchStrategy[str]:
    number = st.integers(min_value=0, max_value=70).map(str)
    field = st.one_of(
        st.just("*"),
        number,
        number.map(lambda n: f"*/{n}"),
        st.tuples(number, number).map("-".join),
        st.lists(number, min_size=2, max_size=3).map(",".join),
        st.sampled_from(["mon-fri", "jan", "L", "?", "5#2", "1W"]),
    )
    return st.lists(field, min_size=4, max_size=6).map(" ".join)


def schedule_phrases() -> st.SearchStrategy[str]:
    """Phrases shaped like the schedule language, most of them valid, some near misses."""
    number = st.one_of(
        st.integers(min_value=0, max_value=10**7).map(str),
        st.sampled_from(["a", "an", "one", "two", "ninety", "1.5", "0.5", "10**9"]),
    )
    unit = st.sampled_from(["s", "seconds", "min", "minutes", "h", "hours", "days", "weeks"])
    day = st.sampled_from(
        ["today", "tomorrow", "monday", "next friday", "sunday", "dec 31", "feb 29",
         "march 29", "november 1", "the 31st", "the 1st", "2026-03-29", "day after tomorrow",
         "this evening", "tonight", "tomorrow morning", "the 31st of next month",
         "the last day of the month", "the first of next month"]
    )  # fmt: skip
    days = st.sampled_from(
        [
            "day",
            "weekday",
            "weekend",
            "monday",
            "mon and fri",
            "month on the 31st",
            "year",
            "other day",
            "3 days",
            "2 weeks on monday",
            "other thursday",
            "sunday evening",
            "second tuesday of the month",
            "year on feb 29",
            "first of the month",
        ]
    )
    return st.one_of(
        st.builds("in {} {}".format, number, unit),
        st.builds("{} {} from now".format, number, unit),
        st.builds("every {} {}".format, number, unit),
        st.builds("{} at {}".format, day, _clock_times()),
        st.builds("every {} at {}".format, days, _clock_times()),
        st.builds("weekdays {}".format, _clock_times()),
        _clock_times(),
        _cron_fields(),
        st.datetimes(min_value=datetime(1, 1, 1)).map(lambda d: d.isoformat(timespec="minutes")),
    )


def valid_schedule_phrases() -> st.SearchStrategy[tuple[str, bool]]:
    """Phrases of the schedule language that must always parse, with whether they recur.

    Numbers, clock times and days are drawn from their valid ranges only, and every one-time
    phrase lies in the future whatever ``now`` is (no bare clock times, no absolute dates).
    """
    unit = st.sampled_from(["seconds", "minutes", "min", "hours", "h", "days", "weeks"])
    amount = st.integers(min_value=1, max_value=500)
    hour24 = st.integers(min_value=0, max_value=23)
    hour12 = st.integers(min_value=1, max_value=12)
    minute = st.integers(min_value=0, max_value=59)
    clock24 = st.builds("{}:{:02d}".format, hour24, minute)
    clock12 = st.builds("{}{}".format, hour12, st.sampled_from(["am", "pm", " am", " PM"]))
    clock = st.one_of(clock24, clock12)
    future_day = st.sampled_from(
        ["tomorrow", "day after tomorrow", "next monday", "next friday", "next sunday"]
    )
    weekly = st.sampled_from(
        ["day", "weekday", "weekend", "monday", "tuesday and thursday", "saturday"]
    )
    cron = st.builds(
        "{} {} * * {}".format, minute, hour24, st.sampled_from(["*", "1-5", "0", "mon-fri"])
    )
    once = st.one_of(
        st.builds("in {} {}".format, amount, unit),
        st.builds("{} {} from now".format, amount, unit),
        st.builds("{} at {}".format, future_day, clock),
    )
    recurring = st.one_of(
        st.builds("every {} at {}".format, weekly, clock),
        st.builds("weekdays {}".format, clock),
        st.builds("every {} {}".format, st.integers(1, 59), st.sampled_from(["minutes", "hours"])),
        cron,
    )
    return st.one_of(once.map(lambda p: (p, False)), recurring.map(lambda p: (p, True)))

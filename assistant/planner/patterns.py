"""Regular-expression building blocks for the offline planner: times, schedules, zones, ids.

The planner never computes a date. These patterns only find *where* a time or a schedule is
written so the user's own words can be copied into ``when`` / ``schedule``; the ``tasks``
package resolves them. Every pattern is linear: alternations of fixed keywords, no nested
quantifiers over the same text.
"""

from __future__ import annotations

import re
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

_F = re.IGNORECASE

WEEKDAY = (
    r"(?:mon(?:day)?|tue(?:s|sday)?|wed(?:nesday)?|thu(?:rs|rsday)?|fri(?:day)?"
    r"|sat(?:urday)?|sun(?:day)?)s?"
)
_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_ORDINAL = r"\d{1,2}(?:st|nd|rd|th)?"
_NUMBER = (
    r"(?:\d+(?:[.,]\d+)?|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"
    r"|fifteen|twenty|thirty|forty(?:-|\s)?five|a\s+couple\s+of|a\s+few)"
)
_UNIT = (
    r"(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|wks?"
    r"|(?<=\d)[smhdw](?![a-z]))"
)
_SPAN = rf"{_NUMBER}\s*{_UNIT}"
DELAY = rf"in\s+(?:half\s+an?\s+hour|{_SPAN}(?:\s*(?:,|and)?\s*(?:a\s+half|{_SPAN}))?)"
# A clock time that is unmistakably a time: 6pm, 8:05 am, 17:45, noon, midnight.
_CLOCK_STRICT = r"(?:\d{1,2}(?::\d{2})?\s*[ap]\.?m\.?(?![a-z])|\d{1,2}:\d{2}(?!\d)|noon|midnight)"
# After "at", a bare hour is a time too: "at 8", "at 8 o'clock".
CLOCK_AT = rf"(?:{_CLOCK_STRICT}|\d{{1,2}}(?:\s*o'?clock)?(?![\d:]))"
CLOCK = rf"(?:(?:at|@)\s*{CLOCK_AT}|{_CLOCK_STRICT})"
_DATE = (
    rf"(?:{_MONTH}\.?\s+{_ORDINAL}|{_ORDINAL}\s+(?:of\s+)?{_MONTH}"
    r"|\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?(?:Z|[+-]\d{2}:?\d{2})?)?)"
)
DAY = (
    r"(?:today|tonight|tomorrow|(?:the\s+)?day\s+after\s+tomorrow"
    rf"|(?:on\s+|next\s+|this\s+)?{WEEKDAY}|(?:on\s+(?:the\s+)?)?{_DATE})"
)
# A one-time "when": a delay, a day with an optional clock time, or a clock time with an
# optional day ("tomorrow at 6pm", "at 5pm on friday", "6pm tomorrow", "in 10 minutes").
ONCE_WHEN = rf"(?:{DELAY}|{DAY}(?:\s+{CLOCK})?|{CLOCK}(?:\s+{DAY})?)"

_RECURRENCE = (
    r"(?:(?:every|each)\s+(?:other\s+)?(?:day|weekday|weekend|week|month|year|hour|minute"
    rf"|{WEEKDAY}(?:\s*(?:,\s*and|,|and|&)\s*{WEEKDAY})*|\d+\s*{_UNIT})"
    r"(?:\s+on\s+the\s+\d{1,2}(?:st|nd|rd|th)?)?"
    r"|daily|nightly|weekdays|weekends|weekly|hourly|monthly|on\s+weekdays|on\s+weekends)"
)
RECURRING = (
    rf"(?:(?P<clock_before>{CLOCK})\s*,?\s+)?(?P<rec>{_RECURRENCE})"
    rf"(?:\s*,?\s+(?P<clock_after>{CLOCK}))?"
)
RECURRING_RE = re.compile(rf"(?<![\w/]){RECURRING}(?![\w/])", _F)

URL_RE = re.compile(r"\bhttps?://[^\s<>\"'`]+", _F)
TASK_ID_RE = re.compile(r"#?`?(?P<id>(?=[a-z_-]*\d)[a-z0-9][a-z0-9_-]{0,31})`?", _F)

_SPACES = re.compile(r"\s+")
_QUOTES = {'"': '"', "'": "'", "\u201c": "\u201d", "\u2018": "\u2019", "\u00ab": "\u00bb", "`": "`"}
_UNIT_WORDS = {
    "sec": "seconds",
    "secs": "seconds",
    "min": "minutes",
    "mins": "minutes",
    "hr": "hours",
    "hrs": "hours",
    "wk": "weeks",
    "wks": "weeks",
}
_UNIT_ABBREV = re.compile(r"(?<=[\d\s])(sec|secs|min|mins|hr|hrs|wk|wks)\b", _F)
_REC_WORDS = {
    "daily": "every day",
    "nightly": "every day",
    "weekdays": "every weekday",
    "on weekdays": "every weekday",
    "weekends": "every weekend",
    "on weekends": "every weekend",
    "weekly": "every week",
    "hourly": "every hour",
    "monthly": "every month",
}
_ON_ISO = re.compile(r"^on\s+(?=\d{4}-)", _F)
_SNOOZE_SPAN = re.compile(rf"(?P<n>\d+)\s*(?P<unit>{_UNIT})", _F)

_CITY_ZONES = {
    "tokyo": "Asia/Tokyo",
    "japan": "Asia/Tokyo",
    "london": "Europe/London",
    "uk": "Europe/London",
    "paris": "Europe/Paris",
    "berlin": "Europe/Berlin",
    "germany": "Europe/Berlin",
    "madrid": "Europe/Madrid",
    "rome": "Europe/Rome",
    "amsterdam": "Europe/Amsterdam",
    "vienna": "Europe/Vienna",
    "zurich": "Europe/Zurich",
    "stockholm": "Europe/Stockholm",
    "moscow": "Europe/Moscow",
    "kyiv": "Europe/Kyiv",
    "istanbul": "Europe/Istanbul",
    "dubai": "Asia/Dubai",
    "mumbai": "Asia/Kolkata",
    "delhi": "Asia/Kolkata",
    "new delhi": "Asia/Kolkata",
    "india": "Asia/Kolkata",
    "singapore": "Asia/Singapore",
    "hong kong": "Asia/Hong_Kong",
    "beijing": "Asia/Shanghai",
    "shanghai": "Asia/Shanghai",
    "china": "Asia/Shanghai",
    "seoul": "Asia/Seoul",
    "sydney": "Australia/Sydney",
    "melbourne": "Australia/Melbourne",
    "auckland": "Pacific/Auckland",
    "new york": "America/New_York",
    "nyc": "America/New_York",
    "boston": "America/New_York",
    "toronto": "America/Toronto",
    "chicago": "America/Chicago",
    "denver": "America/Denver",
    "los angeles": "America/Los_Angeles",
    "la": "America/Los_Angeles",
    "san francisco": "America/Los_Angeles",
    "seattle": "America/Los_Angeles",
    "mexico city": "America/Mexico_City",
    "sao paulo": "America/Sao_Paulo",
    "são paulo": "America/Sao_Paulo",
    "buenos aires": "America/Argentina/Buenos_Aires",
    "cairo": "Africa/Cairo",
    "johannesburg": "Africa/Johannesburg",
    "lagos": "Africa/Lagos",
    "utc": "UTC",
    "gmt": "UTC",
}


def squash(text: str) -> str:
    """Collapse runs of whitespace to one space and trim the ends."""
    return _SPACES.sub(" ", text).strip()


def unquote(text: str) -> str:
    """Strip one pair of matching quotes around ``text`` (after trimming)."""
    text = text.strip()
    if len(text) >= 2 and _QUOTES.get(text[0]) == text[-1]:
        return text[1:-1].strip()
    return text


def normalize_when(phrase: str) -> str:
    """Tidy a one-time phrase without interpreting it: spacing, ``@``, unit abbreviations.

    Example: ``"in 10 min"`` -> ``"in 10 minutes"``; ``"@ 9am"`` -> ``"at 9am"``;
    ``"on 2026-04-01T09:00"`` -> ``"2026-04-01T09:00"`` (ISO times stand alone).
    """
    phrase = squash(phrase.strip(" ,;"))
    if phrase.startswith("@"):
        phrase = "at " + phrase[1:].lstrip()
    phrase = _ON_ISO.sub("", phrase)
    return _UNIT_ABBREV.sub(lambda m: _UNIT_WORDS[m.group(1).lower()], phrase)


def normalize_schedule(match: re.Match[str]) -> str:
    """Write a recurring match as "<recurrence> at <time>": "at 1am daily" -> "every day at 1am".

    The wording stays the user's; only the order and the synonyms of "every" change, so the
    schedule parser sees one familiar shape.
    """
    rec = squash(match.group("rec"))
    rec = _REC_WORDS.get(rec.lower(), rec)
    if rec.lower().startswith("each "):
        rec = "every " + rec[5:]
    rec = normalize_when(rec)
    clock = match.group("clock_before") or match.group("clock_after")
    if clock is None:
        return rec
    clock = normalize_when(clock)
    if not clock.lower().startswith("at "):
        clock = "at " + clock
    return f"{rec} {clock}"


def snooze_delay(text: str) -> str | None:
    """Return a compact delay such as ``"10m"`` for "10 minutes" / "10 min" / "10m", or ``None``."""
    match = _SNOOZE_SPAN.search(text)
    if match is None:
        return None
    return match.group("n") + match.group("unit").lower()[0]


def zone_for(place: str) -> str | None:
    """Return the IANA zone for a city, country or zone name the planner knows, else ``None``."""
    key = squash(place.strip(" .?!,")).lower()
    key = key.removeprefix("the ")
    if key in _CITY_ZONES:
        return _CITY_ZONES[key]
    if "/" not in key or not re.fullmatch(r"[A-Za-z_+\-/0-9]{3,40}", place.strip()):
        return None
    try:
        return ZoneInfo(place.strip()).key
    except (ZoneInfoNotFoundError, ValueError):
        return None

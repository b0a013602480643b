"""The closed vocabulary of the time language, its abbreviations and slang, and typo repair.

Every word the grammar knows is here: weekdays, months, units, number and ordinal words, parts
of the day. ``repair`` reads a misspelt word as a vocabulary word when it is close enough and
nothing else ("tomorow" is tomorrow, "wensday" Wednesday, "mintues" minutes), never when the
word is an ordinary English word of its own ("soon" is not "noon", "weak" not "week").
"""

from __future__ import annotations

from functools import lru_cache

WEEKDAYS = {
    "monday": 0, "mon": 0, "tuesday": 1, "tue": 1, "tues": 1, "wednesday": 2, "wed": 2,
    "weds": 2, "thursday": 3, "thu": 3, "thur": 3, "thurs": 3, "friday": 4, "fri": 4,
    "saturday": 5, "sat": 5, "sunday": 6, "sun": 6,
}  # fmt: skip
"""Weekday names and their abbreviations: Monday is 0."""
WEEKDAY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTHS = {
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4,
    "apr": 4, "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8,
    "september": 9, "sep": 9, "sept": 9, "october": 10, "oct": 10, "november": 11, "nov": 11,
    "december": 12, "dec": 12,
}  # fmt: skip
"""Month names and their abbreviations: January is 1."""
MONTH_NAMES = (
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
)  # fmt: skip
UNITS = {
    "second": "second", "seconds": "second", "sec": "second", "secs": "second", "s": "second",
    "minute": "minute", "minutes": "minute", "min": "minute", "mins": "minute", "m": "minute",
    "hour": "hour", "hours": "hour", "hr": "hour", "hrs": "hour", "h": "hour",
    "day": "day", "days": "day", "d": "day",
    "week": "week", "weeks": "week", "wk": "week", "wks": "week", "w": "week",
    "fortnight": "fortnight", "fortnights": "fortnight",
    "month": "month", "months": "month", "mo": "month", "mos": "month",
    "quarter": "quarter", "quarters": "quarter",
    "year": "year", "years": "year", "yr": "year", "yrs": "year",
}  # fmt: skip
"""Unit words (and the letters of "10m", "1h30m") and the unit each names."""
CARDINALS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19,
}  # fmt: skip
TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
        "eighty": 80, "ninety": 90}  # fmt: skip
ORDINAL_UNITS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13,
    "fourteenth": 14, "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18,
    "nineteenth": 19,
}  # fmt: skip
ORDINAL_TENS = {"twentieth": 20, "thirtieth": 30}
ORDINAL_WORDS = {
    **ORDINAL_UNITS,
    **ORDINAL_TENS,
    **{f"twenty-{name}": 20 + n for name, n in ORDINAL_UNITS.items() if n < 10},
    "thirty-first": 31,
}
"""Ordinal words up to the 31st: "first" is 1, "twenty-third" 23."""
PARTS_OF_DAY = ("morning", "afternoon", "evening", "night", "tonight")

SLANG = {
    "tmrw": "tomorrow", "tmr": "tomorrow", "tmw": "tomorrow", "tmrow": "tomorrow",
    "2moro": "tomorrow", "2morrow": "tomorrow", "2mrw": "tomorrow", "tomoz": "tomorrow",
    "tomm": "tomorrow", "2day": "today", "tdy": "today",
    "tonite": "tonight", "2nite": "tonight", "2night": "tonight", "tnite": "tonight",
    "nite": "night", "arvo": "afternoon", "wknd": "weekend", "wkend": "weekend",
    "wkday": "weekday", "wkdays": "weekdays", "mornin": "morning", "fourty": "forty",
    "nxt": "next", "evry": "every", "2mro": "tomorrow", "weeknite": "weeknight",
    "weeknites": "weeknights",
}  # fmt: skip
"""Short and slang spellings read as the word they stand for; a reply names the reading."""

_TARGETS = frozenset(
    {
        *(name for name in WEEKDAYS if len(name) > 5),
        *(f"{name}s" for name in WEEKDAYS if len(name) > 5),
        *(name for name in MONTHS if len(name) > 5),
        "today", "tomorrow", "tonight", "yesterday", "morning", "mornings", "afternoon",
        "afternoons", "evening", "evenings", "midnight", "midday", "minute", "minutes",
        "second", "seconds", "hours", "weeks", "months", "fortnight", "weekday", "weekdays",
        "weekend", "weekends", "every", "o'clock", "month", "quarter", "christmas", "thanksgiving",
        "halloween", "valentine's", "hourly", "weekly", "monthly", "annually", "fortnightly",
        "quarterly", "twenty", "thirty", "fifteen", "eleven", "twelve", "lunchtime",
        "hour", "days", "year", "years", "week", "noon", "march", "april", "july", "june",
        "august", "monday", "friday", "sunday", "daily", "yearly", "weeknights",
    }
)  # fmt: skip
"""The words a misspelling may be repaired to: long enough that a near miss is telling."""
NOT_TYPOS = frozenset(
    {
        "yours", "mouth", "there", "three", "threw", "weeds", "seeks", "geeks", "mourning",
        "toady", "minuet", "fortnite", "quartet", "dirty", "plenty", "morrow", "sorrow",
        "borrow", "sundae", "eleventh", "twelfth", "fifteenth", "thirtieth", "twentieth",
        "evenly", "evens", "ours", "hour", "house", "midway", "mightily", "ever", "very",
        "even", "evert", "eve's", "morn", "moron", "noun", "neon", "none", "soon", "moon",
        "yeah", "yeas", "weak", "weed", "weep", "ween", "match", "marsh", "jury", "jane",
        "nook", "noob", "dais", "hoar", "yearn", "weeks'", "aprils", "julys", "junes",
        "houri", "dayz", "april's", "noons", "nooks", "dairy", "dally", "early", "nearly",
    }
)  # fmt: skip
"""Words that are not misspellings even though a vocabulary word is near them."""
_MIN_TYPO_LENGTH = 4
KNOWN_WORDS = frozenset(
    {
        *WEEKDAYS, *MONTHS, *UNITS, *CARDINALS, *TENS, *ORDINAL_WORDS, *PARTS_OF_DAY,
        *(f"{name}s" for name in WEEKDAYS if len(name) > 4), *(f"{p}s" for p in PARTS_OF_DAY),
        "week", "day", "hour", "year", "noon", "midday", "midnight", "every", "each", "next",
        "last", "this", "coming", "today", "tonight", "tomorrow", "yesterday", "weekend",
        "weekends", "weekday", "weekdays", "workday", "workdays", "later", "early", "late",
        "daily", "weekly", "monthly", "yearly", "hourly", "nightly", "annually", "quarterly",
        "fortnightly", "biweekly", "until", "till", "through", "starting", "from", "except",
        "between", "during", "before", "after", "ago", "past", "half", "quarter", "times",
        "lunch", "dinner", "breakfast", "supper", "end", "start", "beginning", "middle", "mid",
        "first", "thing", "now", "time", "same", "other", "hours", "days", "weeks", "months",
        "years", "minutes", "seconds", "morning", "evening", "afternoon", "night",
        "weeknight", "weeknights",
    }
)  # fmt: skip
"""Every word the grammar reads as it is: never taken for a misspelling of another."""


def repair(word: str) -> str | None:
    """Return the vocabulary word a misspelt ``word`` stands for, or ``None``.

    One edit (insert, delete, substitute, swap two neighbours) for targets of up to seven
    letters, two for longer ones, the first letter kept (a typo seldom changes it); the
    nearest target must be the only one that near. A word in ``NOT_TYPOS`` or shorter than
    four letters is never repaired.
    """
    if len(word) < _MIN_TYPO_LENGTH or word in NOT_TYPOS or word in KNOWN_WORDS:
        return None
    if word in _TARGETS:
        return None
    return _repair_cached(word)


@lru_cache(maxsize=4096)
def _repair_cached(word: str) -> str | None:
    best: list[str] = []
    best_distance = 3
    for target in _TARGETS:
        if target[0] != word[0]:
            continue
        budget = 1 if len(target) <= 7 else 2
        if abs(len(target) - len(word)) > budget:
            continue
        distance = edit_distance(word, target, limit=budget)
        if distance > budget or distance > best_distance:
            continue
        if distance < best_distance:
            best, best_distance = [target], distance
        else:
            best.append(target)
    if len(best) > 1:
        # "minuts" is as near "minute" as "minutes": the same word, the nearer length wins.
        nearest = min(abs(len(target) - len(word)) for target in best)
        best = [target for target in best if abs(len(target) - len(word)) == nearest]
    return best[0] if len(best) == 1 else None


def slang(word: str) -> str | None:
    """The word a short or slang spelling stands for ("tmrw": tomorrow), or ``None``."""
    return SLANG.get(word)


def edit_distance(a: str, b: str, *, limit: int) -> int:
    """The optimal string alignment distance of ``a`` and ``b`` (adjacent swaps count one),
    or ``limit + 1`` as soon as it is known to exceed ``limit``."""
    if a == b:
        return 0
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i, char_a in enumerate(a, start=1):
        current = [i] + [0] * len(b)
        for j, char_b in enumerate(b, start=1):
            cost = 0 if char_a == char_b else 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and char_a == b[j - 2] and a[i - 2] == char_b:
                current[j] = min(current[j], previous2[j - 2] + 1)
        if min(current) > limit:
            return limit + 1
        previous2, previous = previous, current
    return previous[-1]


def ordinal(number: int) -> str:
    """Write a day number as an ordinal: 1st, 2nd, 23rd, 11th."""
    suffix = "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10)
    return f"{number}{suffix or 'th'}"

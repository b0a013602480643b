"""The holidays the time language knows, by name, and their date in a given year.

Fixed ones fall on the same date every year; the others are computed: Easter (Western,
Gregorian calendar) and the days counted from it, and the US holidays that fall on the n-th
(or last) weekday of a month. Names are the canonical words the tokenizer gives ("new year's
eve", "valentine's day", "mother's day"); ``HOLIDAYS`` lists each name and its spellings.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, timedelta

from tasks.schedule.tokens import canonical, tokenize

HolidayRule = Callable[[int], date]


def easter(year: int) -> date:
    """Western Easter Sunday of ``year`` (the anonymous Gregorian algorithm)."""
    golden = year % 19
    century, in_century = divmod(year, 100)
    leap_skips, leap_rest = divmod(century, 4)
    moon_fix = (century + 8) // 25
    moon = (19 * golden + century - leap_skips - (century - moon_fix + 1) // 3 + 15) % 30
    quarter, in_quarter = divmod(in_century, 4)
    weekday = (32 + 2 * leap_rest + 2 * quarter - moon - in_quarter) % 7
    shift = (golden + 11 * moon + 22 * weekday) // 451
    month, day = divmod(moon + weekday - 7 * shift + 114, 31)
    return date(year, month, day + 1)


def nth_weekday(year: int, month: int, weekday: int, nth: int) -> date | None:
    """The ``nth`` ``weekday`` (0 is Monday) of a month; ``nth`` -1 is the last one.

    Returns ``None`` when the month has no such day (a fifth Friday, say).
    """
    if nth < 0:
        following = date(year + 1, 1, 1) if month == 12 else date(year, month + 1, 1)
        last = following - timedelta(days=1)
        return last - timedelta(days=(last.weekday() - weekday) % 7)
    first = date(year, month, 1)
    day = first + timedelta(days=(weekday - first.weekday()) % 7 + 7 * (nth - 1))
    return day if day.month == month else None


def _fixed(month: int, day: int) -> HolidayRule:
    return lambda year: date(year, month, day)


def _from_easter(days: int) -> HolidayRule:
    return lambda year: easter(year) + timedelta(days=days)


def _nth(month: int, weekday: int, nth: int, shift: int = 0) -> HolidayRule:
    def rule(year: int) -> date:
        day = nth_weekday(year, month, weekday, nth)
        assert day is not None  # the first to fourth and the last weekday always exist
        return day + timedelta(days=shift)

    return rule


_RULES: dict[str, tuple[HolidayRule, tuple[str, ...]]] = {
    "new year's day": (_fixed(1, 1), ("new year's day", "new years day", "new year's",
                                      "new years", "new year")),
    "new year's eve": (_fixed(12, 31), ("new year's eve", "new years eve", "nye")),
    "valentine's day": (_fixed(2, 14), ("valentine's day", "valentines day", "valentine's",
                                        "valentines", "valentine day")),
    "groundhog day": (_fixed(2, 2), ("groundhog day",)),
    "st. patrick's day": (_fixed(3, 17), ("st patrick's day", "st patricks day",
                                          "saint patrick's day", "saint patricks day",
                                          "st paddy's day", "paddy's day", "st patrick's",
                                          "patrick's day")),
    "april fools' day": (_fixed(4, 1), ("april fools' day", "april fools day",
                                        "april fool's day", "april fools", "april fool's")),
    "earth day": (_fixed(4, 22), ("earth day",)),
    "cinco de mayo": (_fixed(5, 5), ("cinco de mayo",)),
    "juneteenth": (_fixed(6, 19), ("juneteenth",)),
    "canada day": (_fixed(7, 1), ("canada day",)),
    "independence day": (_fixed(7, 4), ("independence day", "the fourth of july",
                                        "fourth of july", "4th of july", "july fourth",
                                        "july 4th")),
    "bastille day": (_fixed(7, 14), ("bastille day",)),
    "halloween": (_fixed(10, 31), ("halloween", "hallowe'en")),
    "veterans day": (_fixed(11, 11), ("veterans day", "veteran's day", "veterans' day",
                                      "remembrance day", "armistice day")),
    "christmas eve": (_fixed(12, 24), ("christmas eve", "xmas eve")),
    "christmas": (_fixed(12, 25), ("christmas day", "christmas", "xmas day", "xmas")),
    "boxing day": (_fixed(12, 26), ("boxing day",)),
    "easter": (_from_easter(0), ("easter sunday", "easter day", "easter")),
    "good friday": (_from_easter(-2), ("good friday",)),
    "holy saturday": (_from_easter(-1), ("holy saturday", "easter saturday")),
    "palm sunday": (_from_easter(-7), ("palm sunday",)),
    "easter monday": (_from_easter(1), ("easter monday",)),
    "ash wednesday": (_from_easter(-46), ("ash wednesday",)),
    "mardi gras": (_from_easter(-47), ("mardi gras", "shrove tuesday", "pancake day",
                                       "fat tuesday")),
    "ascension day": (_from_easter(39), ("ascension day", "ascension")),
    "pentecost": (_from_easter(49), ("pentecost", "whitsun", "whit sunday", "whitsunday")),
    "mothering sunday": (_from_easter(-21), ("mothering sunday",)),
    "martin luther king day": (_nth(1, 0, 3), ("martin luther king day",
                                               "martin luther king jr day",
                                               "martin luther king jr. day", "mlk day")),
    "presidents' day": (_nth(2, 0, 3), ("presidents' day", "presidents day", "president's day",
                                        "washington's birthday")),
    "mother's day": (_nth(5, 6, 2), ("mother's day", "mothers day", "mothers' day")),
    "memorial day": (_nth(5, 0, -1), ("memorial day",)),
    "father's day": (_nth(6, 6, 3), ("father's day", "fathers day", "fathers' day")),
    "labor day": (_nth(9, 0, 1), ("labor day", "labour day")),
    "columbus day": (_nth(10, 0, 2), ("columbus day", "indigenous peoples' day",
                                      "indigenous peoples day", "indigenous people's day")),
    "thanksgiving": (_nth(11, 3, 4), ("thanksgiving day", "thanksgiving")),
    "black friday": (_nth(11, 3, 4, shift=1), ("black friday",)),
    "cyber monday": (_nth(11, 3, 4, shift=4), ("cyber monday",)),
}  # fmt: skip

HOLIDAYS: dict[str, HolidayRule] = {name: rule for name, (rule, _) in _RULES.items()}
"""Each holiday's canonical name and its date in a year."""
SPELLINGS: dict[str, str] = {
    canonical(tokenize(spelling)): name
    for name, (_, spellings) in _RULES.items()
    for spelling in spellings
}
"""Every spelling, in canonical tokens joined by spaces, and the holiday it names."""
FIXED: dict[str, tuple[int, int]] = {
    name: (rule(2001).month, rule(2001).day)
    for name, rule in HOLIDAYS.items()
    if len({(rule(year).month, rule(year).day) for year in range(2001, 2012)}) == 1
}
"""The holidays on the same date every year, as ``(month, day)``."""


CALENDAR_PARTS: dict[str, str] = {
    **{name: f"BYMONTH={month};BYMONTHDAY={day}" for name, (month, day) in FIXED.items()},
    "martin luther king day": "BYMONTH=1;BYDAY=3MO",
    "presidents' day": "BYMONTH=2;BYDAY=3MO",
    "mother's day": "BYMONTH=5;BYDAY=2SU",
    "memorial day": "BYMONTH=5;BYDAY=-1MO",
    "father's day": "BYMONTH=6;BYDAY=3SU",
    "labor day": "BYMONTH=9;BYDAY=1MO",
    "columbus day": "BYMONTH=10;BYDAY=2MO",
    "thanksgiving": "BYMONTH=11;BYDAY=4TH",
    # The Friday after the fourth Thursday: the Friday from the 23rd to the 29th.
    "black friday": "BYMONTH=11;BYMONTHDAY=23,24,25,26,27,28,29;BYDAY=FR",
}
"""The holidays an iCalendar rule (RFC 5545, ``FREQ=YEARLY``) can say, as its BY parts. Easter
and the days counted from it, and Cyber Monday (whose month varies), have none."""


def holiday_title(name: str) -> str:
    """A holiday's name as people write it: "Mother's Day", "Christmas"."""
    return " ".join(word[:1].upper() + word[1:] for word in name.split())

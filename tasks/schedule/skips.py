"""Days a repeating schedule leaves out: "except holidays", "except december 25", EXDATEs.

``Skips`` names whole local days, in four ways: particular dates ("except tomorrow",
"except 2026-12-24", an EXDATE of a calendar file), a date every year ("except december 25"),
a holiday every year by name ("except christmas", "except easter monday"), and "holidays":
the US federal holidays, each on its own date and, when that falls on a weekend, also on the
weekday it is observed on (Saturday's on the Friday before, Sunday's on the Monday after), as
federal offices close. Days of the week are left out by the schedule itself ("every weekday
except friday" is a cron expression), not here.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from datetime import date, timedelta

from tasks.errors import ScheduleError
from tasks.schedule.days import month_length
from tasks.schedule.holidays import HOLIDAYS, holiday_title
from tasks.schedule.lexicon import MONTH_NAMES

FEDERAL_HOLIDAYS = (
    "new year's day",
    "martin luther king day",
    "presidents' day",
    "memorial day",
    "juneteenth",
    "independence day",
    "labor day",
    "columbus day",
    "veterans day",
    "thanksgiving",
    "christmas",
)
"""The eleven US federal holidays (5 U.S.C. 6103), by the names ``holidays`` knows them."""
FEDERAL_WORDS = "US federal holidays"
"""How a description names them."""
MAX_SKIPPED_DATES = 1000
"""The most particular dates one schedule leaves out."""


@functools.lru_cache(maxsize=256)
def federal_days(year: int) -> frozenset[date]:
    """The days off for the US federal holidays of ``year``: each holiday's date, and the
    weekday it is observed on when it falls on a weekend (New Year's Day of the next year
    falling on a Saturday is observed on December 31 of this one)."""
    days: set[date] = set()
    for candidate in (year, year + 1):
        if not 1 <= candidate <= 9999:
            continue
        for name in FEDERAL_HOLIDAYS:
            day = HOLIDAYS[name](candidate)
            observed = _observed(day)
            days.update(d for d in (day, observed) if d.year == year)
    return frozenset(days)


def _observed(day: date) -> date:
    if day.weekday() == 5:
        return day - timedelta(days=1)
    if day.weekday() == 6:
        return day + timedelta(days=1)
    return day


@dataclass(frozen=True, slots=True)
class Skips:
    """The local days a repeating schedule leaves out.

    Attributes:
        dates: Particular dates.
        yearly: ``(month, day)`` pairs left out every year (February 29 only in leap years).
        holidays: Holidays left out every year, by their canonical names (``HOLIDAYS``).
        federal: Whether the US federal holidays are left out (``federal_days``).
    """

    dates: frozenset[date] = frozenset()
    yearly: frozenset[tuple[int, int]] = frozenset()
    holidays: frozenset[str] = frozenset()
    federal: bool = False

    def __post_init__(self) -> None:
        if len(self.dates) > MAX_SKIPPED_DATES:
            raise ScheduleError(
                f"a schedule leaves out at most {MAX_SKIPPED_DATES} particular dates, got "
                f"{len(self.dates)}"
            )
        if any(not isinstance(d, date) for d in self.dates):
            raise ScheduleError(f"dates left out must be dates, got {sorted(self.dates)!r}")
        for month, day in self.yearly:
            if not 1 <= month <= 12 or not 1 <= day <= month_length(2028, month):
                raise ScheduleError(f"not a day of the year: month {month!r}, day {day!r}")
        unknown = sorted(self.holidays - HOLIDAYS.keys())
        if unknown:
            raise ScheduleError(f"unknown holidays {unknown!r} among the days left out")

    def __bool__(self) -> bool:
        return bool(self.dates or self.yearly or self.holidays or self.federal)

    def __or__(self, other: Skips) -> Skips:
        return Skips(
            dates=self.dates | other.dates,
            yearly=self.yearly | other.yearly,
            holidays=self.holidays | other.holidays,
            federal=self.federal or other.federal,
        )

    @property
    def repeats(self) -> bool:
        """Whether it leaves out days every year (not only particular dates)."""
        return bool(self.yearly or self.holidays or self.federal)

    def skips(self, day: date) -> bool:
        """Whether ``day`` is left out."""
        if day in self.dates or (day.month, day.day) in self.yearly:
            return True
        if self.federal and day in federal_days(day.year):
            return True
        return any(HOLIDAYS[name](day.year) == day for name in self.holidays)

    def describe(self) -> str:
        """Say the days: ``except US federal holidays, Christmas Eve and Sat 2026-12-26``."""
        parts: list[str] = [FEDERAL_WORDS] if self.federal else []
        parts += [holiday_title(name) for name in sorted(self.holidays)]
        parts += [f"{MONTH_NAMES[m - 1]} {d}" for m, d in sorted(self.yearly)]
        parts += [day.strftime("%a %Y-%m-%d") for day in sorted(self.dates)]
        if not parts:
            return ""
        said = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
        return f"except {said}"

    def to_fields(self) -> dict[str, object]:
        """The JSON fields (only those that are set)."""
        fields: dict[str, object] = {}
        if self.dates:
            fields["dates"] = [day.isoformat() for day in sorted(self.dates)]
        if self.yearly:
            fields["yearly"] = [[month, day] for month, day in sorted(self.yearly)]
        if self.holidays:
            fields["holidays"] = sorted(self.holidays)
        if self.federal:
            fields["federal"] = True
        return fields

    @classmethod
    def from_fields(cls, fields: dict[str, object]) -> Skips:
        """Read ``to_fields`` back.

        Raises:
            TypeError, ValueError: when a field has the wrong shape.
            ScheduleError: when a value is not a day.
        """
        dates, yearly, holidays = (fields.get(k, []) for k in ("dates", "yearly", "holidays"))
        federal = fields.get("federal", False)
        if not isinstance(dates, list) or not isinstance(yearly, list):
            raise TypeError(f"dates and yearly must be lists, got {dates!r} and {yearly!r}")
        if not isinstance(holidays, list) or not isinstance(federal, bool):
            raise TypeError(f"holidays must be a list, federal true or false: {fields!r}")
        pairs = set()
        for pair in yearly:
            if not isinstance(pair, list) or len(pair) != 2:
                raise TypeError(f"a yearly day is [month, day], got {pair!r}")
            pairs.add((int(pair[0]), int(pair[1])))
        return cls(
            dates=frozenset(date.fromisoformat(str(day)) for day in dates),
            yearly=frozenset(pairs),
            holidays=frozenset(str(name) for name in holidays),
            federal=federal,
        )

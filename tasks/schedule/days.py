"""Days as the words name them, and the calendar dates each may mean.

A ``DayRef`` is what was said ("next friday", "the 15th", "4/22", "easter", "a week from
friday"); ``day_dates`` lists the dates it may mean as of today, earliest first, so that the
caller takes the first one whose time is still ahead ("friday at 9am" on a Friday afternoon is
next week's). Every policy of docs/time-language.md about days lives here.
"""

from __future__ import annotations

import calendar
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Literal

from tasks.errors import ScheduleError
from tasks.schedule.holidays import HOLIDAYS, holiday_title, nth_weekday
from tasks.schedule.lexicon import MONTH_NAMES, WEEKDAY_NAMES

DateOrder = Literal["mdy", "dmy"]
"""How a numeric date with both numbers up to 12 is read: "4/5" is April 5 (mdy) or 4 May."""
_YEARS_AHEAD = 3
_WEEK = timedelta(days=7)
_DAY = timedelta(days=1)
_WEEKENDS = frozenset({"weekend", "next_weekend", "weekend_after_next"})
_WEEKS = frozenset({"next_week", "week_after_next"})


class DayRef:
    """A day as the words name it (the subclasses say how)."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class Relative(DayRef):
    """Today (0), tomorrow (1), the day after tomorrow (2)."""

    days: int


WeekdayWhich = Literal["coming", "next", "next_week", "this_week", "after_next"]


@dataclass(frozen=True, slots=True)
class OnWeekday(DayRef):
    """A weekday: the coming one, "next" (the first after today), in next calendar week, ...

    Attributes:
        weekday: 0 is Monday.
        which: ``coming`` (today when it still fits), ``next`` (after today), ``next_week``
            (in the next calendar week, weeks starting on Monday), ``this_week`` (this
            calendar week, which may have passed), ``after_next`` (a week after "next").
    """

    weekday: int
    which: WeekdayWhich = "coming"


@dataclass(frozen=True, slots=True)
class OnDate(DayRef):
    """A month and a day, with or without a year ("March 3", "2027-03-04")."""

    month: int
    day: int
    year: int | None = None


@dataclass(frozen=True, slots=True)
class OnNumericDate(DayRef):
    """A date written in numbers only ("4/5", "22.04.2027"): which number is the month is
    decided by the user's date order unless a number above 12 decides it.

    Attributes:
        first: The first number written.
        second: The second number written.
        year: The year, when written (two digits are 20xx).
        day_first: ``True`` when the writing says the day comes first ("22.04."), ``None``
            when only the date order can tell.
    """

    first: int
    second: int
    year: int | None = None
    day_first: bool | None = None


@dataclass(frozen=True, slots=True)
class OnMonthDay(DayRef):
    """A day of the month ("the 15th"; -1 is the last day), this month's or next month's.

    Attributes:
        day: 1-31, or -1 for the last day.
        months_ahead: 0 for this month's, 1 for next month's, ``None`` for the next such day.
    """

    day: int
    months_ahead: int | None = None


@dataclass(frozen=True, slots=True)
class OnMonth(DayRef):
    """A month alone ("in december"): its first day, or its 15th ("mid december")."""

    month: int
    day: int = 1


@dataclass(frozen=True, slots=True)
class OnWeekdayAndDay(DayRef):
    """A weekday and a day of the month that must agree ("Friday the 13th")."""

    weekday: int
    day: int


@dataclass(frozen=True, slots=True)
class OnHoliday(DayRef):
    """A holiday by its canonical name (``tasks.schedule.holidays``)."""

    name: str
    year: int | None = None


@dataclass(frozen=True, slots=True)
class OnNthWeekday(DayRef):
    """The n-th weekday of a month ("the second tuesday", -1 the last one), of a named month,
    of this or next month, or of the next month that has it."""

    nth: int
    weekday: int
    month: int | None = None
    months_ahead: int | None = None


@dataclass(frozen=True, slots=True)
class CheckedWeekday(DayRef):
    """A date said with its weekday ("Mon March 2"): refused when the two disagree."""

    ref: DayRef
    weekday: int


LandmarkName = Literal[
    "this_week", "this_month", "next_week", "week_after_next", "next_month", "next_year",
    "weekend", "next_weekend",
    "weekend_after_next", "end_week", "end_next_week", "mid_week", "mid_next_week", "end_month",
    "end_year", "start_next_month", "mid_next_month", "mid_month", "start_next_week",
]  # fmt: skip


@dataclass(frozen=True, slots=True)
class Landmark(DayRef):
    """A day named by its place in the calendar: "next week" (its Monday), "next month" (its
    1st), "this weekend" (Saturday), "next weekend" (the Saturday after), "end of the month"
    (its last day), ..."""

    name: LandmarkName


@dataclass(frozen=True, slots=True)
class Shifted(DayRef):
    """A day moved by whole days or months: "a week from friday", "2 days before easter"."""

    base: DayRef
    days: int = 0
    months: int = 0


def day_dates(ref: DayRef, today: date, order: DateOrder) -> Iterator[date]:
    """The dates ``ref`` may mean as of ``today``, earliest first (at most a few).

    Raises:
        ScheduleError: when the words name no date ("April 31", "the 15th" of a contradiction).
    """
    if isinstance(ref, Relative):
        yield today + timedelta(days=ref.days)
    elif isinstance(ref, OnWeekday):
        yield from _weekday_dates(ref, today)
    elif isinstance(ref, OnDate):
        yield from _month_day_dates(ref.month, ref.day, ref.year, today)
    elif isinstance(ref, OnNumericDate):
        month, day = numeric_month_day(ref, order)
        yield from _month_day_dates(month, day, ref.year, today)
    elif isinstance(ref, OnMonthDay):
        yield from _day_of_month_dates(ref, today)
    elif isinstance(ref, OnMonth):
        yield from _month_dates(ref, today)
    elif isinstance(ref, OnWeekdayAndDay):
        yield from _weekday_and_day_dates(ref, today)
    elif isinstance(ref, OnHoliday):
        yield from _holiday_dates(ref, today)
    elif isinstance(ref, OnNthWeekday):
        yield from _nth_weekday_dates(ref, today)
    elif isinstance(ref, CheckedWeekday):
        yield from _checked_weekday_dates(ref, today, order)
    elif isinstance(ref, Landmark):
        yield from _landmark_dates(ref.name, today)
    elif isinstance(ref, Shifted):
        for base in day_dates(ref.base, today, order):
            yield add_months(base, ref.months) + timedelta(days=ref.days)
    else:
        raise TypeError(f"unknown day reference {ref!r}")


def numeric_month_day(ref: OnNumericDate, order: DateOrder) -> tuple[int, int]:
    """(month, day) of a date written in numbers: a number above 12 decides, then the order.

    Raises:
        ScheduleError: when neither reading is a date ("13/14").
    """
    first, second = ref.first, ref.second
    said = f"{first}/{second}"
    if first > 12 and second > 12:
        raise ScheduleError(f"{said!r} is not a date: neither number can be the month")
    if first > 12:
        return second, first
    if second > 12:
        return first, second
    day_first = ref.day_first if ref.day_first is not None else order == "dmy"
    return (second, first) if day_first else (first, second)


def add_months(day: date, months: int) -> date:
    """``day`` moved by whole calendar months, clamped to the month's end (Jan 31 + 1 month is
    Feb 28 or 29)."""
    if not months:
        return day
    index = day.year * 12 + day.month - 1 + months
    year, month = divmod(index, 12)
    if not 1 <= year <= 9999:
        raise OverflowError("out of the calendar")
    return date(year, month + 1, min(day.day, calendar.monthrange(year, month + 1)[1]))


def month_length(year: int, month: int) -> int:
    """How many days the month has."""
    return calendar.monthrange(year, month)[1]


def _weekday_dates(ref: OnWeekday, today: date) -> Iterator[date]:
    ahead = (ref.weekday - today.weekday()) % 7
    if ref.which == "coming":
        first = today + timedelta(days=ahead)
        yield first
        yield first + _WEEK
    elif ref.which == "next":
        yield today + timedelta(days=ahead or 7)
    elif ref.which == "after_next":
        yield today + timedelta(days=(ahead or 7) + 7)
    else:
        monday = today - timedelta(days=today.weekday())
        if ref.which == "next_week":
            monday += _WEEK
        yield monday + timedelta(days=ref.weekday)


def _month_day_dates(month: int, day: int, year: int | None, today: date) -> Iterator[date]:
    if year is not None:
        yield _checked_date(year, month, day)
        return
    if not 1 <= day <= 31 or day > max(month_length(2028, month), 1):
        name = MONTH_NAMES[month - 1]
        raise ScheduleError(
            f"{name} has no day {day}; say e.g. '{name} {month_length(2028, month)}'"
        )
    found = 0
    for candidate_year in range(today.year, min(today.year + 9, 9999) + 1):
        if day > month_length(candidate_year, month):
            continue  # February 29 in a common year
        candidate = date(candidate_year, month, day)
        if candidate >= today:
            yield candidate
            found += 1
            if found == 2:
                return


def _month_dates(ref: OnMonth, today: date) -> Iterator[date]:
    """A month alone: its 1st (or 15th, or last day) this year when still ahead, else next
    year's."""
    for year in (today.year, today.year + 1):
        last = month_length(year, ref.month)
        candidate = date(year, ref.month, last if ref.day == -1 else min(ref.day, last))
        if candidate >= today:
            yield candidate


def _checked_date(year: int, month: int, day: int) -> date:
    if not 1 <= year <= 9999:
        raise ScheduleError(f"the year {year} is out of range")
    try:
        return date(year, month, day)
    except ValueError:
        name = MONTH_NAMES[month - 1]
        raise ScheduleError(
            f"{name} {year} has no day {day}; say e.g. '{name} {month_length(year, month)} {year}'"
        ) from None


def _day_of_month_dates(ref: OnMonthDay, today: date) -> Iterator[date]:
    offsets = range(14) if ref.months_ahead is None else (ref.months_ahead,)
    for offset in offsets:
        first = add_months(today.replace(day=1), offset)
        last = month_length(first.year, first.month)
        if ref.day == -1:
            candidate = first.replace(day=last)
        elif ref.day > last:
            if ref.months_ahead is not None:
                raise ScheduleError(
                    f"that month has no day {ref.day} ({MONTH_NAMES[first.month - 1]} has "
                    f"{last} days); say e.g. 'the {last}th of "
                    f"{'this' if ref.months_ahead == 0 else 'next'} month'"
                )
            continue
        else:
            candidate = first.replace(day=ref.day)
        if candidate >= today or ref.months_ahead is not None:
            yield candidate


def _weekday_and_day_dates(ref: OnWeekdayAndDay, today: date) -> Iterator[date]:
    first = today.replace(day=1)
    found = 0
    for offset in range(40):
        month = add_months(first, offset)
        if ref.day > month_length(month.year, month.month):
            continue
        candidate = month.replace(day=ref.day)
        if candidate >= today and candidate.weekday() == ref.weekday:
            yield candidate
            found += 1
            if found == 2:
                return
    if found:
        return
    raise ScheduleError(
        f"no {WEEKDAY_NAMES[ref.weekday]} falls on the {ref.day} in the next 28 months"
    )


def _nth_weekday_dates(ref: OnNthWeekday, today: date) -> Iterator[date]:
    first = today.replace(day=1)
    offsets = range(15) if ref.months_ahead is None else (ref.months_ahead,)
    for offset in offsets:
        month = add_months(first, offset)
        if ref.month is not None and month.month != ref.month:
            continue
        day = nth_weekday(month.year, month.month, ref.weekday, ref.nth)
        if day is not None and (day >= today or ref.months_ahead is not None):
            yield day


def _checked_weekday_dates(ref: CheckedWeekday, today: date, order: DateOrder) -> Iterator[date]:
    if isinstance(ref.ref, Landmark) and (
        (ref.ref.name in _WEEKENDS and ref.weekday >= 5) or ref.ref.name in _WEEKS
    ):
        # "sunday next weekend", "tuesday the week after next": that day of the week named;
        # "saturday this weekend" is this weekend's, passed or not (it never rolls a week)
        named = (
            [_this_saturday(today)]
            if ref.ref.name == "weekend"
            else day_dates(ref.ref, today, order)
        )
        yield from sorted({day + timedelta(days=ref.weekday - day.weekday()) for day in named})
        return
    if isinstance(ref.ref, Landmark) and ref.ref.name in _WEEKENDS:  # "wednesday ... the weekend"
        raise ScheduleError(
            f"{WEEKDAY_NAMES[ref.weekday]} is not a day of the weekend; say one of them, e.g. "
            f"'{WEEKDAY_NAMES[ref.weekday].lower()}'"
        )
    for day in day_dates(ref.ref, today, order):
        if day.weekday() != ref.weekday:
            raise ScheduleError(
                f"{day:%B} {day.day}, {day.year} is a {WEEKDAY_NAMES[day.weekday()]}, not a "
                f"{WEEKDAY_NAMES[ref.weekday]}; say the date or the weekday alone, e.g. "
                f"'{day:%B} {day.day}'"
            )
        yield day


def _holiday_dates(ref: OnHoliday, today: date) -> Iterator[date]:
    rule = HOLIDAYS[ref.name]
    if ref.year is not None:
        yield rule(ref.year)
        return
    for year in range(today.year, min(today.year + _YEARS_AHEAD, 9999) + 1):
        if (day := rule(year)) >= today:
            yield day


def _landmark_dates(name: LandmarkName, today: date) -> Iterator[date]:
    monday = today - timedelta(days=today.weekday())
    month_start = today.replace(day=1)
    if name in {"this_week", "this_month"}:
        # several days: a repetition runs through them ("every day this week"), one time
        # needs one of them
        raise ScheduleError(
            f"'{name.replace('_', ' ')}' is several days; say one of them, e.g. 'friday at "
            f"9am', or repeat through them, e.g. 'every day {name.replace('_', ' ')} at 9am'"
        )
    if name in {"next_week", "start_next_week"}:
        yield monday + _WEEK
    elif name == "week_after_next":
        yield monday + 2 * _WEEK
    elif name == "next_month" or name == "start_next_month":
        yield add_months(month_start, 1)
    elif name == "next_year":
        yield date(today.year + 1, 1, 1)
    elif name == "weekend":
        # The weekend under way or coming; once its days are over, the next one ("at the
        # weekend" said on a Sunday evening is next Saturday).
        saturday = _this_saturday(today)
        for ahead in (0, 1, 7):  # lazily: a week after the last Saturday of 9999 is no date
            if (day := saturday + timedelta(days=ahead)) >= today:
                yield day
    elif name == "next_weekend":
        yield _this_saturday(today) + _WEEK
    elif name == "weekend_after_next":
        yield _this_saturday(today) + 2 * _WEEK
    elif name == "end_week":
        friday = monday + timedelta(days=4)
        yield friday if friday >= today else friday + _WEEK
    elif name == "mid_week":
        # this week's Wednesday, or next week's once it (or its time) has gone by
        wednesday = monday + timedelta(days=2)
        yield from ([wednesday] if wednesday >= today else []) + [wednesday + _WEEK]
    elif name == "end_next_week":
        yield monday + _WEEK + timedelta(days=4)
    elif name == "mid_next_week":
        yield monday + _WEEK + timedelta(days=2)
    elif name == "end_month":
        yield today.replace(day=month_length(today.year, today.month))
    elif name == "end_year":
        yield date(today.year, 12, 31)
    elif name == "mid_next_month":
        yield add_months(month_start, 1).replace(day=15)
    elif name == "mid_month":
        middle = month_start.replace(day=15)
        yield middle if middle >= today else add_months(middle, 1)


def _this_saturday(today: date) -> date:
    """The Saturday of the weekend under way (a Sunday's is the day before) or coming."""
    return today - _DAY if today.weekday() == 6 else today + timedelta(days=5 - today.weekday())


def describe_day(ref: DayRef) -> str:
    """Say a day reference in words, for messages ("Friday", "the 15th", "Easter")."""
    if isinstance(ref, OnWeekday):
        return WEEKDAY_NAMES[ref.weekday]
    if isinstance(ref, OnHoliday):
        return holiday_title(ref.name)
    if isinstance(ref, OnDate):
        return f"{MONTH_NAMES[ref.month - 1]} {ref.day}"
    if isinstance(ref, CheckedWeekday):
        return describe_day(ref.ref)
    if isinstance(ref, Relative):
        return {0: "today", 1: "tomorrow", 2: "the day after tomorrow"}.get(
            ref.days, f"in {ref.days} days"
        )
    return "that day"

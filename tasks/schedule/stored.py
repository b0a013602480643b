"""Schedules read back from their JSON form (``Schedule.to_json()``), every kind of them."""

from __future__ import annotations

import json
from datetime import date, datetime, time, timedelta
from typing import cast, get_args
from zoneinfo import ZoneInfo

from tasks.errors import ScheduleError
from tasks.schedule.calendar_rules import BoundedSchedule, CalendarSchedule, DayRule, RuleKind
from tasks.schedule.model import (
    JSON_VERSION,
    CronSchedule,
    CycleSchedule,
    IntervalSchedule,
    OnceSchedule,
    Schedule,
    zone_from_name,
)
from tasks.schedule.skips import Skips


def schedule_from_json(text: str) -> Schedule:
    """Read a schedule back from ``Schedule.to_json()``.

    Raises:
        ScheduleError: when the text is not a schedule of a version this code knows.
    """
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, TypeError) as exc:
        raise ScheduleError(f"stored schedule {text!r} is not JSON: {exc}") from exc
    if not isinstance(data, dict) or data.get("v") != JSON_VERSION:
        raise ScheduleError(
            f"stored schedule {text!r} is not a version {JSON_VERSION} schedule object"
        )
    try:
        fields = cast(dict[str, object], data)
        return _from_fields(fields, zone_from_name(_text(fields, "tz")))
    except (KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, ScheduleError):
            raise
        raise ScheduleError(f"stored schedule {text!r} is malformed: {exc!r}") from exc


def _from_fields(data: dict[str, object], tz: ZoneInfo) -> Schedule:
    kind = data.get("type")
    if kind == "once":
        return OnceSchedule(at=datetime.fromisoformat(_text(data, "at")), tz=tz)
    if kind == "interval":
        seconds = data["every_seconds"]
        if isinstance(seconds, bool) or not isinstance(seconds, int | float):
            raise TypeError(f"every_seconds must be a number, got {seconds!r}")
        return IntervalSchedule(
            every=timedelta(seconds=seconds),
            anchor=datetime.fromisoformat(_text(data, "anchor")),
            tz=tz,
        )
    if kind == "cron":
        return CronSchedule(expression=_text(data, "expression"), tz=tz)
    if kind == "cycle":
        return _cycle_from_fields(data, tz)
    if kind == "calendar":
        return _calendar_from_fields(data, tz)
    if kind == "bounded":
        return _bounded_from_fields(data, tz)
    raise ValueError(f"unknown schedule type {kind!r}")


def _cycle_from_fields(data: dict[str, object], tz: ZoneInfo) -> CycleSchedule:
    every, days = data["every_days"], data["days"]
    if isinstance(every, bool) or not isinstance(every, int):
        raise TypeError(f"every_days must be a whole number, got {every!r}")
    if not isinstance(days, list):
        raise TypeError(f"days must be a list, got {days!r}")
    return CycleSchedule(
        every_days=every,
        anchor=date.fromisoformat(_text(data, "anchor")),
        days=tuple(int(d) for d in days),
        times=_times(data),
        tz=tz,
    )


def _calendar_from_fields(data: dict[str, object], tz: ZoneInfo) -> CalendarSchedule:
    rule, interval = data["rule"], data["interval"]
    if not isinstance(rule, dict):
        raise TypeError(f"rule must be an object, got {rule!r}")
    if isinstance(interval, bool) or not isinstance(interval, int):
        raise TypeError(f"interval must be a whole number, got {interval!r}")
    fields = cast(dict[str, object], rule)
    kind = _text(fields, "kind")
    if kind not in get_args(RuleKind):
        raise ValueError(f"unknown calendar rule {kind!r}")
    day_rule = DayRule(
        kind=cast(RuleKind, kind),
        day=_int(fields, "day"),
        nth=_int(fields, "nth"),
        weekday=_int(fields, "weekday"),
        month=_int(fields, "month"),
        holiday=str(fields.get("holiday", "")),
    )
    return CalendarSchedule(
        rule=day_rule,
        interval=interval,
        anchor=date.fromisoformat(_text(data, "anchor")),
        times=_times(data),
        tz=tz,
    )


def _bounded_from_fields(data: dict[str, object], tz: ZoneInfo) -> BoundedSchedule:
    inner = data["inner"]
    if not isinstance(inner, dict):
        raise TypeError(f"inner must be an object, got {inner!r}")
    start, end, count = data.get("start"), data.get("end"), data.get("count")
    if count is not None and (isinstance(count, bool) or not isinstance(count, int)):
        raise TypeError(f"count must be a whole number, got {count!r}")
    skip = data.get("skip", {})
    if not isinstance(skip, dict):
        raise TypeError(f"skip must be an object, got {skip!r}")
    return BoundedSchedule(
        inner=_from_fields(cast(dict[str, object], inner), tz),
        start=None if start is None else datetime.fromisoformat(str(start)),
        end=None if end is None else datetime.fromisoformat(str(end)),
        count=count,
        tz=tz,
        skips=Skips.from_fields(cast(dict[str, object], skip)),
    )


def _times(data: dict[str, object]) -> tuple[time, ...]:
    times = data["times"]
    if not isinstance(times, list):
        raise TypeError(f"times must be a list, got {times!r}")
    return tuple(time.fromisoformat(str(at)) for at in times)


def _int(data: dict[str, object], key: str) -> int:
    value = data.get(key, 0)
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{key} must be a whole number, got {value!r}")
    return value


def _text(data: dict[str, object], key: str) -> str:
    value = data[key]
    if not isinstance(value, str):
        raise TypeError(f"{key} must be text, got {value!r}")
    return value

"""Calendar files (RFC 5545) read into plain values with ``icalendar``.

``read_file(data, zone=...)`` gives each VEVENT and VTODO as a ``FileEvent``: its UID, text,
start, rule, EXDATEs and RDATEs, alarms, and whether it moves one instance of a series
(RECURRENCE-ID). Times keep the zone the file gives them: an IANA TZID (Google, Apple,
Thunderbird), a Windows zone name with the file's own VTIMEZONE (Outlook, Exchange), read
as its IANA zone only when the two agree on every offset for two years from the time (or from
``now``, when given and later: a series begun in 1965 is read by the zone's rules of today),
UTC, or no zone at all (floating: the user's ``zone``). Google's ``X-WR-TIMEZONE`` is applied first.
A value this module cannot use is kept as the event's ``problem``, named; the importer says
it. An event with a value that cannot be read at all (``DTSTART:notadate``: a malformed file,
``calendars.parsing``) is refused by ``read_file``, naming the event and the property;
``read_events`` leaves such events out and names them (calendars read for the user's days).
``icalendar`` is imported when a file is read.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from calendars.errors import BrokenEventError, IcsError
from calendars.parsing import event_name, parse_calendars, take_out_broken
from calendars.writing import HORIZON_PARAMETER, SCHEDULE_PROPERTY, TASK_PROPERTY

if TYPE_CHECKING:
    from icalendar import Component

MAX_FILE_BYTES = 5_000_000
"""The largest calendar file read."""
MAX_EVENTS = 5000
"""The most events one file may hold."""
_TIMED = ("VEVENT", "VTODO")  # the components an import reads (a to-do has its time too)
_CHECKED_DAYS = 731


@dataclass(frozen=True, slots=True)
class FileAlarm:
    """An alarm of an event: a length of time from the event's start, or a fixed instant."""

    offset: timedelta | None = None
    at: datetime | None = None


@dataclass(frozen=True, slots=True)
class FileEvent:
    """One VEVENT or VTODO of a file.

    Attributes:
        uid: Its UID ("" when it has none).
        summary: Its SUMMARY.
        kind: ``VEVENT`` or ``VTODO``.
        start: When it starts (a to-do: when it is due), aware in its zone; ``None`` when
            it has no start.
        all_day: Whether the start is a date (then midnight in the user's zone).
        rule: Its RRULE, or ``None``.
        rules: How many RRULEs it has (RFC 5545 allows one).
        exdates: Its EXDATEs, aware.
        rdates: Its RDATEs, aware.
        alarms: Its alarms.
        cancelled: Whether its STATUS is CANCELLED.
        recurrence_id: The instance of a series it replaces (RECURRENCE-ID), or ``None``.
        task_id: ``X-ASSISTANT-TASK``: the task it was written from, if it was.
        schedule_json: ``X-ASSISTANT-SCHEDULE``: that task's schedule, if written.
        horizon: How far the written lists of dates went (with ``schedule_json``).
        problem: What makes it unusable (an unknown zone, a start it lacks), or ``None``.
    """

    uid: str
    summary: str
    kind: str
    start: datetime | None
    all_day: bool = False
    rule: str | None = None
    rules: int = 0
    exdates: tuple[datetime, ...] = ()
    rdates: tuple[datetime, ...] = ()
    alarms: tuple[FileAlarm, ...] = ()
    cancelled: bool = False
    recurrence_id: datetime | None = None
    task_id: str | None = None
    schedule_json: str | None = None
    horizon: datetime | None = None
    problem: str | None = None


def read_path(path: Path, *, max_bytes: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of the calendar file at ``path`` (``~`` is the home folder).

    Raises:
        IcsError: when it cannot be read, or is larger than ``max_bytes``.
    """
    path = path.expanduser()
    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise IcsError(f"{path} is {size:,} bytes; at most {max_bytes:,} are read")
        return path.read_bytes()
    except OSError as exc:
        raise IcsError(f"cannot read {path}: {exc.strerror or exc}") from None


@dataclass(frozen=True, slots=True)
class FileRead:
    """What ``read_events`` found in a file.

    Attributes:
        events: Its events and to-dos that can be read.
        broken: The ones left out, as the file is malformed there, each named with what is
            wrong (``the event 'Dentist' (UID d1): its DTSTART 'x' is not a date or ...``).
    """

    events: list[FileEvent]
    broken: tuple[str, ...] = ()


def read_file(
    data: bytes,
    *,
    zone: ZoneInfo,
    now: datetime | None = None,
    max_bytes: int = MAX_FILE_BYTES,
) -> list[FileEvent]:
    """The events and to-dos of an iCalendar file.

    Args:
        data: The file.
        zone: The user's zone: where floating times and all-day events are.
        now: From when a file's own zone must agree with its IANA zone (by default from
            each time itself).
        max_bytes: The largest file read.

    Raises:
        BrokenEventError: when an event has a value that cannot be read (naming it).
        IcsError: when it is too large, not iCalendar, or holds too many events.
    """
    read = read_events(data, zone=zone, now=now, max_bytes=max_bytes)
    if read.broken:
        more = len(read.broken) - 1
        others = f" (and {more} more event{'s' if more != 1 else ''})" if more else ""
        raise BrokenEventError(
            f"the calendar file is malformed: {read.broken[0]}{others}; correct it in the "
            "calendar app (or delete it there) and export the calendar again"
        )
    return read.events


def read_events(
    data: bytes,
    *,
    zone: ZoneInfo,
    now: datetime | None = None,
    max_bytes: int = MAX_FILE_BYTES,
) -> FileRead:
    """The events and to-dos of an iCalendar file that can be read, and the others named
    (see ``read_file`` for the arguments).

    Raises:
        IcsError: when it is too large, not iCalendar, or holds too many events.
    """
    if len(data) > max_bytes:
        raise IcsError(
            f"the calendar file is {len(data):,} bytes; at most {max_bytes:,} are read: export "
            "a shorter range or one calendar at a time"
        )
    calendar = _parse(data)
    components = _components(calendar)
    if len(components) > MAX_EVENTS:
        raise IcsError(
            f"the calendar file holds {len(components)} events; at most {MAX_EVENTS} are read"
        )
    broken = [
        f"{event_name(component)}: {'; '.join(problems)}"
        for component, problems in take_out_broken(calendar, _TIMED)
    ]
    calendar = _standard(calendar)
    zones = _Zones(user=zone, defined=_defined_zones(calendar, now), since=now)
    events: list[FileEvent] = []
    for component in _components(calendar):
        try:
            events.append(_event(component, zones))
        except BrokenEventError as error:
            broken.append(str(error))
    return FileRead(events, tuple(broken))


def _components(calendar: Component) -> list[Component]:
    return [c for c in calendar.walk() if c.name in _TIMED]


def _parse(data: bytes) -> Component:
    text = data.lstrip(b"\xef\xbb\xbf").lstrip()
    if not text:
        raise IcsError("the calendar file is empty; export the calendar as .ics again")
    if not text.upper().startswith(b"BEGIN:VCALENDAR"):
        shown = text[:40].decode("utf-8", "replace")
        raise IcsError(
            f"this is not an iCalendar file (it starts with {shown!r}, not 'BEGIN:VCALENDAR'); "
            "export the calendar as .ics"
        )
    try:
        calendars = parse_calendars(text)
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        raise IcsError(f"the calendar file cannot be read: {_one_line(exc)}") from None
    if len(calendars) != 1:
        raise IcsError("the file holds several calendars; export them one at a time")
    return calendars[0]


def _standard(calendar: Component) -> Component:
    """Google's calendar-wide zone (``X-WR-TIMEZONE``) applied to its UTC times."""
    if "X-WR-TIMEZONE" not in calendar:
        return calendar
    import x_wr_timezone

    try:
        return x_wr_timezone.to_standard(calendar)  # type: ignore[no-any-return]
    except (ValueError, KeyError, ZoneInfoNotFoundError) as exc:
        raise IcsError(f"X-WR-TIMEZONE cannot be applied: {_one_line(exc)}") from None


def _event(component: Component, zone: _Zones) -> FileEvent:
    from icalendar.error import InvalidCalendar

    uid = str(component.get("UID", ""))
    summary = " ".join(str(component.get("SUMMARY", "")).split())
    kind = str(component.name)
    try:
        return _read(component, uid, summary, kind, zone)
    except _Unusable as problem:
        return FileEvent(uid=uid, summary=summary, kind=kind, start=None, problem=str(problem))
    except InvalidCalendar as exc:  # a value the checks of ``calendars.parsing`` let through
        raise BrokenEventError(f"{event_name(component)}: {_one_line(exc)}") from None


class _Unusable(Exception):
    """A value of an event that cannot be used; the message names it."""


def _read(component: Component, uid: str, summary: str, kind: str, zone: _Zones) -> FileEvent:
    # A to-do's alarms count from its DTSTART, or from its DUE when it has no start.
    prop = component.get("DTSTART")
    if prop is None and kind == "VTODO":
        prop = component.get("DUE")
    start, all_day = (None, False) if prop is None else _moment(prop, zone)
    rules = component.get("RRULE")
    rule_list = rules if isinstance(rules, list) else [] if rules is None else [rules]
    rule = rule_list[0].to_ical().decode() if rule_list else None
    schedule = component.get(SCHEDULE_PROPERTY)
    horizon = _horizon(schedule) if schedule is not None else None
    task = component.get(TASK_PROPERTY)
    return FileEvent(
        uid=uid,
        summary=summary,
        kind=kind,
        start=start,
        all_day=all_day,
        rule=rule,
        rules=len(rule_list),
        exdates=tuple(_moments(component.get("EXDATE"), zone)),
        rdates=tuple(_moments(component.get("RDATE"), zone)),
        alarms=tuple(_alarms(component, zone)),
        cancelled=str(component.get("STATUS", "")).upper() == "CANCELLED",
        recurrence_id=(
            None
            if component.get("RECURRENCE-ID") is None
            else _moment(component["RECURRENCE-ID"], zone)[0]
        ),
        task_id=None if task is None else str(task),
        schedule_json=None if schedule is None else str(schedule),
        horizon=horizon,
    )


def _horizon(prop: Any) -> datetime | None:
    value = getattr(prop, "params", {}).get(HORIZON_PARAMETER)
    if not value:
        return None
    try:
        return datetime.strptime(str(value), "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC)
    except ValueError:
        return None


def _alarms(component: Component, zone: _Zones) -> Iterable[FileAlarm]:
    for alarm in component.walk("VALARM"):
        trigger = alarm.get("TRIGGER")
        if trigger is None:
            continue
        value = trigger.dt
        if isinstance(value, timedelta):
            related = str(trigger.params.get("RELATED", "START")).upper()
            shift = _length(component) if related == "END" else timedelta(0)
            yield FileAlarm(offset=value + shift)
        elif isinstance(value, datetime):
            yield FileAlarm(at=_aware(value, trigger.params, zone))


def moment_of(component: Component, name: str) -> date | None:
    """The date or date-time of the property ``name`` (``None``: absent or neither)."""
    prop: Any = component.get(name)
    value = getattr(prop, "dt", None)
    return value if isinstance(value, date) else None


def _length(component: Component) -> timedelta:
    """How long an event lasts (DTEND or DURATION), for an alarm related to its end."""
    duration: Any = component.get("DURATION")
    if duration is not None:
        length = getattr(duration, "dt", None)
        return length if isinstance(length, timedelta) else timedelta(0)
    begins, ends = moment_of(component, "DTSTART"), moment_of(component, "DTEND")
    if component.name == "VTODO":
        ends = moment_of(component, "DUE")
        if begins is None:
            return timedelta(0)  # counted from DUE already
    if begins is None or ends is None:
        if begins is not None and not isinstance(begins, datetime):
            return timedelta(days=1)  # an all-day event without an end lasts its day
        return timedelta(0)
    if isinstance(begins, datetime) and isinstance(ends, datetime):
        return ends - begins
    if isinstance(begins, date) and isinstance(ends, date):
        return timedelta(days=(ends - begins).days)
    raise _Unusable("DTSTART and DTEND are of different kinds (a date and a date-time)")


def _moments(prop: Any, zone: _Zones) -> Iterable[datetime]:
    """The instants of an EXDATE or RDATE property (or a list of them)."""
    if prop is None:
        return
    for entry in prop if isinstance(prop, list) else [prop]:
        params = getattr(entry, "params", {})
        for value in getattr(entry, "dts", []):
            moment = value.dt
            if isinstance(moment, tuple):  # a PERIOD: its start
                moment = moment[0]
            if isinstance(moment, datetime):
                yield _aware(moment, params, zone)
            elif isinstance(moment, date):
                yield datetime.combine(moment, time(0), tzinfo=zone.user)


def _moment(prop: Any, zone: _Zones) -> tuple[datetime, bool]:
    value = prop.dt
    if isinstance(value, datetime):
        return _aware(value, prop.params, zone), False
    if isinstance(value, date):
        return datetime.combine(value, time(0), tzinfo=zone.user), True
    raise _Unusable(f"{value!r} is not a date or a time")


def _aware(value: datetime, params: Any, zone: _Zones) -> datetime:
    """``value`` at its wall time in an IANA zone (UTC stays UTC, floating is ``zone``)."""
    given = value.tzinfo
    tzid = str(params.get("TZID", "")) if params else ""
    if given is None and tzid:  # a TZID the library knows no zone for
        return value.replace(tzinfo=_iana_zone(tzid))
    if given is None:
        return value.replace(tzinfo=zone.user)
    if isinstance(given, ZoneInfo):
        return value
    # The file's own definition, read afresh: the library keeps the first one it saw of
    # each TZID, which another file may have given.
    own = zone.defined.get(tzid, given)
    if _is_utc(own):
        return value.replace(tzinfo=UTC)
    iana = _iana_zone(tzid)
    zone.check(tzid, own, iana, value.replace(tzinfo=None))
    return value.replace(tzinfo=iana)


@dataclass(slots=True)
class _Zones:
    """The user's zone (floating times, all-day events), the zones the file defines, and
    what is known of their agreement with IANA zones (a file's zone may be slow to ask:
    Outlook's rules start in 1601)."""

    user: ZoneInfo
    defined: dict[str, tzinfo]
    since: datetime | None = None
    _refused: dict[tuple[str, datetime], str] = field(default_factory=dict)
    _agreed: dict[tuple[str, time], tuple[date, date]] = field(default_factory=dict)

    def check(self, tzid: str, defined: tzinfo, found: ZoneInfo, wall: datetime) -> None:
        """That ``defined`` and ``found`` agree on the offset of every day for two years
        from ``wall`` (or from ``since``, when later), at its time of day.

        Raises:
            _Unusable: naming the first day they differ.
        """
        if self.since is not None:
            today = self.since.astimezone(found).date()
            if today > wall.date():
                wall = datetime.combine(today, wall.time())
        if (tzid, wall) in self._refused:
            raise _Unusable(self._refused[tzid, wall])
        first, last = wall.date(), wall.date() + timedelta(days=_CHECKED_DAYS - 1)
        known = self._agreed.get((tzid, wall.time()))
        low, high = known if known else (last, first)  # nothing known: an empty span
        day = first
        while day <= last:
            if low <= day <= high:
                day = high + timedelta(days=1)
                continue
            moment = datetime.combine(day, wall.time())
            if defined.utcoffset(moment) != found.utcoffset(moment):
                self._refused[tzid, wall] = (
                    f"the file's time zone TZID={tzid!r} and the IANA zone {found.key} "
                    f"differ on {day.isoformat()}; export the calendar with IANA zone names"
                )
                raise _Unusable(self._refused[tzid, wall])
            day += timedelta(days=1)
        if known and first <= high + timedelta(days=1) and low <= last + timedelta(days=1):
            first, last = min(first, low), max(last, high)
        self._agreed[tzid, wall.time()] = (first, last)


def _defined_zones(calendar: Component, since: datetime | None = None) -> dict[str, tzinfo]:
    """Each VTIMEZONE of the file as a time zone made from it alone; with ``since``, its
    rules begin the year before (each offset is found by walking a rule from its start,
    and Outlook starts them in 1601)."""
    defined: dict[str, tzinfo] = {}
    for component in calendar.walk("VTIMEZONE"):
        made: Any = component if since is None else _rules_from(component, since.year - 1)
        try:
            defined[str(component.get("TZID", ""))] = made.to_tz(lookup_tzid=False)
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise IcsError(
                f"the time zone {str(component.get('TZID', ''))!r} of the file cannot be "
                f"read: {_one_line(exc)}"
            ) from None
    return defined


def _rules_from(component: Component, year: int) -> Component:
    """A copy of a VTIMEZONE whose STANDARD and DAYLIGHT rules that began before ``year``
    begin at their first change in it (the same offsets from then on)."""
    from copy import deepcopy

    from dateutil.rrule import rrulestr

    floor = datetime(year, 1, 1)
    copied: Any = deepcopy(component)
    for part in copied.subcomponents:
        start: Any = part.get("DTSTART")
        rule: Any = part.get("RRULE")
        if start is None or rule is None or "COUNT" in rule or not isinstance(start.dt, datetime):
            continue
        begun = start.dt.replace(tzinfo=None)
        if begun >= floor:
            continue
        try:
            first = rrulestr(rule.to_ical().decode(), dtstart=begun).after(floor, inc=True)
        except (ValueError, TypeError):
            continue  # read as written (slowly), or refused by to_tz
        if first is not None:
            part.pop("DTSTART")
            part.add("DTSTART", first)
    made: Component = copied
    return made


def _is_utc(given: tzinfo) -> bool:
    probe = datetime(2026, 1, 1)
    return all(
        given.utcoffset(probe.replace(month=month)) == timedelta(0) for month in (1, 4, 7, 10)
    )


def _iana_zone(tzid: str) -> ZoneInfo:
    """The IANA zone a TZID names: an IANA name, a Windows zone name (Outlook, Exchange), or
    an old path-like name ("/freeassociation.sourceforge.net/Europe/Berlin").

    Raises:
        _Unusable: naming the TZID when no IANA zone is known for it.
    """
    from icalendar.timezone.windows_to_olson import WINDOWS_TO_OLSON

    candidates = [tzid, WINDOWS_TO_OLSON.get(tzid, ""), "/".join(tzid.strip("/").split("/")[-2:])]
    found: ZoneInfo | None = None
    for name in candidates:
        if not name:
            continue
        try:
            found = ZoneInfo(name)
            break
        except (ZoneInfoNotFoundError, ValueError):
            continue
    if found is None:
        raise _Unusable(
            f"the time zone TZID={tzid!r} is not one the IANA database or Windows names; "
            "export the calendar with its zone's IANA name (e.g. Europe/Berlin)"
        )
    return found


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:200] or type(exc).__name__

"""Calendar text parsed with ``icalendar``, each value it cannot read kept and named.

``icalendar`` 7 reads an event leniently: a value it cannot read (``DTSTART:notadate``) is
kept as a ``vBroken`` that raises ``BrokenCalendarProperty`` only when it is used, far from
the file. An alarm, a to-do or a zone with such a value fails the whole file instead, with a
bare ``ValueError`` ("Expected time, got: banana") that names neither the event nor the
property. ``parse_calendars`` reads every component leniently (a refinement of the library's
parser, which is built to be refined), so a broken value stays where it is, and
``broken_values`` says what each one is and what it should be; ``event_name`` names its event
("the event 'Dentist' (UID abc@x)"). The readers check an event's values before they use
them, so nothing reads a broken value.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from calendars.errors import IcsError

if TYPE_CHECKING:
    from icalendar import Component

_EXPECTED = {
    "vDDDTypes": "a date or date-time",
    "vDDDLists": "a date or date-time (or a list of them)",
    "vDatetime": "a date-time",
    "vDate": "a date",
    "vDuration": "a length of time (e.g. PT15M)",
    "vPeriod": "a period",
    "vInt": "a whole number",
    "vUTCOffset": "a UTC offset (e.g. +0100)",
    "vGeo": "a latitude;longitude",
}
_TRIGGER = "a length of time (e.g. -PT15M) or a date-time"
_RULE_PARTS = {
    "FREQ": "a frequency (SECONDLY ... YEARLY)",
    "UNTIL": "a date or date-time",
    "COUNT": "a whole number",
    "INTERVAL": "a whole number",
    "WKST": "a weekday (MO ... SU)",
    "BYDAY": "weekdays (e.g. MO, 2TU, -1FR)",
}
_KINDS = {"VEVENT": "event", "VTODO": "to-do", "VJOURNAL": "journal entry"}


def parse_calendars(data: bytes | str) -> list[Component]:
    """The calendars of ``data`` (a file holds one), every value that cannot be read kept
    as ``vBroken``.

    Raises:
        ValueError: when the text is no calendar at all (its lines, its BEGIN and END).
        IcsError: when a time zone of it has a value that cannot be read (naming both).
    """
    found: list[Component] = _parser()(data).parse()
    return found


def _parser() -> Any:
    """The parser class: ``icalendar``'s, lenient in every component (imported when used)."""
    from icalendar import Calendar
    from icalendar.parser.ical import CalendarIcalParser
    from icalendar.prop import vBroken

    class LenientParser(CalendarIcalParser):
        """Keeps a value it cannot read in any component, as events do."""

        def __init__(self, data: bytes | str) -> None:
            super().__init__(data, Calendar._get_component_factory(), Calendar.types_factory)

        def handle_property_parse_error(
            self, exception: Exception, name: str, params: Any, val: str, line: Any
        ) -> None:
            component = self.component
            if component is None:  # a property outside any component: not a calendar
                raise exception
            factory = self.get_factory_for_property(name, params)
            broken = vBroken.from_parse_error(
                raw_value=val,
                params=params,
                property_name=name,
                expected_type=getattr(factory, "__name__", "unknown"),
                error=exception,
            )
            component.errors.append((name, str(exception)))
            component.add(name, broken, encode=False)

        def handle_end_component(self, vals: str) -> None:
            # The library reads a zone's rules as its END is read: one that cannot be read
            # is named here, not where the library uses it.
            component = self.component
            if component is not None and component.name == "VTIMEZONE":
                problems = [said for part in component.walk() for said in broken_values(part)]
                if problems:
                    tzid = str(component.get("TZID", ""))
                    raise IcsError(
                        f"the time zone {tzid!r} of the file cannot be read: {problems[0]}; "
                        "export the calendar with IANA zone names"
                    )
            super().handle_end_component(vals)

        def handle_line_parse_error(self, exception: Exception) -> None:
            if self.component is None:
                raise exception
            self.component.errors.append((None, str(exception)))

    return LenientParser


def broken_values(component: Component, *, alarms: bool = True) -> list[str]:
    """What is wrong with each value of ``component`` (and, with ``alarms``, of its alarms)
    that could not be read: ``its DTSTART 'notadate' is not a date or a date-time``."""
    from icalendar.prop import vBroken

    found: list[str] = []
    parts = [("its", component)]
    if alarms:
        parts += [("its alarm's", alarm) for alarm in component.walk("VALARM")]
    for whose, part in parts:
        for name, value in part.items():
            for entry in value if isinstance(value, list) else [value]:
                if isinstance(entry, vBroken):
                    found.append(f"{whose} {_said(str(name), entry)}")
        found += [
            f"{whose} line that cannot be read ({' '.join(why.split())[:120]})"
            for name, why in part.errors
            if name is None
        ]
    return found


def take_out_broken(
    calendar: Component, kinds: tuple[str, ...], *, alarms: bool = True
) -> list[tuple[Component, list[str]]]:
    """Take the components of ``kinds`` with values that cannot be read (``broken_values``)
    out of ``calendar``; each, with what is wrong with it."""
    taken: list[tuple[Component, list[str]]] = []
    for part in calendar.walk():
        kept: list[Component] = []
        for component in part.subcomponents:
            problems = broken_values(component, alarms=alarms) if component.name in kinds else []
            if problems:
                taken.append((component, problems))
            else:
                kept.append(component)
        part.subcomponents[:] = kept
    return taken


def _said(name: str, value: Any) -> str:
    raw = " ".join(str(value).split())[:80]
    if value.expected_type == "vRecur":
        return _rule_said(name, raw)
    expected = _TRIGGER if name == "TRIGGER" else _EXPECTED.get(value.expected_type)
    if expected is None:
        return f"{name} {raw!r} cannot be read ({value.parse_error})"
    return f"{name} {raw!r} is not {expected}"


def _rule_said(name: str, raw: str) -> str:
    """The first part of a rule that cannot be read, named: ``RRULE's UNTIL 'x'``."""
    from icalendar import vRecur

    for part in raw.split(";"):
        key, _, value = part.partition("=")
        try:
            vRecur.from_ical(part)
        except (ValueError, TypeError):
            expected = _RULE_PARTS.get(key.strip().upper(), "a value RFC 5545 allows there")
            return f"{name}'s {key.strip().upper()} {value!r} is not {expected}"
    return f"{name} {raw!r} is not a rule RFC 5545 reads"


def event_name(component: Component) -> str:
    """``the event 'Dentist' (UID abc@x)``: its kind, SUMMARY and UID, as the file has them."""
    kind = _KINDS.get(str(component.name), "component")
    summary = " ".join(str(component.get("SUMMARY", "")).split())[:80]
    uid = str(component.get("UID", "")).strip()[:120]
    if summary and uid:
        return f"the {kind} {summary!r} (UID {uid})"
    if summary or uid:
        return f"the {kind} {summary!r}" if summary else f"the {kind} with UID {uid}"
    return f"{'an' if kind[0] in 'aeiou' else 'a'} {kind} without SUMMARY or UID"

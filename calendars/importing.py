"""A calendar file's events with alarms, turned into reminders: planned, shown, then made.

``plan_import(events, now=..., zone=...)`` decides for every event of a file (``read_file``)
what it becomes, without changing anything: each alarm of an event becomes a reminder at the
alarm's time, keeping the event's recurrence, its exceptions and its zone. A rule the schedule
language cannot say exactly is refused naming the part (``tasks.RuleError``), never
approximated. An instance moved to another time (RECURRENCE-ID) leaves its day out of the
series and becomes a one-time reminder of its own; so does each extra date (RDATE). An event
written by the assistant itself (``X-ASSISTANT-SCHEDULE``) comes back as its exact schedule
when it is still as written. ``ImportPlan.preview`` says all of it; ``apply_import`` makes
the reminders once the person said yes.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from calendars.reading import FileAlarm, FileEvent
from tasks import (
    BoundedSchedule,
    OnceSchedule,
    Recurrence,
    Schedule,
    ScheduleError,
    Task,
    TaskError,
    TaskManager,
    TaskType,
    recurrence_of,
    schedule_from_json,
    schedule_of,
    when_text,
)
from tasks.schedule import format_duration

MAX_EXTRA_DATES = 50
"""The most extra dates (RDATEs, moved instances) one event turns into one-time reminders."""
UNTITLED = "calendar event"
"""A reminder's text when its event has no SUMMARY."""
_MICRO = timedelta(microseconds=1)


@dataclass(frozen=True, slots=True)
class ImportItem:
    """A reminder a file's event will become.

    Attributes:
        uid: The event's UID.
        summary: The reminder's text (the event's SUMMARY).
        schedule: When it fires.
        note: How it came from the event ("15 min before", "a moved instance").
    """

    uid: str
    summary: str
    schedule: Schedule
    note: str = ""


@dataclass(frozen=True, slots=True)
class ImportRefusal:
    """An event with an alarm that is not imported, and why (naming the part)."""

    uid: str
    summary: str
    reason: str


@dataclass(frozen=True, slots=True)
class ImportPlan:
    """What a file will become.

    Attributes:
        items: The reminders to make.
        refused: Events with alarms the schedule language cannot say exactly.
        skipped: Events that are not reminders, or not any more (no alarm, cancelled, past,
            already a task), as ``(summary, why)``.
    """

    items: tuple[ImportItem, ...] = ()
    refused: tuple[ImportRefusal, ...] = ()
    skipped: tuple[tuple[str, str], ...] = ()

    def preview(self, zone: ZoneInfo, now: datetime) -> str:
        """Say what importing will do, before it does it."""
        lines: list[str] = []
        if self.items:
            count = len(self.items)
            lines.append(f"{count} reminder{'s' if count != 1 else ''} will be made:")
            for item in self.items:
                first = item.schedule.next_after(now)
                note = f"; {item.note}" if item.note else ""
                lines.append(
                    f"- '{item.summary}': {_said(item.schedule, zone)}{note}; first "
                    f"{when_text(first, zone, now)}"
                )
        else:
            lines.append("No reminders will be made.")
        if self.refused:
            said = "as the schedule language cannot say it exactly"
            lines.append(f"Not imported ({len(self.refused)}), {said}:")
            lines += [f"- '{r.summary}': {r.reason}" for r in self.refused]
        if self.skipped:
            reasons: dict[str, list[str]] = defaultdict(list)
            for summary, why in self.skipped:
                reasons[why].append(f"'{summary}'")
            lines.append("Left out:")
            for why, names in sorted(reasons.items()):
                shown = ", ".join(names[:5]) + (
                    f" and {len(names) - 5} more" if len(names) > 5 else ""
                )
                lines.append(f"- {why}: {shown}")
        return "\n".join(lines)


def _said(schedule: Schedule, zone: ZoneInfo) -> str:
    if isinstance(schedule, OnceSchedule):
        return f"once at {schedule.at.astimezone(zone):%Y-%m-%d %H:%M} ({zone.key})"
    return schedule.describe()


def plan_import(
    events: Sequence[FileEvent],
    *,
    now: datetime,
    zone: ZoneInfo,
    existing: Sequence[Task] = (),
) -> ImportPlan:
    """Decide what each event becomes (see the module's docstring); changes nothing.

    Args:
        events: A file's events (``read_file``).
        now: The current instant.
        zone: The user's zone (for intervals given in UTC).
        existing: The user's tasks: an event that is already one of them is left out.
    """
    planner = _Planner(now, zone, existing)
    moved: dict[str, list[FileEvent]] = defaultdict(list)
    for event in events:
        if event.recurrence_id is not None:
            moved[event.uid].append(event)
    for event in events:
        if event.recurrence_id is None:
            planner.event(event, moved.pop(event.uid, []))
    for orphans in moved.values():  # moved instances of a series the file does not hold
        for event in orphans:
            planner.event(event, [])
    return ImportPlan(tuple(planner.items), tuple(planner.refused), tuple(planner.skipped))


@dataclass
class _Planner:
    now: datetime
    zone: ZoneInfo
    existing: Sequence[Task]
    items: list[ImportItem] = field(default_factory=list)
    refused: list[ImportRefusal] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)

    def event(self, event: FileEvent, moved: list[FileEvent]) -> None:
        summary = event.summary or UNTITLED
        if event.problem is not None:
            self._refuse(event, event.problem)
        elif event.cancelled:
            self.skipped.append((summary, "cancelled"))
        elif not event.alarms and not any(m.alarms for m in moved):
            self.skipped.append((summary, "without an alarm (not a reminder)"))
        elif event.start is None:
            self._refuse(event, "it has no start (DTSTART), so no time to remind at")
        elif event.rules > 1:
            self._refuse(event, f"it has {event.rules} RRULEs; RFC 5545 allows one")
        else:
            try:
                found = self._items(event, moved)
            except ScheduleError as error:
                self._refuse(event, str(error))
                return
            for item in found:
                self._keep(item)

    def _refuse(self, event: FileEvent, reason: str) -> None:
        self.refused.append(ImportRefusal(event.uid, event.summary or UNTITLED, reason))

    def _items(self, event: FileEvent, moved: list[FileEvent]) -> list[ImportItem]:
        assert event.start is not None
        summary = event.summary or UNTITLED
        exdates = (*event.exdates, *(m.recurrence_id for m in moved if m.recurrence_id))
        written = self._written(
            event, Recurrence(start=event.start, rule=event.rule, exdates=exdates)
        )
        listed = {d.astimezone(UTC) for d in written[1]} if written else set()
        rdates = [d for d in event.rdates if d.astimezone(UTC) not in listed]
        extra = [(d, "an extra date of the series") for d in rdates]
        extra += [(m.start, "a moved instance") for m in moved if not m.cancelled and m.start]
        if len(extra) > MAX_EXTRA_DATES:
            raise ScheduleError(
                f"RDATE and moved instances list {len(extra)} dates; at most "
                f"{MAX_EXTRA_DATES} become one-time reminders"
            )
        found: list[ImportItem] = []
        for alarm in event.alarms:
            if written is not None and alarm.offset == timedelta(0):
                found.append(ImportItem(event.uid, summary, written[0], "as it was exported"))
            else:
                found += self._alarm_items(event, alarm, tuple(exdates), summary)
        for moment, note in extra:
            for alarm in event.alarms or (moved[0].alarms if moved else ()):
                if alarm.offset is not None:
                    at = moment + alarm.offset
                    once = OnceSchedule(at=at, tz=_zone(moment, self.zone))
                    found.append(ImportItem(event.uid, summary, once, note))
        return found

    def _alarm_items(
        self, event: FileEvent, alarm: FileAlarm, exdates: tuple[datetime, ...], summary: str
    ) -> list[ImportItem]:
        assert event.start is not None
        if alarm.at is not None:
            if event.rule is not None:
                raise ScheduleError(
                    "its alarm is at a fixed time (TRIGGER;VALUE=DATE-TIME) on a repeating "
                    "event: one reminder, not one per instance"
                )
            once = OnceSchedule(at=alarm.at, tz=_zone(alarm.at, self.zone))
            return [ImportItem(event.uid, summary, once, "at the alarm's fixed time")]
        shift = alarm.offset or timedelta(0)
        recurrence = Recurrence(start=event.start, rule=event.rule, exdates=exdates)
        schedule = schedule_of(recurrence, now=self.now, shift=shift, zone=self.zone)
        return [ImportItem(event.uid, summary, schedule, _offset_words(shift, event.all_day))]

    def _written(
        self, event: FileEvent, recurrence: Recurrence
    ) -> tuple[Schedule, tuple[datetime, ...]] | None:
        """The schedule the assistant wrote into the event and the dates it listed for it,
        when the event is still as written (its rule, start, EXDATEs and those dates)."""
        if event.schedule_json is None or event.horizon is None:
            return None
        try:
            schedule = schedule_from_json(event.schedule_json)
        except ScheduleError:
            return None
        assert event.start is not None
        said = recurrence_of(schedule, after=event.start - _MICRO, horizon=event.horizon)
        if said is None or not _same(said, recurrence):
            return None
        present = {d.astimezone(UTC) for d in event.rdates}
        if not {d.astimezone(UTC) for d in said.rdates} <= present:
            return None
        return _starting(schedule, event.start.astimezone(UTC), self.now), said.rdates

    def _keep(self, item: ImportItem) -> None:
        schedule = item.schedule
        if schedule.next_after(self.now) is None:
            self.skipped.append((item.summary, "in the past"))
            return
        for task in self.existing:
            same = (
                task.description == item.summary and task.schedule.to_json() == schedule.to_json()
            )
            if same and task.status.is_live:
                self.skipped.append((f"{item.summary} ({task.id})", "already a task"))
                return
        self.items.append(item)


def _same(ours: Recurrence, theirs: Recurrence) -> bool:
    """Whether two recurrences say the same (instants compared in UTC)."""

    def utc(moments: Sequence[datetime]) -> set[datetime]:
        return {m.astimezone(UTC) for m in moments}

    return (
        ours.start.astimezone(UTC) == theirs.start.astimezone(UTC)
        and _parts(ours.rule) == _parts(theirs.rule)
        and utc(ours.exdates) == utc(theirs.exdates)
    )


def _parts(rule: str | None) -> set[tuple[str, tuple[str, ...]]]:
    """A rule's parts, in any order (apps write them in their own)."""
    parts = set()
    for item in (rule or "").upper().split(";"):
        name, _, value = item.partition("=")
        if name:
            parts.add((name, tuple(sorted(value.split(",")))))
    return parts


def _starting(schedule: Schedule, start: datetime, now: datetime) -> Schedule:
    """``schedule`` firing no earlier than ``start`` (where it would fire before it)."""
    first = schedule.next_after(min(now, start - _MICRO))
    if first is None or first >= start or isinstance(schedule, OnceSchedule):
        return schedule
    if isinstance(schedule, BoundedSchedule):
        return BoundedSchedule(
            schedule.inner, start, schedule.end, schedule.count, schedule.tz, schedule.skips
        )
    return BoundedSchedule(schedule, start, None, None, schedule.tz)


def _zone(moment: datetime, fallback: ZoneInfo) -> ZoneInfo:
    return moment.tzinfo if isinstance(moment.tzinfo, ZoneInfo) else fallback


def _offset_words(shift: timedelta, all_day: bool) -> str:
    if not shift:
        return "at the event's start" if not all_day else "at the start of its day"
    words = format_duration(abs(shift))
    return f"{words} {'before' if shift < timedelta(0) else 'after'} the event's start"


@dataclass(frozen=True, slots=True)
class ImportResult:
    """What ``apply_import`` made, and what stopped it (``None``: nothing)."""

    created: tuple[Task, ...]
    error: str | None = None


async def apply_import(
    plan: ImportPlan, *, tasks: TaskManager, owner_id: str, chat_id: str
) -> ImportResult:
    """Make the plan's reminders, in order; a refusal (a limit reached) stops it there and
    says so, keeping those made."""
    created: list[Task] = []
    for item in plan.items:
        try:
            task = await tasks.add_task(
                owner_id=owner_id,
                chat_id=chat_id,
                task_type=TaskType.REMINDER,
                schedule=item.schedule,
                description=item.summary,
            )
        except TaskError as error:
            left = len(plan.items) - len(created)
            return ImportResult(tuple(created), f"{error} ({left} not made)")
        created.append(task)
    return ImportResult(tuple(created))

"""Two-way sync of one user's reminders with a CalDAV calendar.

One pass (``CalendarSync.run``) reads every event of the calendar and the user's reminders,
and for each pair it keeps in step (``memory.CalendarLink``: a task, an event's UID, and what
both were when last in step) decides by what changed since:

- changed on one side only: the change is carried to the other (a reminder moved here moves
  its event there, an event moved there reschedules its reminder here);
- deleted on one side (a reminder cancelled here, an event deleted there) and unchanged on
  the other: it is deleted there too;
- changed on both sides, or deleted on one and changed on the other: a **conflict**. Neither
  side is touched; the user is told once, and settles it (``resolve``: keep here or there).

A reminder made here gets an event there; an event with an alarm made there becomes a reminder
here (an event the schedule language cannot say exactly is reported, named, and left alone; so
is one with an instance moved on its own). An event without an alarm is not a reminder: it is
kept, with the rest, as the calendar read for the user's days. Writes to the server are
conditional (``If-Match``): an event changed while the pass ran is a conflict at the next, never
overwritten. A one-time reminder that has fired leaves its event as it is (a calendar keeps the
past); paused reminders keep their events.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Literal
from zoneinfo import ZoneInfo

from calendars.errors import CalendarError, IcsError
from calendars.events import task_event, task_of_uid, task_uid
from calendars.importing import plan_import
from calendars.parsing import parse_calendars
from calendars.reading import FileEvent, read_file
from calendars.remote import RemoteCalendar, RemoteChanged, RemoteEvent
from calendars.writing import write_calendar
from common import Clock
from memory import CalendarLink, CalendarSource, MemoryStore
from tasks import (
    Delivery,
    DeliveryKind,
    Notifier,
    Schedule,
    Task,
    TaskError,
    TaskManager,
    TaskNotFoundError,
    TaskStatus,
    TaskType,
)

logger = logging.getLogger(__name__)

CALDAV_SOURCE = "caldav"
"""The name of the synced calendar among the calendars read for the user's days."""
HORIZON = timedelta(days=400)
"""How far an event's lists of dates go (where its rule cannot say everything)."""
Side = Literal["here", "there"]
_CANCELLED_CHANGED = "was cancelled here and changed in the calendar"
_CHANGED_DELETED = "was changed here and deleted in the calendar"
_CHANGED_BOTH = "was changed both here and in the calendar"


@dataclass
class SyncReport:
    """What one pass did, in words a person reads (each entry names the reminder)."""

    made_here: list[str] = field(default_factory=list)
    made_there: list[str] = field(default_factory=list)
    changed_here: list[str] = field(default_factory=list)
    changed_there: list[str] = field(default_factory=list)
    deleted_here: list[str] = field(default_factory=list)
    deleted_there: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        """One line per kind of thing done, for ``/calendar`` and logs."""
        said = (
            ("made here", self.made_here),
            ("made in the calendar", self.made_there),
            ("changed here", self.changed_here),
            ("changed in the calendar", self.changed_there),
            ("cancelled here", self.deleted_here),
            ("deleted in the calendar", self.deleted_there),
            ("conflicts", self.conflicts),
            ("not synced", self.refused),
        )
        return [f"{what}: {'; '.join(items)}" for what, items in said if items]


def task_state(task: Task) -> str:
    """What of a task the sync keeps in step: its text and its schedule."""
    return _digest(f"{task.description}\n{task.schedule.to_json()}")


def event_state(event: FileEvent) -> str:
    """What of an event the sync keeps in step: its text, times, rule, exceptions, alarms."""

    def utc(moments: Sequence[datetime]) -> list[str]:
        return sorted(m.astimezone(ZoneInfo("UTC")).isoformat() for m in moments)

    start = "" if event.start is None else f"{event.start.isoformat()} {event.start.tzinfo}"
    alarms = sorted(f"{a.offset}|{a.at}" for a in event.alarms)
    parts = sorted((event.rule or "").upper().split(";"))
    said = [event.summary, start, ";".join(parts), *utc(event.exdates), "|", *utc(event.rdates)]
    said += ["|", *alarms, str(event.cancelled)]
    return _digest("\n".join(said))


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:32]


@dataclass(frozen=True, slots=True)
class _Remote:
    """An event on the server and what it holds."""

    stored: RemoteEvent
    master: FileEvent
    moved: int  # instances moved on their own (RECURRENCE-ID)


class CalendarSync:
    """Keeps one user's reminders and a CalDAV calendar in step (see the module docstring).

    Args:
        remote: The calendar (started by the caller).
        tasks: The task manager.
        memory: Where the links and the calendar read for the days are kept.
        clock: The current time.
        user_id: Whose reminders.
        chat_id: Where reminders made from the calendar are delivered.
        zone: The user's zone (floating times, all-day events).
        notifier: Tells the user of a new conflict (``None``: the report alone says it).
    """

    def __init__(
        self,
        *,
        remote: RemoteCalendar,
        tasks: TaskManager,
        memory: MemoryStore,
        clock: Clock,
        user_id: str,
        chat_id: str,
        zone: ZoneInfo,
        notifier: Notifier | None = None,
    ) -> None:
        self._remote = remote
        self._tasks = tasks
        self._memory = memory
        self._clock = clock
        self._user = user_id
        self._chat = chat_id
        self._zone = zone
        self._notifier = notifier

    async def run(self) -> SyncReport:
        """One pass both ways.

        Raises:
            SyncError: when the server cannot be read (nothing was changed here).
        """
        report = SyncReport()
        stored = await self._remote.events()
        remote, unreadable = self._read_remote(stored)
        report.refused += unreadable.values()
        await self._keep_source(stored)
        links = {link.uid: link for link in await self._memory.calendar_links(self._user)}
        live = {t.id: t for t in await self._tasks.list_tasks(self._user)}
        kept: list[CalendarLink] = []
        removed: list[tuple[str, str]] = []
        for uid, link in links.items():
            if link.href in unreadable and uid not in remote:
                kept.append(link)  # there but unreadable: not deleted, left as it is
                continue
            outcome = await self._linked(link, remote.get(uid), live, report)
            if outcome is None:
                removed.append((self._user, uid))
            else:
                kept.append(outcome)
        linked_tasks = {link.task_id for link in kept}
        for uid, found in remote.items():
            if uid not in links:
                made = await self._from_there(uid, found, live, linked_tasks, report)
                if made is not None:
                    kept.append(made)
                    linked_tasks.add(made.task_id)
        # Read again: this pass may have cancelled tasks here (deleted or renamed there).
        for task in await self._tasks.list_tasks(self._user):
            if task.id not in linked_tasks and _synced_kind(task):
                made = await self._to_there(task, report)
                if made is not None:
                    kept.append(made)
        await self._memory.save_calendar_links(kept, removed)
        await self._tell_conflicts(links, kept)
        return report

    # -- reading --

    def _read_remote(self, stored: list[RemoteEvent]) -> tuple[dict[str, _Remote], dict[str, str]]:
        """The events read, by UID; and the objects that cannot be read, by href, each with
        what is wrong (a broken object on the server is one event, not the sync)."""
        found: dict[str, _Remote] = {}
        unreadable: dict[str, str] = {}
        for event in stored:
            try:
                parts = read_file(event.data, zone=self._zone, now=self._clock.now())
            except IcsError as exc:
                logger.warning("calendar object %s cannot be read: %s", event.href, exc)
                unreadable[event.href] = f"{event.href.rsplit('/', 1)[-1]}: {exc}"
                continue
            masters = [p for p in parts if p.recurrence_id is None and p.kind == "VEVENT"]
            if len(masters) != 1 or not masters[0].uid:
                continue
            master = masters[0]
            found[master.uid] = _Remote(event, master, sum(1 for p in parts if p.recurrence_id))
        return found, unreadable

    async def _keep_source(self, stored: list[RemoteEvent]) -> None:
        """The calendar as read, for "what's on my calendar" (``calendars.days``)."""
        source = CalendarSource(
            user_id=self._user,
            name=CALDAV_SOURCE,
            url=self._remote.where,
            ics=_joined([event.data for event in stored]),
            fetched_at=self._clock.now(),
        )
        await self._memory.save_calendar_source(source)

    # -- a pair kept in step --

    async def _linked(
        self,
        link: CalendarLink,
        remote: _Remote | None,
        live: dict[str, Task],
        report: SyncReport,
    ) -> CalendarLink | None:
        """What becomes of a link (``None``: it ends)."""
        if not link.task_id:  # an event that could not become a reminder
            if remote is None:
                return None
            if event_state(remote.master) == link.remote_state:
                return link
            return await self._from_there(link.uid, remote, live, set(), report)
        task = live.get(link.task_id) or await self._finished(link.task_id)
        if link.conflict is not None:
            return link  # waits for the person (``resolve``)
        label = _label(task, remote, link)
        local_gone = task is None or task.status is TaskStatus.CANCELLED
        if task is not None and task.status is TaskStatus.DONE:
            return None  # it fired and is over: the calendar keeps its event as the past
        remote_changed = remote is not None and event_state(remote.master) != link.remote_state
        local_changed = task is not None and not local_gone and task_state(task) != link.local_state
        if local_gone and remote is None:
            return None
        if local_gone:
            if remote_changed:
                return self._conflict(link, f"{label} {_CANCELLED_CHANGED}", report)
            assert remote is not None
            return await self._delete_there(link, remote, label, report)
        assert task is not None
        if remote is None:
            if local_changed:
                return self._conflict(link, f"{label} {_CHANGED_DELETED}", report)
            await self._tasks.cancel(task.id, self._user)
            report.deleted_here.append(label)
            return None
        if local_changed and remote_changed:
            return self._conflict(link, f"{label} {_CHANGED_BOTH}", report)
        if local_changed:
            return await self._push(task, link, remote, label, report)
        if remote_changed:
            return await self._pull(task, link, remote, label, report)
        return link

    async def _finished(self, task_id: str) -> Task | None:
        try:
            return await self._tasks.get_task(task_id, self._user)
        except TaskNotFoundError:
            return None

    def _conflict(self, link: CalendarLink, why: str, report: SyncReport) -> CalendarLink:
        said = (
            f"{why}; neither side was changed. Keep one: /calendar keep here {link.uid} or "
            f"/calendar keep there {link.uid}"
        )
        report.conflicts.append(said)
        return replace(link, conflict=said, updated_at=self._clock.now())

    async def _delete_there(
        self, link: CalendarLink, remote: _Remote, label: str, report: SyncReport
    ) -> CalendarLink | None:
        try:
            await self._remote.delete(remote.stored)
        except RemoteChanged:
            return self._conflict(link, f"{label} {_CANCELLED_CHANGED}", report)
        report.deleted_there.append(label)
        return None

    async def _push(
        self, task: Task, link: CalendarLink, remote: _Remote, label: str, report: SyncReport
    ) -> CalendarLink:
        data = self._event_data(task)
        if data is None:
            return link
        try:
            stored = await self._remote.update(remote.stored, data)
        except RemoteChanged:
            return self._conflict(link, f"{label} {_CHANGED_BOTH}", report)
        report.changed_there.append(label)
        return self._link(task, link.uid, stored, data)

    async def _pull(
        self, task: Task, link: CalendarLink, remote: _Remote, label: str, report: SyncReport
    ) -> CalendarLink:
        schedule, problem = self._schedule_of(remote)
        if schedule is None:
            report.refused.append(f"{label}: {problem}")
            return replace(
                link,
                remote_state=event_state(remote.master),
                etag=remote.stored.etag,
                updated_at=self._clock.now(),
            )
        summary = remote.master.summary or task.description
        try:
            if summary != task.description:
                # A task's text does not change: the reminder is made anew, the old one ends.
                updated = await self._tasks.add_task(
                    owner_id=self._user,
                    chat_id=task.chat_id,
                    task_type=TaskType.REMINDER,
                    schedule=schedule,
                    description=summary,
                )
                await self._tasks.cancel(task.id, self._user)
            elif schedule.to_json() != task.schedule.to_json():
                updated = await self._tasks.reschedule(task.id, self._user, schedule)
            else:
                updated = task
        except TaskError as error:
            report.refused.append(f"{label}: {error}")
            return link
        report.changed_here.append(_task_label(updated))
        return self._link(updated, link.uid, remote.stored, remote.stored.data, remote.master)

    # -- one side only --

    async def _from_there(
        self,
        uid: str,
        remote: _Remote,
        live: dict[str, Task],
        linked: set[str],
        report: SyncReport,
    ) -> CalendarLink | None:
        """An event not kept in step yet: a reminder of ours again, or a new reminder."""
        own = task_of_uid(uid)
        if own is not None and own in live and own not in linked:
            return self._link(live[own], uid, remote.stored, remote.stored.data, remote.master)
        if not remote.master.alarms or remote.master.cancelled:
            return None  # not a reminder: read for the days only
        schedule, problem = self._schedule_of(remote)
        label = f"'{remote.master.summary or uid}'"
        if schedule is None:
            report.refused.append(f"{label}: {problem}")
            return CalendarLink(
                user_id=self._user,
                uid=uid,
                task_id="",
                href=remote.stored.href,
                etag=remote.stored.etag,
                local_state="",
                remote_state=event_state(remote.master),
                conflict=None,
                updated_at=self._clock.now(),
            )
        if schedule.next_after(self._clock.now()) is None:
            return None  # in the past: nothing to remind of
        try:
            task = await self._tasks.add_task(
                owner_id=self._user,
                chat_id=self._chat,
                task_type=TaskType.REMINDER,
                schedule=schedule,
                description=remote.master.summary or "calendar event",
            )
        except TaskError as error:
            report.refused.append(f"{label}: {error}")
            return None
        report.made_here.append(_task_label(task))
        return self._link(task, uid, remote.stored, remote.stored.data, remote.master)

    async def _to_there(self, task: Task, report: SyncReport) -> CalendarLink | None:
        data = self._event_data(task)
        if data is None:
            return None
        uid = task_uid(task.id)
        try:
            stored = await self._remote.create(uid, data)
        except RemoteChanged:
            return None  # an event of that UID is there: the next pass reads and links it
        report.made_there.append(_task_label(task))
        return self._link(task, uid, stored, data)

    # -- shared --

    def _schedule_of(self, remote: _Remote) -> tuple[Schedule | None, str]:
        """The one reminder an event becomes (its first alarm), or why it cannot."""
        if remote.moved:
            return None, (
                f"{remote.moved} of its instances are moved on their own (RECURRENCE-ID), "
                "which one reminder cannot follow"
            )
        master = remote.master
        first = replace(master, alarms=master.alarms[:1])
        plan = plan_import([first], now=self._clock.now(), zone=self._zone)
        if plan.refused:
            return None, plan.refused[0].reason
        if len(plan.items) != 1:
            why = plan.skipped[0][1] if plan.skipped else "it holds more than one reminder"
            return None, why
        return plan.items[0].schedule, ""

    def _event_data(self, task: Task) -> bytes | None:
        now = self._clock.now()
        event = task_event(task, now=now, horizon=now + HORIZON, paused=True)
        if event is None:
            return None
        return write_calendar([event], name="reminder", now=now)

    def _link(
        self,
        task: Task,
        uid: str,
        stored: RemoteEvent,
        data: bytes,
        master: FileEvent | None = None,
    ) -> CalendarLink:
        if master is None:
            read = read_file(data, zone=self._zone, now=self._clock.now())
            masters = [e for e in read if e.recurrence_id is None]
            master = masters[0]
        return CalendarLink(
            user_id=self._user,
            uid=uid,
            task_id=task.id,
            href=stored.href,
            etag=stored.etag,
            local_state=task_state(task),
            remote_state=event_state(master),
            conflict=None,
            updated_at=self._clock.now(),
        )

    async def _tell_conflicts(
        self, before: dict[str, CalendarLink], after: list[CalendarLink]
    ) -> None:
        if self._notifier is None:
            return
        for link in after:
            known = before.get(link.uid)
            if link.conflict is None or (known is not None and known.conflict is not None):
                continue
            await self._notifier.deliver(
                Delivery(
                    task_id=link.task_id,
                    run_id=None,
                    owner_id=self._user,
                    chat_id=self._chat,
                    kind=DeliveryKind.NOTICE,
                    text=f"Calendar sync: {link.conflict}.",
                )
            )

    # -- settling a conflict --

    async def resolve(self, uid: str, keep: Side) -> str:
        """Settle the conflict of the pair ``uid`` by keeping one side, which the other then
        follows at once; say what was done.

        Raises:
            SyncError: when the server cannot be reached.
            CalendarError: when there is no such conflict.
        """
        links = {link.uid: link for link in await self._memory.calendar_links(self._user)}
        link = links.get(uid)
        if link is None or link.conflict is None:
            raise CalendarError(f"there is no calendar conflict {uid!r}; /calendar lists them")
        stored = {e.href: e for e in await self._remote.events()}
        remote: _Remote | None = None
        if link.href in stored:
            found, unreadable = self._read_remote([stored[link.href]])
            if link.href in unreadable:
                raise CalendarError(
                    f"the calendar's event cannot be read ({unreadable[link.href]}); correct "
                    "it in the calendar app, then settle the conflict"
                )
            remote = found.get(uid)
        task = await self._finished(link.task_id)
        settled = replace(link, conflict=None)
        if keep == "here":
            return await self._keep_here(settled, task, remote)
        return await self._keep_there(settled, task, remote)

    async def _keep_here(
        self, link: CalendarLink, task: Task | None, remote: _Remote | None
    ) -> str:
        gone = task is None or task.status in (TaskStatus.CANCELLED, TaskStatus.DONE)
        if gone:
            if remote is not None:
                await self._remote.delete(remote.stored)
            await self._memory.save_calendar_links([], [(self._user, link.uid)])
            return "Kept it cancelled: the event is deleted from the calendar."
        assert task is not None
        data = self._event_data(task)
        assert data is not None
        if remote is None:
            stored = await self._remote.create(task_uid(task.id), data)
            uid = task_uid(task.id)
            await self._memory.save_calendar_links(
                [self._link(task, uid, stored, data)], [(self._user, link.uid)]
            )
        else:
            stored = await self._remote.update(remote.stored, data)
            await self._memory.save_calendar_links([self._link(task, link.uid, stored, data)])
        return f"Kept {_task_label(task)} as it is here; the calendar follows it."

    async def _keep_there(
        self, link: CalendarLink, task: Task | None, remote: _Remote | None
    ) -> str:
        if remote is None:
            if task is not None and task.status.is_live:
                await self._tasks.cancel(task.id, self._user)
            await self._memory.save_calendar_links([], [(self._user, link.uid)])
            return "Kept it deleted: the reminder is cancelled here."
        report = SyncReport()
        if task is None or not task.status.is_live:
            made = await self._from_there(link.uid, remote, {}, set(), report)
        else:
            made = await self._pull(task, link, remote, _task_label(task), report)
        if made is None:
            await self._memory.save_calendar_links([], [(self._user, link.uid)])
        else:
            await self._memory.save_calendar_links([made])
        said = "; ".join(report.changed_here + report.made_here + report.refused)
        return f"Kept the calendar's version{': ' + said if said else ''}."


def _synced_kind(task: Task) -> bool:
    """The reminders the sync writes to the calendar: active ones (paused ones keep theirs)."""
    return task.task_type is TaskType.REMINDER and task.status is TaskStatus.ACTIVE


def _task_label(task: Task) -> str:
    return f"'{task.description}' ({task.id})"


def _label(task: Task | None, remote: _Remote | None, link: CalendarLink) -> str:
    if task is not None:
        return _task_label(task)
    if remote is not None:
        return f"'{remote.master.summary}'"
    return f"task {link.task_id}"


def _joined(objects: Sequence[bytes]) -> str:
    """The events of several calendar objects in one iCalendar text (zones once each)."""
    from icalendar import Calendar

    joined = Calendar()
    joined.add("prodid", "-//assistant//caldav copy//EN")
    joined.add("version", "2.0")
    zones: set[str] = set()
    for data in objects:
        try:
            read = parse_calendars(data)  # events it cannot read are left out of the days
        except (ValueError, KeyError, IndexError, TypeError):
            continue
        for component in (c for calendar in read for c in calendar.subcomponents):
            if component.name == "VTIMEZONE":
                tzid = str(component.get("TZID", ""))
                if tzid in zones:
                    continue
                zones.add(tzid)
            joined.add_component(component)
    return bytes(joined.to_ical()).decode("utf-8", "replace")

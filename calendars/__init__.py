"""Calendars: the user's tasks in their calendar app, and their calendar in the assistant.

    events      a task as a calendar event (``task_event``): its rule, zone, alarm
    writing     events written as an iCalendar file (the feed, ``export-ics``, the sync)
    parsing     iCalendar text parsed keeping each value that cannot be read, named
    reading     an iCalendar file read into plain values (Google, Apple, Outlook, Thunderbird)
    importing   a file's events with alarms planned as reminders, shown, then made
    feeds       each user's feed behind a secret, revocable address (only its hash is kept)
    days        the events of the user's calendars in a span of days ("what's on tomorrow")
    remote      the CalDAV calendar (the ``caldav`` library, async) as the sync uses it
    sync        two-way sync of the user's reminders with it; conflicts reported, never settled
    service     ``Calendars``: all of it for the front ends and the tools (subscriptions and
                files by address through the guarded HTTP path; the sync's passes)

The libraries (``icalendar``, ``recurring-ical-events``, ``caldav``) are imported when a file
is written or read, or the server reached, never with the package: ``assistant ask`` does not
load them. Schedules and their rules are the tasks' own (``tasks.recurrence_of``,
``tasks.schedule_of``): there is one implementation of recurrence math.
"""

from calendars.days import DayEvent, day_span, events_between
from calendars.errors import BrokenEventError, CalendarError, FeedError, IcsError, SyncError
from calendars.events import NOT_IN_THE_DAY, TaskEvent, task_event, task_of_uid, task_uid
from calendars.feeds import FEED_PREFIX, Feeds, feed_path, hidden_path, token_in_path
from calendars.importing import (
    ImportItem,
    ImportPlan,
    ImportRefusal,
    ImportResult,
    apply_import,
    plan_import,
)
from calendars.reading import (
    MAX_FILE_BYTES,
    FileAlarm,
    FileEvent,
    FileRead,
    read_events,
    read_file,
    read_path,
)
from calendars.remote import (
    CaldavCalendar,
    CaldavSettings,
    RemoteCalendar,
    RemoteChanged,
    RemoteEvent,
)
from calendars.service import (
    Calendars,
    DayListing,
    Subscription,
    SyncSettings,
    address_or_path,
    source_lines,
)
from calendars.sync import CALDAV_SOURCE, CalendarSync, SyncReport, event_state, task_state
from calendars.writing import write_calendar

__all__ = [
    "CALDAV_SOURCE",
    "FEED_PREFIX",
    "MAX_FILE_BYTES",
    "NOT_IN_THE_DAY",
    "BrokenEventError",
    "CaldavCalendar",
    "CaldavSettings",
    "CalendarError",
    "CalendarSync",
    "Calendars",
    "DayEvent",
    "DayListing",
    "FeedError",
    "Feeds",
    "FileAlarm",
    "FileEvent",
    "FileRead",
    "IcsError",
    "ImportItem",
    "ImportPlan",
    "ImportRefusal",
    "ImportResult",
    "RemoteCalendar",
    "RemoteChanged",
    "RemoteEvent",
    "Subscription",
    "SyncError",
    "SyncReport",
    "SyncSettings",
    "TaskEvent",
    "address_or_path",
    "apply_import",
    "day_span",
    "event_state",
    "events_between",
    "feed_path",
    "hidden_path",
    "plan_import",
    "read_events",
    "read_file",
    "read_path",
    "source_lines",
    "task_event",
    "task_of_uid",
    "task_state",
    "task_uid",
    "token_in_path",
    "write_calendar",
]

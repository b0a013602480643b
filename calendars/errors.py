"""The calendars' exceptions.

CalendarError              anything the calendars cannot do; the message says why and what works
├── IcsError               a calendar file that cannot be read (not iCalendar, too large, ...)
│   └── BrokenEventError   an event of it with a value that cannot be read (names both)
├── FeedError              a feed that cannot be made or served
└── SyncError              a CalDAV server that cannot be reached or refuses (the sync retries)
"""

from __future__ import annotations


class CalendarError(Exception):
    """Something about calendars failed; the message says what and what would work."""


class IcsError(CalendarError):
    """A calendar file that cannot be read; the message quotes what is wrong."""


class BrokenEventError(IcsError):
    """An event of a calendar file with a value that cannot be read (``DTSTART:notadate``,
    ``EXDATE:garbage``, ``TRIGGER:banana``); the message names the event and the property."""


class FeedError(CalendarError):
    """A calendar feed that cannot be made or served."""


class SyncError(CalendarError):
    """The CalDAV server could not be reached, or refused a request (the message says which)."""

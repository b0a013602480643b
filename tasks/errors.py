"""The scheduling package's exceptions.

TaskError                 base of everything this package raises on purpose
├── ScheduleError         a schedule phrase or cron expression cannot be used
│   └── PastTimeError     it is a time, but one that has already passed
├── TaskNotFoundError     no task with that id belongs to that owner
├── TaskStateError        the operation does not apply to the task as it is now
├── TaskDataError         a task's type, execution data or option cannot be used
└── TaskLimitError        the owner holds as many tasks (or bytes) as allowed, or the
                          schedule repeats more often than its type may
"""

from __future__ import annotations

from common import LazyPattern

_EXAMPLE = LazyPattern(r"e\.g\. '([^']+)'")


class TaskError(Exception):
    """Base class of the scheduling package's errors."""


class ScheduleError(TaskError, ValueError):
    """A schedule cannot be understood or used; the message says what would work."""

    @property
    def example(self) -> str | None:
        """The phrasing that works which the message offers ("say e.g. 'in 5 minutes'")."""
        found = _EXAMPLE.findall(str(self))
        return found[-1] if found else None


class PastTimeError(ScheduleError):
    """The words are a time, but it has already passed ("today at 2pm" at 14:30)."""


class TaskNotFoundError(TaskError, LookupError):
    """No task with that id belongs to that owner."""


class TaskStateError(TaskError):
    """The operation does not apply to the task in its current state."""


class TaskDataError(TaskError, ValueError):
    """A task's type, execution data or option cannot be used; the message says what works."""


class TaskLimitError(TaskError):
    """A limit of what one owner may schedule is reached; the message names the limit and the
    setting that raises it."""

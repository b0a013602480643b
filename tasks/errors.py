"""The scheduling package's exceptions.

TaskError                 base of everything this package raises on purpose
├── ScheduleError         a schedule phrase or cron expression cannot be used
├── TaskNotFoundError     no task with that id belongs to that owner
├── TaskStateError        the operation does not apply to the task as it is now
└── TaskDataError         a task's type, execution data or option cannot be used
"""

from __future__ import annotations


class TaskError(Exception):
    """Base class of the scheduling package's errors."""


class ScheduleError(TaskError, ValueError):
    """A schedule cannot be understood or used; the message says what would work."""


class TaskNotFoundError(TaskError, LookupError):
    """No task with that id belongs to that owner."""


class TaskStateError(TaskError):
    """The operation does not apply to the task in its current state."""


class TaskDataError(TaskError, ValueError):
    """A task's type, execution data or option cannot be used; the message says what works."""

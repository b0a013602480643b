"""Scheduling: the schedule language, the task store and the TaskManager."""

from tasks.clock import Clock, ManualClock, SystemClock
from tasks.errors import ScheduleError, TaskError, TaskNotFoundError, TaskStateError
from tasks.execution import TaskType
from tasks.manager import TaskManager
from tasks.memory_store import MemoryTaskStore
from tasks.models import (
    MisfirePolicy,
    MisfireRule,
    RunStatus,
    Task,
    TaskDraft,
    TaskRun,
    TaskStatus,
    format_lateness,
)
from tasks.parsing import parse_schedule
from tasks.preview import SchedulePreview, preview_schedule
from tasks.protocols import (
    AgentRunner,
    Delivery,
    DeliveryKind,
    DeliveryStatus,
    Notifier,
    Searcher,
    SearchHit,
)
from tasks.schedule import (
    CronSchedule,
    IntervalSchedule,
    OnceSchedule,
    Schedule,
    ScheduleKind,
    format_local,
    schedule_from_json,
)
from tasks.sqlite_store import SqliteTaskStore
from tasks.store import TaskStore

__all__ = [
    "AgentRunner",
    "Clock",
    "CronSchedule",
    "Delivery",
    "DeliveryKind",
    "DeliveryStatus",
    "IntervalSchedule",
    "ManualClock",
    "MemoryTaskStore",
    "MisfirePolicy",
    "MisfireRule",
    "Notifier",
    "OnceSchedule",
    "RunStatus",
    "Schedule",
    "ScheduleError",
    "ScheduleKind",
    "SchedulePreview",
    "SearchHit",
    "Searcher",
    "SqliteTaskStore",
    "SystemClock",
    "Task",
    "TaskDraft",
    "TaskError",
    "TaskManager",
    "TaskNotFoundError",
    "TaskRun",
    "TaskStateError",
    "TaskStatus",
    "TaskStore",
    "TaskType",
    "format_lateness",
    "format_local",
    "parse_schedule",
    "preview_schedule",
    "schedule_from_json",
]

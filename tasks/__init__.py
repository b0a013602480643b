"""Scheduling: the schedule language, the task store and the TaskManager."""

from tasks.clock import Clock, ManualClock, SystemClock
from tasks.errors import (
    ScheduleError,
    TaskDataError,
    TaskError,
    TaskNotFoundError,
    TaskStateError,
)
from tasks.execution import (
    AgentTaskData,
    ApiCallData,
    ExecutionData,
    ReminderData,
    TaskType,
    WebSearchData,
)
from tasks.manager import TaskManager
from tasks.memory_store import MemoryTaskStore
from tasks.models import (
    DEFAULT_MISFIRE_RULES,
    MisfireAction,
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
from tasks.phrases import read_duration
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
    zone_from_name,
)
from tasks.sqlite_store import SqliteTaskStore
from tasks.store import TaskStore

__all__ = [
    "DEFAULT_MISFIRE_RULES",
    "AgentRunner",
    "AgentTaskData",
    "ApiCallData",
    "Clock",
    "CronSchedule",
    "Delivery",
    "DeliveryKind",
    "DeliveryStatus",
    "ExecutionData",
    "IntervalSchedule",
    "ManualClock",
    "MemoryTaskStore",
    "MisfireAction",
    "MisfirePolicy",
    "MisfireRule",
    "Notifier",
    "OnceSchedule",
    "ReminderData",
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
    "TaskDataError",
    "TaskDraft",
    "TaskError",
    "TaskManager",
    "TaskNotFoundError",
    "TaskRun",
    "TaskStateError",
    "TaskStatus",
    "TaskStore",
    "TaskType",
    "WebSearchData",
    "format_lateness",
    "format_local",
    "parse_schedule",
    "preview_schedule",
    "read_duration",
    "schedule_from_json",
    "zone_from_name",
]

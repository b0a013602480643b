"""Scheduling: the schedule language, the task stores, the engine that fires tasks, and the
runners that carry them out.

    schedule/  words and cron expressions -> pure schedule values (``parse_schedule``)
    store/     the ``TaskStore`` contract, the in-memory and SQLite stores, misfire planning
    engine/    the ``TaskManager``: operations on tasks, the timer, claims, leases, the ledger
    runners/   what a run of each task type does (reminder, agent task, web search, API call)

    models, execution, protocols, errors   the data types and seams shared by all four
"""

from tasks.engine import DEFAULT_SNOOZE, TaskManager
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
    SchedulePreview,
    format_local,
    parse_schedule,
    preview_schedule,
    read_duration,
    schedule_from_json,
    zone_from_name,
)
from tasks.store import (
    TASK_TABLES,
    ChatScope,
    MemoryTaskStore,
    PostgresTaskStore,
    SchedulerBusyError,
    SqliteTaskStore,
    TaskStore,
    TaskStoreError,
    scheduler_lock,
)

__all__ = [
    "DEFAULT_MISFIRE_RULES",
    "DEFAULT_SNOOZE",
    "TASK_TABLES",
    "AgentRunner",
    "AgentTaskData",
    "ApiCallData",
    "ChatScope",
    "CronSchedule",
    "Delivery",
    "DeliveryKind",
    "DeliveryStatus",
    "ExecutionData",
    "IntervalSchedule",
    "MemoryTaskStore",
    "MisfireAction",
    "MisfirePolicy",
    "MisfireRule",
    "Notifier",
    "OnceSchedule",
    "PostgresTaskStore",
    "ReminderData",
    "RunStatus",
    "Schedule",
    "ScheduleError",
    "ScheduleKind",
    "SchedulePreview",
    "SchedulerBusyError",
    "SearchHit",
    "Searcher",
    "SqliteTaskStore",
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
    "TaskStoreError",
    "TaskType",
    "WebSearchData",
    "format_lateness",
    "format_local",
    "parse_schedule",
    "preview_schedule",
    "read_duration",
    "schedule_from_json",
    "scheduler_lock",
    "zone_from_name",
]

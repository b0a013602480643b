"""Scheduling: the schedule language, the task store and the TaskManager."""

from tasks.errors import ScheduleError, TaskError, TaskNotFoundError, TaskStateError
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

__all__ = [
    "AgentRunner",
    "CronSchedule",
    "Delivery",
    "DeliveryKind",
    "DeliveryStatus",
    "IntervalSchedule",
    "Notifier",
    "OnceSchedule",
    "Schedule",
    "ScheduleError",
    "ScheduleKind",
    "SchedulePreview",
    "SearchHit",
    "Searcher",
    "TaskError",
    "TaskNotFoundError",
    "TaskStateError",
    "format_local",
    "parse_schedule",
    "preview_schedule",
    "schedule_from_json",
]

"""What one owner may keep scheduled: a number of live tasks, their bytes, and how often each
type of task may repeat.

``TaskLimits`` is checked where tasks are made: the interval by ``check_interval`` (a pure
function of the schedule), the count and the bytes by the store, in the same transaction as
the insert (``TaskStore.add_task``), so two requests at the same moment cannot both pass the
last free place. Every refusal says what the limit is, which setting raises it, and what
would work instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from types import MappingProxyType

from tasks.errors import TaskLimitError
from tasks.execution import TaskType, execution_to_json
from tasks.models import TaskSpec
from tasks.schedule.model import Schedule

DEFAULT_MIN_INTERVAL = timedelta(minutes=1)
INTERVAL_SAMPLES = 64
"""How many fires of a new schedule are looked at for its shortest gap."""


@dataclass(frozen=True, slots=True)
class TaskLimits:
    """How much one owner may schedule.

    Attributes:
        max_tasks: Live tasks (active, running, paused, disabled) per owner.
        max_bytes: The bytes of their descriptions and execution data together (UTF-8).
        min_interval: The shortest time between two runs of a task, per type; types not
            named use ``DEFAULT_MIN_INTERVAL``.
    """

    max_tasks: int = 500
    max_bytes: int = 2_000_000
    min_interval: Mapping[TaskType, timedelta] = field(default_factory=lambda: MappingProxyType({}))

    def interval_of(self, task_type: TaskType) -> timedelta:
        """The shortest time allowed between two runs of a ``task_type`` task."""
        return self.min_interval.get(task_type, DEFAULT_MIN_INTERVAL)

    def check_room(self, *, live: int, used: int, draft: TaskSpec) -> None:
        """Refuse ``draft`` when its owner holds ``live`` tasks of ``used`` bytes and it does
        not fit.

        Raises:
            TaskLimitError: saying which limit, which setting raises it, and what to do.
        """
        if live >= self.max_tasks:
            raise TaskLimitError(
                f"you have {live} scheduled tasks, the most one person may keep "
                f"(ASSISTANT_MAX_TASKS_PER_USER={self.max_tasks}); cancel some you no longer "
                "need (list them to see their ids) and ask again"
            )
        size = draft_bytes(draft)
        if used + size > self.max_bytes:
            raise TaskLimitError(
                f"this task ({size:,} bytes) does not fit: your {live} tasks hold {used:,} of "
                f"the {self.max_bytes:,} bytes one person may keep "
                "(ASSISTANT_MAX_TASK_BYTES_PER_USER); cancel some or make this one shorter"
            )


def draft_bytes(draft: TaskSpec) -> int:
    """What a new task counts against its owner's bytes: its description and execution data,
    as stored (UTF-8)."""
    return len(draft.description.encode()) + len(execution_to_json(draft.execution).encode())


def check_interval(
    schedule: Schedule, task_type: TaskType, now: datetime, limits: TaskLimits
) -> None:
    """Refuse a schedule whose runs come closer together than its type allows.

    The gaps between its next ``INTERVAL_SAMPLES`` runs are measured (every kind of schedule
    answers ``next_after``), so "every second", ``* * * * * *``-like calendars and a burst of
    minutes inside an hour are all caught.

    Raises:
        TaskLimitError: naming the gap found, the minimum and how to raise it.
    """
    minimum = limits.interval_of(task_type)
    if minimum <= timedelta(0):
        return
    previous = schedule.next_after(now)
    for _ in range(INTERVAL_SAMPLES):
        if previous is None:
            return
        following = schedule.next_after(previous)
        if following is None:
            return
        gap = following - previous
        if gap < minimum:
            raise TaskLimitError(
                f"{schedule.describe()} runs every {_span(gap)}, more often than a "
                f"{task_type.value.replace('_', ' ')} may: at most once every {_span(minimum)} "
                f"(ASSISTANT_MIN_INTERVAL); pick a longer interval, e.g. 'every "
                f"{_span(max(minimum, timedelta(minutes=1)))}'"
            )
        previous = following


def _span(span: timedelta) -> str:
    seconds = span.total_seconds()
    if seconds < 60:
        return f"{seconds:g} seconds" if seconds != 1 else "second"
    minutes = seconds / 60
    if minutes < 60:
        return f"{minutes:g} minutes" if minutes != 1 else "minute"
    hours = minutes / 60
    return f"{hours:g} hours" if hours != 1 else "hour"


def parse_intervals(text: str) -> dict[TaskType, timedelta]:
    """Read ``ASSISTANT_MIN_INTERVAL``: seconds for every type (``60``), or ``type=seconds``
    pairs (``reminder=60,api_call=300``), or both (``120,reminder=60``).

    Raises:
        ValueError: naming the part that is not understood.
    """
    intervals: dict[TaskType, timedelta] = {}
    default: timedelta | None = None
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        name, equals, value = part.rpartition("=")
        try:
            seconds = float(value)
        except ValueError:
            raise ValueError(f"{part!r} is not seconds (e.g. '60' or 'reminder=60')") from None
        if seconds < 0 or seconds != seconds:
            raise ValueError(f"{part!r}: the interval must be 0 or more seconds")
        if not equals:
            default = timedelta(seconds=seconds)
            continue
        try:
            intervals[TaskType(name.strip())] = timedelta(seconds=seconds)
        except ValueError:
            known = ", ".join(t.value for t in TaskType)
            raise ValueError(f"{name.strip()!r} is not a task type; use one of {known}") from None
    if default is not None:
        intervals = {t: intervals.get(t, default) for t in TaskType}
    return intervals

"""What a run does, per task type: deliver a reminder, answer a prompt, search the web, or
make an HTTP request; and the ``Deliverer`` that hands messages to the notifier."""

from tasks.runners.api_call import ApiCallRunner
from tasks.runners.base import (
    AgentTaskRunner,
    Deliverer,
    ReminderRunner,
    RunReport,
    TaskRunner,
    WebSearchRunner,
    format_hits,
)

__all__ = [
    "AgentTaskRunner",
    "ApiCallRunner",
    "Deliverer",
    "ReminderRunner",
    "RunReport",
    "TaskRunner",
    "WebSearchRunner",
    "format_hits",
]

"""What a run does, per task type, one module each; and what they share.

base        TaskRunner (the protocol), RunReport, Deliverer (hands messages to the
            notifier, retrying)
reminder    ReminderRunner: the reminder's text, no LLM call
agent_task  AgentTaskRunner: the agent answers the prompt
web_search  WebSearchRunner: the top hits, listed or summarised (format_hits)
api_call    ApiCallRunner: the approved HTTP request, retried where that is safe
monitor     MonitorRunner: looks at a page, a JSON field, search results or a tool's output,
            and speaks only when it changed or its condition holds
briefing    BriefingRunner: the owner's day in one message, from the store
"""

from tasks.runners.agent_task import AgentTaskRunner
from tasks.runners.api_call import ApiCallRunner
from tasks.runners.base import Deliverer, RunReport, TaskRunner
from tasks.runners.briefing import BriefingRunner, checked_summary
from tasks.runners.monitor import MonitorRunner
from tasks.runners.reminder import ReminderRunner, read_nag
from tasks.runners.web_search import WebSearchRunner, format_hits

__all__ = [
    "AgentTaskRunner",
    "ApiCallRunner",
    "BriefingRunner",
    "Deliverer",
    "MonitorRunner",
    "ReminderRunner",
    "RunReport",
    "TaskRunner",
    "WebSearchRunner",
    "checked_summary",
    "format_hits",
    "read_nag",
]

"""What a run does, per task type, one module each; and what they share.

base        TaskRunner (the protocol), RunReport, Deliverer (hands messages to the
            notifier, retrying)
reminder    ReminderRunner: the reminder's text, no LLM call
agent_task  AgentTaskRunner: the agent answers the prompt
web_search  WebSearchRunner: the top hits, listed or summarised (format_hits)
api_call    ApiCallRunner: the approved HTTP request, retried where that is safe
"""

from tasks.runners.agent_task import AgentTaskRunner
from tasks.runners.api_call import ApiCallRunner
from tasks.runners.base import Deliverer, RunReport, TaskRunner
from tasks.runners.reminder import ReminderRunner
from tasks.runners.web_search import WebSearchRunner, format_hits

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

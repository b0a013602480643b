"""The built-in tools: tasks, monitors and the rest of issue 28 (quiet hours, the morning
briefing, acknowledgements), memory, web (search, fetch, API calls) and system.

Each group is a class whose decorated methods are the tools, bound to the services it is
constructed with; ``get_current_time`` is a plain function tool.
"""

from assistant.builtin.memory_tools import MemoryTools
from assistant.builtin.proactive_tools import ProactiveTools, Said
from assistant.builtin.sandbox import SandboxUnavailableError
from assistant.builtin.system import (
    CodeRun,
    CodeSandbox,
    SandboxLimits,
    SystemTools,
    get_current_time,
)
from assistant.builtin.task_tools import (
    SEARCH_NOT_CONFIGURED,
    RunSummary,
    TaskHistory,
    TaskListing,
    TaskReply,
    TaskSummary,
    TaskTools,
)
from assistant.builtin.web import (
    NOT_CONFIGURED,
    ApiResponse,
    WebSearchError,
    WebTools,
)
from common import html_to_text

__all__ = [
    "NOT_CONFIGURED",
    "SEARCH_NOT_CONFIGURED",
    "ApiResponse",
    "CodeRun",
    "CodeSandbox",
    "MemoryTools",
    "ProactiveTools",
    "RunSummary",
    "Said",
    "SandboxLimits",
    "SandboxUnavailableError",
    "SystemTools",
    "TaskHistory",
    "TaskListing",
    "TaskReply",
    "TaskSummary",
    "TaskTools",
    "WebSearchError",
    "WebTools",
    "get_current_time",
    "html_to_text",
]

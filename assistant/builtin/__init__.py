"""The built-in tools: tasks, memory, web (search, fetch, API calls) and system.

Each group is a class whose decorated methods are the tools, bound to the services it is
constructed with; ``get_current_time`` is a plain function tool.
"""

from assistant.builtin.memory_tools import MemoryTools
from assistant.builtin.netguard import (
    BlockedAddressError,
    FetchError,
    GuardedHttp,
    NetGuard,
)
from assistant.builtin.system import (
    CodeRun,
    CodeSandbox,
    SandboxLimits,
    SystemTools,
    get_current_time,
)
from assistant.builtin.task_tools import TaskTools
from assistant.builtin.web import NOT_CONFIGURED, WebSearchError, WebTools

__all__ = [
    "NOT_CONFIGURED",
    "BlockedAddressError",
    "CodeRun",
    "CodeSandbox",
    "FetchError",
    "GuardedHttp",
    "MemoryTools",
    "NetGuard",
    "SandboxLimits",
    "SystemTools",
    "TaskTools",
    "WebSearchError",
    "WebTools",
    "get_current_time",
]

"""The built-in tools: tasks, memory, web (search, fetch, API calls) and system.

Each group is a class whose decorated methods are the tools, bound to the services it is
constructed with; ``get_current_time`` is a plain function tool.
"""

from tools import redact_headers
from tools.builtin.memory_tools import MemoryTools
from tools.builtin.netguard import (
    BlockedAddressError,
    FetchError,
    GuardedTransport,
    NetGuard,
    install_log_redaction,
    redact_secrets,
    redact_url,
)
from tools.builtin.system import CodeRun, CodeSandbox, SandboxLimits, SystemTools, get_current_time
from tools.builtin.task_tools import TaskTools
from tools.builtin.web import NOT_CONFIGURED, WebSearchError, WebTools

__all__ = [
    "NOT_CONFIGURED",
    "BlockedAddressError",
    "CodeRun",
    "CodeSandbox",
    "FetchError",
    "GuardedTransport",
    "MemoryTools",
    "NetGuard",
    "SandboxLimits",
    "SystemTools",
    "TaskTools",
    "WebSearchError",
    "WebTools",
    "get_current_time",
    "install_log_redaction",
    "redact_headers",
    "redact_secrets",
    "redact_url",
]

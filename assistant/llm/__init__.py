"""LLM backends: an OpenAI-compatible HTTP client, a GGUF model in process, a scripted fake
for tests, and their interface. (The offline planner, a backend that needs no model, is
``assistant.planner``.)"""

from assistant.llm.base import (
    ChatMessage,
    LLMBackend,
    LLMResponse,
    Role,
    StreamEvent,
    SupportsContractFallback,
    SupportsTokenBudget,
    TextDelta,
    ToolMode,
    Usage,
    Waiting,
    stream_whole,
)
from assistant.llm.errors import (
    ContextTooSmallError,
    LLMAuthError,
    LLMConnectionError,
    LLMError,
    LLMModelError,
    LLMNotFoundError,
    LLMRateLimitError,
    LLMRequestError,
    LLMResponseError,
    LLMServerError,
    LLMTimeoutError,
    ToolsUnsupportedError,
)
from assistant.llm.local import LocalBackend
from assistant.llm.openai_compat import OpenAIBackend, parse_retry_after
from assistant.llm.probe import ToolSupport, ToolSupportCache
from assistant.llm.scripted import ScriptedBackend, ScriptedCall
from assistant.llm.templates import BUILTIN_TEMPLATES

__all__ = [
    "BUILTIN_TEMPLATES",
    "ChatMessage",
    "ContextTooSmallError",
    "LLMAuthError",
    "LLMBackend",
    "LLMConnectionError",
    "LLMError",
    "LLMModelError",
    "LLMNotFoundError",
    "LLMRateLimitError",
    "LLMRequestError",
    "LLMResponse",
    "LLMResponseError",
    "LLMServerError",
    "LLMTimeoutError",
    "LocalBackend",
    "OpenAIBackend",
    "Role",
    "ScriptedBackend",
    "ScriptedCall",
    "StreamEvent",
    "SupportsContractFallback",
    "SupportsTokenBudget",
    "TextDelta",
    "ToolMode",
    "ToolSupport",
    "ToolSupportCache",
    "ToolsUnsupportedError",
    "Usage",
    "Waiting",
    "parse_retry_after",
    "stream_whole",
]

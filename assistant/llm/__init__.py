"""LLM backends: an OpenAI-compatible HTTP client, a scripted fake for tests, and their
interface. (The offline planner, a backend that needs no model, is ``assistant.planner``.)"""

from assistant.llm.base import (
    ChatMessage,
    LLMBackend,
    LLMResponse,
    Role,
    StreamEvent,
    SupportsContractFallback,
    TextDelta,
    ToolMode,
    Usage,
    stream_whole,
)
from assistant.llm.errors import (
    LLMAuthError,
    LLMConnectionError,
    LLMError,
    LLMNotFoundError,
    LLMRateLimitError,
    LLMRequestError,
    LLMResponseError,
    LLMServerError,
    LLMTimeoutError,
    ToolsUnsupportedError,
)
from assistant.llm.openai_compat import OpenAIBackend, parse_retry_after
from assistant.llm.scripted import ScriptedBackend, ScriptedCall

__all__ = [
    "ChatMessage",
    "LLMAuthError",
    "LLMBackend",
    "LLMConnectionError",
    "LLMError",
    "LLMNotFoundError",
    "LLMRateLimitError",
    "LLMRequestError",
    "LLMResponse",
    "LLMResponseError",
    "LLMServerError",
    "LLMTimeoutError",
    "OpenAIBackend",
    "Role",
    "ScriptedBackend",
    "ScriptedCall",
    "StreamEvent",
    "SupportsContractFallback",
    "TextDelta",
    "ToolMode",
    "ToolsUnsupportedError",
    "Usage",
    "parse_retry_after",
    "stream_whole",
]

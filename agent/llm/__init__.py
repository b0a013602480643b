"""LLM backends: an OpenAI-compatible HTTP client, a GGUF model in process, a scripted fake
for tests, and their interface. (The offline planner, a backend that needs no model, is
``agent.planner``.)

The model backends are loaded when they are first named (``OpenAIBackend``,
``parse_retry_after``; ``LocalBackend``, ``MIN_CONTEXT_TOKENS``): the first brings httpx, the
second ctypes and llama.cpp's bindings, which a command answered by the offline planner never
uses (httpx alone was a sixth of ``assistant ask``'s start).
"""

import importlib
from typing import TYPE_CHECKING, Any

from agent.llm.base import (
    ChatMessage,
    LLMBackend,
    LLMResponse,
    Order,
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
from agent.llm.errors import (
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
from agent.llm.guard import MAX_REPEATS, ReplyGuard
from agent.llm.lazy import LazyModel, SupportsLoad
from agent.llm.probe import ToolSupport, ToolSupportCache
from agent.llm.queue import REQUESTER, ModelQueue, Ticket
from agent.llm.scripted import ScriptedBackend, ScriptedCall
from agent.llm.templates import BUILTIN_TEMPLATES, ChosenTemplate, choose_template
from agent.llm.wire import encode_tools

if TYPE_CHECKING:
    from agent.llm.local import MIN_CONTEXT_TOKENS, LocalBackend
    from agent.llm.openai_compat import OpenAIBackend, parse_retry_after

_LOADED_WHEN_NAMED = {
    "OpenAIBackend": "agent.llm.openai_compat",
    "parse_retry_after": "agent.llm.openai_compat",
    "LocalBackend": "agent.llm.local",
    "MIN_CONTEXT_TOKENS": "agent.llm.local",
}


def __getattr__(name: str) -> Any:
    """Load a model backend's module when one of its names is first asked for."""
    module = _LOADED_WHEN_NAMED.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


__all__ = [
    "BUILTIN_TEMPLATES",
    "MAX_REPEATS",
    "MIN_CONTEXT_TOKENS",
    "REQUESTER",
    "ChatMessage",
    "ChosenTemplate",
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
    "LazyModel",
    "LocalBackend",
    "ModelQueue",
    "OpenAIBackend",
    "Order",
    "ReplyGuard",
    "Role",
    "ScriptedBackend",
    "ScriptedCall",
    "StreamEvent",
    "SupportsContractFallback",
    "SupportsLoad",
    "SupportsTokenBudget",
    "TextDelta",
    "Ticket",
    "ToolMode",
    "ToolSupport",
    "ToolSupportCache",
    "ToolsUnsupportedError",
    "Usage",
    "Waiting",
    "choose_template",
    "encode_tools",
    "parse_retry_after",
    "stream_whole",
]

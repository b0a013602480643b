"""The assistant: composition root, DialogAgent loop, LLM backends, settings and CLI."""

from assistant.agent import AgentReply, DialogAgent
from assistant.config import ConfigError, Settings, load_settings
from assistant.events import AgentEvent, AgentEventKind
from assistant.replies import describe_request

__all__ = [
    "AgentEvent",
    "AgentEventKind",
    "AgentReply",
    "ConfigError",
    "DialogAgent",
    "Settings",
    "describe_request",
    "load_settings",
]

"""The assistant: composition root, DialogAgent loop, LLM backends, settings and CLI."""

from assistant.config import ConfigError, Settings, load_settings

__all__ = ["ConfigError", "Settings", "load_settings"]

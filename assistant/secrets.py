"""The values of ``${NAME}`` references: the environment, then ``.env``.

A scheduled request can say ``Authorization: Bearer ${HOME_API_TOKEN}`` instead of holding
the token: the database, the listings and the approval card keep the reference, and the
scheduler asks this source for the value each time it sends the request. The MCP servers'
configuration (``mcp.json``) names its secrets the same way. The assistant's own settings (its
LLM key, the bot token, ...) are never handed out, whatever a reference asks for.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from dotenv import dotenv_values

from assistant.config import setting_names
from tasks import TaskDataError

OWN_PREFIXES = ("ASSISTANT_", "TELEGRAM_")


class EnvironmentSecrets:
    """``tasks.SecretSource`` over a snapshot of the environment and a ``.env`` file.

    Args:
        environ: The environment (wins over the file, as it does for the settings).
        env_file: The ``.env`` file, read once here when it exists.
    """

    def __init__(self, environ: Mapping[str, str], env_file: Path | None = None) -> None:
        values: dict[str, str] = {}
        if env_file is not None and env_file.is_file():
            values.update((k, v) for k, v in dotenv_values(env_file).items() if v is not None)
        values.update(environ)
        self._values = values
        self._own = frozenset(setting_names())

    @classmethod
    def from_process(cls) -> EnvironmentSecrets:
        """The process's environment and the ``.env`` of the working directory."""
        return cls(os.environ, Path(".env"))

    def secret(self, name: str) -> str:
        """Return the value to send for ``${name}``.

        Raises:
            TaskDataError: when it is one of the assistant's own settings, or is not set.
        """
        if name in self._own or name.startswith(OWN_PREFIXES):
            raise TaskDataError(
                f"${{{name}}} is one of the assistant's own settings, which are never sent "
                "anywhere; keep that secret under a name of its own, e.g. HOME_API_TOKEN"
            )
        value = self._values.get(name, "")
        if not value:
            raise TaskDataError(
                f"${{{name}}} is not set: set {name} in the environment or in .env, then "
                "restart the assistant"
            )
        return value

"""llama-cpp-python's own OpenAI-compatible server, run as a child process on 127.0.0.1.

No one here wrote it: it is the real server a user would point the assistant at. Each model
it serves is a (file, alias, chat format) entry; it loads the one a request names.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Self

import httpx
import pytest

READY_WITHIN = 90.0


@dataclass(frozen=True, slots=True)
class ServedModel:
    """One model the server serves.

    Attributes:
        path: The GGUF file.
        alias: The name requests use.
        chat_format: llama-cpp-python's chat format, or ``None`` for the file's own template.
    """

    path: str
    alias: str
    chat_format: str | None = None


class LlamaServer:
    """``python -m llama_cpp.server`` on a free port, for a ``with`` block."""

    def __init__(self, models: list[ServedModel], *, context: int = 4096) -> None:
        self._models = models
        self._context = context
        self._folder = tempfile.TemporaryDirectory(prefix="llama-server-")
        self._process: subprocess.Popen[bytes] | None = None
        self._log: BinaryIO | None = None
        self.port = _free_port()

    @property
    def url(self) -> str:
        """The API root, ending in ``/v1``."""
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> Self:
        config = Path(self._folder.name) / "config.json"
        config.write_text(json.dumps(self._config()), encoding="utf-8")
        self._log = (Path(self._folder.name) / "server.log").open("wb")
        self._process = subprocess.Popen(
            [sys.executable, "-m", "llama_cpp.server", "--config_file", str(config)],
            stdout=self._log,
            stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        self._wait_until_ready()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.kill()
        if self._log is not None:
            self._log.close()
        self._folder.cleanup()

    def kill(self) -> None:
        """Kill the server at once (SIGKILL), as a crash would."""
        if self._process is not None and self._process.poll() is None:
            self._process.send_signal(signal.SIGKILL)
            self._process.wait(timeout=10)

    def _config(self) -> dict[str, object]:
        models = []
        for each in self._models:
            entry: dict[str, object] = {
                "model": each.path,
                "model_alias": each.alias,
                "n_ctx": self._context,
                "n_threads": os.cpu_count() or 1,
                "verbose": False,
            }
            if each.chat_format is not None:
                entry["chat_format"] = each.chat_format
            models.append(entry)
        return {"host": "127.0.0.1", "port": self.port, "models": models}

    def _wait_until_ready(self) -> None:
        deadline = time.monotonic() + READY_WITHIN
        assert self._process is not None
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                break
            try:
                if httpx.get(f"{self.url}/models", timeout=1.0).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.1)
        log = (Path(self._folder.name) / "server.log").read_text(errors="replace")
        self.kill()
        pytest.fail(f"llama_cpp.server did not start within {READY_WITHIN}s:\n{log[-3000:]}")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])

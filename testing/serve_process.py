"""Run the real ``assistant serve`` process, wait for its ``ready`` line, and kill it.

The process is started with its data directory and zone in the environment, its stdout read
until the line that starts with ``ready``, and its stderr kept in a log file so that a
failure can quote what the process said.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO

REPO_ROOT = Path(__file__).resolve().parents[1]

AT_A_TERMINAL = (
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
    "os.execv(sys.executable, [sys.executable, *sys.argv[1:]])"
)
"""``python -c AT_A_TERMINAL -m assistant.cli ...`` runs the command as at a terminal, where
Ctrl-C (SIGINT) reaches it: SIGINT at its default whatever this process inherited (a shell's
background job, as a check started with ``&`` is, starts with SIGINT ignored, and an ignored
signal stays ignored across exec: Python then never sees it)."""


class ServeError(RuntimeError):
    """The serve process did not start, or did not stop, as expected."""


def serve_command(sink: Path) -> list[str]:
    """Return the command line that runs ``assistant serve`` with this interpreter."""
    return [sys.executable, "-m", "assistant.cli", "serve", "--sink", str(sink)]


def serve_env(data_dir: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """Return the environment for a serve process: this one's, plus data dir and zone (UTC)."""
    env = dict(os.environ)
    env.update(
        {"ASSISTANT_DATA_DIR": str(data_dir), "ASSISTANT_TIMEZONE": "UTC", "PYTHONUNBUFFERED": "1"}
    )
    env.update(extra or {})
    return env


def start_until_ready(
    command: Sequence[str],
    *,
    env: Mapping[str, str],
    cwd: Path,
    stderr: int | IO[str],
    within: float = 60.0,
    umask: int = -1,
) -> subprocess.Popen[str]:
    """Start ``command``, a front end that prints a line starting with ``ready`` once it runs,
    and return it once it has (its stdout open for what it prints after; close it).

    Raises:
        ServeError: when it printed something else first, or nothing within ``within``
            seconds (it is then killed).
    """
    process = subprocess.Popen(
        command,
        env=env,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=stderr,
        text=True,
        umask=umask,
    )
    assert process.stdout is not None
    ready, _, _ = select.select([process.stdout], [], [], within)
    line = process.stdout.readline() if ready else ""
    if not line.startswith("ready"):
        process.kill()
        process.wait()
        process.stdout.close()
        raise ServeError(f"{' '.join(command[-3:])!r} did not start within {within:g} s: {line!r}")
    return process


class ServeProcess:
    """One run of the serve process; start it, then ``kill`` or ``terminate`` it.

    Args:
        command: The command line (``serve_command(sink)`` for the real one).
        env: Its environment (``serve_env(data_dir)``).
        log_path: Where its stderr and any further stdout go (appended).
    """

    def __init__(self, command: Sequence[str], *, env: Mapping[str, str], log_path: Path) -> None:
        self.command = list(command)
        self.env = dict(env)
        self.log_path = log_path
        self._proc: asyncio.subprocess.Process | None = None
        self._drain: asyncio.Task[None] | None = None
        self.startup_seconds: float | None = None

    @property
    def pid(self) -> int | None:
        """The process id while it runs."""
        return None if self._proc is None else self._proc.pid

    async def start(self, *, within: float) -> float:
        """Start the process and return the seconds until it printed ``ready``.

        Raises:
            ServeError: when it exits or stays silent for ``within`` seconds first.
        """
        began = time.monotonic()
        with self.log_path.open("ab") as log:
            self._proc = await asyncio.create_subprocess_exec(
                *self.command,
                cwd=REPO_ROOT,
                env=self.env,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=log,
            )
        try:
            await asyncio.wait_for(self._read_until_ready(), within)
        except TimeoutError:
            await self.kill()
            raise ServeError(
                f"{self._shown()} printed no 'ready' line within {within:g} s; "
                f"its log: {self.log_tail()!r}"
            ) from None
        self.startup_seconds = time.monotonic() - began
        stdout = self._running().stdout
        assert stdout is not None
        self._drain = asyncio.create_task(self._copy_stdout(stdout))
        return self.startup_seconds

    async def kill(self) -> None:
        """Send SIGKILL and wait for the process to be gone."""
        await self._stop(signal.SIGKILL, within=10.0)

    async def terminate(self, *, within: float) -> int:
        """Send SIGTERM (a clean stop) and return the exit code.

        Raises:
            ServeError: when it has not exited after ``within`` seconds (it is then killed).
        """
        code = await self._stop(signal.SIGTERM, within=within)
        if code is None:
            raise ServeError(f"{self._shown()} did not stop within {within:g} s of SIGTERM")
        return code

    def log_tail(self, chars: int = 2000) -> str:
        """Return the end of the process log."""
        try:
            return self.log_path.read_text(encoding="utf-8", errors="replace")[-chars:]
        except OSError:
            return ""

    async def _read_until_ready(self) -> None:
        proc = self._running()
        assert proc.stdout is not None
        while True:
            raw = await proc.stdout.readline()
            if not raw:
                code = await proc.wait()
                raise ServeError(
                    f"{self._shown()} exited with code {code} before printing 'ready'; "
                    f"its log: {self.log_tail()!r}"
                )
            self._append_log(raw)
            if raw.startswith(b"ready"):
                return

    async def _copy_stdout(self, stdout: asyncio.StreamReader) -> None:
        while raw := await stdout.readline():
            self._append_log(raw)

    async def _stop(self, signum: signal.Signals, *, within: float) -> int | None:
        proc, self._proc = self._proc, None
        if proc is None:
            return None
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                proc.send_signal(signum)
        try:
            code: int | None = await asyncio.wait_for(proc.wait(), within)
        except TimeoutError:
            proc.kill()
            await proc.wait()
            code = None
        if self._drain is not None:
            await self._drain
            self._drain = None
        return code

    def _running(self) -> asyncio.subprocess.Process:
        if self._proc is None:
            raise ServeError("the serve process is not running; call start() first")
        return self._proc

    def _append_log(self, raw: bytes) -> None:
        with self.log_path.open("ab") as log:
            log.write(raw)

    def _shown(self) -> str:
        return f"the serve process ({' '.join(self.command[-4:])!r})"

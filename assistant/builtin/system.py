"""System tools: the current time in the user's zone, and Python code run in a sandbox.

``CodeSandbox`` runs code in a separate ``python -I`` process: a fresh temporary working
directory, stdin closed, a scrubbed environment, output capped, a wall-clock timeout that kills
the whole process group, and kernel resource limits (CPU seconds, address space, file size,
number of processes). When the assistant runs as root the code runs as an unprivileged user
(``nobody`` by default), because the kernel does not enforce the process limit for root.

What it does not do: it is not a container. The code can read every file that user can read,
open network connections, and use CPU and memory up to the limits. Approval is what keeps
untrusted code out; the limits keep mistakes from hurting the machine.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import pwd
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from tools import ToolContext, ToolError, tool

MARKER_VAR = "ASSISTANT_SANDBOX_RUN"
MAX_CODE_TIMEOUT = 60.0

# Runs inside the sandbox user's interpreter: set the limits, then become the user's program.
_LAUNCHER = """\
import os, resource, sys
cpu, mem, fsize, nproc = (int(v) for v in sys.argv[1:5])
for kind, soft, hard in (
    (resource.RLIMIT_CPU, cpu, cpu + 1),
    (resource.RLIMIT_AS, mem, mem),
    (resource.RLIMIT_FSIZE, fsize, fsize),
    (resource.RLIMIT_NPROC, nproc, nproc),
    (resource.RLIMIT_CORE, 0, 0),
):
    resource.setrlimit(kind, (soft, hard))
os.execv(sys.executable, [sys.executable, "-I", "-X", "utf8", sys.argv[5]])
"""


@dataclass(frozen=True, slots=True)
class SandboxLimits:
    """Resource limits of one sandboxed run.

    Attributes:
        memory_bytes: Address-space limit per process (RLIMIT_AS).
        file_bytes: Largest file a process may write (RLIMIT_FSIZE).
        processes: Processes the run may add for its user beyond those already running
            (RLIMIT_NPROC counts per user, so this is added to the current count).
        output_bytes: How much of stdout and of stderr is kept.
    """

    memory_bytes: int = 512 * 1024 * 1024
    file_bytes: int = 16 * 1024 * 1024
    processes: int = 16
    output_bytes: int = 16_000


@dataclass(frozen=True, slots=True)
class CodeRun:
    """What one sandboxed run produced.

    Attributes:
        exit_code: The exit status, negative for a signal, ``None`` if never collected.
        stdout: Standard output, cut at the cap.
        stderr: Standard error, cut at the cap.
        timed_out: Whether the wall-clock timeout ended the run.
        truncated: Whether output was cut.
        duration: Wall-clock seconds.
        limit: Which limit ended the run, in words, or ``None``.
    """

    exit_code: int | None
    stdout: str
    stderr: str
    timed_out: bool
    truncated: bool
    duration: float
    limit: str | None = None

    def render(self) -> str:
        """Render the run as plain text for the model and the user."""
        if self.timed_out:
            head = f"stopped: the code ran longer than its timeout ({self.duration:.1f} s)"
        elif self.limit is not None:
            head = f"stopped by the {self.limit} (exit code {self.exit_code})"
        else:
            head = f"exit code {self.exit_code} after {self.duration:.2f} s"
        parts = [head]
        if self.stdout:
            parts.append("stdout:\n" + self.stdout)
        if self.stderr:
            parts.append("stderr:\n" + self.stderr)
        if self.truncated:
            parts.append("(output was cut at the size limit)")
        return "\n".join(parts)


_SIGNAL_LIMITS = {
    -signal.SIGXCPU: "CPU time limit",
    -signal.SIGXFSZ: "file size limit",
}


def _limit_hit(exit_code: int, stderr: str) -> str | None:
    if exit_code in _SIGNAL_LIMITS:
        return _SIGNAL_LIMITS[exit_code]
    last = stderr.rstrip().rsplit("\n", 1)[-1]
    if last.startswith("MemoryError"):
        return "memory limit"
    if "BlockingIOError: [Errno 11]" in last:
        return "process limit"
    if "[Errno 27] File too large" in last:
        return "file size limit"
    return None


def _process_files(name: str) -> Iterator[tuple[int, bytes]]:
    """Yield ``(pid, /proc/PID/name)`` of every process whose file could be read (a process
    may end, or hide the file, while the list is read)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            content = (entry / name).read_bytes()
        except OSError:
            continue
        yield int(entry.name), content


def count_tasks(uid: int) -> int:
    """Count the tasks (processes and threads) whose real uid is ``uid``: RLIMIT_NPROC's count."""
    count = 0
    for _, status in _process_files("status"):
        lines = status.decode(errors="replace").splitlines()
        fields = dict(line.split(":", 1) for line in lines if ":" in line)
        if fields.get("Uid", "").split()[:1] == [str(uid)]:
            count += int(fields.get("Threads", "1").strip() or 1)
    return count


def _sweep(marker: bytes) -> int:
    """SIGKILL every process whose environment carries ``marker``; return how many."""
    killed = 0
    for pid, environ in _process_files("environ"):
        if marker in environ.split(b"\0"):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
                killed += 1
    return killed


class CodeSandbox:
    """Runs Python code in a limited, isolated subprocess.

    Args:
        python: The interpreter to use; by default the first of this process's interpreter
            and the system ``python3`` that the sandbox user can run.
        run_as: The user to run code as when this process is root (ignored otherwise).
        limits: Resource limits of each run.
    """

    def __init__(
        self,
        *,
        python: str | None = None,
        run_as: str = "nobody",
        limits: SandboxLimits | None = None,
    ) -> None:
        self._python = python
        self._limits = limits or SandboxLimits()
        self._user = pwd.getpwnam(run_as) if os.geteuid() == 0 else None
        self._checked_python: str | None = None

    @property
    def runs_as(self) -> str:
        """The name of the user code runs as."""
        return (self._user or pwd.getpwuid(os.geteuid())).pw_name

    @property
    def uid(self) -> int:
        """The user id code runs as."""
        return self._user.pw_uid if self._user is not None else os.getuid()

    async def run(self, code: str, *, seconds: float) -> CodeRun:
        """Run ``code`` and return what it printed, stopping it after ``seconds``.

        Raises:
            ToolError: when ``seconds`` is out of range or no usable interpreter exists.
        """
        if not 0 < seconds <= MAX_CODE_TIMEOUT:
            raise ToolError(
                f"timeout {seconds!r} is out of range; use a number of seconds from 1 to "
                f"{MAX_CODE_TIMEOUT:g}"
            )
        python = await self._interpreter()
        workdir = Path(tempfile.mkdtemp(prefix="assistant-code-"))
        try:
            (workdir / "main.py").write_text(code, encoding="utf-8")
            if self._user is not None:
                for path in (workdir, workdir / "main.py"):
                    os.chown(path, self._user.pw_uid, self._user.pw_gid)
            return await self._execute(python, workdir, seconds)
        finally:
            shutil.rmtree(workdir, ignore_errors=True)

    async def _execute(self, python: str, workdir: Path, seconds: float) -> CodeRun:
        marker = secrets.token_hex(8)
        argv = [python, "-I", "-S", "-c", _LAUNCHER, *self._limit_args(seconds), "main.py"]
        loop = asyncio.get_running_loop()
        started = time.monotonic()
        transport, output = await loop.subprocess_exec(
            lambda: _Output(loop, self._limits.output_bytes),
            *argv,
            cwd=workdir,
            env=self._environment(workdir, marker),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            **self._identity(),
        )
        timed_out = False
        try:
            async with asyncio.timeout(seconds):
                await output.exited
        except TimeoutError:
            timed_out = True
        finally:
            await _kill_all(transport.get_pid(), f"{MARKER_VAR}={marker}".encode())
            # Pipes close once every process holding them is gone; a stray cannot stall us.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(2.0):
                    await output.closed
            transport.close()
        exit_code = transport.get_returncode()
        stderr = output.text(2)
        return CodeRun(
            exit_code=exit_code,
            stdout=output.text(1),
            stderr=stderr,
            timed_out=timed_out,
            truncated=output.truncated,
            duration=time.monotonic() - started,
            limit=None if timed_out or exit_code is None else _limit_hit(exit_code, stderr),
        )

    def _limit_args(self, seconds: float) -> list[str]:
        nproc = count_tasks(self.uid) + self._limits.processes
        cpu = int(seconds) + 1
        limits = (cpu, self._limits.memory_bytes, self._limits.file_bytes, nproc)
        return [str(v) for v in limits]

    def _environment(self, workdir: Path, marker: str) -> dict[str, str]:
        return {
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "HOME": str(workdir),
            "TMPDIR": str(workdir),
            "LANG": "C.UTF-8",
            MARKER_VAR: marker,
        }

    def _identity(self) -> dict[str, Any]:
        if self._user is None:
            return {}
        return {"user": self._user.pw_uid, "group": self._user.pw_gid, "extra_groups": []}

    async def _interpreter(self) -> str:
        if self._checked_python is not None:
            return self._checked_python
        candidates = [self._python] if self._python else [sys.executable, "/usr/bin/python3"]
        for candidate in dict.fromkeys(c for c in candidates if c):
            if await self._usable(candidate):
                self._checked_python = candidate
                return candidate
        raise ToolError(
            f"execute_code cannot run: none of {candidates!r} can be run by the sandbox user "
            f"{self.runs_as!r}; install python3 where that user can execute it"
        )

    async def _usable(self, python: str) -> bool:
        try:
            probe = await asyncio.create_subprocess_exec(
                python,
                "-I",
                "-c",
                "import resource, json",
                cwd="/",
                env={"PATH": "/usr/bin:/bin"},
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.DEVNULL,
                **self._identity(),
            )
        except OSError:
            return False
        try:
            async with asyncio.timeout(10):
                return await probe.wait() == 0
        except TimeoutError:
            probe.kill()
            await probe.wait()
            return False


class _Output(asyncio.SubprocessProtocol):
    """Collects stdout and stderr up to a cap and reports exit and pipe closing."""

    def __init__(self, loop: asyncio.AbstractEventLoop, cap: int) -> None:
        self.exited: asyncio.Future[None] = loop.create_future()
        self.closed: asyncio.Future[None] = loop.create_future()
        self.truncated = False
        self._cap = cap
        self._buffers = {1: bytearray(), 2: bytearray()}

    def pipe_data_received(self, fd: int, data: bytes | str) -> None:
        raw = data.encode() if isinstance(data, str) else data
        buffer = self._buffers[fd]
        room = self._cap - len(buffer)
        if len(raw) > room:
            self.truncated = True
        buffer += raw[: max(room, 0)]

    def process_exited(self) -> None:
        if not self.exited.done():
            self.exited.set_result(None)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.closed.done():
            self.closed.set_result(None)

    def text(self, fd: int) -> str:
        """Return what arrived on ``fd`` (1 or 2), decoded."""
        return self._buffers[fd].decode("utf-8", errors="replace")


async def _kill_all(pgid: int, marker: bytes) -> None:
    """Kill the run's process group, then anything else that still carries its marker."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)
    for _ in range(50):
        if await asyncio.to_thread(_sweep, marker) == 0:
            return
        await asyncio.sleep(0.01)


def _zone(ctx: ToolContext, tz: str | None) -> ZoneInfo:
    if tz is None or not tz.strip():
        return ctx.timezone
    try:
        return ZoneInfo(tz.strip())
    except (ZoneInfoNotFoundError, ValueError):
        raise ToolError(
            f"unknown time zone {tz!r}; use an IANA name such as 'Europe/Berlin' or "
            f"'America/New_York' (your zone is {ctx.timezone.key!r})"
        ) from None


@tool(llm_format="{weekday} {date} {time} ({timezone}, UTC{utc_offset})")
def get_current_time(ctx: ToolContext, tz: str | None = None) -> dict[str, str]:
    """Return the current date and time.

    Args:
        tz: IANA time zone name such as 'Asia/Tokyo'; defaults to the user's zone.
    """
    zone = _zone(ctx, tz)
    now = ctx.now.astimezone(zone)
    offset = now.strftime("%z")
    return {
        "iso": now.isoformat(timespec="seconds"),
        "date": now.strftime("%Y-%m-%d"),
        "time": now.strftime("%H:%M:%S"),
        "weekday": now.strftime("%A"),
        "timezone": zone.key,
        "utc_offset": f"{offset[:3]}:{offset[3:]}",
    }


class SystemTools:
    """The sandboxed code tool.

    Args:
        sandbox: Where ``execute_code`` runs code; a default ``CodeSandbox`` if omitted.
    """

    def __init__(self, *, sandbox: CodeSandbox | None = None) -> None:
        self._sandbox = sandbox or CodeSandbox()

    @tool(
        requires_approval=True,
        risk_level="high",
        timeout=MAX_CODE_TIMEOUT + 15,
        llm_format=CodeRun.render,
    )
    async def execute_code(self, code: str, timeout: float = 10) -> CodeRun:  # noqa: ASYNC109
        """Run Python code in a sandboxed subprocess and return what it printed.

        The code runs in a fresh temporary directory with no input, limited CPU time,
        memory, file size and processes; print what you want to see.

        Args:
            code: The Python source to run.
            timeout: Seconds before the run is stopped (1 to 60).
        """
        return await self._sandbox.run(code, seconds=timeout)

"""Python code run in a bubblewrap sandbox that no process outlives and no run can see out of.

``CodeSandbox`` runs each piece of code in a sandbox of its own, made by bubblewrap (``bwrap``):

- a PID namespace whose init is the run: when the code's first process exits, or the run is
  stopped (timeout, cancellation), the kernel kills every process in the namespace, however it
  detached (double fork, ``setsid()``, an empty environment), and ``run`` returns only after
  the last one is gone; should the assistant itself die, ``--die-with-parent`` does the same;
- a mount namespace holding only the system directories, read-only (``/usr`` and the ``/bin``,
  ``/lib``... links), a fresh ``/proc`` and ``/dev``, and two private, size-limited tmpfs
  mounts, the only writable places: ``/tmp``, the working directory, and ``/dev/shm``; they
  vanish with the run. No other path of the host exists inside: not the home directories, not
  the data directory (database, ``.env``, custom tools), not another run's files;
- its own user, network (no network, only a loopback of its own), IPC, UTS and cgroup
  namespaces; the code cannot create further user namespaces;
- kernel limits: CPU seconds and address space per process, file size, and processes (since
  Linux 5.14 the kernel counts the process limit per user namespace, so per run).

bwrap needs unprivileged user namespaces (the default on Debian, Ubuntu and Fedora). When the
assistant runs as root, bwrap runs as an unprivileged user (``nobody`` by default), so the code
is nobody on the host and the process limit applies to it. Where bwrap is missing or cannot
create namespaces, code is refused with ``SandboxUnavailableError``, which says what to install
or enable: there is no weaker mode.

What it does not do: memory is limited per process, not per run (``processes + 1`` processes of
``memory_bytes`` each); there is no seccomp filter, so the code reaches the kernel's whole
system-call interface; ``/proc`` shows host-wide figures (memory, CPUs, load, uptime).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import pwd
import shutil
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tools import ToolError

MAX_CODE_TIMEOUT = 60.0
INTERPRETERS = ("/usr/bin/python3", "/usr/local/bin/python3")
WORKDIR = "/tmp"
MAIN = f"{WORKDIR}/main.py"
_HOST_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
_SYSTEM_LINKS = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")

# Runs inside the sandbox: set the limits, then become the user's program. Setting
# RLIMIT_NPROC here, inside the run's user namespace, makes the kernel count only this run.
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


class SandboxUnavailableError(ToolError):
    """No sandbox can be made here: bubblewrap is missing, namespaces are refused, or no
    interpreter runs inside. The message says what to install or enable."""


@dataclass(frozen=True, slots=True)
class SandboxLimits:
    """Resource limits of one sandboxed run.

    Attributes:
        memory_bytes: Address-space limit per process (RLIMIT_AS).
        file_bytes: Largest file a process may write (RLIMIT_FSIZE).
        disk_bytes: Size of each of the two places the run can write, its private ``/tmp``
            and ``/dev/shm`` (both in memory).
        processes: Processes the code may start besides its first one (RLIMIT_NPROC).
        output_bytes: How much of stdout and of stderr is kept.
    """

    memory_bytes: int = 512 * 1024 * 1024
    file_bytes: int = 16 * 1024 * 1024
    disk_bytes: int = 64 * 1024 * 1024
    processes: int = 16
    output_bytes: int = 16_000


@dataclass(frozen=True, slots=True)
class CodeRun:
    """What one sandboxed run produced.

    Attributes:
        exit_code: The exit status; ``-N`` when signal N ended the code (bubblewrap reports
            that as ``128 + N``, so code that exits with 129 to 192 itself reads the same).
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
    if "[Errno 28] No space left on device" in last:
        return "disk limit"
    return None


def _exit_code(returncode: int | None) -> int | None:
    """Turn bubblewrap's ``128 + N`` for "signal N ended the code" back into ``-N``."""
    if returncode is not None and 128 < returncode < 128 + signal.NSIG:
        return 128 - returncode
    return returncode


def _bwrap_error(stderr: str) -> str | None:
    """Return bubblewrap's own complaint (``bwrap: ...``), if it made one."""
    for line in stderr.splitlines():
        if line.startswith("bwrap: "):
            return line.removeprefix("bwrap: ")
    return None


def _system_mounts() -> list[str]:
    """The read-only system directories: ``/usr``, and ``/bin``, ``/lib``... as on the host."""
    options = ["--ro-bind", "/usr", "/usr"]
    for name in _SYSTEM_LINKS:
        path = Path("/", name)
        if path.is_symlink():
            options += ["--symlink", str(path.readlink()), str(path)]
        elif path.is_dir():
            options += ["--ro-bind", str(path), str(path)]
    return options


class CodeSandbox:
    """Runs Python code in a bubblewrap sandbox of its own, with resource limits.

    Args:
        python: The interpreter to run, a path inside the sandbox (under ``/usr``); by default
            the first of ``/usr/bin/python3`` and ``/usr/local/bin/python3`` that works.
        bwrap: The bubblewrap executable, a name looked up on ``PATH`` or a path.
        run_as: The user bubblewrap runs as when this process is root (ignored otherwise).
        limits: Resource limits of each run.
    """

    def __init__(
        self,
        *,
        python: str | None = None,
        bwrap: str = "bwrap",
        run_as: str = "nobody",
        limits: SandboxLimits | None = None,
    ) -> None:
        self._pythons = (python,) if python else INTERPRETERS
        self._bwrap = bwrap
        self._limits = limits or SandboxLimits()
        self._user = pwd.getpwnam(run_as) if os.geteuid() == 0 else None
        self._mounts = _system_mounts()
        self._checked: tuple[str, str] | None = None

    async def check(self) -> None:
        """Make sure code can run here (the first run does this too).

        Raises:
            SandboxUnavailableError: saying what is missing and what to install or enable.
        """
        await self._ready()

    async def run(
        self,
        code: str,
        *,
        seconds: float,
        on_stdout: Callable[[bytes], object] | None = None,
    ) -> CodeRun:
        """Run ``code`` and return what it printed, stopping it after ``seconds``.

        Returns only once every process the code started is gone, however the run ended.

        Args:
            code: The Python source.
            seconds: Wall-clock limit, from 1 to 60.
            on_stdout: Called with each piece of standard output as it arrives (within the cap).

        Raises:
            ToolError: when ``seconds`` is out of range.
            SandboxUnavailableError: when no sandbox can be made here.
        """
        if not 0 < seconds <= MAX_CODE_TIMEOUT:
            raise ToolError(
                f"timeout {seconds!r} is out of range; use a number of seconds from 1 to "
                f"{MAX_CODE_TIMEOUT:g}"
            )
        bwrap, python = await self._ready()
        return await self._execute(bwrap, python, code, seconds, on_stdout)

    async def _ready(self) -> tuple[str, str]:
        if self._checked is None:
            self._checked = await self._probe()
        return self._checked

    async def _probe(self) -> tuple[str, str]:
        bwrap = shutil.which(self._bwrap)
        if bwrap is None:
            raise SandboxUnavailableError(
                f"execute_code needs bubblewrap, and {self._bwrap!r} is not installed; install "
                "it (Debian, Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)"
            )
        for python in self._pythons:
            run = await self._execute(bwrap, python, "import json, resource", 10, None)
            if run.exit_code == 0:
                return bwrap, python
            problem = _bwrap_error(run.stderr)
            if problem is not None and not problem.startswith("execvp"):
                raise SandboxUnavailableError(
                    f"execute_code cannot create a sandbox here: {problem} (bubblewrap "
                    f"{bwrap!r} running as {self._runs_as!r} needs unprivileged user "
                    "namespaces: sysctl user.max_user_namespaces above 0, "
                    "kernel.unprivileged_userns_clone=1 where that exists, and on Ubuntu "
                    "AppArmor's bwrap profile)"
                )
        raise SandboxUnavailableError(
            f"execute_code cannot run: none of {list(self._pythons)!r} runs in the sandbox; "
            "install python3 under /usr (the sandbox sees only the system directories)"
        )

    @property
    def _runs_as(self) -> str:
        return (self._user or pwd.getpwuid(os.geteuid())).pw_name

    async def _execute(
        self,
        bwrap: str,
        python: str,
        code: str,
        seconds: float,
        on_stdout: Callable[[bytes], object] | None,
    ) -> CodeRun:
        output = _Output(self._limits.output_bytes, on_stdout)
        command = [python, "-I", "-S", "-c", _LAUNCHER, *self._limit_args(seconds), MAIN]
        started = time.monotonic()
        try:
            sandbox = await _Sandbox.start(
                [bwrap, *self._options()], command, code=code, output=output, **self._identity()
            )
        except OSError as exc:
            raise SandboxUnavailableError(
                f"execute_code cannot start bubblewrap {bwrap!r} as {self._runs_as!r}: "
                f"{exc.strerror}; install it where that user can run it"
            ) from None
        timed_out = False
        try:
            async with asyncio.timeout(seconds):
                await output.exited.wait()
        except TimeoutError:
            timed_out = True
        finally:
            await sandbox.stop()
        exit_code = _exit_code(sandbox.returncode)
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

    def _options(self) -> list[str]:
        limits = self._limits
        return [
            "--unshare-all", "--unshare-user", "--disable-userns",
            "--die-with-parent", "--new-session", "--hostname", "sandbox",
            *self._mounts,
            "--proc", "/proc",
            "--dev", "/dev",
            "--size", str(limits.disk_bytes), "--tmpfs", "/dev/shm",
            "--size", str(limits.disk_bytes), "--perms", "0700", "--tmpfs", WORKDIR,
            # Only /tmp and /dev/shm stay writable (bwrap's root and /dev are tmpfs too).
            "--remount-ro", "/dev",
            "--remount-ro", "/",
            "--chdir", WORKDIR,
            "--clearenv",
            "--setenv", "PATH", "/usr/local/bin:/usr/bin:/bin",
            "--setenv", "HOME", WORKDIR,
            "--setenv", "TMPDIR", WORKDIR,
            "--setenv", "LANG", "C.UTF-8",
        ]  # fmt: skip

    def _limit_args(self, seconds: float) -> list[str]:
        cpu = int(seconds) + 1
        # The count includes the sandbox's init and the code's first process.
        nproc = self._limits.processes + 2
        limits = (cpu, self._limits.memory_bytes, self._limits.file_bytes, nproc)
        return [str(v) for v in limits]

    def _identity(self) -> dict[str, Any]:
        if self._user is None:
            return {}
        return {"user": self._user.pw_uid, "group": self._user.pw_gid, "extra_groups": []}


class _Sandbox:
    """One bubblewrap process and the PID namespace it made.

    bwrap forks the namespace's init, reports the init's host pid on ``--info-fd`` and waits for
    it. The kernel lets the init's exit complete only once every other process in its namespace
    is gone, so bwrap's own exit means the run left nothing behind.
    """

    def __init__(
        self, transport: asyncio.SubprocessTransport, output: _Output, info: asyncio.Task[bytes]
    ) -> None:
        self._transport = transport
        self._output = output
        self._info = info

    @classmethod
    async def start(
        cls, bwrap: list[str], command: list[str], *, code: str, output: _Output, **identity: Any
    ) -> _Sandbox:
        """Start bwrap with ``code`` as ``MAIN`` and ``command`` as the namespace's program."""
        code_fd = _memory_file(code)
        info_read, info_write = os.pipe()
        info = _read_to_end(info_read)
        argv = [*bwrap, "--file", str(code_fd), MAIN, "--info-fd", str(info_write), "--", *command]
        spawning = asyncio.ensure_future(_spawn(argv, output, (code_fd, info_write), identity))
        try:
            transport = await asyncio.shield(spawning)
        except asyncio.CancelledError:
            # Cancelled while bwrap starts: let it start, then stop it like any other run.
            with contextlib.suppress(OSError):
                await cls(await spawning, output, info).stop()
            await info
            raise
        except OSError:
            await info  # ends at once: nothing else holds the pipe
            raise
        return cls(transport, output, info)

    @property
    def returncode(self) -> int | None:
        """bwrap's exit status: the code's, or ``128 + N`` for a signal N."""
        return self._transport.get_returncode()

    async def stop(self) -> None:
        """Kill every process of the sandbox; return once the last one and its pipes are gone."""
        if not self._output.exited.is_set():
            init = _init_pid(await self._info)
            if init is None:  # bwrap failed before it made the namespace
                with contextlib.suppress(ProcessLookupError):
                    self._transport.kill()
            else:
                _kill_init(init, parent=self._transport.get_pid())
        await self._output.exited.wait()
        await self._output.closed.wait()
        await self._info
        self._transport.close()


async def _spawn(
    argv: list[str], output: _Output, fds: tuple[int, ...], identity: dict[str, Any]
) -> asyncio.SubprocessTransport:
    """Start ``argv`` with ``fds`` passed on, then close this process's copies of them."""
    loop = asyncio.get_running_loop()
    try:
        transport, _ = await loop.subprocess_exec(
            lambda: output,
            *argv,
            pass_fds=fds,
            cwd="/",
            env={"PATH": _HOST_PATH},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            **identity,
        )
    finally:
        for fd in fds:
            os.close(fd)
    return transport


def _memory_file(text: str) -> int:
    """Return the descriptor of an in-memory file holding ``text``, read from its start."""
    fd = os.memfd_create("main.py")
    data = text.encode("utf-8")
    while data:
        data = data[os.write(fd, data) :]
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _read_to_end(fd: int) -> asyncio.Task[bytes]:
    """Read the pipe ``fd`` until its end, in the background; the task owns and closes ``fd``."""

    async def read() -> bytes:
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader()
        transport, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(fd, "rb", buffering=0)
        )
        try:
            return await reader.read()
        finally:
            transport.close()

    return asyncio.ensure_future(read())


def _init_pid(info: bytes) -> int | None:
    """The host pid of the namespace's init from bwrap's ``--info-fd`` report, if it made one."""
    if not info:
        return None
    pid = json.loads(info)["child-pid"]
    return int(pid)


def _kill_init(pid: int, *, parent: int) -> None:
    """SIGKILL the sandbox's init; the kernel then kills every process in its PID namespace."""
    with contextlib.suppress(ProcessLookupError, FileNotFoundError):
        handle = os.pidfd_open(pid)
        try:
            # Until bwrap reaps it, ``pid`` is bwrap's child; after that it may be anyone's.
            if _parent_of(pid) == parent:
                signal.pidfd_send_signal(handle, signal.SIGKILL)
        finally:
            os.close(handle)


def _parent_of(pid: int) -> int:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat.rsplit(")", 1)[1].split()[1])


class _Output(asyncio.SubprocessProtocol):
    """Collects stdout and stderr up to a cap and reports exit and pipe closing."""

    def __init__(self, cap: int, on_stdout: Callable[[bytes], object] | None) -> None:
        self.exited = asyncio.Event()
        self.closed = asyncio.Event()
        self.truncated = False
        self._cap = cap
        self._on_stdout = on_stdout
        self._buffers = {1: bytearray(), 2: bytearray()}

    def pipe_data_received(self, fd: int, data: bytes | str) -> None:
        raw = data.encode() if isinstance(data, str) else data
        buffer = self._buffers[fd]
        room = self._cap - len(buffer)
        if len(raw) > room:
            self.truncated = True
        kept = raw[: max(room, 0)]
        buffer += kept
        if fd == 1 and kept and self._on_stdout is not None:
            self._on_stdout(kept)

    def process_exited(self) -> None:
        self.exited.set()

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed.set()

    def text(self, fd: int) -> str:
        """Return what arrived on ``fd`` (1 or 2), decoded."""
        return self._buffers[fd].decode("utf-8", errors="replace")

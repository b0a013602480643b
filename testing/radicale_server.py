"""A real CalDAV server for tests and benchmarks: Radicale (the ``radicale`` package of the dev
group) in a process of its own on 127.0.0.1, with its storage in a folder of the caller's and
users from a plain htpasswd file.

``radicale_server(folder)`` starts it on a free port, waits until it answers, and stops it on
exit. ``RadicaleServer.calendar_url(user, name)`` is a calendar collection's address, and
``make_calendar`` makes the collection (MKCALENDAR), as a calendar app does.
"""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import httpx

_READY_TIMEOUT = 30.0


class RadicaleError(RuntimeError):
    """Radicale would not start; the message holds its log's end."""


@dataclass(frozen=True, slots=True)
class RadicaleServer:
    """A running Radicale server."""

    process: subprocess.Popen[bytes]
    port: int
    log: Path

    @property
    def url(self) -> str:
        """The server's root."""
        return f"http://127.0.0.1:{self.port}/"

    def calendar_url(self, user: str, name: str) -> str:
        """The address of ``user``'s calendar collection ``name``."""
        return f"{self.url}{user}/{name}/"


@contextlib.contextmanager
def radicale_server(folder: Path, users: Mapping[str, str]) -> Iterator[RadicaleServer]:
    """Run Radicale with its storage under ``folder`` and ``users`` (name: password)."""
    folder.mkdir(parents=True, exist_ok=True)
    htpasswd = folder / "users"
    htpasswd.write_text("".join(f"{name}:{secret}\n" for name, secret in users.items()))
    log = folder / "radicale.log"
    port = _free_port()
    command = [
        sys.executable, "-m", "radicale",
        "--server-hosts", f"127.0.0.1:{port}",
        "--storage-filesystem-folder", str(folder / "storage"),
        "--auth-type", "htpasswd",
        "--auth-htpasswd-filename", str(htpasswd),
        "--auth-htpasswd-encryption", "plain",
        "--rights-type", "owner_only",
        "--logging-level", "warning",
    ]  # fmt: skip
    with log.open("wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
    server = RadicaleServer(process=process, port=port, log=log)
    try:
        _wait_ready(server)
        yield server
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _wait_ready(server: RadicaleServer) -> None:
    deadline = time.monotonic() + _READY_TIMEOUT
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise RadicaleError(
                f"Radicale exited with {server.process.returncode}: {_tail(server.log)!r}"
            )
        with contextlib.suppress(httpx.HTTPError):
            httpx.options(server.url, timeout=1.0)
            return
        time.sleep(0.02)
    raise RadicaleError(
        f"Radicale was not ready within {_READY_TIMEOUT:g} s: {_tail(server.log)!r}"
    )


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _tail(log: Path, chars: int = 1500) -> str:
    try:
        return log.read_text(encoding="utf-8", errors="replace")[-chars:]
    except OSError:
        return ""


async def make_calendar(url: str, user: str, password: str) -> None:
    """Make the calendar collection at ``url`` (``RadicaleServer.calendar_url``).

    Raises:
        RadicaleError: when the server does not make it.
    """
    async with httpx.AsyncClient(auth=(user, password)) as http:
        made = await http.request("MKCALENDAR", url)
    if made.status_code != 201:
        raise RadicaleError(f"MKCALENDAR {url} answered {made.status_code}: {made.text[:200]}")

"""The process's stdin and stdout as ``assistant mcp``'s wire, claimed before anything else
runs and read and written so that a signal stops the server at once.

Claimed first: descriptor 1 points at stderr and descriptor 0 at the null device from before
the application is built, so nothing a library or a custom tool prints (even as it is
imported) reaches the client, and no child process reads the protocol; the protocol goes
through private duplicates of the two.

Read and written by daemon threads: the SDK's stdio transport reads stdin in a worker
thread that no cancellation reaches, so Ctrl-C left the server waiting for one more line or
for the end of its input. Here waiting for a line, or for a write to be done, is an ordinary
await, cancelled like any other; a thread blocked on a read (or on a write to a client that
stopped reading) that nobody waits for any more ends with the process. The threads use
``os.read`` and ``os.write`` on the raw descriptors, so no Python-level lock is held at exit.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import queue
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Self

_AHEAD = 16
"""Lines read ahead of the server at most: a client that floods is held at its pipe."""


class StdinLines:
    """The lines of a descriptor, as an async iterator (the SDK's transport reads these)."""

    def __init__(self, fd: int, loop: asyncio.AbstractEventLoop) -> None:
        self._fd = fd
        self._loop = loop
        self._lines: asyncio.Queue[str | None] = asyncio.Queue()
        self._room = threading.Semaphore(_AHEAD)
        self._thread = threading.Thread(target=self._read, name="mcp-stdin", daemon=True)

    def start(self) -> None:
        """Start reading."""
        self._thread.start()

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> str:
        line = await self._lines.get()
        self._room.release()
        if line is None:
            raise StopAsyncIteration
        return line

    def _read(self) -> None:
        pending = b""
        while True:
            try:
                chunk = os.read(self._fd, 65536)
            except OSError:
                chunk = b""
            if not chunk:
                break
            *lines, pending = (pending + chunk).split(b"\n")
            for line in lines:
                if not self._hand_over(line.decode("utf-8", errors="replace") + "\n"):
                    return
        if pending:
            self._hand_over(pending.decode("utf-8", errors="replace"))
        self._hand_over(None)

    def _hand_over(self, line: str | None) -> bool:
        self._room.acquire()
        try:
            self._loop.call_soon_threadsafe(self._lines.put_nowait, line)
        except RuntimeError:  # the loop is closed: nobody reads any more
            return False
        return True


class StdoutWire:
    """Text written to a descriptor by a thread of its own (what the SDK's transport writes
    to: ``write`` then ``flush``, which returns once everything before it is written)."""

    def __init__(self, fd: int, loop: asyncio.AbstractEventLoop) -> None:
        self._fd = fd
        self._loop = loop
        self._queue: queue.SimpleQueue[bytes | asyncio.Future[None]] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._write, name="mcp-stdout", daemon=True)
        self._broken: OSError | None = None

    def start(self) -> None:
        """Start writing."""
        self._thread.start()

    async def write(self, text: str) -> None:
        """Write ``text`` (in order with everything written before)."""
        self._queue.put(text.encode("utf-8"))

    async def flush(self) -> None:
        """Return once everything written so far is out.

        Raises:
            OSError: the client closed its end (a broken pipe).
        """
        done: asyncio.Future[None] = self._loop.create_future()
        self._queue.put(done)
        await done

    def _write(self) -> None:
        while True:
            item = self._queue.get()
            if isinstance(item, bytes):
                self._write_all(item)
                continue
            broken = self._broken
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits
                self._loop.call_soon_threadsafe(_settle, item, broken)

    def _write_all(self, data: bytes) -> None:
        if self._broken is not None:
            return
        view = memoryview(data)
        try:
            while view:
                view = view[os.write(self._fd, view) :]
        except OSError as exc:
            self._broken = exc


def _settle(done: asyncio.Future[None], error: OSError | None) -> None:
    if done.done():
        return
    if error is None:
        done.set_result(None)
    else:
        done.set_exception(error)


@dataclass(frozen=True, slots=True)
class StdioWire:
    """The protocol's two ends: the client's lines, and where the answers go."""

    lines: StdinLines
    out: StdoutWire


@contextlib.contextmanager
def claim_stdio() -> Iterator[StdioWire | None]:
    """Claim stdin and stdout for the protocol until the block ends (see the module's
    docstring); ``None`` when the process lacks one of them (the SDK's own transport then
    serves as it can)."""
    try:
        wire_in = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
    except OSError:
        yield None
        return
    try:
        wire_out = fcntl.fcntl(1, fcntl.F_DUPFD_CLOEXEC, 3)
    except OSError:
        os.close(wire_in)
        yield None
        return
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
    finally:
        os.close(null)
    _flush_stdout()
    os.dup2(2, 1)
    loop = asyncio.get_running_loop()
    wire = StdioWire(StdinLines(wire_in, loop), StdoutWire(wire_out, loop))
    wire.lines.start()
    wire.out.start()
    try:
        yield wire
    finally:
        # What was printed meanwhile and still sits in Python's buffer goes to stderr too.
        _flush_stdout()
        # The private descriptors stay open: the threads may still block on them.
        os.dup2(wire_out, 1)
        os.dup2(wire_in, 0)


def _flush_stdout() -> None:
    with contextlib.suppress(OSError, ValueError):
        sys.stdout.flush()

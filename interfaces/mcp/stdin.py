"""The client's lines on stdin, read so that a signal stops ``assistant mcp`` at once.

The SDK's stdio transport reads stdin in a worker thread that no cancellation reaches, so
Ctrl-C left the server waiting for one more line, or for the end of its input. Here a daemon
thread reads the lines and hands them to the event loop: waiting for the next one is an
ordinary await, cancelled like any other, and the thread, blocked on a read nobody waits for
any more, ends with the process. While the lines are read, descriptor 0 points at the null
device (a child process reads nothing of the protocol, as with the SDK's own transport) and
the protocol is read from a private duplicate of it.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import threading
from collections.abc import Iterator
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
        # closefd=False: the descriptor stays open while this thread may still read it.
        with os.fdopen(self._fd, "rb", closefd=False) as wire:
            for raw in wire:
                if not self._hand_over(raw.decode("utf-8", errors="replace")):
                    return
        self._hand_over(None)

    def _hand_over(self, line: str | None) -> bool:
        self._room.acquire()
        try:
            self._loop.call_soon_threadsafe(self._lines.put_nowait, line)
        except RuntimeError:  # the loop is closed: nobody reads any more
            return False
        return True


@contextlib.contextmanager
def stdin_lines() -> Iterator[StdinLines | None]:
    """Read the process's stdin as ``StdinLines`` until the block ends (``None`` when the
    process has no stdin to read; the SDK's own transport is then the only way)."""
    try:
        private = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
    except OSError:
        yield None
        return
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
    finally:
        os.close(null)
    lines = StdinLines(private, asyncio.get_running_loop())
    lines.start()
    try:
        yield lines
    finally:
        # The private descriptor is never closed: the reading thread may still block on it.
        os.dup2(private, 0)

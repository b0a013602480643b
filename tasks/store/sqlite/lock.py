"""One scheduler per SQLite database: an exclusive lock on a file beside it.

Two schedulers on one database file would each deliver every chat's reminders through their
own interface (a terminal would print a Telegram user's reminder). The lock is the operating
system's (``flock``), so it is released when the process exits, however it exits: whoever
holds it knows that no other process is firing this database's tasks.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from common import make_private_dir, open_private
from tasks.errors import TaskError


class SchedulerBusyError(TaskError):
    """Another process runs the scheduler on this database."""


@contextmanager
def scheduler_lock(path: Path) -> Iterator[None]:
    """Hold the scheduler lock file ``path`` for the duration of the block.

    Raises:
        SchedulerBusyError: when another process holds it (the message names its pid).
    """
    make_private_dir(path.parent)
    with open_private(path, "a+") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            raise SchedulerBusyError(
                f"the scheduler is already running on {str(path.parent)!r} ({holder})"
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"pid {os.getpid()}\n")
        handle.flush()
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)

"""Backups of the database: on demand (``assistant backup``) and daily, kept for a week.

A backup is SQLite's online backup of ``assistant.db`` (a consistent copy while the
assistant runs, the WAL included), written under a temporary name and renamed when complete,
private to its user. The daily ones are ``DATA_DIR/backups/daily-YYYY-MM-DD.db``; each
scheduler process (chat, telegram, serve) makes the day's one if it is missing, checks again
every hour, and removes daily backups older than the retention. Backups made on demand are
never removed.
"""

from __future__ import annotations

import asyncio
import logging
import re
import sqlite3
from datetime import date, datetime, timedelta
from pathlib import Path

from common import AsyncLifecycle, Clock, create_private_file, make_private_dir

logger = logging.getLogger(__name__)

BACKUP_DIR = "backups"
CHECK_EVERY = timedelta(hours=1)
_DAILY = re.compile(r"^daily-(\d{4}-\d{2}-\d{2})\.db$")


class BackupError(Exception):
    """A backup could not be made; the message says why and what to do."""


def backups_of(data_dir: Path) -> Path:
    """The folder backups are kept in."""
    return data_dir / BACKUP_DIR


def back_up(database: Path, target: Path) -> Path:
    """Copy ``database`` to ``target`` with SQLite's online backup; return ``target``.

    Raises:
        BackupError: when there is no database, ``target`` exists, or SQLite or the file
            system fails.
    """
    if not database.is_file():
        raise BackupError(f"there is no database at {str(database)!r} to back up")
    if target.exists():
        raise BackupError(f"{str(target)!r} exists already; name a new file")
    make_private_dir(target.parent)
    partial = target.with_name(target.name + ".partial")
    partial.unlink(missing_ok=True)
    try:
        create_private_file(partial)
        source = sqlite3.connect(database)  # read only; WAL readers need the -shm file
        try:
            copy = sqlite3.connect(partial)
            try:
                source.backup(copy)
            finally:
                copy.close()
        finally:
            source.close()
        partial.rename(target)
    except (OSError, sqlite3.Error) as exc:
        partial.unlink(missing_ok=True)
        raise BackupError(f"could not back up {str(database)!r} to {str(target)!r}: {exc}") from exc
    return target


def manual_target(data_dir: Path, now: datetime) -> Path:
    """Where ``assistant backup`` without a path writes."""
    return backups_of(data_dir) / f"manual-{now:%Y-%m-%dT%H%M%S}.db"


def daily_backup(database: Path, folder: Path, today: date, keep_days: int) -> Path | None:
    """Make today's daily backup unless it exists, and remove those older than ``keep_days``.

    Returns:
        The backup made now, or ``None``.

    Raises:
        BackupError: as ``back_up``.
    """
    made = None
    target = folder / f"daily-{today.isoformat()}.db"
    if not target.exists() and database.is_file():
        made = back_up(database, target)
    oldest_kept = today - timedelta(days=max(keep_days, 1) - 1)
    for found, day in daily_backups(folder):
        if day < oldest_kept:
            found.unlink(missing_ok=True)
    return made


def daily_backups(folder: Path) -> list[tuple[Path, date]]:
    """The daily backups in ``folder`` with their days, newest first."""
    if not folder.is_dir():
        return []
    found = [
        (path, date.fromisoformat(match.group(1)))
        for path in folder.iterdir()
        if (match := _DAILY.match(path.name))
    ]
    return sorted(found, key=lambda item: item[1], reverse=True)


class DailyBackups(AsyncLifecycle):
    """Keeps a daily backup for ``keep_days`` days while a scheduler process runs.

    Args:
        database: The database file.
        folder: Where the backups go.
        clock: The source of time; the day is the UTC one.
        keep_days: How many daily backups are kept (today's included).
    """

    def __init__(self, database: Path, folder: Path, *, clock: Clock, keep_days: int) -> None:
        self._database = database
        self._folder = folder
        self._clock = clock
        self._keep_days = keep_days
        self._task: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()

    async def _enter(self) -> None:
        self._stop.clear()
        self._task = asyncio.create_task(self._loop(), name="daily-backup")

    async def _exit(self) -> None:
        """Stop checking; a backup under way is finished first (never left half written)."""
        task, self._task = self._task, None
        if task is not None:
            self._stop.set()
            await task

    async def run_once(self) -> Path | None:
        """Make today's backup if it is due and prune old ones (off the event loop)."""
        today = self._clock.now().date()
        try:
            made = await asyncio.to_thread(
                daily_backup, self._database, self._folder, today, self._keep_days
            )
        except BackupError as exc:
            logger.warning("the daily backup failed: %s; trying again in an hour", exc)
            return None
        if made is not None:
            logger.info("backed up the database to %s", made)
        return made

    async def _loop(self) -> None:
        while True:
            await self.run_once()
            if self._stop.is_set():
                return
            await self._clock.sleep_until(self._clock.now() + CHECK_EVERY, self._stop)

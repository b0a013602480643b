"""The data directory at start: private to its user, and a database that is really there.

The directory is created 0700; an existing one whose directory or files other users could
read (an older version's 0755 and 0644, a copy, a file made by hand) is tightened to 0700
and 0600, said in one log line. A database file that is empty (0 bytes), that cannot be
read, or that is not a SQLite database stops the assistant with what to do: SQLite would take
an empty file for a new database, and whatever was lost would go unnoticed.
"""

from __future__ import annotations

import logging
from pathlib import Path

from assistant.backup import backups_of, daily_backups
from common import make_private_dir, tighten

logger = logging.getLogger(__name__)

_NAMED = 5  # the paths one log line names before it counts the rest
SQLITE_HEADER = b"SQLite format 3\x00"


class DataError(Exception):
    """The data directory or its database cannot be used as it is; the message says what
    happened and what to do."""


def prepare_data_dir(data_dir: Path) -> list[Path]:
    """Create ``data_dir`` private, or make an existing one private; return what changed.

    Raises:
        DataError: when it cannot be created or its modes cannot be changed (a read-only
            file system, a folder of another user).
    """
    try:
        make_private_dir(data_dir)
        changed = tighten(data_dir)
    except OSError as exc:
        raise DataError(
            f"cannot use the data directory {str(data_dir)!r}: {exc.strerror or exc}; it must "
            "be a folder this user can write (not on a read-only file system): fix that, or "
            "set ASSISTANT_DATA_DIR to one"
        ) from exc
    if changed:
        names = [str(p.relative_to(data_dir)) if p != data_dir else str(data_dir) for p in changed]
        more = f" and {len(names) - _NAMED} more" if len(names) > _NAMED else ""
        logger.warning(
            "other users could read the data directory %s: took their access away from %s%s "
            "(directories are now 0700, files 0600)",
            data_dir,
            ", ".join(names[:_NAMED]),
            more,
        )
    return changed


def check_database(database: Path) -> None:
    """Refuse a database file that exists but cannot be what it should be.

    A missing file is fine (a first start creates it).

    Raises:
        DataError: for an empty file, one that cannot be read, or one that is not SQLite.
    """
    if not database.exists():
        return
    if not database.is_file():
        raise DataError(f"{str(database)!r} is not a file; move it away")
    try:
        with database.open("rb") as file:
            head = file.read(len(SQLITE_HEADER))
    except OSError as exc:
        raise DataError(
            f"cannot read the database {str(database)!r}: {exc.strerror}; check that it "
            "belongs to the user running the assistant and is readable (chmod 600)"
        ) from None
    if not head:
        raise DataError(
            f"the database {str(database)!r} is empty (0 bytes): its data was lost or it was "
            f"truncated, and the assistant will not start on it. {_restore_hint(database)}"
        )
    if head != SQLITE_HEADER:
        raise DataError(
            f"{str(database)!r} is not a SQLite database (it starts with {head[:8]!r}). "
            f"{_restore_hint(database)}"
        )


def _restore_hint(database: Path) -> str:
    found = daily_backups(backups_of(database.parent))
    leftovers = f"rm -f {database}-wal {database}-shm"
    restore = (
        f"Restore the newest backup: cp {found[0][0]} {database} && {leftovers}"
        if found
        else f"Restore a backup over it (and {leftovers})"
    )
    return f"{restore}; or move it away to start with an empty database."

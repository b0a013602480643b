"""Files private to their user: directories 0700, files 0600, created so from the start.

The data directory holds the database (notes, conversations, stored request headers), the
scheduler's lock and the delivery sink: nothing in it is any other user's business. Files are
created with their private mode in the ``open`` call itself (never created and then
narrowed, which would leave a moment when others can open them), and ``tighten`` narrows
what an older version, a copy or a hand-made file left readable to others.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import TextIO, cast

PRIVATE_DIR_MODE = 0o700
PRIVATE_FILE_MODE = 0o600
_OTHERS = stat.S_IRWXG | stat.S_IRWXO


def make_private_dir(path: Path) -> None:
    """Create the directory ``path`` (and missing parents) with the leaf at 0700.

    An existing directory is left as it is (``tighten`` narrows it).
    """
    path.mkdir(mode=PRIVATE_DIR_MODE, parents=True, exist_ok=True)


def create_private_file(path: Path) -> None:
    """Create ``path`` empty at 0600 unless it exists (an existing file is left as it is)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE_MODE)
    except FileExistsError:
        return
    os.close(fd)


def open_private(path: Path, mode: str = "a") -> TextIO:
    """Open the text file ``path`` (``"a"`` append or ``"a+"``), creating it at 0600."""
    flags = os.O_CREAT | os.O_APPEND | (os.O_RDWR if "+" in mode else os.O_WRONLY)
    fd = os.open(path, flags, PRIVATE_FILE_MODE)
    return cast(TextIO, os.fdopen(fd, mode, encoding="utf-8"))


def tighten(path: Path) -> list[Path]:
    """Take every permission of other users away from ``path`` and everything below it.

    A directory open to others ends at most 0700 and such a file at most 0600 (the owner's
    own read and write bits are kept); symbolic links are not followed. Returns the paths
    whose mode changed.
    """
    changed: list[Path] = []
    if _tighten_one(path):
        changed.append(path)
    if not path.is_dir() or path.is_symlink():
        return changed
    for root, dirs, files in os.walk(path):
        for name in [*dirs, *files]:
            entry = Path(root, name)
            if _tighten_one(entry):
                changed.append(entry)
    return changed


def _tighten_one(path: Path) -> bool:
    try:
        info = path.lstat()
    except FileNotFoundError:
        return False
    if stat.S_ISLNK(info.st_mode) or not info.st_mode & _OTHERS:
        return False
    limit = PRIVATE_DIR_MODE if stat.S_ISDIR(info.st_mode) else PRIVATE_FILE_MODE
    path.chmod(stat.S_IMODE(info.st_mode) & limit)
    return True

"""What compiling made, kept in a file beside the package's bytecode between runs.

Python keeps compiled modules in ``__pycache__``; ``KeptFile`` keeps other compiled things
there the same way (``common.patterns``: regular expressions; ``common.generated``: the
methods ``dataclasses`` writes): a dictionary of marshal-able values, read once, written back
with what was added when the process ends, not when bytecode may not be written
(``PYTHONDONTWRITEBYTECODE``) or the folder cannot be. The file names the versions it is good
for; a file of other versions, or one that cannot be read, counts as empty.
"""

from __future__ import annotations

import atexit
import contextlib
import marshal
import os
import sys
import tempfile
from pathlib import Path
from typing import Any


class KeptFile:
    """A dictionary kept in ``path`` for ``version``.

    Args:
        path: The file; ``None`` keeps nothing between runs.
        version: What the values are good for (a Python version, a library's); a file
            written for another version is not read.
        write: Whether ``save`` writes (by default as Python writes bytecode).
    """

    def __init__(self, path: Path | None, version: str, *, write: bool | None = None) -> None:
        self._path = path
        self._version = version
        self._write = not sys.dont_write_bytecode if write is None else write
        self._entries: dict[Any, Any] | None = None
        self._added = False

    @property
    def entries(self) -> dict[Any, Any]:
        """What is kept (read from the file the first time)."""
        if self._entries is None:
            self._entries = {} if self._path is None else _read(self._path, self._version)
        return self._entries

    def add(self, key: Any, value: Any) -> None:
        """Keep ``value`` under ``key`` (written by ``save``)."""
        self.entries[key] = value
        self._added = True

    def save(self) -> None:
        """Write what was added, merged with what the file holds now (another process may
        have added to it meanwhile); nothing when nothing was added or writing is off."""
        if not self._added or self._path is None or not self._write:
            return
        self._added = False
        merged = {**_read(self._path, self._version), **self.entries}
        with contextlib.suppress(OSError, ValueError):
            self._path.parent.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=self._path.parent, prefix=".kept-")
            try:
                with os.fdopen(handle, "wb") as out:
                    marshal.dump((self._version, merged), out)
                Path(temporary).replace(self._path)
            except BaseException:
                Path(temporary).unlink(missing_ok=True)
                raise

    def save_at_exit(self) -> KeptFile:
        """Have ``save`` run when the process ends; return this."""
        atexit.register(self.save)
        return self


def pycache(name: str) -> Path:
    """The file ``name`` in this package's ``__pycache__``, tagged with the interpreter."""
    return Path(__file__).with_name("__pycache__") / f"{name}.{sys.implementation.cache_tag}"


def _read(path: Path, version: str) -> dict[Any, Any]:
    try:
        found: Any = marshal.loads(path.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    if not (isinstance(found, tuple) and len(found) == 2 and found[0] == version):
        return {}
    return found[1] if isinstance(found[1], dict) else {}

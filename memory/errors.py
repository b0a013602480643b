"""The memory package's exceptions.

    MemoryStoreError          base of everything this package raises on purpose
    ├── MemoryInputError      a value cannot be stored (bad time zone, empty note, naive time)
    │   └── MemoryLimitError  the user holds as many notes (or bytes of them) as allowed
    └── StoreClosedError      the store was used before ``open`` or after ``close``

SQLite's own errors (a locked or corrupt file) are translated at the boundary into
``MemoryStoreError`` with the database path in the message.
"""

from __future__ import annotations


class MemoryStoreError(Exception):
    """Base class of the memory package's errors."""


class MemoryInputError(MemoryStoreError, ValueError):
    """A value cannot be stored; the message quotes it and says what would work."""


class MemoryLimitError(MemoryInputError):
    """A limit of what one user may keep is reached; the message names the limit and the
    setting that raises it."""


class StoreClosedError(MemoryStoreError, RuntimeError):
    """The store is not open."""

"""One SQLite connection on its own thread, and the schema migration runner: shared by the stores.

Every store operation is one synchronous function that runs on the connection's thread (a
single-worker executor), so it costs one hop off the event loop however many statements it
runs. Under a burst that matters: each hop's answer waits behind every task the loop has
ready, so a claim of five statement-sized hops took twice as long as the same work in one.

A write is a whole transaction inside its function: ``BEGIN IMMEDIATE`` takes the write lock
up front (two connections never deadlock upgrading a read to a write), then ``COMMIT``, or
``ROLLBACK`` when anything raises. Cancelling the awaiting task cannot leave a transaction
open: a function not yet started never runs, one already running runs to its end.

Several stores open their own connections to one file, so each runs in WAL mode with a busy
timeout; waiting for the lock blocks the connection's thread, never the loop. Each connection
keeps a WAL it starts over under ``WAL_KEEP_BYTES``, so a bulk write's WAL does not stay large.
Each package keeps raising its own exceptions: it says how in a ``Failures``.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import functools
import sqlite3
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Generic, TypeVar

from common.files import create_private_file, make_private_dir

H = TypeVar("H")
T = TypeVar("T")

WAL_KEEP_BYTES = 4 * 1024 * 1024
"""What of a WAL file each connection keeps when the WAL starts over (``journal_size_limit``):
a WAL grown by a large transaction shrinks back to this once it was checkpointed."""


@dataclass(frozen=True, slots=True)
class Failures:
    """How a package reports its database's failures, in its own exception types.

    Attributes:
        what: Names the database in messages, e.g. ``"the task database"``.
        error: Builds the exception for a SQLite failure from its message.
        not_open: Builds the exception for use before ``open`` or after ``close``.
    """

    what: str
    error: Callable[[str], Exception]
    not_open: Callable[[Path], Exception]


class SqliteDatabase(Generic[H]):
    """One SQLite connection and the one thread that runs everything on it.

    Each operation's work receives the handle ``handle`` made from the connection when it
    was opened: the connection itself, or a package's wrapper around it.

    Args:
        path: The database file; it and its directory are created private (0600, 0700)
            when missing.
        handle: Makes what each operation's work receives from the open connection.
        failures: The package's exceptions.
        busy_ms: How long a statement waits for another connection's write lock.
        thread_name: The name of the connection's thread.
        named_rows: Whether rows are ``sqlite3.Row`` (by name) instead of tuples.
        foreign_keys: Whether SQLite enforces foreign keys on this connection.
        lenient_text: Whether a TEXT value that is not UTF-8 (a damaged page) is read as an
            ``UnreadableText`` (its bytes decoded with replacement characters) instead of
            failing the whole query; the reader decides what to do with such a row.
        autocheckpoint: Whether commits on this connection may checkpoint the WAL (the task
            store leaves that to a connection of its own).
    """

    def __init__(
        self,
        path: Path,
        *,
        handle: Callable[[sqlite3.Connection], H],
        failures: Failures,
        busy_ms: int,
        thread_name: str,
        named_rows: bool = False,
        foreign_keys: bool = False,
        autocheckpoint: bool = True,
        lenient_text: bool = False,
    ) -> None:
        self.path = path
        self._make_handle = handle
        self._failures = failures
        self._busy_ms = busy_ms
        self._thread_name = thread_name
        self._named_rows = named_rows
        self._foreign_keys = foreign_keys
        self._autocheckpoint = autocheckpoint
        self._lenient_text = lenient_text
        self._conn: sqlite3.Connection | None = None
        self._handle: H | None = None
        self._executor: ThreadPoolExecutor | None = None

    @property
    def is_open(self) -> bool:
        """Whether the connection is open."""
        return self._executor is not None

    async def open(self) -> None:
        """Open the connection on its thread; opening an open database is a no-op.

        Raises:
            Exception: the ``Failures.error`` type, when the file cannot be opened or used
                as a SQLite database.
        """
        if self._executor is not None:
            return
        executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=self._thread_name)
        try:
            conn = await asyncio.get_running_loop().run_in_executor(executor, self._connect)
        except Exception:
            executor.shutdown(wait=True)  # the open has ended: the join is immediate
            raise
        except BaseException:
            # A cancelled open still finishes on the thread, which then ends on its own.
            executor.shutdown(wait=False)
            raise
        self._conn, self._handle, self._executor = conn, self._make_handle(conn), executor

    async def close(self) -> None:
        """Close after the operations already queued; closing twice is harmless.

        The connection's thread has ended when this returns (unless it was cancelled: then
        the thread still closes the connection and ends on its own, right after).
        """
        executor, conn = self._executor, self._conn
        if executor is None or conn is None:
            return
        self._executor = self._conn = self._handle = None
        try:
            await asyncio.get_running_loop().run_in_executor(
                executor, functools.partial(self._close_now, conn)
            )
        except BaseException:
            executor.shutdown(wait=False)
            raise
        executor.shutdown(wait=True)  # idle now (the close was its last work item)

    async def write(self, work: Callable[[H], T]) -> T:
        """Run ``work`` in one write transaction: commit when it returns, roll back if it raises.

        Raises:
            Exception: the ``Failures.error`` type for SQLite errors (busy past the timeout,
                disk full, ...), ``Failures.not_open``'s when the database is not open.
        """
        return await self._run("BEGIN IMMEDIATE", self._given_handle(work))

    async def read(self, work: Callable[[H], T], *, snapshot: bool = False) -> T:
        """Run ``work``'s read-only queries; with ``snapshot`` all of them see one state.

        Without ``snapshot`` each statement sees the latest committed state.

        Raises:
            Exception: as ``write`` does.
        """
        return await self._run("BEGIN" if snapshot else None, self._given_handle(work))

    async def migrate(
        self,
        *,
        component: str,
        migrations: Sequence[Sequence[str]],
        error: Callable[[str], Exception],
    ) -> int:
        """Bring ``component``'s tables up to version ``len(migrations)`` in one transaction.

        See ``migrate``; returns the version found before.
        """
        run = functools.partial(
            migrate, component=component, migrations=migrations, path=self.path, error=error
        )
        return await self._run("BEGIN IMMEDIATE", run)

    def _given_handle(self, work: Callable[[H], T]) -> Callable[[sqlite3.Connection], T]:
        handle = self._handle
        if handle is None:
            raise self._failures.not_open(self.path)
        return lambda _conn: work(handle)

    async def _run(self, begin: str | None, work: Callable[[sqlite3.Connection], T]) -> T:
        executor, conn = self._executor, self._conn
        if executor is None or conn is None:
            raise self._failures.not_open(self.path)
        call = functools.partial(self._transact, begin, work, conn)
        return await asyncio.get_running_loop().run_in_executor(executor, call)

    def _transact(
        self, begin: str | None, work: Callable[[sqlite3.Connection], T], conn: sqlite3.Connection
    ) -> T:
        """On the connection's thread: the whole transaction (or, to read, just the work)."""
        try:
            if begin is not None:
                conn.execute(begin)
            result = work(conn)
            if begin is not None:
                conn.execute("COMMIT")
        except sqlite3.Error as exc:
            _abandon(conn)
            raise self._translate(exc) from exc
        except BaseException:
            _abandon(conn)
            raise
        return result

    def _connect(self) -> sqlite3.Connection:
        """On the connection's thread: open and configure the connection."""
        what = self._failures.what
        try:
            make_private_dir(self.path.parent)
            if self.path.is_file() and self.path.stat().st_size == 0:
                # SQLite would take it for a new database: whatever was lost stays unnoticed.
                raise self._failures.error(
                    f"{what} {str(self.path)!r} is empty (0 bytes): its data was lost or the "
                    "file was truncated, and it is not replaced by a new one; restore a "
                    "backup over it, or move it away to start with an empty database"
                )
            # Private from the start; SQLite gives its -wal and -shm files the same mode.
            create_private_file(self.path)
            # Autocommit: transactions are the explicit BEGIN ... COMMIT of ``write``.
            conn = sqlite3.connect(self.path, isolation_level=None)
        except (OSError, sqlite3.Error) as exc:
            raise self._failures.error(
                _explained(exc, f"cannot open {what} {str(self.path)!r}", self.path, self._busy_ms)
            ) from exc
        try:
            if self._named_rows:
                conn.row_factory = sqlite3.Row
            if self._lenient_text:
                conn.text_factory = _lenient_text
            # PRAGMA values cannot be bound as parameters; these are ints this code computed.
            conn.execute(f"PRAGMA busy_timeout = {max(0, self._busy_ms)}")
            # A new file frees pages incrementally (``free_pages``); an existing one keeps the
            # mode it was made with (changing it takes a VACUUM).
            conn.execute("PRAGMA auto_vacuum = INCREMENTAL")
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute(f"PRAGMA journal_size_limit = {WAL_KEEP_BYTES}")
            if self._foreign_keys:
                conn.execute("PRAGMA foreign_keys = ON")
            if not self._autocheckpoint:
                conn.execute("PRAGMA wal_autocheckpoint = 0")
        except sqlite3.Error as exc:
            conn.close()
            said = f"cannot use {str(self.path)!r} as {what}"
            raise self._failures.error(_explained(exc, said, self.path, self._busy_ms)) from exc
        return conn

    def _close_now(self, conn: sqlite3.Connection) -> None:
        try:
            conn.close()
        except sqlite3.Error as exc:
            raise self._translate(exc) from exc

    def _translate(self, exc: sqlite3.Error) -> Exception:
        said = f"SQLite error on {self._failures.what} {str(self.path)!r}"
        return self._failures.error(_explained(exc, said, self.path, self._busy_ms))


_BUSY = frozenset({"SQLITE_BUSY", "SQLITE_LOCKED"})
_NOT_WRITABLE = frozenset({"SQLITE_CANTOPEN", "SQLITE_READONLY", "SQLITE_PERM", "SQLITE_AUTH"})
_NOT_WRITABLE_OS = frozenset({errno.EACCES, errno.EPERM, errno.EROFS})


def _explained(exc: OSError | sqlite3.Error, said: str, path: Path, busy_ms: int) -> str:
    """``said: exc``, with what happened and what to do when it is a failure a person fixes:
    a lock another process holds, or a file or folder that cannot be written."""
    name = str(getattr(exc, "sqlite_errorname", ""))
    code = exc.errno if isinstance(exc, OSError) else None
    if any(name.startswith(busy) for busy in _BUSY):
        return (
            f"{said}: {exc}: another process holds its lock (waited {busy_ms / 1000:g} s for "
            "it); close the other program using this database, then try again"
        )
    if code in _NOT_WRITABLE_OS or any(name.startswith(n) for n in _NOT_WRITABLE):
        return (
            f"{said}: {exc}; it and its folder {str(path.parent)!r} must be readable and "
            "writable by this user (SQLite keeps its -wal and -shm files beside it): fix the "
            "permissions, or use another data directory"
        )
    return f"{said}: {exc}"


def migrate(
    conn: sqlite3.Connection,
    *,
    component: str,
    migrations: Sequence[Sequence[str]],
    path: Path,
    error: Callable[[str], Exception],
) -> int:
    """Run the migrations ``component`` lacks, inside the caller's write transaction.

    The version lives in ``schema_versions`` (shared by the packages, one row per component);
    entry ``i`` of ``migrations`` moves the schema from version ``i`` to ``i + 1``. Two
    processes opening one new file migrate it once: the transaction holds the write lock.

    Returns:
        The version found before.

    Raises:
        Exception: ``error``'s, when the file holds a newer schema than ``migrations`` know.
    """
    latest = len(migrations)
    conn.execute(
        "CREATE TABLE IF NOT EXISTS schema_versions ("
        " component TEXT PRIMARY KEY, version INTEGER NOT NULL)"
    )
    row = conn.execute(
        "SELECT version FROM schema_versions WHERE component = ?", (component,)
    ).fetchone()
    found = int(row[0]) if row is not None else 0
    if found > latest:
        raise error(
            f"the database {str(path)!r} has {component} schema version {found}, newer than "
            f"this program's {latest}; upgrade the program or use another data directory"
        )
    for statements in migrations[found:]:
        for statement in statements:
            conn.execute(statement)
    if found < latest:
        conn.execute(
            "INSERT INTO schema_versions (component, version) VALUES (?, ?)"
            " ON CONFLICT (component) DO UPDATE SET version = excluded.version",
            (component, latest),
        )
    return found


def free_pages(conn: sqlite3.Connection, most: int) -> int:
    """Give up to ``most`` free pages back to the file system (``incremental_vacuum``: pages
    from the file's end move into free ones and the file is cut); return how many. A file
    made before it was made with ``auto_vacuum = INCREMENTAL`` gives none back.

    Runs inside the caller's write transaction, on the connection's thread.
    """
    free = int(conn.execute("PRAGMA freelist_count").fetchone()[0])
    if not free or int(conn.execute("PRAGMA auto_vacuum").fetchone()[0]) != _INCREMENTAL:
        return 0
    count = min(free, max(0, most))
    # Each step of the pragma frees one page, and sqlite3 steps a statement once per
    # execute (executescript would commit the caller's transaction first).
    for _ in range(count):
        conn.execute("PRAGMA incremental_vacuum(1)")
    return count


_INCREMENTAL = 2  # PRAGMA auto_vacuum's value for INCREMENTAL


def to_db_time(
    instant: datetime, *, what: str = "time", error: Callable[[str], Exception] = ValueError
) -> str:
    """Return ``instant`` as fixed-width UTC ISO 8601 text, which sorts like the instants it
    names (``2026-03-01T09:00:00.000000+00:00``), so stored instants index and compare exactly.

    Raises:
        Exception: ``error``'s (``ValueError`` by default) when ``instant`` has no time zone.
    """
    if instant.tzinfo is None or instant.utcoffset() is None:
        raise error(
            f"the {what} {instant.isoformat()!r} has no time zone; pass an aware datetime "
            "such as datetime.now(UTC)"
        )
    return instant.astimezone(UTC).isoformat(timespec="microseconds")


def from_db_time(text: str) -> datetime:
    """Return the aware UTC instant stored as ``text`` by ``to_db_time``."""
    return datetime.fromisoformat(text)


class UnreadableText(str):
    """A TEXT value whose bytes are not UTF-8 (a damaged page), decoded with U+FFFD for what
    could not be read. A reader that finds one in a row skips that row."""


def _lenient_text(raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return UnreadableText(raw.decode("utf-8", "replace"))


def _abandon(conn: sqlite3.Connection) -> None:
    """Roll back whatever transaction is open; there is none when BEGIN failed."""
    if conn.in_transaction:
        # The error that got us here is re-raised; a failing ROLLBACK (SQLite already rolled
        # back after an I/O error) must not replace it.
        with contextlib.suppress(sqlite3.Error):
            conn.execute("ROLLBACK")

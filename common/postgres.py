"""A pool of PostgreSQL connections for one store: transactions, migrations, LISTEN.

The PostgreSQL counterpart of ``common.sqlite``, shared by the task and the memory stores.
Each store opens its own ``PostgresDatabase`` (a small asyncpg pool) on the server that
``ASSISTANT_DATABASE_URL`` names. An operation is one async function given a pooled
connection:

- ``write`` runs it in one READ COMMITTED transaction: committed when it returns, rolled back
  when it raises (or is cancelled). A transaction that PostgreSQL aborted to break a deadlock,
  or for a serialization failure, is run again from the start (a few times): the function
  must only touch the database.
- ``read`` runs it without a transaction (each statement sees the latest commits), or with
  ``snapshot`` in one REPEATABLE READ, READ ONLY transaction, so that every query sees one state.

Errors from the driver or the server are translated at this boundary into the package's own
exception (its ``PostgresFailures``); the URL in messages never shows the password.

asyncpg is imported when a database is opened, not when this module is: the command line
stays quick for users of the SQLite default.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, TypeVar

from common.lifecycle import cancel_and_wait
from common.redaction import redact_url

if TYPE_CHECKING:
    import asyncpg
    from asyncpg.pool import Pool, PoolConnectionProxy

    PgConnection: TypeAlias = PoolConnectionProxy[asyncpg.Record]
else:
    PgConnection = Any
"""What an operation's work gets: a pooled asyncpg connection (its ``fetch``, ``execute`` ...)."""

log = logging.getLogger(__name__)

T = TypeVar("T")

RETRIES = 5
"""How often a transaction aborted by a deadlock or serialization failure is run again."""

CONNECT_TIMEOUT = 10.0
"""Seconds to wait for a connection to the server."""

_RETRIED_STATES = frozenset({"40001", "40P01"})  # serialization_failure, deadlock_detected


@dataclass(frozen=True, slots=True)
class PostgresFailures:
    """How a package reports its PostgreSQL failures, in its own exception types.

    Attributes:
        what: Names the database in messages, e.g. ``"the task database"``.
        error: Builds the exception for a driver or server failure from its message.
        not_open: Builds the exception for use before ``open`` or after ``close``, from the
            (redacted) URL.
    """

    what: str
    error: Callable[[str], Exception]
    not_open: Callable[[str], Exception]


def is_postgres_url(url: str) -> bool:
    """Whether ``url`` names a PostgreSQL database (``postgresql://`` or ``postgres://``)."""
    return url.startswith(("postgresql://", "postgres://"))


class PostgresDatabase:
    """A pool of connections to one PostgreSQL database, and the work run on them.

    Args:
        url: ``postgresql://user:password@host:port/database`` (libpq's URL form; query
            parameters such as ``sslmode`` are honoured).
        failures: The package's exceptions.
        min_size: Connections the pool keeps open.
        max_size: Connections it opens at most.
        application_name: Shown in ``pg_stat_activity``.
    """

    def __init__(
        self,
        url: str,
        *,
        failures: PostgresFailures,
        min_size: int = 1,
        max_size: int = 4,
        application_name: str = "assistant",
    ) -> None:
        if not is_postgres_url(url):
            raise failures.error(
                f"{redact_url(url)!r} is not a PostgreSQL URL; use "
                "postgresql://user:password@host:5432/database"
            )
        self._url = url
        self.where = redact_url(url)
        self._failures = failures
        self._min_size = min_size
        self._max_size = max(max_size, min_size, 1)
        self._application_name = application_name
        self._pool: Pool[asyncpg.Record] | None = None

    @property
    def is_open(self) -> bool:
        """Whether the pool is open."""
        return self._pool is not None

    async def open(
        self, *, migrate: Callable[[PostgresDatabase], Awaitable[object]] | None = None
    ) -> None:
        """Open the pool (its first connections); opening an open database is a no-op.

        Args:
            migrate: Brings the caller's tables up to date once the pool is open; when it
                raises, the pool is closed again.

        Raises:
            Exception: the ``PostgresFailures.error`` type, when the server cannot be reached
                or refuses the connection (the message says which); what ``migrate`` raised.
        """
        if self._pool is not None:
            return
        await self._connect()
        if migrate is None:
            return
        try:
            await migrate(self)
        except BaseException:
            await self.close()
            raise

    async def _connect(self) -> None:
        import asyncpg

        try:
            pool = await asyncpg.create_pool(
                self._url,
                min_size=self._min_size,
                max_size=self._max_size,
                timeout=CONNECT_TIMEOUT,
                server_settings={"application_name": self._application_name},
            )
        except (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
            raise self._failures.error(
                f"cannot connect to {self._failures.what} at {self.where!r}: {_say(exc)}"
            ) from exc
        self._pool = pool

    async def close(self) -> None:
        """Close every connection (waiting for the operations in flight); twice is harmless."""
        pool, self._pool = self._pool, None
        if pool is not None:
            await pool.close()

    async def write(self, work: Callable[[PgConnection], Awaitable[T]]) -> T:
        """Run ``work`` in one transaction: commit when it returns, roll back if it raises.

        Raises:
            Exception: the ``PostgresFailures.error`` type for driver and server errors,
                ``not_open``'s when the database is not open; whatever ``work`` raised.
        """
        for attempt in range(1, RETRIES + 1):
            try:
                return await self._in_transaction(
                    work, isolation="read_committed", retry=attempt < RETRIES
                )
            except _Retry as again:
                log.info("%s: %s; running the transaction again", self._failures.what, again)
                await asyncio.sleep(0.005 * attempt)
        raise AssertionError("unreachable: the last attempt returns or raises")

    async def read(
        self, work: Callable[[PgConnection], Awaitable[T]], *, snapshot: bool = False
    ) -> T:
        """Run ``work``'s queries; with ``snapshot`` all of them see one state of the database.

        Raises:
            Exception: as ``write`` does.
        """
        if snapshot:
            return await self._in_transaction(work, isolation="repeatable_read", readonly=True)
        async with self._translated(), self._acquire() as conn:
            return await work(conn)

    async def migrate(
        self,
        *,
        component: str,
        migrations: Sequence[Sequence[str]],
        error: Callable[[str], Exception],
    ) -> int:
        """Bring ``component``'s tables up to version ``len(migrations)`` in one transaction.

        The version lives in ``schema_versions`` (one row per component, as in SQLite). An
        advisory lock held for the transaction makes processes that start together migrate
        one after the other, so each migration runs once.

        Returns:
            The version found before.

        Raises:
            Exception: ``error``'s, when the database holds a newer schema than
                ``migrations`` know; the ``PostgresFailures.error`` type when a statement fails.
        """
        latest = len(migrations)

        async def run(conn: PgConnection) -> int:
            await conn.execute("SELECT pg_advisory_xact_lock($1)", _lock_key("schema_versions"))
            await conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_versions ("
                " component text PRIMARY KEY, version integer NOT NULL)"
            )
            found = await conn.fetchval(
                "SELECT version FROM schema_versions WHERE component = $1", component
            )
            found = 0 if found is None else int(found)
            if found > latest:
                raise error(
                    f"the database {self.where!r} has {component} schema version {found}, newer "
                    f"than this program's {latest}; upgrade the program or use another database"
                )
            for statements in migrations[found:]:
                for statement in statements:
                    await conn.execute(statement)
            if found < latest:
                await conn.execute(
                    "INSERT INTO schema_versions (component, version) VALUES ($1, $2)"
                    " ON CONFLICT (component) DO UPDATE SET version = excluded.version",
                    component,
                    latest,
                )
            return found

        return await self.write(run)

    async def listen(
        self,
        channel: str,
        changed: Callable[[], None],
        *,
        reconnect_delays: Sequence[float] = (0.5, 1.0, 2.0, 5.0, 10.0, 30.0),
    ) -> Listener:
        """Call ``changed`` on every notification on ``channel`` until the listener is closed.

        Args:
            channel: The channel to LISTEN on.
            changed: Called (on the event loop) for every notification.
            reconnect_delays: Seconds to wait before each attempt to reconnect after the
                connection was lost (the last one repeats).

        Raises:
            Exception: the ``PostgresFailures.error`` type when the first connection fails.
        """
        listener = Listener(
            self._url,
            channel,
            changed,
            failures=self._failures,
            where=self.where,
            reconnect_delays=reconnect_delays,
        )
        await listener.start()
        return listener

    async def _in_transaction(
        self,
        work: Callable[[PgConnection], Awaitable[T]],
        *,
        isolation: Literal["read_committed", "repeatable_read"],
        readonly: bool = False,
        retry: bool = False,
    ) -> T:
        async with (
            self._translated(retry=retry),
            self._acquire() as conn,
            conn.transaction(isolation=isolation, readonly=readonly),
        ):
            return await work(conn)

    @contextlib.asynccontextmanager
    async def _acquire(self) -> AsyncIterator[PgConnection]:
        pool = self._pool
        if pool is None:
            raise self._failures.not_open(self.where)
        async with pool.acquire() as conn:
            yield conn

    @contextlib.asynccontextmanager
    async def _translated(self, *, retry: bool = False) -> AsyncIterator[None]:
        """Turn driver and server errors raised inside into the package's error (or, with
        ``retry``, a deadlock or serialization failure into ``_Retry``)."""
        import asyncpg

        try:
            yield
        except (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
            if retry and _sqlstate(exc) in _RETRIED_STATES:
                raise _Retry(_say(exc)) from exc
            raise self._failures.error(
                f"PostgreSQL error on {self._failures.what} {self.where!r}: {_say(exc)}"
            ) from exc


class _Retry(Exception):
    """The server aborted the transaction to break a deadlock (or a serialization failure)."""


class Listener:
    """One connection of its own, LISTENing on a channel; it reconnects when it is lost.

    Notifications sent while it was disconnected are lost, so after reconnecting it calls
    ``changed`` once: the listener re-reads whatever it watches.

    Args:
        url: The database URL.
        channel: The channel to LISTEN on (an identifier this program chose).
        changed: Called (on the event loop) for every notification.
        failures: The package's exceptions.
        where: The URL without its password, for messages.
        reconnect_delays: Seconds to wait before each attempt to reconnect (the last repeats).
    """

    def __init__(
        self,
        url: str,
        channel: str,
        changed: Callable[[], None],
        *,
        failures: PostgresFailures,
        where: str,
        reconnect_delays: Sequence[float],
    ) -> None:
        self._url = url
        self._delays = tuple(reconnect_delays) or (1.0,)
        self._channel = channel
        self._changed = changed
        self._failures = failures
        self._where = where
        self._conn: asyncpg.Connection[asyncpg.Record] | None = None
        self._reconnecting: asyncio.Task[None] | None = None
        self._closed = False

    async def start(self) -> None:
        """Connect and LISTEN.

        Raises:
            Exception: the ``PostgresFailures.error`` type when the connection fails.
        """
        import asyncpg

        try:
            await self._connect()
        except (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
            raise self._failures.error(
                f"cannot LISTEN on {self._failures.what} at {self._where!r}: {_say(exc)}"
            ) from exc

    async def close(self) -> None:
        """Stop listening and close the connection; closing twice is harmless."""
        self._closed = True
        task, self._reconnecting = self._reconnecting, None
        await cancel_and_wait(task)
        conn, self._conn = self._conn, None
        if conn is not None and not conn.is_closed():
            await conn.close()

    async def _connect(self) -> None:
        import asyncpg

        conn = await asyncpg.connect(self._url, timeout=CONNECT_TIMEOUT)
        try:
            await conn.add_listener(self._channel, self._notified)
        except BaseException:
            await conn.close()
            raise
        conn.add_termination_listener(self._lost)
        self._conn = conn

    def _notified(self, *_args: object) -> None:
        self._changed()

    def _lost(self, *_args: object) -> None:
        if self._closed:
            return
        log.warning("the LISTEN connection to %s was lost; reconnecting", self._where)
        self._conn = None
        self._reconnecting = asyncio.get_running_loop().create_task(
            self._reconnect(), name=f"listen-{self._channel}"
        )

    async def _reconnect(self) -> None:
        import asyncpg

        attempt = 0
        while not self._closed:
            delay = self._delays[min(attempt, len(self._delays) - 1)]
            await asyncio.sleep(delay)
            try:
                await self._connect()
            except (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
                attempt += 1
                log.warning("LISTEN on %s: reconnecting failed: %s", self._where, _say(exc))
                continue
            self._changed()  # notifications may have been missed while disconnected
            return


async def notify(conn: PgConnection, channel: str, payload: str = "") -> None:
    """Queue a notification on ``channel``; it is sent when the transaction commits."""
    await conn.execute("SELECT pg_notify($1, $2)", channel, payload)


def _lock_key(name: str) -> int:
    """A stable 32-bit advisory lock key for ``name``."""
    return zlib.crc32(name.encode()) & 0x7FFFFFFF


def _sqlstate(exc: BaseException) -> str | None:
    state = getattr(exc, "sqlstate", None)
    return state if isinstance(state, str) else None


def _say(exc: BaseException) -> str:
    """The error's own words on one line (asyncpg's messages never hold the password)."""
    text = "; ".join(line.strip() for line in str(exc).splitlines() if line.strip())
    text = text or type(exc).__name__
    return text if _sqlstate(exc) is None else f"{text} (SQLSTATE {_sqlstate(exc)})"

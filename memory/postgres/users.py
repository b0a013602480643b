"""Users in PostgreSQL: their IANA time zone and free-form string settings."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime

from common import Clock, PgConnection, PostgresDatabase
from memory._db import from_db_time, to_db_time
from memory._validate import require_id
from memory.models import UserProfile
from memory.users import check_setting, validate_timezone


class PgUserRepository:
    """Reads and writes ``users`` and ``user_settings``."""

    def __init__(self, db: PostgresDatabase, clock: Clock) -> None:
        self._db = db
        self._clock = clock

    async def get(self, user_id: str) -> UserProfile | None:
        """Return the user's profile, or ``None`` when memory has never stored them."""
        return await self._db.read(self.profile_reader(user_id))

    def profile_reader(
        self, user_id: str
    ) -> Callable[[PgConnection], Awaitable[UserProfile | None]]:
        """Check ``user_id``; return what reads the profile on a connection."""
        require_id(user_id, "user_id")

        async def profile(conn: PgConnection) -> UserProfile | None:
            rows = await conn.fetch(
                "SELECT u.timezone, u.created_at, s.key, s.value FROM users AS u"
                " LEFT JOIN user_settings AS s ON s.user_id = u.user_id"
                " WHERE u.user_id = $1 ORDER BY s.key",
                user_id,
            )
            if not rows:
                return None
            return UserProfile(
                user_id=user_id,
                timezone=rows[0]["timezone"],
                created_at=rows[0]["created_at"],
                settings={str(r["key"]): str(r["value"]) for r in rows if r["key"] is not None},
            )

        return profile

    async def set_timezone(self, user_id: str, timezone: str) -> None:
        """Store the user's zone after checking it is a real IANA name."""
        require_id(user_id, "user_id")
        zone = validate_timezone(timezone)
        created = self._now()

        async def store(conn: PgConnection) -> None:
            await conn.execute(
                "INSERT INTO users (user_id, timezone, created_at) VALUES ($1, $2, $3)"
                " ON CONFLICT (user_id) DO UPDATE SET timezone = excluded.timezone",
                user_id, zone, created,
            )  # fmt: skip

        await self._db.write(store)

    async def set_setting(self, user_id: str, key: str, value: str) -> None:
        """Store one setting, replacing the old value."""
        require_id(user_id, "user_id")
        check_setting(key, value)
        created = self._now()

        async def store(conn: PgConnection) -> None:
            await conn.execute(
                "INSERT INTO users (user_id, timezone, created_at) VALUES ($1, NULL, $2)"
                " ON CONFLICT (user_id) DO NOTHING",
                user_id, created,
            )  # fmt: skip
            await conn.execute(
                "INSERT INTO user_settings (user_id, key, value) VALUES ($1, $2, $3)"
                " ON CONFLICT (user_id, key) DO UPDATE SET value = excluded.value",
                user_id, key, value,
            )  # fmt: skip

        await self._db.write(store)

    async def get_setting(self, user_id: str, key: str) -> str | None:
        """Return one setting, or ``None`` when it is not set."""
        require_id(user_id, "user_id")

        async def read(conn: PgConnection) -> str | None:
            value = await conn.fetchval(
                "SELECT value FROM user_settings WHERE user_id = $1 AND key = $2", user_id, key
            )
            return None if value is None else str(value)

        return await self._db.read(read)

    async def delete_setting(self, user_id: str, key: str) -> bool:
        """Remove one setting; return whether it was set."""
        require_id(user_id, "user_id")

        async def delete(conn: PgConnection) -> bool:
            gone = await conn.fetch(
                "DELETE FROM user_settings WHERE user_id = $1 AND key = $2 RETURNING key",
                user_id,
                key,
            )
            return bool(gone)

        return await self._db.write(delete)

    def _now(self) -> datetime:
        """The clock's time as stored (UTC, microseconds); a naive clock is refused."""
        return from_db_time(to_db_time(self._clock.now()))

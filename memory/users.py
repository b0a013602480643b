"""Users: their IANA time zone and free-form string settings (in either database)."""

from __future__ import annotations

import functools
from datetime import datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from common import Clock, unstorable
from memory._validate import require_id
from memory.errors import MemoryInputError
from memory.models import SettingHolder, UserProfile
from memory.sql import Database, Steps, single

MAX_SETTING_KEY_CHARS = 100
MAX_SETTING_VALUE_CHARS = 10_000


def validate_timezone(name: str) -> str:
    """Return ``name`` when it is an IANA time zone this machine knows.

    Raises:
        MemoryInputError: quoting the name, with an example of one that works.
    """
    if not isinstance(name, str) or not name.strip():
        raise MemoryInputError(f"a time zone is an IANA name such as 'Europe/Berlin', got {name!r}")
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError) as exc:
        close = _known_zones_by_folded_name().get(name.strip().casefold())
        hint = f" (did you mean {close!r}?)" if close else ""
        raise MemoryInputError(
            f"unknown time zone {name!r}{hint}; use an IANA name such as 'Europe/Berlin', "
            "'America/New_York' or 'UTC'"
        ) from exc
    return name


@functools.cache
def _known_zones_by_folded_name() -> dict[str, str]:
    return {zone.casefold(): zone for zone in available_timezones()}


class UserRepository:
    """Reads and writes ``users`` and ``user_settings``."""

    def __init__(self, db: Database, clock: Clock) -> None:
        self._db = db
        self._d = db.dialect
        self._clock = clock

    async def get(self, user_id: str) -> UserProfile | None:
        """Return the user's profile, or ``None`` when memory has never stored them."""
        return await self._db.read(self.profile_reader(user_id))

    def profile_reader(self, user_id: str) -> Steps[UserProfile | None]:
        """Check ``user_id``; return the steps that read the profile."""
        require_id(user_id, "user_id")
        return self._profile(user_id)

    def _profile(self, user_id: str) -> Steps[UserProfile | None]:
        rows = yield self._d.statement(
            "SELECT u.timezone, u.created_at, s.key, s.value FROM users AS u"
            " LEFT JOIN user_settings AS s ON s.user_id = u.user_id"
            " WHERE u.user_id = ? ORDER BY s.key",
            user_id,
            want="all",
        )
        if not rows:
            return None
        return UserProfile(
            user_id=user_id,
            timezone=rows[0]["timezone"],
            created_at=self._d.read_time(rows[0]["created_at"]),
            settings={str(r["key"]): str(r["value"]) for r in rows if r["key"] is not None},
        )

    async def set_timezone(self, user_id: str, timezone: str) -> None:
        """Store the user's zone after checking it is a real IANA name."""
        require_id(user_id, "user_id")
        zone = validate_timezone(timezone)
        statement = self._d.statement(
            "INSERT INTO users (user_id, timezone, created_at) VALUES (?, ?, ?)"
            " ON CONFLICT (user_id) DO UPDATE SET timezone = excluded.timezone",
            user_id, zone, self._d.time(self._clock.now()),
        )  # fmt: skip
        await self._db.write(single(statement))

    async def set_setting(self, user_id: str, key: str, value: str) -> None:
        """Store one setting, replacing the old value."""
        require_id(user_id, "user_id")
        check_setting(key, value)
        await self._db.write(self._store_setting(user_id, key, value, self._clock.now()))

    def _store_setting(self, user_id: str, key: str, value: str, now: datetime) -> Steps[None]:
        yield self._d.statement(
            "INSERT INTO users (user_id, timezone, created_at) VALUES (?, NULL, ?)"
            " ON CONFLICT (user_id) DO NOTHING",
            user_id, self._d.time(now),
        )  # fmt: skip
        yield self._d.statement(
            "INSERT INTO user_settings (user_id, key, value) VALUES (?, ?, ?)"
            " ON CONFLICT (user_id, key) DO UPDATE SET value = excluded.value",
            user_id, key, value,
        )  # fmt: skip

    async def get_setting(self, user_id: str, key: str) -> str | None:
        """Return one setting, or ``None`` when it is not set."""
        require_id(user_id, "user_id")
        statement = self._d.statement(
            "SELECT value FROM user_settings WHERE user_id = ? AND key = ?",
            user_id, key, want="value",
        )  # fmt: skip
        value = await self._db.read(single(statement))
        return None if value is None else str(value)

    async def holding(self, key: str) -> list[SettingHolder]:
        """Every user who has the setting ``key``, with its value and their zone."""
        statement = self._d.statement(
            "SELECT s.user_id, s.value, u.timezone FROM user_settings AS s"
            " JOIN users AS u ON u.user_id = s.user_id WHERE s.key = ? ORDER BY s.user_id",
            key,
            want="all",
        )
        rows = await self._db.read(single(statement))
        return [
            SettingHolder(str(row["user_id"]), str(row["value"]), row["timezone"]) for row in rows
        ]

    async def delete_setting(self, user_id: str, key: str) -> bool:
        """Remove one setting; return whether it was set."""
        require_id(user_id, "user_id")
        statement = self._d.statement(
            "DELETE FROM user_settings WHERE user_id = ? AND key = ? RETURNING key",
            user_id, key, want="all",
        )  # fmt: skip
        return bool(await self._db.write(single(statement)))


def check_setting(key: str, value: str) -> None:
    """Refuse a setting that cannot be stored, quoting it.

    Raises:
        MemoryInputError: for an empty or long key, a long value, or unstorable text.
    """
    if not isinstance(key, str) or not key.strip() or len(key) > MAX_SETTING_KEY_CHARS:
        raise MemoryInputError(
            f"a setting key is a non-empty string of at most {MAX_SETTING_KEY_CHARS} "
            f"characters such as 'language', got {key!r}"
        )
    for text in (key, value):
        problem = unstorable(text) if isinstance(text, str) else None
        if problem is not None:
            raise MemoryInputError(f"the setting {key!r:.80} holds {problem}; send it without")
    if not isinstance(value, str) or len(value) > MAX_SETTING_VALUE_CHARS:
        raise MemoryInputError(
            f"the setting {key!r} takes a string of at most {MAX_SETTING_VALUE_CHARS} "
            f"characters, got {value!r:.80}"
        )

"""Users: time zones checked against the IANA database, and string settings."""

from __future__ import annotations

from zoneinfo import ZoneInfo

import pytest

from memory import MemoryInputError, MemoryStore, validate_timezone
from tests.memory.conftest import START


async def test_an_unknown_user_has_no_profile(store: MemoryStore) -> None:
    assert await store.get_user("alice") is None
    assert await store.get_setting("alice", "language") is None
    assert await store.get_setting("alice", "language", "en") == "en"


async def test_set_timezone_creates_the_user_and_can_change(store: MemoryStore) -> None:
    profile = await store.set_timezone("alice", "Europe/Berlin")

    assert profile.user_id == "alice"
    assert profile.timezone == "Europe/Berlin"
    assert profile.zone == ZoneInfo("Europe/Berlin")
    assert profile.created_at == START

    changed = await store.set_timezone("alice", "America/New_York")
    assert changed.timezone == "America/New_York"
    assert changed.created_at == START
    assert await store.get_user("alice") == changed


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Mars/Olympus", "'Mars/Olympus'"),
        ("", "''"),
        ("../../etc/passwd", "'../../etc/passwd'"),
        ("/usr/share/zoneinfo/UTC", "'/usr/share/zoneinfo/UTC'"),
        ("Europe", "'Europe'"),
        ("europe/berlin", "did you mean 'Europe/Berlin'"),
        ("Europe/Berlin'; DROP TABLE users; --", "DROP TABLE"),
    ],
)
async def test_bad_time_zones_are_refused_with_an_example(
    store: MemoryStore, name: str, expected: str
) -> None:
    with pytest.raises(MemoryInputError, match="Europe/Berlin") as caught:
        await store.set_timezone("alice", name)

    assert expected in str(caught.value)
    assert isinstance(caught.value, ValueError)
    assert await store.get_user("alice") is None


def test_validate_timezone_accepts_iana_names() -> None:
    assert validate_timezone("Asia/Kolkata") == "Asia/Kolkata"
    assert validate_timezone("UTC") == "UTC"


async def test_settings_are_stored_replaced_and_deleted(store: MemoryStore) -> None:
    await store.set_setting("alice", "language", "en")
    await store.set_setting("alice", "units", "metric")
    await store.set_setting("alice", "language", "de")

    assert await store.get_setting("alice", "language") == "de"
    profile = await store.get_user("alice")
    assert profile is not None
    assert profile.timezone is None
    assert profile.zone is None
    assert profile.settings == {"language": "de", "units": "metric"}
    assert await store.get_setting("bob", "language") is None

    assert await store.delete_setting("alice", "units") is True
    assert await store.delete_setting("alice", "units") is False
    assert await store.get_setting("alice", "units") is None


async def test_setting_metacharacters_round_trip(store: MemoryStore) -> None:
    nasty = '\'; DROP TABLE user_settings; -- "q" ü 🎉 %_\\'

    await store.set_setting(nasty, nasty, nasty)

    assert await store.get_setting(nasty, nasty) == nasty
    profile = await store.get_user(nasty)
    assert profile is not None
    assert profile.settings == {nasty: nasty}


@pytest.mark.parametrize(("key", "value"), [("", "x"), ("k" * 101, "x"), ("ok", 3)])
async def test_bad_settings_are_refused(store: MemoryStore, key: str, value: object) -> None:
    with pytest.raises(MemoryInputError, match="setting"):
        await store.set_setting("alice", key, value)  # type: ignore[arg-type]  # on purpose


async def test_the_users_who_have_a_setting_are_listed_with_their_zones(
    store: MemoryStore,
) -> None:
    await store.set_setting("bob", "quiet_hours", "23:00-06:00")
    await store.set_timezone("alice", "Europe/Berlin")
    await store.set_setting("alice", "quiet_hours", "22:00-07:00")
    await store.set_setting("carol", "language", "fr")

    holders = await store.users_with_setting("quiet_hours")
    assert [(h.user_id, h.value, h.timezone) for h in holders] == [
        ("alice", "22:00-07:00", "Europe/Berlin"),
        ("bob", "23:00-06:00", None),
    ]
    assert await store.users_with_setting("nothing") == []

"""The application on PostgreSQL: every store in the database, several schedulers at once."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from assistant.app import LOCAL_CHAT, LOCAL_USER, open_app
from assistant.config import ConfigError, Settings, load_settings
from common import ManualClock
from memory import SCHEMA_VERSION as MEMORY_SCHEMA
from memory import HitKind
from tasks import ChatScope, Delivery, DeliveryStatus
from tests.assistant.test_cli import run

T0 = datetime(2026, 3, 10, 13, 30, tzinfo=UTC)


def settings_for(tmp_path: Path, url: str) -> Settings:
    return load_settings(data_dir=tmp_path / "data", timezone="Europe/Berlin", database_url=url)


class Recorder:
    """A notifier that keeps what it delivered."""

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.arrived = asyncio.Event()

    async def deliver(self, delivery: Delivery) -> DeliveryStatus:
        self.texts.append(delivery.text)
        self.arrived.set()
        return DeliveryStatus.DELIVERED


async def test_every_store_lives_in_the_database(tmp_path: Path, postgres_url: str) -> None:
    settings = settings_for(tmp_path, postgres_url)
    clock = ManualClock(T0)
    async with open_app(settings, clock=clock) as app:
        await app.agent.handle_message(
            "note: the wifi password is hunter2", user_id=LOCAL_USER, chat_id=LOCAL_CHAT
        )
        await app.agent.handle_message(
            "remind me in 5 minutes to stretch", user_id=LOCAL_USER, chat_id=LOCAL_CHAT
        )
    assert not (tmp_path / "data" / "assistant.db").exists()

    recorder = Recorder()
    async with open_app(settings, notifier=recorder, clock=clock) as again:
        hits = await again.memory.search_memory(LOCAL_USER, "wifi password")
        assert hits[0].kind is HitKind.NOTE and "hunter2" in hits[0].text
        history = await again.memory.load_conversation(LOCAL_USER, LOCAL_CHAT)
        assert len({m.turn_id for m in history}) == 2
        clock.advance(timedelta(minutes=5))
        assert await again.tasks.run_due() == 1
    assert recorder.texts == ["stretch"]


async def test_schedulers_share_the_database_and_each_claims_its_own_chats(
    tmp_path: Path, postgres_url: str
) -> None:
    settings = settings_for(tmp_path, postgres_url)
    clock = ManualClock(T0)
    terminal, bot = Recorder(), Recorder()
    async with (
        open_app(settings, notifier=terminal, clock=clock, run_scheduler=True,
                 serves=ChatScope.just([LOCAL_CHAT])) as here,
        open_app(settings, notifier=bot, clock=clock, run_scheduler=True,
                 serves=ChatScope.all_but([LOCAL_CHAT])) as there,
    ):  # fmt: skip
        for chat in (LOCAL_CHAT, "123456"):
            await here.agent.handle_message(
                f"remind me in 1 minute to call {chat}", user_id=LOCAL_USER, chat_id=chat
            )
        clock.advance(timedelta(minutes=1))  # both timers wake; each claims its own chats
        async with asyncio.timeout(5):
            await terminal.arrived.wait()
            await bot.arrived.wait()
        await here.tasks.wait_idle()
        await there.tasks.wait_idle()
    assert terminal.texts == ["call local"]
    assert bot.texts == ["call 123456"]


def test_a_database_url_must_be_postgresql_and_is_never_echoed(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="ASSISTANT_DATABASE_URL: must be a PostgreSQL URL") as e:
        settings_for(tmp_path, "mysql://bob:hunter2@db.example/assistant")
    assert "hunter2" not in str(e.value)
    assert settings_for(tmp_path, "  ").postgres_url is None
    # Every log line is scrubbed of the password, as written and decoded.
    url = "postgresql://bob:hunter%402@db.example/assistant"
    assert {"hunter%402", "hunter@2"} <= set(settings_for(tmp_path, url).secret_values())


async def test_doctor_and_backups_on_postgresql(tmp_path: Path, postgres_url: str) -> None:
    # Trust authentication ignores the password; it must still never be printed.
    url = postgres_url.replace("postgres@", "postgres:sekrit@")
    on_postgres = {"ASSISTANT_DATABASE_URL": url}
    run("ask", "note: the old sqlite note", data_dir=tmp_path)  # as before `assistant migrate`
    run("ask", "note: the wifi password is hunter2", data_dir=tmp_path, env=on_postgres)

    doctor = run("doctor", data_dir=tmp_path, env=on_postgres)
    backup = run("backup", data_dir=tmp_path, env=on_postgres, check=False)
    unreachable = {"ASSISTANT_DATABASE_URL": "postgresql://bob:sekrit@127.0.0.1:1/assistant"}
    down = run("doctor", data_dir=tmp_path, env=unreachable, check=False)
    settings = load_settings(data_dir=tmp_path, timezone="Europe/Berlin", database_url=url)
    async with open_app(settings, clock=ManualClock(T0), run_scheduler=True):
        pass

    assert "PostgreSQL 18" in doctor.stdout and "answers" in doctor.stdout
    assert f"memory version {MEMORY_SCHEMA}, proactive version 1, tasks version 4" in doctor.stdout
    assert "tasks: 0 live, 0 finished; run ledger: 0 rows in full" in doctor.stdout
    assert "MB" in doctor.stdout and "retention: ledger rows older than 1 day" in doctor.stdout
    assert f"{tmp_path / 'assistant.db'} is not used" in doctor.stdout
    assert "pg_dump" in doctor.stdout and "No problems found." in doctor.stdout
    assert backup.returncode == 1 and "pg_dump" in backup.stderr
    assert down.returncode == 1 and "PROBLEM  cannot connect" in down.stdout
    assert "check ASSISTANT_DATABASE_URL" in down.stdout
    everything = doctor.stdout + doctor.stderr + backup.stderr + down.stdout + down.stderr
    assert "sekrit" not in everything
    # The SQLite file holds nothing current: neither command nor scheduler copies it.
    assert not (tmp_path / "backups").exists()

"""``assistant migrate``: a SQLite installation copied into PostgreSQL, whole and verified."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import asyncpg

from assistant.app import LOCAL_CHAT, LOCAL_USER, App, open_app
from assistant.config import load_settings
from assistant.migrate import migrate, source_path
from common import ManualClock
from tools import ApprovalRequest, RiskLevel

T0 = datetime(2026, 3, 10, 13, 30, tzinfo=UTC)


def assistant(*args: str, data_dir: Path) -> subprocess.CompletedProcess[str]:
    """Run ``assistant ARGS`` in a fresh process on ``data_dir``."""
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(data_dir),
        "ASSISTANT_DATA_DIR": str(data_dir),
        "ASSISTANT_TIMEZONE": "Europe/Berlin",
    }
    return subprocess.run(
        [sys.executable, "-m", "assistant.cli", *args],
        capture_output=True, text=True, env=env, cwd=data_dir, timeout=120, check=False,
    )  # fmt: skip


async def analysed(url: str, table: str) -> bool:
    """Whether ``table`` was vacuumed and analysed by hand (not by the server's autovacuum)."""
    conn = await asyncpg.connect(url)
    try:
        row = await conn.fetchrow(
            "SELECT last_vacuum, last_analyze FROM pg_stat_user_tables WHERE relname = $1", table
        )
    finally:
        await conn.close()
    return row is not None and row["last_vacuum"] is not None and row["last_analyze"] is not None


async def fill(app: App, clock: ManualClock) -> None:
    """Notes, turns, a zone, a setting, an approval, tasks and ledger rows."""
    say = app.agent.handle_message
    await say("note: the wifi password is hunter2 #home", user_id=LOCAL_USER, chat_id=LOCAL_CHAT)
    await say("remind me in 5 minutes to stretch", user_id=LOCAL_USER, chat_id=LOCAL_CHAT)
    await say("every day at 9am remind me to water the plants", user_id=LOCAL_USER, chat_id="42")
    await app.memory.set_timezone(LOCAL_USER, "Europe/Berlin")
    await app.memory.set_setting(LOCAL_USER, "language", "de")
    await app.memory.save_approval(
        ApprovalRequest(
            id="apr1", tool_name="api_call", arguments={"url": "http://home.lan/off"},
            user_id=LOCAL_USER, chat_id=LOCAL_CHAT, created_at=T0,
            expires_at=T0 + timedelta(minutes=30), call_id="c1", risk_level=RiskLevel.HIGH,
        )
    )  # fmt: skip
    clock.advance(timedelta(minutes=5))
    assert await app.tasks.run_due() == 1
    await app.memory.clear_conversation(LOCAL_USER, "42")  # archived turns move too


async def snapshot(app: App) -> dict[str, object]:
    """What a user can see of an installation."""
    tasks = await app.tasks.list_tasks(LOCAL_USER, include_finished=True)
    return {
        "tasks": tasks,
        "runs": [await app.tasks.history(t.id, LOCAL_USER) for t in tasks],
        "notes": await app.memory.list_notes(LOCAL_USER),
        "found": [h.text for h in await app.memory.search_memory(LOCAL_USER, "wifi password")],
        "turns": await app.memory.load_conversation(LOCAL_USER, LOCAL_CHAT),
        "user": await app.memory.get_user(LOCAL_USER),
        "approvals": await app.memory.list_approvals(LOCAL_USER, status=None),
    }


async def test_an_installation_moves_whole_and_verified(tmp_path: Path, postgres_url: str) -> None:
    data_dir = tmp_path / "data"
    clock = ManualClock(T0)
    sqlite = load_settings(data_dir=data_dir, timezone="Europe/Berlin")
    async with open_app(sqlite, clock=clock) as app:
        await fill(app, clock)
        before = await snapshot(app)
    # Trust authentication ignores the password; it must still never be printed.
    target = postgres_url.replace("postgres@", "postgres:sekrit@")

    done = assistant("migrate", "--to", target, data_dir=data_dir)

    assert done.returncode == 0, done.stderr
    assert "sekrit" not in done.stdout + done.stderr
    assert "every count verified" in done.stdout
    assert "scheduled_tasks" in done.stdout and "task_runs" in done.stdout
    assert "were vacuumed and analysed" in done.stdout
    assert await analysed(target, "scheduled_tasks") and await analysed(target, "notes")
    on_postgres = load_settings(data_dir=data_dir, timezone="Europe/Berlin", database_url=target)
    async with open_app(on_postgres, clock=clock) as app:
        assert await snapshot(app) == before
        once = next(t for t in before["tasks"] if t.schedule.kind == "once")  # type: ignore[attr-defined]
        copied_runs = [r.id for runs in before["runs"] for r in runs]  # type: ignore[attr-defined]
        again = await app.tasks.run_now(once.id, LOCAL_USER)
        assert again.id > max(copied_runs)  # the ledger's ids continue after the copied ones
        note = await app.memory.add_note(LOCAL_USER, "a new note")
        assert note.id > max(n.id for n in before["notes"])  # type: ignore[attr-defined]

    refused = assistant("migrate", "--to", target, data_dir=data_dir)
    assert refused.returncode == 1
    assert "the target database is not empty" in refused.stderr
    assert "sekrit" not in refused.stdout + refused.stderr


async def test_migrating_needs_a_source_and_a_stopped_scheduler(
    tmp_path: Path, postgres_url: str
) -> None:
    missing = assistant("migrate", "--to", postgres_url, data_dir=tmp_path)
    assert missing.returncode == 1 and "there is no SQLite database" in missing.stderr
    no_target = assistant("migrate", data_dir=tmp_path)
    assert no_target.returncode == 2 and "--to postgresql://" in no_target.stderr

    settings = load_settings(data_dir=tmp_path / "data", timezone="Europe/Berlin")
    async with open_app(settings, run_scheduler=True):
        busy = assistant("migrate", "--to", postgres_url, data_dir=tmp_path / "data")
    assert busy.returncode == 1 and "stop it first" in busy.stderr


async def test_the_copy_is_of_one_moment_while_another_command_writes(
    tmp_path: Path, postgres_url: str
) -> None:
    data_dir = tmp_path / "data"
    clock = ManualClock(T0)
    async with open_app(
        load_settings(data_dir=data_dir, timezone="Europe/Berlin"), clock=clock
    ) as app:
        await fill(app, clock)
        before = await snapshot(app)
    asked: list[subprocess.CompletedProcess[str]] = []

    def meanwhile(line: str) -> None:
        if line.startswith("  users:"):  # `ask` takes no scheduler lock: it writes now
            asked.append(assistant("ask", "note: written during the copy", data_dir=data_dir))

    await migrate(source_path(f"sqlite:{data_dir / 'assistant.db'}"), postgres_url, say=meanwhile)

    assert [done.returncode for done in asked] == [0], asked
    on_postgres = load_settings(
        data_dir=data_dir, timezone="Europe/Berlin", database_url=postgres_url
    )
    async with open_app(on_postgres, clock=clock) as app:
        assert await snapshot(app) == before

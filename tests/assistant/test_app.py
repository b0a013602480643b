"""The composition root builds a working application from settings."""

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from agent.llm import LocalBackend, Order, ScriptedBackend
from assistant.app import LOCAL_CHAT, LOCAL_USER, open_app
from assistant.builtin import NOT_CONFIGURED
from assistant.config import ConfigError, Settings, load_settings
from common import ManualClock
from tasks import Delivery, DeliveryStatus, RunStatus, parse_schedule
from tests.agent.llm.real_models import smollm2_path

_BUILTIN = {
    "add_reminder",
    "add_recurring_task",
    "list_tasks",
    "cancel_task",
    "pause_task",
    "resume_task",
    "snooze_task",
    "reschedule_task",
    "task_history",
    "add_monitor",
    "quiet_hours",
    "morning_briefing",
    "acknowledge_task",
    "save_note",
    "search_memory",
    "get_current_time",
    "search_web",
    "fetch_url",
    "api_call",
    "execute_code",
}


def settings_for(tmp_path: Path) -> Settings:
    return load_settings(data_dir=tmp_path / "data", timezone="Europe/Berlin")


async def test_every_builtin_tool_is_registered(tmp_path: Path) -> None:
    async with open_app(settings_for(tmp_path)) as app:
        assert set(app.registry.names()) == _BUILTIN
        assert (tmp_path / "data" / "assistant.db").is_file()


async def test_only_the_builtin_tools_that_just_read_run_in_parallel(tmp_path: Path) -> None:
    async with open_app(settings_for(tmp_path)) as app:
        parallel = {each.name for each in app.registry if each.parallel}
    assert parallel == {
        "list_tasks",
        "task_history",
        "search_memory",
        "get_current_time",
        "search_web",
        "fetch_url",
    }


async def test_custom_tools_load_and_a_broken_file_is_skipped(tmp_path: Path) -> None:
    folder = tmp_path / "data" / "custom_tools"
    folder.mkdir(parents=True)
    (folder / "dice.py").write_text(
        "from tools import tool\n\n\n"
        "@tool\ndef roll(sides: int = 6) -> int:\n"
        '    """Roll a die."""\n    return sides\n'
    )
    (folder / "broken.py").write_text("raise RuntimeError('half-written file')\n")
    async with open_app(settings_for(tmp_path)) as app:
        assert "roll" in app.registry
        [failure] = app.custom_tools.failures
        assert failure.path.name == "broken.py"
        assert "half-written file" in failure.error


async def test_a_reminder_made_by_chat_fires_through_the_notifier(tmp_path: Path) -> None:
    delivered: list[str] = []

    class Recorder:
        async def deliver(self, delivery: Delivery) -> DeliveryStatus:
            delivered.append(delivery.text)
            return DeliveryStatus.DELIVERED

    clock = ManualClock(datetime(2026, 3, 10, 13, 30, tzinfo=UTC))
    async with open_app(settings_for(tmp_path), notifier=Recorder(), clock=clock) as app:
        reply = await app.agent.handle_message(
            "remind me in 5 minutes to stretch", user_id=LOCAL_USER, chat_id=LOCAL_CHAT
        )
        assert "Europe/Berlin" in reply.text
        assert "14:35" in reply.text
        clock.advance(timedelta(minutes=5))
        assert await app.tasks.run_due() == 1
    assert delivered == ["stretch"]


async def test_moving_a_recurring_reminder_to_a_day_keeps_its_time(tmp_path: Path) -> None:
    clock = ManualClock(datetime(2026, 3, 10, 13, 30, tzinfo=UTC))  # a Tuesday
    async with open_app(settings_for(tmp_path), clock=clock) as app:

        async def say(text: str) -> str:
            reply = await app.agent.handle_message(text, user_id=LOCAL_USER, chat_id=LOCAL_CHAT)
            return reply.text

        await say("remind me every weekday at 8:30 to check the mail")
        moved = await say("move the mail reminder to friday")
        [task] = await app.tasks.list_tasks(LOCAL_USER)
    assert task.schedule.describe() == "every Friday at 08:30 (Europe/Berlin)"
    assert "now every Friday at 08:30 (Europe/Berlin), was every weekday at 08:30" in moved


async def test_one_scheduler_per_data_dir(tmp_path: Path) -> None:
    settings = settings_for(tmp_path)
    async with open_app(settings, run_scheduler=True):
        with pytest.raises(ConfigError, match=r"already running on.*`assistant web`"):
            async with open_app(settings, run_scheduler=True):
                pass
        async with open_app(settings) as reader:  # `assistant ask` and `tasks` still work
            assert await reader.tasks.list_tasks(LOCAL_USER) == []
    async with open_app(settings, run_scheduler=True):  # released on exit
        pass


async def test_a_failed_web_search_task_is_a_failed_run_with_the_reason(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    clock = ManualClock(datetime(2026, 3, 10, 13, 30, tzinfo=UTC))
    async with open_app(settings_for(tmp_path), clock=clock) as app:
        task = await app.tasks.add_task(
            owner_id=LOCAL_USER,
            chat_id=LOCAL_CHAT,
            task_type="web_search",
            schedule=parse_schedule("every day at 8am", now=clock.now(), tz=app.settings.zone),
            description="top US news",
        )
        run = await app.tasks.run_now(task.id, LOCAL_USER)
    # No SERPAPI_API_KEY: the scheduler records the search's own message, no traceback.
    assert (run.status, run.error) == (RunStatus.FAILED, NOT_CONFIGURED)
    assert not [r for r in caplog.records if r.exc_info]


async def test_a_local_model_path_takes_precedence_over_a_base_url(tmp_path: Path) -> None:
    settings = load_settings(
        data_dir=tmp_path / "data",
        llm_model_path=smollm2_path(),
        llm_base_url="http://127.0.0.1:9/v1",
        llm_ctx=1024,
    )
    async with open_app(settings) as app:
        assert app.model is not None
        model = await app.model.ready()
        assert isinstance(model, LocalBackend)
        assert model.context_tokens == 1024


async def test_a_model_file_that_is_missing_stops_the_start_with_one_message(
    tmp_path: Path,
) -> None:
    missing = load_settings(data_dir=tmp_path / "data", llm_model_path=tmp_path / "gone.gguf")
    with pytest.raises(ConfigError, match="ASSISTANT_LLM_MODEL_PATH: there is no file"):
        async with open_app(missing):
            pass


async def test_a_model_that_cannot_load_fails_only_the_turns_that_need_it(tmp_path: Path) -> None:
    damaged = tmp_path / "damaged.gguf"
    damaged.write_bytes(b"GGUF" + b"\x00" * 64)
    settings = load_settings(data_dir=tmp_path / "data", llm_model_path=damaged)
    async with open_app(settings, preload_model=True) as app:
        planned = await app.agent.handle_message(
            "remind me in 5 minutes to stretch", user_id=LOCAL_USER, chat_id=LOCAL_CHAT
        )
        asked = await app.agent.handle_message(
            "write a haiku about the sea", user_id=LOCAL_USER, chat_id=LOCAL_CHAT
        )

    assert "I'll remind you" in planned.text and not planned.failed
    assert asked.failed
    assert "could not load" in asked.text and "damaged.gguf" in asked.text


async def test_a_model_answer_to_a_reminder_request_without_a_call_says_none_was_set(
    tmp_path: Path,
) -> None:
    chatty = ScriptedBackend(["Stretching is a great idea! Enjoy it."])
    model_first = settings_for(tmp_path).model_copy(update={"llm_order": Order.MODEL_FIRST})
    async with open_app(model_first, backend=chatty) as app:
        reply = await app.agent.handle_message(
            "remind me in 5 minutes to stretch", user_id=LOCAL_USER, chat_id=LOCAL_CHAT
        )
        tasks = await app.tasks.list_tasks(LOCAL_USER)

    assert tasks == []
    assert reply.text == "Stretching is a great idea! Enjoy it.\n\n(No reminder was set.)"


async def test_no_note_when_the_model_did_the_action_or_nothing_was_asked(
    tmp_path: Path,
) -> None:
    call = '```json\n{"tool": "add_reminder", "args": {"when": "in 5 minutes", "message": "stretch"}}\n```'
    doing = ScriptedBackend([call, "Done, in 5 minutes.", "Hello to you too!"])
    model_first = settings_for(tmp_path).model_copy(update={"llm_order": Order.MODEL_FIRST})
    async with open_app(model_first, backend=doing) as app:
        done = await app.agent.handle_message(
            "remind me in 5 minutes to stretch", user_id=LOCAL_USER, chat_id=LOCAL_CHAT
        )
        chat = await app.agent.handle_message("hello!", user_id=LOCAL_USER, chat_id=LOCAL_CHAT)

    assert done.text == "Done, in 5 minutes."
    assert chat.text == "Hello to you too!"


async def test_the_offline_planner_needs_no_such_note(tmp_path: Path) -> None:
    async with open_app(settings_for(tmp_path)) as app:
        reply = await app.agent.handle_message(
            "remind me in 5 minutes to stretch", user_id=LOCAL_USER, chat_id=LOCAL_CHAT
        )
    assert "No reminder was set" not in reply.text
    assert "stretch" in reply.text

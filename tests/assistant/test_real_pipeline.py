"""The sentences of the issue, with each real small model in process: the planner does what it
understands without the model, the model answers the question and writes an agent task's
prompt, and every turn ends right. (Slow: a few model calls per model.)"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from assistant.app import LOCAL_CHAT, LOCAL_USER, open_app
from assistant.config import load_settings
from common import ManualClock
from tasks import AgentTaskData, ReminderData, TaskType
from tests.agent.llm.real_models import real_model_path

NOW = datetime(2026, 3, 10, 13, 30, tzinfo=UTC)
"""Tuesday 14:30 in Berlin."""


@pytest.mark.parametrize("model", ["smollm2", "gemma"])
async def test_the_issue_s_sentences_with_a_real_model(tmp_path: Path, model: str) -> None:
    settings = load_settings(
        data_dir=tmp_path / "data",
        timezone="Europe/Berlin",
        llm_model_path=real_model_path(model),  # Gemma: no template setting
        llm_max_tokens=64,
    )
    async with open_app(settings, clock=ManualClock(NOW), preload_model=True) as app:

        async def say(text: str) -> tuple[str, int]:
            reply = await app.agent.handle_message(text, user_id=LOCAL_USER, chat_id=LOCAL_CHAT)
            calls = reply.model_calls
            for request in reply.approvals:  # an agent task asks first, its prompt shown
                reply = await app.agent.resolve_approval(request.id, approved=True, by=LOCAL_USER)
            return reply.text, calls

        oven, oven_calls = await say("remind me in 10 minutes to check the oven")
        stand, stand_calls = await say("every weekday at 9am remind me to stand up")
        listing, listing_calls = await say("what are my tasks?")
        capital, capital_calls = await say("what is the capital of France?")
        news, news_calls = await say("every morning at 7 summarize the news")
        tasks = {task.description: task for task in await app.tasks.list_tasks(LOCAL_USER)}

    assert (oven_calls, stand_calls, listing_calls) == (0, 0, 0)
    assert oven.startswith("I'll remind you today at 14:40 (Europe/Berlin) to check the oven")
    assert stand.startswith("I'll remind you every weekday at 09:00 (Europe/Berlin) to stand up")
    assert "check the oven" in listing and "stand up" in listing
    assert tasks["check the oven"].execution == ReminderData(message="check the oven")
    assert tasks["stand up"].schedule.describe() == "every weekday at 09:00 (Europe/Berlin)"

    assert capital_calls == 1
    assert "Paris" in capital, capital
    assert "oven" not in capital and "bake" not in capital

    assert news_calls == 1
    summary = tasks["summarize the news"]
    assert summary.task_type is TaskType.AGENT_TASK
    assert summary.schedule.describe() == "every day at 07:00 (Europe/Berlin)"
    assert summary.next_run == datetime(2026, 3, 11, 6, 0, tzinfo=UTC)
    assert isinstance(summary.execution, AgentTaskData)
    written = summary.execution.prompt  # the model's (the user's words when it fails)
    assert written != "summarize the news" and "news" in written.lower(), written
    assert f"Each time it runs I'll answer: {written!r}" in news

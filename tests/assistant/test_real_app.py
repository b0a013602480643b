"""The whole application driven by a real model in process (SmolLM2-135M), for a few turns.

What must hold for any model, however unwise: nothing crashes, every turn is stored whole or
not at all, every call the model makes is validated before it runs, and no reply claims an
action that did not happen.
"""

from __future__ import annotations

import io
from pathlib import Path

from agent import AgentEvent, AgentEventKind, find_statements
from assistant.app import LOCAL_CHAT, LOCAL_USER, open_app
from assistant.config import Settings, load_settings
from assistant.frontends import chat
from memory import StoredMessage
from tests.agent.llm.real_models import smollm2_path
from tools import ToolResult, ToolStatus

SAID = ["remind me in 10 minutes to check the oven", "cancel the oven reminder"]


def settings_for(tmp_path: Path) -> Settings:
    # Short answers and few rounds keep the test short; fitting small windows is tested
    # in test_budget (a fitted prompt changes between rounds, so the model's cache misses).
    return load_settings(
        data_dir=tmp_path / "data",
        timezone="Europe/Berlin",
        llm_model_path=smollm2_path(),
        llm_max_tokens=32,
        max_rounds=2,
    )


def assert_whole_turns(messages: list[StoredMessage]) -> None:
    """Each stored turn opens with the user's message and closes with the assistant's."""
    turns: dict[int | None, list[StoredMessage]] = {}
    for message in messages:
        turns.setdefault(message.turn_id, []).append(message)
    for turn in turns.values():
        assert turn[0].role == "user", turn
        assert turn[-1].role == "assistant", turn


async def test_turns_through_the_app_are_validated_stored_whole_and_honest(
    tmp_path: Path,
) -> None:
    results: list[ToolResult] = []

    def record(event: AgentEvent) -> None:
        if event.kind is AgentEventKind.TOOL_FINISHED and event.result is not None:
            results.append(event.result)

    async with open_app(settings_for(tmp_path), on_event=record) as app:
        replies = [
            await app.agent.handle_message(words, user_id=LOCAL_USER, chat_id=LOCAL_CHAT)
            for words in SAID
        ]
        stored = await app.memory.load_conversation(LOCAL_USER, LOCAL_CHAT, max_turns=None)
        tasks = await app.tasks.list_tasks(LOCAL_USER, include_finished=True)
        notes = await app.memory.list_notes(LOCAL_USER)

    assert all(reply.text.strip() for reply in replies)
    for result in results:
        known = result.call.tool_name in app.registry
        assert known or result.status is ToolStatus.INVALID, result
        if result.status is ToolStatus.INVALID:
            assert result.error  # what was wrong went back to the model
    assert_whole_turns(stored)
    assert len([m for m in stored if m.role == "user"]) == len(SAID)
    changed = bool(tasks or notes)
    for reply in replies:
        if find_statements(reply.text):
            assert changed, reply.text


async def test_the_terminal_chat_with_a_real_model(tmp_path: Path) -> None:
    typed = io.StringIO("\n".join([*SAID, "/tasks"]) + "\n")
    shown = io.StringIO()

    status = await chat(settings_for(tmp_path), input=typed, output=shown)

    text = shown.getvalue()
    assert status == 0
    assert "Something went wrong" not in text
    assert "Traceback" not in text
    async with open_app(settings_for(tmp_path)) as app:
        stored = await app.memory.load_conversation(LOCAL_USER, LOCAL_CHAT, max_turns=None)
    assert_whole_turns(stored)
    assert len([m for m in stored if m.role == "user"]) == len(SAID)

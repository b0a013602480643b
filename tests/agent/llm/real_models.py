"""Real models for the tests, installed by ``./scripts/setup dev``.

The models ship inside packages on the registry. When one is missing the tests that need it
fail with the reason (they are never skipped).
"""

from __future__ import annotations

import pytest

from agent.llm import ChatMessage, Role
from testing.models import GEMMA, SMOLLM2, ModelMissingError, model_path
from tools import ToolCall, ToolResult, ToolStatus


def real_model_path(name: str) -> str:
    """The GGUF file of a known model; fails the test (never skips) when it is missing."""
    try:
        return str(model_path(name))
    except ModelMissingError as exc:
        pytest.fail(str(exc))


def smollm2_path() -> str:
    """SmolLM2-135M-Instruct (it has a chat template)."""
    return real_model_path(SMOLLM2.name)


def gemma_path() -> str:
    """The assembled Gemma 3 270M file (it has no chat template)."""
    return real_model_path(GEMMA.name)


def example_turns() -> list[ChatMessage]:
    """Two earlier turns in which the assistant called tools, so a tiny model imitates them."""
    return [
        *_turn("remind me at 5pm to call mom", "add_reminder", when="at 5pm", message="call mom"),
        *_turn("note: the door code is 1234", "save_note", content="the door code is 1234"),
    ]


def _turn(said: str, tool: str, **args: str) -> list[ChatMessage]:
    call = ToolCall(tool, dict(args))
    result = ToolResult(call=call, status=ToolStatus.OK, text="done")
    return [
        ChatMessage(Role.USER, said),
        ChatMessage(Role.ASSISTANT, "", tool_calls=(call,)),
        ChatMessage(Role.TOOL, "done", tool_call_id=call.id, results=(result,)),
        ChatMessage(Role.ASSISTANT, "Done."),
    ]

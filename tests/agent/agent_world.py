"""An agent wired to tools with observable effects, for the agent and backend tests."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from agent import AgentEvent, AgentReply, DialogAgent, InMemoryConversations
from agent.llm import ChatMessage, LLMBackend, LLMResponse, ScriptedBackend
from common import ManualClock
from memory import MemoryStore
from tools import ToolCall, ToolContext, ToolExecutor, ToolRegistry, tool

NOW = datetime(2025, 3, 14, 12, 0, tzinfo=UTC)


def fence(name: str, **args: Any) -> str:
    """A call in the text contract."""
    return f"```json\n{json.dumps({'tool': name, 'args': args})}\n```"


def native(name: str, call_id: str = "c1", **args: Any) -> LLMResponse:
    """A native call."""
    return LLMResponse(tool_calls=(ToolCall(name, args, id=call_id),))


class Home:
    """Tools with observable effects."""

    def __init__(self) -> None:
        self.reminders: list[tuple[str, str]] = []
        self.posts: list[str] = []
        self.tasks = {"alice": ["t1", "t2"], "bob": ["t9"]}

    def task_ids(self, ctx: ToolContext) -> list[str]:
        return self.tasks.get(ctx.user_id, [])

    @tool
    def get_current_time(self, ctx: ToolContext) -> str:
        """Return the current local time."""
        return f"{ctx.local_now:%H:%M} {ctx.timezone}"

    @tool
    def add_reminder(self, when: str, message: str) -> str:
        """Set a reminder.

        Args:
            when: When, in the user's words.
            message: What to remind of.
        """
        self.reminders.append((when, message))
        return f"reminder set {when}: {message}"

    @tool(params={"task_id": {"enum": task_ids}})
    def cancel_task(self, task_id: str) -> str:
        """Cancel a task."""
        return f"cancelled {task_id}"

    @tool(requires_approval=True, risk_level="high")
    def post(self, url: str) -> str:
        """POST to a URL."""
        self.posts.append(url)
        return f"POST {url} -> 200"


class World:
    """An agent wired to a model, with its tools, stores and recorded events."""

    def __init__(
        self,
        backend: LLMBackend,
        *,
        memory: MemoryStore | None = None,
        **options: Any,
    ) -> None:
        self.home = Home()
        self.registry = ToolRegistry([self.home])
        self.clock = ManualClock(NOW)
        self.conversations = InMemoryConversations(zones={"alice": "Europe/Berlin"})
        self.executor = ToolExecutor(self.registry, approvals=memory, clock=self.clock)
        self.backend = backend
        self.events: list[AgentEvent] = []
        self.agent = DialogAgent(
            backend=self.backend,
            registry=self.registry,
            executor=self.executor,
            memory=memory or self.conversations,
            clock=self.clock,
            **{"on_event": self.events.append, **options},
        )

    async def say(self, text: str, user: str = "alice") -> AgentReply:
        return await self.agent.handle_message(text, user_id=user, chat_id="chat-" + user)

    def sent(self, index: int) -> list[ChatMessage]:
        """The messages of the model's ``index``-th request (scripted backends only)."""
        assert isinstance(self.backend, ScriptedBackend)
        return list(self.backend.calls[index].messages)

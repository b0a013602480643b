"""What the front ends use of the agent, as a protocol (tests hand in agents that wrap it).

``assistant.app`` builds the ``DialogAgent``, the ``TaskManager`` and the ``MemoryStore`` and
hands them in; the front ends take the task manager and memory as they are. The agent's
replies and progress events are the agent's own types (``agent.AgentReply``,
``agent.AgentEvent``): a front end reads them as they are, and a kind of event it does not
handle is a type error, not a silent gap.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol
from zoneinfo import ZoneInfo

from agent import AgentReply, ApprovalReply, EventCallback
from tools import Tool


class ChatAgent(Protocol):
    """What the interfaces need from the agent (``agent.DialogAgent``)."""

    async def handle_message(
        self,
        text: str,
        *,
        user_id: str,
        chat_id: str,
        profile: Mapping[str, str] | None = None,
        on_event: EventCallback | None = None,
    ) -> AgentReply:
        """Answer one message; ``profile`` is what the interface knows of the user; with
        ``on_event`` the reply streams to it as it is written."""
        ...

    async def resolve_approval(
        self,
        request_id: str,
        *,
        approved: bool,
        by: str,
        on_event: EventCallback | None = None,
    ) -> ApprovalReply:
        """Run (or refuse) the call behind an approval request and continue the turn; the
        reply says what became of the decision."""
        ...

    async def reset(self, *, user_id: str, chat_id: str) -> None:
        """Start a fresh conversation in the chat."""
        ...

    async def user_zone(self, user_id: str) -> ZoneInfo:
        """The user's time zone."""
        ...

    def available_tools(self) -> Sequence[Tool]:
        """The tools the model may call, in order."""
        ...

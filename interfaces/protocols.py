"""What the interfaces use of the services they are handed, as small protocols.

``assistant.app`` builds the ``DialogAgent``, the ``TaskManager`` and the ``MemoryStore`` and
hands them in; each satisfies the protocol here that names what an interface uses of it (tests
hand in smaller ones). The agent's replies and progress events are the agent's own types
(``agent.AgentReply``, ``agent.AgentEvent``): a front end reads them as they are, and a kind
of event it does not handle is a type error, not a silent gap.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Protocol
from zoneinfo import ZoneInfo

from agent import AgentReply, ApprovalReply, EventCallback
from memory import MemoryHit, Note, StoredMessage, UserProfile
from tasks import LedgerSummary, Task, TaskRun
from tools import ApprovalRequest, ApprovalStatus, Tool


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

    async def find_approval(self, request_id: str, *, user_id: str) -> ApprovalRequest | None:
        """The approval request if ``user_id`` made it; another user's reads like a missing one."""
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


class TaskService(Protocol):
    """What the interfaces need from the task manager (``tasks.TaskManager``)."""

    async def list_tasks(
        self,
        owner_id: str,
        *,
        include_finished: bool = False,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[Task]: ...
    async def get_task(self, task_id: str, owner_id: str) -> Task: ...
    async def history(
        self, task_id: str, owner_id: str, *, limit: int = 20, offset: int = 0
    ) -> list[TaskRun]: ...
    async def ledger_summary(self, task_id: str, owner_id: str) -> LedgerSummary | None: ...
    async def cancel(self, task_id: str, owner_id: str) -> Task: ...
    async def pause(self, task_id: str, owner_id: str) -> Task: ...
    async def resume(self, task_id: str, owner_id: str) -> Task: ...
    async def snooze(self, task_id: str, owner_id: str, delay: timedelta) -> Task: ...
    async def run_now(self, task_id: str, owner_id: str) -> TaskRun: ...
    async def rezone(self, owner_id: str, *, made_in: ZoneInfo, to: ZoneInfo) -> list[Task]: ...


class MemoryService(Protocol):
    """What the interfaces need from memory (``memory.MemoryStore``)."""

    async def list_notes(self, user_id: str, limit: int = 20, offset: int = 0) -> list[Note]: ...
    async def load_conversation(
        self, user_id: str, chat_id: str, *, max_chars: int = ..., max_turns: int | None = ...
    ) -> list[StoredMessage]: ...
    async def search_memory(self, user_id: str, query: str, limit: int = 5) -> list[MemoryHit]: ...

    async def search_notes(self, user_id: str, query: str, limit: int = 5) -> list[MemoryHit]: ...
    async def get_user(self, user_id: str) -> UserProfile | None: ...
    async def set_timezone(self, user_id: str, timezone: str) -> UserProfile: ...
    async def get_setting(
        self, user_id: str, key: str, default: str | None = None
    ) -> str | None: ...
    async def set_setting(self, user_id: str, key: str, value: str) -> None: ...
    async def list_approvals(
        self, user_id: str, *, status: ApprovalStatus | None = ApprovalStatus.PENDING
    ) -> list[ApprovalRequest]: ...

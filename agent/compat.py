"""The agent as the seed designs spell it: one more name for each operation, nothing new.

The core ``agent.DialogAgent`` has one name per operation. Code written for the designs this
project absorbs (``../shared/seeds/``) calls the same operations by other names; this module's
``DialogAgent`` is the core agent with those names added, so such code runs as written once
it imports from here:

    seed spelling                       core operation
    ``await agent.chat(text)``          ``(await agent.handle_message(text, ...)).text``
    ``_system_messages()`` hook         ``system_messages(ctx, mode)``: extra messages after it
    ``_finalize_response(text)`` hook   ``finalize_response(text)``: touched after it
    ``agent._build_tool_defs()``        ``tools.tool_definitions(agent.registry, ctx)`` as dicts
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Mapping, Sequence
from typing import Any

from agent.dialog import DialogAgent as CoreAgent
from agent.llm import ChatMessage, ToolMode
from agent.turn import as_messages
from tools import ToolContext, ToolError

SystemMessages = (
    Sequence[ChatMessage | Mapping[str, str]] | Awaitable[Sequence[ChatMessage | Mapping[str, str]]]
)
"""What ``_system_messages`` returns: messages or role/content dicts, or an awaitable of them."""


class DialogAgent(CoreAgent):
    """``agent.DialogAgent`` with the seed designs' names for its operations and hooks.

    A subclass may write ``_system_messages()`` (extra system messages: ``ChatMessage`` values
    or ``{"role", "content"}`` dicts, sync or async), sent after the agent's own prompt, and
    ``_finalize_response(text)``, the last touch on the reply.
    """

    async def chat(self, text: str, *, user_id: str = "local", chat_id: str = "local") -> str:
        """Answer one message and return the reply's text (the local user by default)."""
        reply = await self.handle_message(text, user_id=user_id, chat_id=chat_id)
        return reply.text

    async def system_messages(self, ctx: ToolContext, mode: ToolMode) -> list[ChatMessage]:
        """The agent's own system messages, then the ``_system_messages`` hook's."""
        extra: object = self._system_messages()
        extra = await extra if inspect.isawaitable(extra) else extra
        return [*await super().system_messages(ctx, mode), *as_messages(extra)]

    def finalize_response(self, text: str) -> str:
        """The core's touch, then the ``_finalize_response`` hook's."""
        return self._finalize_response(super().finalize_response(text))

    def _system_messages(self) -> SystemMessages:
        """Return extra system messages, sent after the agent's own (none by default)."""
        return []

    def _finalize_response(self, text: str) -> str:
        """Return ``text`` touched last (unchanged by default)."""
        return text

    def _build_tool_defs(self) -> list[dict[str, Any]]:
        """Return ``{"name", "description", "parameters"}`` per tool, for the local user.

        A value only an asynchronous provider can give is left out (the agent awaits them
        per turn).
        """
        ctx = ToolContext(now=self._clock.now(), services=self._services)
        definitions: list[dict[str, Any]] = []
        for each in self.registry:
            try:
                schema = each.schema(ctx)
            except ToolError:
                schema = each.schema(None)
            definitions.append(
                {"name": each.name, "description": each.description, "parameters": schema}
            )
        return definitions

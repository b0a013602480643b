"""A scripted backend for tests: canned replies or a function of the conversation."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncGenerator, Callable, Sequence
from dataclasses import dataclass

from agent.llm.base import ChatMessage, LLMResponse, StreamEvent, TextDelta, ToolMode, Waiting
from agent.llm.errors import LLMError
from tools import ToolDefinition

Reply = str | LLMResponse
_WORDS = re.compile(r"\S+\s*|\s+")
Script = Callable[[Sequence[ChatMessage]], Reply]


@dataclass(frozen=True, slots=True)
class ScriptedCall:
    """One request a ``ScriptedBackend`` received, kept for assertions."""

    messages: tuple[ChatMessage, ...]
    tools: tuple[ToolDefinition, ...] | None


class ScriptedBackend:
    """Answers from a list of canned replies, in order, or from a function.

    A ``str`` reply is the model's text (contract-mode calls go in it as fenced JSON); an
    ``LLMResponse`` can carry native ``tool_calls``. Every request is recorded in ``calls``.
    Streamed, a reply's text comes word by word (each word with the spaces after it).
    """

    def __init__(
        self,
        replies: Sequence[Reply] | Script,
        *,
        mode: ToolMode = ToolMode.CONTRACT,
        waiting: Sequence[Waiting] = (),
    ) -> None:
        """Create a backend.

        Args:
            replies: The replies in order, or a function from the conversation to a reply.
            mode: ``NATIVE`` or ``CONTRACT``: what the agent should send.
            waiting: Notices a streamed reply yields before its text, as a busy model's
                queue does (``agent.llm.ModelQueue``).
        """
        if mode is ToolMode.AUTO:
            raise ValueError("a ScriptedBackend has a fixed mode: pass NATIVE or CONTRACT")
        self._mode = mode
        self._script: Script | None = replies if callable(replies) else None
        self._replies: list[Reply] = [] if callable(replies) else list(replies)
        self._served = 0
        self._waiting = tuple(waiting)
        self.calls: list[ScriptedCall] = []
        self.closed = False

    @property
    def mode(self) -> ToolMode:
        """The fixed tool mode."""
        return self._mode

    async def complete(
        self, messages: Sequence[ChatMessage], *, tools: Sequence[ToolDefinition] | None = None
    ) -> LLMResponse:
        """Return the next scripted reply.

        Raises:
            LLMError: the list of replies is used up.
        """
        self.calls.append(
            ScriptedCall(tuple(messages), tuple(tools) if tools is not None else None)
        )
        reply = self._next(messages)
        return reply if isinstance(reply, LLMResponse) else LLMResponse(text=reply)

    async def stream(
        self, messages: Sequence[ChatMessage], *, tools: Sequence[ToolDefinition] | None = None
    ) -> AsyncGenerator[StreamEvent, None]:
        """Yield the next scripted reply word by word, yielding to the loop between words."""
        for notice in self._waiting:
            yield notice
        response = await self.complete(messages, tools=tools)
        for word in _WORDS.findall(response.text):
            yield TextDelta(word)
            await asyncio.sleep(0)
        yield response

    async def aclose(self) -> None:
        """Mark the backend closed."""
        self.closed = True

    def _next(self, messages: Sequence[ChatMessage]) -> Reply:
        if self._script is not None:
            return self._script(messages)
        if self._served >= len(self._replies):
            raise LLMError(
                f"the ScriptedBackend ran out of replies after {len(self._replies)}; "
                "script one more reply"
            )
        reply = self._replies[self._served]
        self._served += 1
        return reply

"""Fit a round into a small context window: the most relevant tools, the latest conversation.

With every tool described, the prompt alone can outgrow a 2k-4k window. A backend that can
count its prompt (``SupportsTokenBudget``) lets the agent cut the round to fit instead of
sending a prompt that the model would see truncated. What must be sent is the system prompt
and this turn's messages; then, while they fit: the three tools most relevant to the user's
message, the last two exchanges, the other tools by relevance, and older exchanges. When even
the essentials do not fit, the turn ends with a ``ContextTooSmallError`` that says so.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from agent.llm.base import ChatMessage, Role, SupportsTokenBudget
from agent.llm.errors import ContextTooSmallError
from common import LazyPattern
from tools import ToolDefinition

logger = logging.getLogger(__name__)

FIRST_TOOLS = 3
"""Tools offered before any earlier conversation is."""
RECENT_EXCHANGES = 2
"""Exchanges (a user message and what followed) kept before the other tools are offered."""

_WORD = LazyPattern(r"[a-z0-9]+")
_STOPWORDS = frozenset(
    _WORD.findall(
        "a an and are at be by for from how i in is it me my of on or please the this to what "
        "when where which who with you your can do does tell give"
    )
)
_PREFIX = 5


@dataclass(frozen=True, slots=True)
class FittedRound:
    """A round cut to fit the window.

    Attributes:
        history: The earlier messages kept (the newest; starting with a user message).
        tools: The tools offered, most relevant first; ``None`` when the round has none.
        prompt_tokens: The prompt's size.
        dropped_tools: Tools left out.
        dropped_messages: Earlier messages left out.
    """

    history: list[ChatMessage]
    tools: tuple[ToolDefinition, ...] | None
    prompt_tokens: int
    dropped_tools: int = 0
    dropped_messages: int = 0


async def fit_round(
    backend: SupportsTokenBudget,
    *,
    system: Sequence[ChatMessage],
    history: Sequence[ChatMessage],
    new: Sequence[ChatMessage],
    tools: Sequence[ToolDefinition] | None,
) -> FittedRound:
    """Return the largest round that fits ``backend``'s window; see the module docstring.

    Raises:
        ContextTooSmallError: the system prompt and this turn's messages alone do not fit.
    """
    limit = backend.context_tokens - backend.answer_tokens
    every = tuple(tools) if tools is not None else None
    whole = await backend.count_tokens([*system, *history, *new], tools=every)
    if whole <= limit:
        return FittedRound(list(history), every, whole)
    fitter = _Fitter(backend, limit, system, history, new, tools)
    return await fitter.fit()


def rank_tools(tools: Sequence[ToolDefinition], text: str) -> list[ToolDefinition]:
    """Return ``tools`` most relevant to ``text`` first (ties keep their order)."""
    wanted = _words(text)
    scored = [(-_score(each, wanted), index, each) for index, each in enumerate(tools)]
    return [each for _, _, each in sorted(scored, key=lambda item: (item[0], item[1]))]


class _Fitter:
    def __init__(
        self,
        backend: SupportsTokenBudget,
        limit: int,
        system: Sequence[ChatMessage],
        history: Sequence[ChatMessage],
        new: Sequence[ChatMessage],
        tools: Sequence[ToolDefinition] | None,
    ) -> None:
        self._backend = backend
        self._limit = limit
        self._system = list(system)
        self._history = list(history)
        self._new = list(new)
        self._ranked = rank_tools(tools, _query(history, new)) if tools is not None else None
        self._tools: list[ToolDefinition] = []
        self._kept = len(self._history)  # history[self._kept:] is what is sent
        self._size = 0

    async def fit(self) -> FittedRound:
        self._kept = len(self._history)
        self._size = await self._count(self._kept, self._tools)
        if self._size > self._limit:
            raise await self._too_small()
        ranked = self._ranked or []
        await self._add_tools(ranked[:FIRST_TOOLS])
        await self._add_history(RECENT_EXCHANGES)
        await self._add_tools(ranked[FIRST_TOOLS:])
        await self._add_history(None)
        fitted = FittedRound(
            history=self._history[self._kept :],
            tools=tuple(self._tools) if self._ranked is not None else None,
            prompt_tokens=self._size,
            dropped_tools=len(ranked) - len(self._tools),
            dropped_messages=self._kept,
        )
        logger.info(
            "context of %d tokens: sent %d of %d tools and %d of %d earlier messages (%d tokens)",
            self._backend.context_tokens,
            len(self._tools),
            len(ranked),
            len(fitted.history),
            len(self._history),
            self._size,
        )
        return fitted

    async def _add_tools(self, candidates: Sequence[ToolDefinition]) -> None:
        for each in candidates:
            size = await self._count(self._kept, [*self._tools, each])
            if size <= self._limit:
                self._tools.append(each)
                self._size = size

    async def _add_history(self, exchanges: int | None) -> None:
        """Keep earlier exchanges, newest first, while they fit (at most ``exchanges`` more)."""
        added = 0
        for start in reversed(_exchange_starts(self._history[: self._kept])):
            if exchanges is not None and added >= exchanges:
                return
            size = await self._count(start, self._tools)
            if size > self._limit:
                return
            self._kept, self._size, added = start, size, added + 1

    async def _count(self, kept: int, tools: Sequence[ToolDefinition]) -> int:
        messages = [*self._system, *self._history[kept:], *self._new]
        offered = tuple(tools) if self._ranked is not None else None
        return await self._backend.count_tokens(messages, tools=offered)

    async def _too_small(self) -> ContextTooSmallError:
        """Say what does not fit: the instructions or the message, and the window that would do.

        The window named is the smallest that holds this round with the tool most relevant
        to it, once a quarter of it is kept for the answer (``answer_tokens``).
        """
        context = self._backend.context_tokens
        # The message written alone: some templates (Gemma's) write no system turn of its own.
        message = await self._backend.count_tokens(self._new, tools=None)
        instructions = max(0, self._size - message)
        useful = self._size
        if self._ranked:
            useful = await self._count(self._kept, self._ranked[:1])
        wanted = _window_for(useful)
        shorter = ", or write a shorter message" if message > instructions else ""
        return ContextTooSmallError(
            f"the assistant's instructions take {instructions:,} tokens and this message "
            f"{message:,}, more than the {self._limit:,} that ASSISTANT_LLM_CTX={context} "
            f"leaves once {self._backend.answer_tokens:,} are kept for the answer; set "
            f"ASSISTANT_LLM_CTX to at least {wanted:,}{shorter}",
            needed=wanted,
            context=context,
        )


def _window_for(prompt_tokens: int) -> int:
    """The smallest window, a multiple of 64, that holds ``prompt_tokens`` and a quarter more."""
    least = -(-prompt_tokens * 4 // 3)
    return -(-least // 64) * 64


def _exchange_starts(history: Sequence[ChatMessage]) -> list[int]:
    """Where each exchange begins: the index of every user message, oldest first."""
    return [i for i, message in enumerate(history) if message.role is Role.USER]


def _query(history: Sequence[ChatMessage], new: Sequence[ChatMessage]) -> str:
    """What the user asked last, and the names of the tools this turn called."""
    asked = next((m.content for m in reversed([*history, *new]) if m.role is Role.USER), "")
    called = [call.tool_name for m in new for call in m.tool_calls]
    return " ".join([asked, *called])


def _words(text: str) -> set[str]:
    found = set()
    for word in _WORD.findall(text.lower().replace("_", " ")):
        if len(word) >= 3 and word not in _STOPWORDS:
            found.add(word[:_PREFIX])
    return found


def _score(each: ToolDefinition, wanted: set[str]) -> float:
    name = _words(each.name)
    described = _words(each.description) | _words(str(each.parameters.get("properties", "")))
    return 3.0 * len(wanted & name) + len(wanted & described)

"""The LLM backend interface: messages in, text and/or tool calls out, whole or streamed."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol, runtime_checkable

from tools import ToolCall, ToolDefinition, ToolResult


class Role(StrEnum):
    """Who wrote a message."""

    SYSTEM = "system"
    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"


class ToolMode(StrEnum):
    """How tool calls travel between the agent and the model.

    NATIVE: the OpenAI ``tools`` / ``tool_calls`` fields.
    CONTRACT: the catalog and a JSON contract in the system prompt; calls parsed from text.
    AUTO: native, falling back to contract when the server or the model does not cope.
    """

    NATIVE = "native"
    CONTRACT = "contract"
    AUTO = "auto"


class Order(StrEnum):
    """Who reads a message first, when a language model is configured
    (``ASSISTANT_LLM_ORDER``).

    PLANNER_FIRST: the offline planner; what it understands completely is done without the
        model, what it understands in part goes to the model with its reading, the rest to
        the model alone. For small and local models (and for speed with any model).
    MODEL_FIRST: the model sees every message, as the only decider of the turn. For large
        models that should decide everything themselves.
    """

    PLANNER_FIRST = "planner-first"
    MODEL_FIRST = "model-first"


@dataclass(frozen=True, slots=True)
class ChatMessage:
    """One message of a conversation.

    Attributes:
        role: Who wrote it.
        content: Its text.
        tool_calls: Calls an assistant message made natively.
        tool_call_id: For a ``TOOL`` message, the id of the call it answers.
        results: The structured results a ``TOOL`` message (native) or a results message
            (contract) carries, so in-process backends need not re-parse ``content``.
    """

    role: Role
    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    results: tuple[ToolResult, ...] = ()


@dataclass(frozen=True, slots=True)
class Usage:
    """Tokens a completion consumed."""

    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
        )


@dataclass(frozen=True, slots=True)
class LLMResponse:
    """What one completion returned.

    Attributes:
        text: The assistant's text (may contain tool-call blocks in contract mode).
        tool_calls: Calls returned natively (``tool_calls``), already decoded. A call whose
            arguments were not valid JSON keeps ``arguments == {}`` and the provider's text
            in ``raw_json``, so validation can tell the model what was wrong.
        usage: Tokens used.
        finish_reason: Why the model stopped (``"stop"``, ``"length"``, ``"tool_calls"``),
            when the backend knows.
    """

    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage = field(default_factory=Usage)
    finish_reason: str | None = None


@dataclass(frozen=True, slots=True)
class TextDelta:
    """A piece of the model's text, as it is written (a streamed completion)."""

    text: str


@dataclass(frozen=True, slots=True)
class Waiting:
    """The request waits for a model that serves one request at a time (a local model).

    Streamed before any text, when the wait is long, and again when the place in the queue
    changes, so the person waiting can be told.

    Attributes:
        ahead: Requests that will be served before this one (the one running included).
        waited: Seconds this request has waited so far.
    """

    ahead: int
    waited: float


StreamEvent = TextDelta | Waiting | LLMResponse
"""What a streamed completion yields: text deltas (a backend with a queue may first yield
``Waiting`` notices), then the whole response, last. Consumers ignore kinds they do not know."""


class LLMBackend(Protocol):
    """A chat model. Implementations: OpenAI-compatible HTTP, the offline planner, scripted."""

    @property
    def mode(self) -> ToolMode:
        """How this backend currently wants tools: ``NATIVE`` or ``CONTRACT`` (never ``AUTO``
        once it has decided; ``AUTO`` backends report ``NATIVE`` until they fall back)."""
        ...

    async def complete(
        self, messages: Sequence[ChatMessage], *, tools: Sequence[ToolDefinition] | None = None
    ) -> LLMResponse:
        """Return the model's next message for ``messages``.

        Args:
            messages: The conversation, system prompt first.
            tools: The tools the model may call natively (``ToolMode.NATIVE``); ``None`` in
                contract mode, where the catalog is in the system prompt. A backend encodes
                them in its provider's format.
        """
        ...

    def stream(
        self, messages: Sequence[ChatMessage], *, tools: Sequence[ToolDefinition] | None = None
    ) -> AsyncGenerator[StreamEvent, None]:
        """Yield the model's text as it is written, then the whole ``LLMResponse`` (last).

        ``Waiting`` notices may come before the text. The text deltas add up to the
        response's text. A backend that cannot stream yields
        the response alone (``stream_whole``). Closing the iterator early cancels the
        completion. Raises what ``complete`` raises.
        """
        ...

    async def aclose(self) -> None:
        """Release connections."""
        ...


async def stream_whole(response: LLMResponse) -> AsyncGenerator[StreamEvent, None]:
    """Stream a response that arrived whole: its text as one delta, then the response."""
    if response.text:
        yield TextDelta(response.text)
    yield response


@runtime_checkable
class SupportsContractFallback(Protocol):
    """A backend in ``AUTO`` mode that can be told to stop using native tool calls.

    The agent calls it when a model answered a native-mode request by writing its calls as
    text; from then on the backend reports ``ToolMode.CONTRACT``.
    """

    def fall_back_to_contract(self, reason: str) -> bool:
        """Switch to the text contract if configured ``AUTO``; return whether it switched."""
        ...


@runtime_checkable
class SupportsTokenBudget(Protocol):
    """A backend that knows its context window and can count a request's prompt exactly.

    The agent uses it to fit a round into the window (the most relevant tools, the
    conversation trimmed from its oldest end) instead of sending a prompt that is cut.
    """

    @property
    def context_tokens(self) -> int:
        """The context window: prompt and answer together, in tokens."""
        ...

    @property
    def answer_tokens(self) -> int:
        """Tokens to keep free for the answer."""
        ...

    async def count_tokens(
        self, messages: Sequence[ChatMessage], *, tools: Sequence[ToolDefinition] | None = None
    ) -> int:
        """Return the prompt's size in tokens, exactly as the backend would send it.

        Raises:
            LLMModelError: the model is not loaded and cannot be.
        """
        ...

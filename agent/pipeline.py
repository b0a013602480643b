"""Understanding as a pipeline: the planner reads every message first, the model gets the rest.

With ``Order.PLANNER_FIRST`` each round of a turn starts with the planner's reading
(``Reader.read``, see ``agent.planner.reading``):

    Planned   the planner's own message (calls or its answer): no model call
    Partial   the model supplies one part: the answer to a question, in words
              (``answer_request``), or the prompt of an agent task on a schedule the planner
              read (``prompt_request``; the planner then writes the call, ``Reader.fill``)
    Unread    the model's turn, with its tools, as without a planner

Once the model has the turn it keeps it (``Decider``). What the model proposes goes through
the same checks as any call: validation, the schedule read by ``tasks``, the claim check.
The model is shown the conversation as plain exchanges (what was said and answered), never
the planner's calls, so it neither sees nor repeats what the planner already did.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from enum import StrEnum
from typing import Protocol

from agent.llm.base import ChatMessage, LLMBackend, Role, SupportsTokenBudget
from agent.planner.handover import WritePrompt
from agent.planner.reading import Planned, Reading
from agent.prompts import render_now

SMALL_WINDOW = 8192
"""A model whose context window is this many tokens or fewer is small: it gets the short
prompts, example exchanges, and capped answers."""
SMALL_MODEL_TOOLS = 3
"""The tools a small model is offered in a turn: the most relevant to the message."""
ANSWER_EXCHANGES = 2
"""Earlier exchanges a model answering a question is shown."""

ANSWER_PROMPT = "You are a helpful assistant. Answer in one or two short sentences."
"""The system prompt of a small model's answer in words."""
ANSWER_EXAMPLES = (
    ("what is the capital of Italy?", "The capital of Italy is Rome."),
    ("who wrote Hamlet?", "William Shakespeare wrote Hamlet."),
)
"""Example exchanges a small model is shown before a question: they set the length."""

PROMPT_WRITER = (
    "Turn each request into the instruction an assistant carries out when the task runs. "
    "Reply with the instruction only."
)
PROMPT_EXAMPLES = (
    ("every day at 8am: send me a motivational quote", "Send me a short motivational quote."),
    ("every friday at 5pm: what did I get done this week", "Sum up what I got done this week."),
    ("every weekday at 7: check the weather in Paris", "Tell me today's weather in Paris."),
)
"""Example exchanges of the prompt writer (models of every size follow them)."""


class Decider(StrEnum):
    """Who writes a turn's next message."""

    PLANNER = "planner"
    """The planner reads the turn each round (``Order.PLANNER_FIRST``, until it hands over)."""
    MODEL = "model"
    """The model, with its tools."""
    ANSWER = "answer"
    """The model, answering a question in words (no tools)."""


class Reader(Protocol):
    """What the pipeline needs of the planner (``agent.planner.OfflinePlanner``)."""

    def read(self, messages: Sequence[ChatMessage], *, model: bool) -> Reading:
        """The planner's reading of the turn so far (``model``: one answers the rest)."""
        ...

    def fill(self, missing: WritePrompt, proposal: str) -> Planned:
        """The call that carries out ``missing`` with what the model proposed."""
        ...


def is_small(backend: LLMBackend) -> bool:
    """Whether ``backend`` is a small model (a context window of ``SMALL_WINDOW`` or less)."""
    return isinstance(backend, SupportsTokenBudget) and backend.context_tokens <= SMALL_WINDOW


def plain_history(messages: Sequence[ChatMessage]) -> list[ChatMessage]:
    """The conversation as exchanges: each user message and the answer that ended its turn.

    Calls and their results are left out: a model sees what was said and answered ("I'll
    remind you at 14:40 ..."), not how, so it has nothing to repeat.
    """
    plain: list[ChatMessage] = []
    answer: ChatMessage | None = None
    for message in messages:
        if message.role is Role.USER and not message.results:
            if answer is not None:
                plain.append(answer)
            plain.append(ChatMessage(Role.USER, message.content))
            answer = None
        elif message.role is Role.ASSISTANT and not message.tool_calls and plain:
            answer = ChatMessage(Role.ASSISTANT, message.content)
        elif message.role is Role.TOOL or message.results:
            answer = None  # what came before the results was a call, not the answer
    if answer is not None:
        plain.append(answer)
    return plain


def answer_request(
    *,
    base_prompt: str,
    now: datetime,
    history: Sequence[ChatMessage],
    question: str,
    small: bool,
) -> list[ChatMessage]:
    """The request for an answer in words. A small model gets a short prompt and examples
    instead of the conversation (earlier exchanges only lead it astray)."""
    recent = last_exchanges(plain_history(history), 0 if small else ANSWER_EXCHANGES)
    if not small:
        system = f"{base_prompt.strip()}\n\n{render_now(now)}"
        return [ChatMessage(Role.SYSTEM, system), *recent, ChatMessage(Role.USER, question)]
    examples = [
        message
        for asked, answered in ANSWER_EXAMPLES
        for message in (ChatMessage(Role.USER, asked), ChatMessage(Role.ASSISTANT, answered))
    ]
    system = f"{ANSWER_PROMPT}\n{render_now(now)}"
    return [
        ChatMessage(Role.SYSTEM, system),
        *examples,
        *recent,
        ChatMessage(Role.USER, question),
    ]


def prompt_request(missing: WritePrompt) -> list[ChatMessage]:
    """The request for the prompt of an agent task (the schedule is already read)."""
    examples = [
        message
        for asked, answered in PROMPT_EXAMPLES
        for message in (ChatMessage(Role.USER, asked), ChatMessage(Role.ASSISTANT, answered))
    ]
    return [
        ChatMessage(Role.SYSTEM, PROMPT_WRITER),
        *examples,
        ChatMessage(Role.USER, f"{missing.schedule}: {missing.words}"),
    ]


def last_exchanges(messages: Sequence[ChatMessage], count: int) -> list[ChatMessage]:
    """The last ``count`` exchanges of ``messages`` (each from a user message on)."""
    users = [i for i, m in enumerate(messages) if m.role is Role.USER and not m.results]
    if len(users) <= count:
        return list(messages)
    return list(messages[users[-count] :]) if count else []

"""What the planner leaves to a language model: the part of a message it could not act on.

A rule that reads a message only in part says so with a typed ``Handover`` on its ``Say``
(whose text is what the planner answers when there is no model):

    ToModel        nothing of it was understood: the model decides, with its tools
    AnswerInWords  a question the planner cannot answer: the model answers in words
    WritePrompt    a repeating schedule was read, what to do then was not: the model writes
                   the prompt of an agent task on that schedule (the schedule stays the
                   planner's reading)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeAlias


@dataclass(frozen=True, slots=True)
class ToModel:
    """Not understood: the model decides what to do, with its tools, as without a planner."""

    kind: Literal["to_model"] = "to_model"


@dataclass(frozen=True, slots=True)
class AnswerInWords:
    """A question that asks for no action and that the planner cannot answer.

    Attributes:
        question: The question, as the user wrote it.
    """

    question: str
    kind: Literal["answer"] = "answer"


@dataclass(frozen=True, slots=True)
class WritePrompt:
    """A repeating schedule and words the planner has no action for ("every morning at 7
    summarize the news"): an agent task on that schedule, whose prompt the model writes.

    Attributes:
        schedule: The schedule in the user's words ("every morning at 7"); ``tasks``
            resolves it when the task is added, as for every schedule the planner reads.
        words: What is to be done then, in the user's words ("summarize the news").
    """

    schedule: str
    words: str
    kind: Literal["prompt"] = "prompt"


Handover: TypeAlias = ToModel | AnswerInWords | WritePrompt

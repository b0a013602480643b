"""Running an operation written as steps: a generator that yields statements and is sent back
what each returned, so one piece of SQL logic serves a synchronous driver and an async one.

The memory and task stores write their shared SQL this way (``memory.sql``,
``tasks.store.steps``); each database's driver iterates a ``StepRun`` for the statements.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any, Generic, TypeVar

S = TypeVar("S")
T = TypeVar("T")


class StepRun(Generic[S, T]):
    """Steps being run by a database's driver, one statement at a time: the driver iterates
    it for the statements, sets ``answer`` to what each one returned, and reads ``value``,
    the steps' result, when the iteration ends."""

    def __init__(self, steps: Generator[S, Any, T]) -> None:
        self._steps = steps
        self.answer: Any = None
        self.value: T

    def __iter__(self) -> StepRun[S, T]:
        return self

    def __next__(self) -> S:
        try:
            return self._steps.send(self.answer)
        except StopIteration as done:
            self.value = done.value
            raise StopIteration from None

"""Say so when a request for an action got an answer and no tool did the action.

A small model asked "remind me in 5 minutes to stretch" may answer in prose and call
nothing. The claim check (``claims``) replaces a reply that says it did something; a reply
that says nothing of the kind still leaves the user to guess. An ``ActionReader`` (the
composition root passes the offline planner's) reads what the message plainly asks for;
when no call of the turn did it, the reply gets a short note: "(No reminder was set.)".
The planner's understanding decides only whether to add the note, never what runs: acting
on it behind the model's back would make two deciders of one turn.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from tools import ToolResult


class AskedAction(Protocol):
    """An action a message asks for: the tools that do it, and the truth when none ran."""

    @property
    def tools(self) -> frozenset[str]: ...

    @property
    def undone(self) -> str: ...


ActionReader = Callable[[str], AskedAction | None]
"""Reads a user's message: the action it plainly asks for, or ``None``."""


def with_undone_note(text: str, asked: AskedAction | None, results: Sequence[ToolResult]) -> str:
    """Return ``text``, with a note when ``asked`` names an action no successful call did."""
    if asked is None or any(r.ok and r.call.tool_name in asked.tools for r in results):
        return text
    note = f"({asked.undone[:1].upper()}{asked.undone[1:]}.)"
    return f"{text}\n\n{note}" if text else note

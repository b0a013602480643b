"""Interfaces: the Telegram bot and the slash commands shared with the terminal chat."""

from __future__ import annotations

from interfaces.replies import (
    Action,
    ActionKind,
    ActionOutcome,
    Button,
    ButtonRows,
    CommandReply,
    Reply,
)

__all__ = [
    "Action",
    "ActionKind",
    "ActionOutcome",
    "Button",
    "ButtonRows",
    "CommandReply",
    "Reply",
]

"""Interfaces: the Telegram bot, the terminal chat, and the slash commands they share.

The Telegram bot lives in ``interfaces.telegram``; this package's surface is what both
interfaces use: the commands and the interface-neutral replies.
"""

from __future__ import annotations

from interfaces.commands import (
    COMMANDS,
    AgentService,
    CommandSpec,
    MemoryService,
    SlashCommands,
    TaskService,
    agent_replies,
)
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
    "COMMANDS",
    "Action",
    "ActionKind",
    "ActionOutcome",
    "AgentService",
    "Button",
    "ButtonRows",
    "CommandReply",
    "CommandSpec",
    "MemoryService",
    "Reply",
    "SlashCommands",
    "TaskService",
    "agent_replies",
]

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
from interfaces.routing import RoutingNotifier
from interfaces.sink import JsonlNotifier
from interfaces.terminal import Console, TerminalChat, TerminalNotifier

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
    "Console",
    "JsonlNotifier",
    "MemoryService",
    "Reply",
    "RoutingNotifier",
    "SlashCommands",
    "TaskService",
    "TerminalChat",
    "TerminalNotifier",
    "agent_replies",
]

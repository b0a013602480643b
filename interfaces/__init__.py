"""Interfaces: the terminal chat, the Telegram bot (``interfaces.telegram``), and what both
share: the slash commands, the views of tasks and approvals, and the notifiers; and a task's
JSON shape (``TaskOut``), the same for the HTTP API (``interfaces.web``) and the command line.

Interfaces depend on the agent, the task manager and memory only through the protocols in
``interfaces.protocols``; the composition root (``assistant.app``) hands the objects in.
"""

from __future__ import annotations

from interfaces.commands import CommandSpec, SlashCommands
from interfaces.messages import (
    Action,
    ActionKind,
    ActionOutcome,
    Button,
    ButtonRows,
    CommandReply,
    Reply,
)
from interfaces.notifiers import (
    WEB_CHAT_PREFIX,
    ChatRecorder,
    JsonlNotifier,
    LoggingNotifier,
    RoutingNotifier,
)
from interfaces.protocols import (
    AgentEventLike,
    AgentReplyLike,
    ChatAgent,
    EventListener,
    MemoryService,
    TaskService,
)
from interfaces.task_json import TaskOut, task_out
from interfaces.terminal import (
    CommandHandler,
    Console,
    TerminalChat,
    TerminalNotifier,
    render_delivery,
    render_message,
    terminal_safe,
)
from interfaces.views import (
    NO_TASKS,
    agent_replies,
    approval_card,
    format_arguments,
    request_line,
    run_history,
)
from interfaces.zones import ZONE_ASKED, ZoneChoice, ZoneGuide

__all__ = [
    "NO_TASKS",
    "WEB_CHAT_PREFIX",
    "ZONE_ASKED",
    "Action",
    "ActionKind",
    "ActionOutcome",
    "AgentEventLike",
    "AgentReplyLike",
    "Button",
    "ButtonRows",
    "ChatAgent",
    "ChatRecorder",
    "CommandHandler",
    "CommandReply",
    "CommandSpec",
    "Console",
    "EventListener",
    "JsonlNotifier",
    "LoggingNotifier",
    "MemoryService",
    "Reply",
    "RoutingNotifier",
    "SlashCommands",
    "TaskOut",
    "TaskService",
    "TerminalChat",
    "TerminalNotifier",
    "ZoneChoice",
    "ZoneGuide",
    "agent_replies",
    "approval_card",
    "format_arguments",
    "render_delivery",
    "render_message",
    "request_line",
    "run_history",
    "task_out",
    "terminal_safe",
]

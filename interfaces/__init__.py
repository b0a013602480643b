"""The front ends: the terminal chat, the Telegram bot (``interfaces.telegram``) and the HTTP
API with its web page (``interfaces.web``, loaded only by ``assistant web``), and what they
share: the slash commands and buttons, the views of tasks and approvals, zones, notifiers, and
a task's JSON shape (``TaskOut``), the same for the HTTP API and the command line.

The front ends read the agent's replies and events as the agent's own types (``agent``);
they take the task manager and memory as they are, and the agent through the protocol of
``interfaces.protocols`` (what they use of it). The composition root (``assistant.app``)
hands the objects in. No front end imports another (an import contract in the check).
"""

from __future__ import annotations

from interfaces.commands import CommandSpec, SlashCommands
from interfaces.deliveries import (
    SNOOZES,
    acknowledged_text,
    delivery_buttons,
    snooze_until,
    until_words,
    watch_promise,
    watch_reply,
)
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
    WEB_MAIN_CHAT,
    ChatRecorder,
    JsonlNotifier,
    LoggingNotifier,
    RoutingNotifier,
    front_end_of,
    home_chat,
)
from interfaces.protocols import (
    ChatAgent,
)
from interfaces.quiet import QUIET_HOURS, QuietChange, QuietHoursBook
from interfaces.slots import Slot, SlotsTaken, UserSlots, turn_slots
from interfaces.task_json import TaskOut, task_out
from interfaces.terminal import (
    CommandHandler,
    Console,
    TerminalChat,
    TerminalNotifier,
    one_command,
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
    "QUIET_HOURS",
    "SNOOZES",
    "WEB_CHAT_PREFIX",
    "WEB_MAIN_CHAT",
    "ZONE_ASKED",
    "Action",
    "ActionKind",
    "ActionOutcome",
    "Button",
    "ButtonRows",
    "ChatAgent",
    "ChatRecorder",
    "CommandHandler",
    "CommandReply",
    "CommandSpec",
    "Console",
    "JsonlNotifier",
    "LoggingNotifier",
    "QuietChange",
    "QuietHoursBook",
    "Reply",
    "RoutingNotifier",
    "SlashCommands",
    "Slot",
    "SlotsTaken",
    "TaskOut",
    "TerminalChat",
    "TerminalNotifier",
    "UserSlots",
    "ZoneChoice",
    "ZoneGuide",
    "acknowledged_text",
    "agent_replies",
    "approval_card",
    "delivery_buttons",
    "format_arguments",
    "front_end_of",
    "home_chat",
    "one_command",
    "render_delivery",
    "render_message",
    "request_line",
    "run_history",
    "snooze_until",
    "task_out",
    "terminal_safe",
    "turn_slots",
    "until_words",
    "watch_promise",
    "watch_reply",
]

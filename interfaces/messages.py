"""Interface-neutral replies: text plus buttons described as data.

The slash-command layer answers with these; each interface draws them its own way (Telegram
as messages with inline keyboards, the terminal as text with hints).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class ActionKind(StrEnum):
    """What pressing a button does."""

    CANCEL = "cancel"  # cancel task <target>
    PAUSE = "pause"  # pause task <target>
    RESUME = "resume"  # resume task <target>
    RUN_NOW = "run"  # run task <target> now
    RUN_AGAIN = "again"  # run task <target> once more (a run whose outcome is unknown)
    SNOOZE = "snooze"  # remind again about task <target> after <arg> ("10m", "morning")
    LATER = "later"  # show the message carrying the button again after <arg> (task <target>)
    DONE = "done"  # acknowledge reminder <target> (one that repeats until done stops)
    APPROVE = "approve"  # approve request <target>
    DENY = "deny"  # deny request <target>
    IMPORT = "import"  # make the reminders of the previewed calendar import <target>
    DROP_IMPORT = "drop"  # forget the previewed calendar import <target>


@dataclass(frozen=True, slots=True)
class Action:
    """A button's meaning.

    Attributes:
        kind: What it does.
        target: The task id or approval request id it acts on.
        arg: An extra argument (the snooze delay), or "".
    """

    kind: ActionKind
    target: str
    arg: str = ""


@dataclass(frozen=True, slots=True)
class Button:
    """A button: a label and what pressing it does."""

    label: str
    action: Action


ButtonRows = tuple[tuple[Button, ...], ...]


@dataclass(frozen=True, slots=True)
class Reply:
    """One message to show: plain text and rows of buttons.

    Attributes:
        text: The message.
        buttons: Rows of buttons under it.
        plain: The message for an interface without buttons, when it reads differently there
            (the terminal's task list: one line per task, the commands once below); "" when
            ``text`` serves both.
    """

    text: str
    buttons: ButtonRows = ()
    plain: str = ""


@dataclass(frozen=True, slots=True)
class CommandReply:
    """What a slash command answers: one or more messages."""

    replies: tuple[Reply, ...]

    @classmethod
    def of(cls, text: str, buttons: ButtonRows = ()) -> CommandReply:
        """Return a reply made of one message."""
        return cls((Reply(text, buttons),))

    @property
    def text(self) -> str:
        """All messages' text, separated by blank lines (for interfaces without buttons)."""
        return "\n\n".join(reply.text for reply in self.replies)


@dataclass(frozen=True, slots=True)
class ActionOutcome:
    """What happened when a button was pressed.

    Attributes:
        notice: A short confirmation or refusal to flash to the presser.
        alert: Whether the notice is a refusal that needs acknowledging (a pop-up).
        update: The new content of the message that carried the button, or ``None``.
        mark: A line to add under the message that carried the button, whose buttons are
            then removed (e.g. "✅ Approved"); ``None`` to leave it (``update`` wins).
        follow_ups: Further messages to send (e.g. the agent's answer after an approval).
    """

    notice: str
    alert: bool = False
    update: Reply | None = None
    mark: str | None = None
    follow_ups: tuple[Reply, ...] = ()

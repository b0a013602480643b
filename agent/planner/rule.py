"""A rule of the offline planner: a trigger with its slot extraction.

``read`` is the trigger and the slot extraction in one: it returns the ``Intent`` a message
asks for, or ``None`` when the rule does not apply. The intent names its target tool (``plan``
maps each kind to one). The sentences each rule must get right live with the tests, by rule
name (``testing/golden``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from agent.planner.intents import Intent
from agent.planner.text import Message


@dataclass(frozen=True, slots=True)
class Context:
    """What the rules know besides the message.

    Attributes:
        search_configured: Whether web searches can run (a search service is configured).
        understands: Whether the planner itself can act on a prompt (an agent task offline
            is answered by the planner, so it must be one the planner understands).
    """

    search_configured: bool
    understands: Callable[[str], bool]


@dataclass(frozen=True, slots=True)
class Rule:
    """One kind of request.

    Attributes:
        name: What it recognises, for people reading the list of rules.
        read: The trigger and slot extraction: the intent, or ``None`` when it does not apply.
    """

    name: str
    read: Callable[[Message, Context], Intent | None]

"""The offline planner's rules, in the order they are tried: the first that applies wins.

The order is part of the behaviour: small talk first; notes before reminders ("note: remind me
..." is a note); listing and task commands before reminders ("cancel the oven reminder" names a
task, "don't remind me about the gym" cancels one); reminders before other scheduled jobs;
pages before questions ("what's on https://..."); the time before notes ("what's the time" is
not a note search); and the honest answer to any other question last.
"""

from __future__ import annotations

from assistant.planner import answers
from assistant.planner.golden import Golden
from assistant.planner.intents import Intent, Say
from assistant.planner.rule import Context, Rule
from assistant.planner.rules_chat import (
    NOTES,
    PAGES,
    QUESTIONS,
    RECALL,
    SEARCHES,
    SMALL_TALK,
    TIME,
)
from assistant.planner.rules_jobs import JOBS, REQUESTS
from assistant.planner.rules_manage import LIST, MANAGE
from assistant.planner.rules_remind import REMIND
from assistant.planner.text import Message, squash, unquote

RULES: tuple[Rule, ...] = (
    SMALL_TALK,
    NOTES,
    LIST,
    MANAGE,
    REMIND,
    JOBS,
    REQUESTS,
    PAGES,
    TIME,
    RECALL,
    SEARCHES,
    QUESTIONS,
)
GOLDEN: tuple[Golden, ...] = tuple(golden for rule in RULES for golden in rule.golden)
"""Every rule's golden phrases."""


def recognize(text: str, context: Context, *, max_chars: int) -> Intent:
    """Return what ``text`` asks for; a request no rule knows gets the honest answer."""
    light = unquote(squash(text))
    if len(light) > max_chars:
        return Say(
            f"That message is {len(light)} characters long; I read up to {max_chars}. "
            "Please send a shorter request."
        )
    message = Message.read(light)
    if not message.said:
        return Say(answers.HELP)
    for rule in RULES:
        if not message.text and rule is not SMALL_TALK:
            break
        intent = rule.read(message, context)
        if intent is not None:
            return intent
    return Say(answers.UNKNOWN)

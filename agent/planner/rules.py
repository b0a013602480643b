"""The offline planner's rules, in the order they are tried: the first that applies wins.

The order is part of the behaviour: small talk first; notes before reminders ("note: remind me
..." is a note); "done", quiet hours and the briefing before listing and task commands ("mute
notifications from 22 to 7" sets quiet hours, "stop the morning briefing" is the briefing's);
listing and task commands before reminders ("cancel the oven reminder" names a task, "don't
remind me about the gym" cancels one); monitors before reminders and jobs ("tell me when
https://... changes" watches it); reminders before other scheduled jobs;
pages before questions ("what's on https://..."); the time before notes ("what's the time" is
not a note search); one-line code and arithmetic before questions; and the honest answer
to any other question last.
"""

from __future__ import annotations

from agent.planner import answers
from agent.planner.handover import ToModel
from agent.planner.intents import Intent, Say
from agent.planner.rule import Context, Rule
from agent.planner.rules_attention import BRIEFING, DONE, QUIET
from agent.planner.rules_chat import (
    NOTES,
    PAGES,
    QUESTIONS,
    RECALL,
    SEARCHES,
    SMALL_TALK,
    TIME,
)
from agent.planner.rules_code import CODE
from agent.planner.rules_jobs import JOBS, REQUESTS
from agent.planner.rules_lists import LISTS
from agent.planner.rules_manage import LIST, MANAGE
from agent.planner.rules_math import ARITHMETIC
from agent.planner.rules_remind import REMIND, reminder_text
from agent.planner.rules_watch import WATCH
from agent.planner.text import Message, squash, unquote
from tasks import find_time

RULES: tuple[Rule, ...] = (
    SMALL_TALK,
    NOTES,
    LISTS,
    DONE,
    QUIET,
    BRIEFING,
    LIST,
    MANAGE,
    WATCH,
    REMIND,
    JOBS,
    REQUESTS,
    CODE,
    ARITHMETIC,
    PAGES,
    TIME,
    RECALL,
    SEARCHES,
    QUESTIONS,
)


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
    return _maybe_a_reminder(message.text) or Say(answers.UNKNOWN, ToModel())


def _maybe_a_reminder(text: str) -> Say | None:
    """ "pick up the kids at 3:15": a task and a time, but no request. Nothing is scheduled on
    a guess; the answer says the sentence that would."""
    phrase = find_time(text)
    if phrase is None or phrase.problem is not None or phrase.kind != "once":
        return None
    what = reminder_text(phrase.without(text))
    if not what:
        return None
    return Say(
        f"Should I remind you? I schedule nothing on a guess; say e.g. "
        f"'remind me to {what} {phrase.text}'."
    )

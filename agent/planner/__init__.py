"""The offline planner: the backend that needs no language model.

It reads the conversation and writes the same fenced-JSON tool calls a model would, so
everything after it (parsing, validation, approvals, execution) runs as with an LLM.

    offline       ``OfflinePlanner``: the backend, a small state machine over a turn
    toolbox       ``PlannerTools``: typed references to the tools it calls, named by the registry
    rules         the ordered rules (``rule``: trigger + slot extraction):
    rules_remind    reminders ("remind me ...", "wake me up ...", "set an alarm ...")
    rules_jobs      repeating searches, prompts and HTTP calls; one-time HTTP requests
    rules_manage    listing tasks and acting on one (cancel, pause, resume, snooze, move)
    rules_chat      small talk, notes, questions about notes, the time, web, pages, the rest
    rules_watch     monitors: "tell me when https://... changes", "... for 'in stock'"
    rules_attention quiet hours, the morning briefing, "done" (acknowledging a reminder)
    intents       what a message asks for, a tagged union
    plan          each intent's target tool and arguments
    compose       the answer written from tool results
    answers       the planner's own texts (help, questions back, honest refusals)
    text, places  reading a message; places and their time zones

The time expression of a sentence is found by ``tasks.find_time``: the planner has no time
vocabulary of its own. The sentences each rule must get right, and the check that runs them,
are test data (``testing/golden``).
"""

from agent.planner.offline import AskedAction, OfflinePlanner
from agent.planner.rules import RULES
from agent.planner.toolbox import PlannerTools, ToolboxError

__all__ = [
    "RULES",
    "AskedAction",
    "OfflinePlanner",
    "PlannerTools",
    "ToolboxError",
]

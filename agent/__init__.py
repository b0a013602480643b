"""The DialogAgent: a conversation turn of model -> tool calls -> results -> model.

budget    fit a round into a small context window (relevant tools, latest conversation)
claims    no claim without a tool result: replies that say they did what no tool did
dialog    ``DialogAgent``: the loop, approvals, scheduled agent tasks
drift     a model's answer cut at its first sign of drift, or said to be off the subject
events    progress events for interfaces (tool started/finished, approval, reply)
history   what the agent needs from memory, and an in-memory store of the same contract
pipeline  the planner first, the model for what it leaves (the requests the model gets)
prompts   the system prompt
turn      a turn's outcome (``AgentReply``), its running state, and the loop's pure steps
undone    saying so when a requested action got an answer but no tool call
wording   the texts the agent writes itself (pauses, give-ups, failures)
"""

from agent.budget import FittedRound, fit_round, rank_tools
from agent.dialog import DialogAgent
from agent.drift import OFF_TOPIC, DriftGuard, Judged, judge
from agent.events import (
    AgentEvent,
    AgentEventKind,
    AgentReply,
    ApprovalReply,
    Decided,
    EventCallback,
)
from agent.history import ConversationStore, InMemoryConversations
from agent.honesty import HonestyCheck, Statement, check_honesty, find_statements
from agent.llm.visible import VisibleText
from agent.pipeline import SMALL_WINDOW, Decider, Reader
from agent.prompts import DEFAULT_BASE_PROMPT, build_system_prompt
from agent.undone import ActionReader, AskedAction

__all__ = [
    "DEFAULT_BASE_PROMPT",
    "OFF_TOPIC",
    "SMALL_WINDOW",
    "ActionReader",
    "AgentEvent",
    "AgentEventKind",
    "AgentReply",
    "ApprovalReply",
    "AskedAction",
    "ConversationStore",
    "Decided",
    "Decider",
    "DialogAgent",
    "DriftGuard",
    "EventCallback",
    "FittedRound",
    "HonestyCheck",
    "InMemoryConversations",
    "Judged",
    "Reader",
    "Statement",
    "VisibleText",
    "build_system_prompt",
    "check_honesty",
    "find_statements",
    "fit_round",
    "judge",
    "rank_tools",
]

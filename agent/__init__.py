"""The agent: a conversation turn of planner or model -> tool calls -> results -> model.

    dialog    ``DialogAgent``: the loop, approvals, scheduled agent tasks
    events    what the front ends are told: progress events, the reply, an approval's outcome
    turn      a turn's running state and the loop's pure steps
    pipeline  the planner first, the model for what it leaves (the requests the model gets)
    budget    fit a round into a small context window (relevant tools, latest conversation)
    honesty   no claim without a tool result: replies that say they did what no tool did
    drift     a model's answer cut at its first sign of drift, or said to be off the subject
    history   what the agent needs from memory, and an in-memory store of the same contract
    undone    saying so when a requested action got an answer but no tool call
    prompts   the system prompt;  wording: the texts the agent writes itself
    compat    the agent as the seed designs spell it (``chat``, ``_build_tool_defs``, ...)
    planner/  the offline planner: the backend that needs no model
    llm/      the model backends (OpenAI-compatible HTTP, GGUF in process, scripted) and
              their fair queue

It stands on ``tasks``, ``memory``, ``tools`` and ``common``; the front ends (``interfaces``)
and the shell (``assistant``) stand on it.
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

"""The offline planner: the backend that needs no language model.

It reads the conversation and writes the same fenced-JSON tool calls a model would, so
everything after it (parsing, validation, approvals, execution) runs as with an LLM.

    offline           ``OfflinePlanner``: the backend, a small state machine over a turn
    understand        which request a message is (notes, time, recall, search, ...)
    understand_tasks  reminders, recurring tasks, listing and task commands
    intents           what was understood: calls to make and how the turn goes on
    patterns          where times, schedules, zones and ids stand in a sentence
    compose           the answer written from tool results
    answers           the planner's fixed texts (help, greetings, questions back)
"""

from assistant.planner.offline import OfflinePlanner

__all__ = ["OfflinePlanner"]

"""The assistant: the composition root and everything above the scheduler and memory.

    app        ``open_app``: the one place that builds the object graph
    cli        the ``assistant`` command; ``frontends`` runs the terminal, Telegram, ``serve``
    config     settings, read once from the environment and ``.env``
    agent/     the DialogAgent loop
    llm/       LLM backends (OpenAI-compatible HTTP, scripted) and their interface
    planner/   the offline planner, the backend that needs no model
    builtin/   the built-in tools (tasks, memory, web, system), above ``tasks`` and ``memory``

Its public surface is these modules and sub-packages; importing ``assistant`` alone loads
nothing, so the command line starts without the agent when it does not need it.
"""

__all__ = ["agent", "app", "builtin", "cli", "config", "frontends", "llm", "planner"]

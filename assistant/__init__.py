"""The assistant's shell: the command, the composition root, settings and the built-in tools.

    cli         the ``assistant`` command (chat, telegram, web, serve, tasks, doctor, ...)
    frontends   runs each front end with the scheduler beside it
    app         ``open_app``: the one place that builds the object graph
    config      settings, read once from the environment and ``.env``
    builtin/    the built-in tools (tasks, notes and memory, web, sandboxed code, system)
    doctor, backup, migrate, secrets, datadir
                checks of a setup, daily backups, SQLite -> PostgreSQL, ``${NAME}`` secrets,
                the private data folder

It stands on ``interfaces`` (the front ends), ``agent`` (the turn loop, models, planner),
``tasks`` and ``memory``, ``tools`` and ``common``, and nothing stands on it. Its public
surface is these modules and ``builtin``; importing ``assistant`` alone loads nothing, so the
command line starts without the agent when it does not need it.
"""

__all__ = [
    "app", "backup", "builtin", "cli", "config", "datadir", "doctor", "frontends", "migrate",
    "secrets",
]  # fmt: skip

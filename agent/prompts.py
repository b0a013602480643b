"""The system prompt and the text contract between the agent and a model.

In contract mode the prompt carries the tool catalog and explains the text contract whose
wire format ``agent.llm.contract`` writes.
"""

from __future__ import annotations

from datetime import datetime

from agent.llm.base import ToolMode
from agent.llm.contract import RESULTS_HEADER

DEFAULT_BASE_PROMPT = (
    "You are a helpful personal assistant. You set reminders, schedule recurring tasks, keep "
    "notes and look things up by calling tools. Answer briefly and plainly."
)

_RULES = """\
Rules:
- Never invent tool results: state only what a tool returned, and say so when a tool failed.
- If a required argument is missing or ambiguous, ask the user instead of guessing it.
- Pass times and schedules in the user's own words ("in 10 minutes", "tomorrow at 9am",
  "every weekday at 8:30"); the tools resolve them in the user's time zone.
- When a tool answers with an error, fix the call if you can, otherwise tell the user."""

_SHORT_RULES = (
    "Pass times in the user's own words; the tools resolve them. Never say a tool did what "
    "it did not."
)
"""The rules for a small model, whose window the long form would crowd."""

_CONTRACT = f"""\
To call a tool, write a fenced JSON block like this, one block per call:
```json
{{"tool": "add_reminder", "args": {{"when": "in 10 minutes", "message": "check the oven"}}}}
```
Several blocks in one reply run in order. Write nothing but the blocks when you call tools.
The results come back in a message that starts with "{RESULTS_HEADER}". When you have what
you need, answer the user in plain text, without JSON."""


def render_now(now: datetime) -> str:
    """Return the line that tells the model the current date, time and zone.

    Args:
        now: The current instant in the user's zone (timezone-aware).
    """
    offset = now.strftime("%z")
    offset = f"UTC{offset[:3]}:{offset[3:]}" if offset else "UTC"
    return f"Now: {now:%A %Y-%m-%d %H:%M} in the user's time zone {now.tzinfo} ({offset})."


def build_system_prompt(
    *, base_prompt: str, mode: ToolMode, catalog: str | None, now: datetime, short: bool = False
) -> str:
    """Return the system prompt for one turn.

    Args:
        base_prompt: The configurable opening (who the assistant is).
        mode: ``CONTRACT`` puts the catalog and the JSON contract in the prompt; ``NATIVE``
            leaves the catalog to the request's ``tools`` field.
        catalog: The tool catalog rendered for this user (contract mode), or ``None``.
        now: The current instant in the user's zone.
        short: The short form of the rules, for a small model.
    """
    parts = [base_prompt.strip()]
    if mode is ToolMode.CONTRACT:
        parts.append(f"Tools you can call:\n{catalog.strip()}" if catalog else "No tools.")
        parts.append(_CONTRACT)
    parts.append(_SHORT_RULES if short else _RULES)
    parts.append(render_now(now))
    return "\n\n".join(parts)

"""Code to run once: "run this python code: print(2 + 2)".

One line of code (the rules read messages with their spacing collapsed, which would break
the lines of a longer program: that is the language model's, with the message as written).
The code runs in the sandbox (``execute_code``), which always asks the user first, showing it.
"""

from __future__ import annotations

import re

from agent.planner.intents import Intent, RunCode
from agent.planner.rule import Context, Rule
from agent.planner.text import Message
from common import LazyPattern

_RUN = LazyPattern(
    r"(?:run|execute|exec|evaluate|eval)\s+(?:this\s+|the\s+|some\s+|my\s+|a\s+)?"
    r"(?:(?:python\s*(?:3\s*)?(?:code|script|snippet|program)?)|code|script|snippet)"
    r"\s*[:\-]?\s*(?P<code>.+)",
    re.IGNORECASE,
)


def run_code(message: Message, context: Context) -> Intent | None:
    """ "run this python code: ...": the code, run once in the sandbox after approval."""
    match = _RUN.fullmatch(message.text)
    if match is None:
        return None
    code = match["code"].strip()
    if "```" in code:
        return None
    if len(code) > 2 and code[0] == code[-1] == "`":
        code = code.strip("`").strip()
    return RunCode(code) if code else None


CODE = Rule("python code to run", run_code)

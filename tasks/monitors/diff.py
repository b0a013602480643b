"""What changed between two observations, said in a few lines.

A short value (a price, a JSON field, one line of a page) reads ``was 320, now 289``; longer
text reads as the lines that went (``- ...``) and came (``+ ...``), at most a handful of them,
each cut to a width, with how many more there were.
"""

from __future__ import annotations

import difflib

SHORT_VALUE = 200
"""A value of one line up to this long is said whole (``was ..., now ...``)."""


def short_diff(old: str, new: str, *, max_lines: int = 6, width: int = 160) -> str:
    """Say how ``new`` differs from ``old`` in at most ``max_lines`` lines (and a tally)."""
    if _short(old) and _short(new):
        return f"was {_shown(old, width)}, now {_shown(new, width)}"
    before, after = old.splitlines(), new.splitlines()
    changed: list[str] = []
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag in ("replace", "delete"):
            changed.extend(f"- {_shown(line, width)}" for line in before[i1:i2])
        if tag in ("replace", "insert"):
            changed.extend(f"+ {_shown(line, width)}" for line in after[j1:j2])
    if not changed:
        return "the text changed only in its spacing"
    shown = changed[:max_lines]
    if len(changed) > max_lines:
        more = len(changed) - max_lines
        shown.append(f"… and {more} more changed line{'s' if more != 1 else ''}")
    return "\n".join(shown)


def _short(text: str) -> bool:
    return "\n" not in text and len(text) <= SHORT_VALUE


def _shown(text: str, width: int) -> str:
    flat = " ".join(text.split()) or "(nothing)"
    return flat if len(flat) <= width else flat[: width - 1].rstrip() + "…"

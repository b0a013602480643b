"""What changed between two observations, said in a few lines.

A short value (a price, a JSON field, one line of a page) reads ``was 320, now 289``; longer
text reads as the lines that went (``- ...``) and came (``+ ...``), at most a handful of them,
each cut to a width, with how many more there were. A run's history says it in one line.
"""

from __future__ import annotations

import difflib

SPACING_ONLY = "the text changed only in its spacing"
SHORT_VALUE = 200
"""A value of one line up to this long is said whole (``was ..., now ...``)."""


def short_diff(old: str, new: str, *, max_lines: int = 6, width: int = 160) -> str:
    """Say how ``new`` differs from ``old`` in at most ``max_lines`` lines (and a tally)."""
    if _short(old) and _short(new):
        return f"was {_shown(old, width)}, now {_shown(new, width)}"
    changed = [f"{sign} {_shown(line, width)}" for sign, line in _went_and_came(old, new)]
    if not changed:
        return SPACING_ONLY
    shown = changed[:max_lines]
    if len(changed) > max_lines:
        more = len(changed) - max_lines
        shown.append(f"… and {more} more changed line{'s' if more != 1 else ''}")
    return "\n".join(shown)


def change_line(old: str, new: str, *, width: int = 70) -> str:
    """What changed, in one line for a run's history: ``was Price: 320 EUR, now Price: 289
    EUR`` (the first line that went and the first that came, each cut to ``width``)."""
    if _short(old) and _short(new):
        return f"was {_shown(old, width)}, now {_shown(new, width)}"
    lines = _went_and_came(old, new)
    went = next((line for sign, line in lines if sign == "-"), None)
    came = next((line for sign, line in lines if sign == "+"), None)
    if went is None and came is None:
        return SPACING_ONLY
    if went is None:
        said = f"added {_shown(came or '', width)}"
    elif came is None:
        said = f"removed {_shown(went, width)}"
    else:
        said = f"was {_shown(went, width)}, now {_shown(came, width)}"
    more = len(lines) - (went is not None) - (came is not None)
    return said + (f" (and {more} more changed line{'s' if more != 1 else ''})" if more else "")


def _went_and_came(old: str, new: str) -> list[tuple[str, str]]:
    """The lines that went (``-``) and came (``+``), in order."""
    before, after = old.splitlines(), new.splitlines()
    changed: list[tuple[str, str]] = []
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag in ("replace", "delete"):
            changed.extend(("-", line) for line in before[i1:i2])
        if tag in ("replace", "insert"):
            changed.extend(("+", line) for line in after[j1:j2])
    return changed


def _short(text: str) -> bool:
    return "\n" not in text and len(text) <= SHORT_VALUE


def _shown(text: str, width: int) -> str:
    flat = " ".join(text.split()) or "(nothing)"
    return flat if len(flat) <= width else flat[: width - 1].rstrip() + "…"

"""What a monitor saw last, and whether what it sees now is worth a message.

A monitor without a condition speaks when what it sees differs from what it saw last (its
first look only records). A monitor with a condition speaks when the condition comes to hold
(on its first look too, if it holds then), and again only after it stopped holding: "when
the price drops below 300" is said once, not at every check while it stays low.

A message that could not be delivered stays with the observation (``pending``) and is sent
by the next check, so a change is never lost; it is said once even when the run that said it
is repeated after a restart.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

from tasks.monitors.conditions import Condition
from tasks.monitors.diff import change_line, short_diff

MAX_OBSERVED = 20_000
"""The most characters of what a monitor saw that it keeps and compares."""


@dataclass(frozen=True, slots=True)
class Observation:
    """What a monitor saw at its last check (one per monitor, kept in the task store).

    Attributes:
        value: What it saw (at most ``MAX_OBSERVED`` characters).
        observed_at: When.
        changed_at: When what it saw last changed (its first look, at first).
        holds: Whether its condition held then (``None``: it has none).
        pending: A message about this observation not delivered yet.
        checks: How many times it looked.
        changes: How many times what it saw changed since its first look.
    """

    value: str
    observed_at: datetime
    changed_at: datetime
    holds: bool | None = None
    pending: str | None = None
    checks: int = 1
    changes: int = 0

    def delivered(self) -> Observation:
        """This observation once its message went out."""
        return replace(self, pending=None)


@dataclass(frozen=True, slots=True)
class Judgement:
    """What a check decided.

    Attributes:
        observation: What to keep as the last observation.
        message: What to tell the owner, or ``None`` to stay silent.
        result: What the check did, for the run ledger.
    """

    observation: Observation
    message: str | None
    result: str


def judge(
    condition: Condition | None,
    before: Observation | None,
    seen: str,
    now: datetime,
    *,
    title: str,
) -> Judgement:
    """Decide what a check that saw ``seen`` at ``now`` says, after ``before``.

    Raises:
        TaskError: when the condition compares a number and ``seen`` has none.
    """
    value = seen[:MAX_OBSERVED]
    changed = before is None or before.value != value
    holds = condition.holds(value) if condition is not None else None
    observation = Observation(
        value=value,
        observed_at=now,
        changed_at=now if changed or before is None else before.changed_at,
        holds=holds,
        checks=1 if before is None else before.checks + 1,
        changes=0 if before is None else before.changes + int(changed),
    )
    if condition is None:
        message, result = _on_change(before, value, title)
    else:
        message, result = _on_condition(condition, before, value, title, changed=changed)
    if before is not None and before.pending is not None:
        # The last message never went out: it goes now, with what is new since.
        message = before.pending if message is None else f"{before.pending}\n\nThen: {message}"
        result = f"{result}; sent the message an earlier check could not deliver"
    return Judgement(replace(observation, pending=message), message, result)


def _on_change(before: Observation | None, value: str, title: str) -> tuple[str | None, str]:
    if before is None:
        return None, f"first look: {len(value)} characters recorded; a change will be told"
    if before.value == value:
        return None, "unchanged"
    diff = short_diff(before.value, value)
    return f"{title} changed:\n{diff}", f"changed: {change_line(before.value, value)}"


def _on_condition(
    condition: Condition,
    before: Observation | None,
    value: str,
    title: str,
    *,
    changed: bool,
) -> tuple[str | None, str]:
    said = condition.words()
    # A comparison says which number it read, and where: the first number may not be
    # the one meant ("Version 3" before the price).
    source = condition.source(value)
    read = f" ({source})" if source else ""
    if not condition.holds(value):
        if before is None:
            return None, f"{said}: no (first look){read}"
        return None, f"{said}: no{' (changed)' if changed else ''}{read}"
    if before is not None and before.holds:
        return None, f"{said}: still (told before){read}"
    detail = short_diff(before.value, value) if before is not None and changed else value
    excerpt = detail if len(detail) <= 300 else detail[:299].rstrip() + "…"
    return f"{title}: {said} now{read}.\n{excerpt}", f"{said}: yes, told{read}"

"""What tests and benchmarks ask of a schedule: its fires in a span, as the scheduler makes them."""

from __future__ import annotations

from datetime import datetime

from tasks import Schedule


def fires_between(schedule: Schedule, after: datetime, until: datetime) -> list[datetime]:
    """The schedule's fires after ``after`` and before ``until`` (UTC), earliest first."""
    found: list[datetime] = []
    at = after
    while (fire := schedule.next_after(at)) is not None and fire < until:
        found.append(fire)
        at = fire
    return found

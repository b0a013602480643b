"""Preview a schedule phrase: what it means and when it fires next (``assistant schedule``)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from tasks.errors import ScheduleError
from tasks.schedule.model import ScheduleKind, resolve_local
from tasks.schedule.parsing import parse_schedule

MAX_PREVIEW_COUNT = 1000


@dataclass(frozen=True, slots=True)
class SchedulePreview:
    """What a phrase means and its next fire times.

    Attributes:
        kind: ``"once"`` or ``"recurring"``.
        description: The schedule in plain words, with its zone.
        next: The next fire times, aware, in the schedule's zone.
    """

    kind: ScheduleKind
    description: str
    next: list[datetime]

    def to_json(self) -> str:
        """Return ``{"kind": ..., "description": ..., "next": [ISO 8601 with offset, ...]}``."""
        return json.dumps(
            {
                "kind": self.kind,
                "description": self.description,
                "next": [moment.isoformat() for moment in self.next],
            }
        )


def preview_schedule(
    text: str,
    *,
    now_local: datetime | None,
    tz: ZoneInfo,
    count: int,
    recurring: bool | None,
) -> SchedulePreview:
    """Parse ``text`` as of ``now_local`` and list its next fires.

    Args:
        text: A schedule phrase, ISO 8601 time or cron expression.
        now_local: The current naive local time in ``tz``; ``None`` reads the real clock.
        tz: The zone the phrase is meant in.
        count: How many fire times to list for a recurring schedule (a one-time one has one).
        recurring: ``True`` when the phrase must repeat, ``False`` when it must not, else ``None``.

    Raises:
        ScheduleError: when the phrase is refused or ``count`` is out of range.
    """
    if not 1 <= count <= MAX_PREVIEW_COUNT:
        raise ScheduleError(
            f"count must be between 1 and {MAX_PREVIEW_COUNT}, got {count!r}; e.g. --count 5"
        )
    now = datetime.now(UTC) if now_local is None else _local_instant(now_local, tz)
    schedule = parse_schedule(text, now=now, tz=tz, recurring=recurring)
    fires: list[datetime] = []
    moment: datetime | None = now
    for _ in range(count if schedule.kind == "recurring" else 1):
        moment = schedule.next_after(moment) if moment is not None else None
        if moment is None:
            break
        fires.append(moment.astimezone(tz))
    return SchedulePreview(kind=schedule.kind, description=schedule.describe(), next=fires)


def _local_instant(now_local: datetime, tz: ZoneInfo) -> datetime:
    if now_local.utcoffset() is not None:
        raise ScheduleError(
            f"now must be a local time without an offset, got {now_local.isoformat()!r}; "
            "e.g. 2026-03-10T14:30"
        )
    return resolve_local(now_local, tz)

"""Retention: which rows of a task's ledger may be folded into its summary, the folding
itself, and a removed task's summary taken into its owner's (pure; every store uses them, so
they all sum the same way).

A row may be folded when it is final (not claimed), is not an ``outcome_unknown`` run (its
owner may still be asked to run it again, bound to that row), was claimed before the
retention age, and is not among its task's newest ``keep`` rows. A store reads a task's rows
oldest first through its ``(task_id, id)`` index and ``take_old`` stops at the first young
one, so a pass over tasks whose old rows are gone costs two index look-ups per task. What
folding keeps of the rows is a ``LedgerSummary`` per task: how many, how each ended, their
first and last scheduled times, how late they started, how the newest ended and the newest
failure. A finished task (done or cancelled) past the age is removed whole: its rows are folded
into its summary as above, and that summary into its owner's ``OwnerSummary`` (``absorb``).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from tasks.models import LedgerSummary, OwnerSummary, RunStatus

FOLDABLE = tuple(
    status.value
    for status in RunStatus
    if status not in (RunStatus.CLAIMED, RunStatus.OUTCOME_UNKNOWN)
)
"""The statuses of rows that may be folded (as stored)."""


@dataclass(frozen=True, slots=True)
class FoldedRow:
    """What a summary keeps of one ledger row."""

    id: int
    status: RunStatus
    scheduled_for: datetime
    late_by: timedelta | None
    error: str | None = None


@dataclass(frozen=True, slots=True)
class LedgerRow:
    """A ledger row as compaction reads it (oldest first, through the task's index)."""

    id: int
    status: str
    scheduled_for: datetime
    late_by: timedelta | None
    claimed_at: datetime
    error: str | None = None

    def folded(self) -> FoldedRow:
        """What a summary keeps of this row."""
        status = RunStatus(self.status)
        return FoldedRow(self.id, status, self.scheduled_for, self.late_by, self.error)


def take_old(
    rows: Iterable[LedgerRow], before: datetime, room: int, *, page: int
) -> tuple[list[FoldedRow], bool]:
    """The rows of ``rows`` (a page of at most ``page`` of a task's oldest, by id) that may
    be folded, at most ``room``, and whether more may follow the page.

    Row ids grow with their claims, so the first row claimed at or after ``before`` ends
    the old ones: reading stops there instead of going through a day of young rows (a store
    hands the rows over as it reads them). A row that may not be folded (claimed, outcome
    unknown) is passed over.
    """
    taken: list[FoldedRow] = []
    read = 0
    for row in rows:
        if row.claimed_at >= before:
            return taken, False
        if len(taken) == room:
            return taken, True
        read += 1
        if row.status in FOLDABLE:
            taken.append(row.folded())
    return taken, read >= page


def fold(task_id: str, summary: LedgerSummary | None, rows: Iterable[FoldedRow]) -> LedgerSummary:
    """``summary`` (``None``: none yet) with ``rows`` added."""
    counts: Counter[RunStatus] = Counter(summary.counts if summary else {})
    runs = summary.runs if summary else 0
    first = summary.first_scheduled if summary else None
    last = summary.last_scheduled if summary else None
    late_runs = summary.late_runs if summary else 0
    worst = summary.max_late_by if summary else None
    last_id = summary.last_run_id if summary else 0
    last_status = summary.last_status if summary else None
    failure = (summary.last_failure, summary.last_failure_at) if summary else (None, None)
    failure_id = 0  # rows folded now are newer than any folded before
    for row in rows:
        runs += 1
        counts[row.status] += 1
        first = row.scheduled_for if first is None else min(first, row.scheduled_for)
        last = row.scheduled_for if last is None else max(last, row.scheduled_for)
        if row.late_by is not None and row.late_by > timedelta(0):
            late_runs += 1
            worst = row.late_by if worst is None else max(worst, row.late_by)
        if row.id >= last_id:
            last_id, last_status = row.id, row.status
        if row.status.is_failure and row.id >= failure_id:
            failure_id = row.id
            failure = (row.error or row.status.value, row.scheduled_for)
    return LedgerSummary(
        task_id=task_id,
        runs=runs,
        counts=dict(counts),
        first_scheduled=first,
        last_scheduled=last,
        late_runs=late_runs,
        max_late_by=worst,
        last_run_id=last_id,
        last_status=last_status,
        last_failure=failure[0],
        last_failure_at=failure[1],
    )


def absorb(
    owner_id: str, owner: OwnerSummary | None, removed: LedgerSummary, description: str
) -> OwnerSummary:
    """The owner's summary (``None``: none yet) with a removed task's summary taken in."""
    counts: Counter[RunStatus] = Counter(owner.counts if owner else {})
    counts.update(removed.counts)
    last, last_status = (owner.last_scheduled, owner.last_status) if owner else (None, None)
    if removed.last_scheduled is not None and (last is None or removed.last_scheduled >= last):
        last, last_status = removed.last_scheduled, removed.last_status
    failure = (
        (owner.last_failure, owner.last_failure_at, owner.last_failure_task)
        if owner
        else (None, None, None)
    )
    newer = removed.last_failure_at is not None and (
        failure[1] is None or removed.last_failure_at >= failure[1]
    )
    if newer:
        failure = (removed.last_failure, removed.last_failure_at, description)
    return OwnerSummary(
        owner_id=owner_id,
        tasks=(owner.tasks if owner else 0) + 1,
        runs=(owner.runs if owner else 0) + removed.runs,
        counts=dict(counts),
        last_scheduled=last,
        last_status=last_status,
        last_failure=failure[0],
        last_failure_at=failure[1],
        last_failure_task=failure[2],
    )


def counts_json(summary: LedgerSummary | OwnerSummary) -> str:
    """The per-status counts as stored (JSON text, statuses by name)."""
    return json.dumps({status.value: n for status, n in sorted(summary.counts.items())})


def counts_from_json(text: str) -> dict[RunStatus, int]:
    """Read back ``counts_json``."""
    return {RunStatus(name): int(n) for name, n in json.loads(text).items()}

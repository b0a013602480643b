"""Check what a crash run left behind: the sink's lines against the store and its ledger.

The sink is written (and fsync'd) before the ledger records a success, so a kill can leave a
delivered line whose run is not marked succeeded; its retry then delivers a second line. That
is the one duplicate per kill the promises allow. The other way round (a ledger success with
no line) must never happen.
"""

from __future__ import annotations

import sqlite3
import statistics
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

from tasks import RunStatus, TaskRun, TaskStatus, TaskStore
from testing.sink_file import SinkLine

LATE_TOLERANCE = timedelta(seconds=1)
"""Slack between a run's claim (where lateness is decided) and its line being written."""


@dataclass(frozen=True, slots=True)
class PlannedReminder:
    """A reminder the harness stored, and what it expects back."""

    task_id: str
    due: datetime
    message: str


@dataclass
class CrashReport:
    """The outcome of one crash run; ``problems()`` lists every broken promise."""

    reminders: int
    kills: int
    grace: timedelta
    delivered: int = 0
    lines: int = 0
    duplicates: int = 0
    duplicate_tasks: list[str] = field(default_factory=list)
    lost: list[str] = field(default_factory=list)
    not_final: list[str] = field(default_factory=list)
    corrupted: list[str] = field(default_factory=list)
    corrupt_lines: list[str] = field(default_factory=list)
    unknown_lines: list[str] = field(default_factory=list)
    line_without_success: list[str] = field(default_factory=list)
    success_without_line: list[str] = field(default_factory=list)
    late_marked: int = 0
    late_unmarked: list[str] = field(default_factory=list)
    retried_runs: int = 0
    lateness_ms: list[float] = field(default_factory=list)
    integrity: str = "not checked"
    startup_seconds: list[float] = field(default_factory=list)
    settle_seconds: float = 0.0
    elapsed_seconds: float = 0.0
    exit_code: int | None = None
    notes: list[str] = field(default_factory=list)

    def problems(self) -> list[str]:
        """Return one sentence per broken promise (empty when the run kept them all)."""
        found = [
            *_listed("reminders never delivered", self.lost),
            *_listed("tasks not in a final state", self.not_final),
            *_listed("tasks whose stored fields changed", self.corrupted),
            *_listed("sink lines that are not valid deliveries", self.corrupt_lines),
            *_listed("sink lines for no run in the ledger", self.unknown_lines),
            *_listed("ledger successes with no delivered line", self.success_without_line),
            *_listed("late deliveries not marked late", self.late_unmarked),
        ]
        if self.duplicates > self.kills:
            found.append(
                f"{self.duplicates} duplicate deliveries for {self.kills} kills "
                f"(at most one per kill): {self.duplicate_tasks[:10]}"
            )
        if len(self.line_without_success) > self.kills:
            found.append(
                f"{len(self.line_without_success)} delivered lines whose run is not marked "
                f"succeeded, for {self.kills} kills: {self.line_without_success[:10]}"
            )
        if self.integrity != "ok":
            found.append(f"the database's integrity check said {self.integrity!r}")
        if self.exit_code not in (0, None):
            found.append(f"the last serve process exited with code {self.exit_code} on SIGTERM")
        return found

    def figures(self) -> dict[str, str]:
        """Return the run's figures as label -> value text, in display order."""
        lateness = sorted(self.lateness_ms)
        return {
            "reminders": str(self.reminders),
            "kills (SIGKILL) / restarts": f"{self.kills} / {self.kills}",
            "delivered": f"{self.delivered} of {self.reminders}",
            "duplicates": f"{self.duplicates} (allowed: at most {self.kills})",
            "lost / not final / corrupted": (
                f"{len(self.lost)} / {len(self.not_final)} / {len(self.corrupted)}"
            ),
            "ledger: line without success / success without line": (
                f"{len(self.line_without_success)} / {len(self.success_without_line)}"
            ),
            "late deliveries marked late / unmarked": (
                f"{self.late_marked} / {len(self.late_unmarked)}"
            ),
            "runs retried after a kill (attempt 2)": str(self.retried_runs),
            "lateness p50 / p99 / max": (
                f"{_pct(lateness, 50):.0f} / {_pct(lateness, 99):.0f} / "
                f"{_pct(lateness, 100):.0f} ms"
            ),
            "restart to ready (mean / max)": (
                f"{statistics.fmean(self.startup_seconds or [0]):.2f} / "
                f"{max(self.startup_seconds or [0]):.2f} s"
            ),
            "last due time to all settled": f"{self.settle_seconds:.1f} s",
            "integrity_check": self.integrity,
            "wall time": f"{self.elapsed_seconds:.1f} s",
        }

    def render(self) -> str:
        """Return the figures and the problems as printable text."""
        width = max(len(label) for label in self.figures())
        rows = [f"  {label:<{width}}  {value}" for label, value in self.figures().items()]
        rows += [f"  note: {note}" for note in self.notes]
        problems = self.problems()
        rows.append("  result: " + ("all promises kept" if not problems else "FAILED"))
        rows += [f"  - {problem}" for problem in problems]
        return "\n".join(rows)


async def check_crash_run(
    report: CrashReport,
    planned: Sequence[PlannedReminder],
    lines: Sequence[SinkLine],
    store: TaskStore,
    database: Path | None,
    *,
    owner_id: str,
) -> None:
    """Fill ``report`` by comparing the sink's ``lines`` with the tasks and ledger in ``store``.

    ``database`` is the SQLite file to run ``PRAGMA integrity_check`` on; for another store
    (``None``) the caller fills ``report.integrity`` with its own check.
    """
    by_task: dict[str, list[SinkLine]] = defaultdict(list)
    for line in lines:
        by_task[line.task_id].append(line)
    known = {p.task_id for p in planned}
    report.unknown_lines += [
        f"{line.task_id}/{line.run_id}" for line in lines if line.task_id not in known
    ]
    report.lines = len(lines)
    for reminder in planned:
        await _check_task(report, reminder, by_task.get(reminder.task_id, []), store, owner_id)
    report.delivered = sum(1 for p in planned if by_task.get(p.task_id))
    counts = Counter(line.task_id for line in lines if line.task_id in known)
    report.duplicates = sum(n - 1 for n in counts.values() if n > 1)
    report.duplicate_tasks = sorted(t for t, n in counts.items() if n > 1)
    if database is not None:
        report.integrity = integrity_check(database)


async def _check_task(
    report: CrashReport,
    reminder: PlannedReminder,
    lines: list[SinkLine],
    store: TaskStore,
    owner_id: str,
) -> None:
    task_id = reminder.task_id
    task = await store.get_task(task_id, owner_id)
    if task is None:
        report.lost.append(task_id)
        report.corrupted.append(f"{task_id}: missing from the store")
        return
    if task.status is not TaskStatus.DONE:
        report.not_final.append(f"{task_id}: {task.status.value}")
    if task.description != reminder.message or (
        task.status is TaskStatus.DONE and task.next_run is not None
    ):
        report.corrupted.append(f"{task_id}: {task.description!r}, next run {task.next_run}")
    runs = {run.id: run for run in await store.history(task_id, owner_id, limit=100)}
    report.retried_runs += sum(1 for run in runs.values() if run.attempt > 1)
    if not lines:
        report.lost.append(task_id)
    else:
        first = min(line.delivered_at for line in lines)
        report.lateness_ms.append((first - reminder.due).total_seconds() * 1000)
    lined = {line.run_id for line in lines}
    for run in runs.values():
        if run.status is RunStatus.SUCCEEDED and run.id not in lined:
            report.success_without_line.append(f"{task_id}/run {run.id}")
    for line in lines:
        _check_line(report, reminder, line, runs.get(line.run_id or -1))


def _check_line(
    report: CrashReport, reminder: PlannedReminder, line: SinkLine, run: TaskRun | None
) -> None:
    where = f"{line.task_id}/run {line.run_id}"
    if run is None:
        report.unknown_lines.append(where)
        return
    if not line.text.startswith(reminder.message):
        report.corrupted.append(f"{where}: delivered {line.text[:80]!r}")
    if run.status is not RunStatus.SUCCEEDED:
        report.line_without_success.append(f"{where} ({run.status.value})")
    marked = line.late_by is not None and "late by" in line.text
    if marked:
        report.late_marked += 1
    delay = line.delivered_at - reminder.due
    if not marked and (run.late_by is not None or delay > report.grace + LATE_TOLERANCE):
        report.late_unmarked.append(
            f"{where} delivered {delay.total_seconds():.1f} s after its due time, "
            f"attempt {run.attempt}, {run.misfire.value}, no 'late by' note"
        )


def integrity_check(path: Path) -> str:
    """Return what ``PRAGMA integrity_check`` says about the database file."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        rows = conn.execute("PRAGMA integrity_check").fetchall()
    finally:
        conn.close()
    return "; ".join(str(row[0]) for row in rows)


def _listed(what: str, items: list[str]) -> list[str]:
    if not items:
        return []
    return [f"{len(items)} {what}: {items[:10]}"]


def _pct(ordered: list[float], pct: float) -> float:
    if not ordered:
        return 0.0
    index = min(len(ordered) - 1, max(0, round(pct / 100 * len(ordered)) - 1))
    return ordered[index]

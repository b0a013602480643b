"""The ``briefing`` runner: the owner's day in one message, built from the store.

Its sections, each line read from one row (and naming it):

    Today                  the owner's tasks that run today, by time        task k3m9xa
    Overnight              runs since the previous briefing, failures first  run 1234
                           (a monitor's checks only when they failed)
    Monitors that changed  observations changed since then                  task k3m9xa
    (from BriefingSource)  notes tagged for the day, the calendar            note #3, event ...

No model is needed. With one (``summarizer``), the lines, each with its reference, are given
to it to summarise; its summary is kept only when every line of it cites references that
were given and every number in a line (times, amounts) is in the lines it cites. Otherwise
the plain briefing goes out: a summary may shorten, never invent.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime, time, timedelta
from typing import Protocol
from zoneinfo import ZoneInfo

from common import Clock, LazyPattern
from tasks.execution import BriefingData, TaskType
from tasks.models import RunStatus, Task, TaskRun, TaskStatus
from tasks.protocols import (
    AgentRunner,
    BriefingLine,
    BriefingSection,
    BriefingSource,
    DeliveryKind,
)
from tasks.runners.base import Deliverer, RunReport, wrong_data
from tasks.schedule import OnceSchedule, resolve_local
from tasks.store.base import RecentRun, WatchedChange

log = logging.getLogger(__name__)

FIRST_LOOK_BACK = timedelta(hours=24)
"""How far back a first briefing looks for what ran."""
MAX_OVERNIGHT = 10
_FAILED = (RunStatus.FAILED, RunStatus.OUTCOME_UNKNOWN, RunStatus.UNDELIVERED)
_NOT_RUNS = (RunStatus.ACKNOWLEDGED, RunStatus.SKIPPED, RunStatus.CLAIMED, RunStatus.ABANDONED)
_CITED = LazyPattern(r"\[([^\[\]]+)\]")
_NUMBER = LazyPattern(r"\d+(?::\d+)?(?:\.\d+)?")
SUMMARY_PROMPT = (
    "Summarise this morning briefing for the person it is for, in at most 6 short lines. "
    "End every line with the reference of each item it comes from, in square brackets, "
    "exactly as given (e.g. [task k3m9xa]). Say only what the items say; add nothing."
)


class BriefingStore(Protocol):
    """What a briefing reads of the task store."""

    async def list_tasks(self, owner_id: str) -> list[Task]:
        """The owner's live tasks."""
        ...

    async def runs_since(self, owner_id: str, since: datetime, *, limit: int) -> list[RecentRun]:
        """The owner's runs finished since ``since``, newest first."""
        ...

    async def changes_since(self, owner_id: str, since: datetime) -> list[WatchedChange]:
        """The owner's monitors whose observation changed since ``since``."""
        ...


class BriefingRunner:
    """Builds the owner's briefing from the store (and ``source``) and delivers it.

    Args:
        deliverer: Where it goes.
        store: The task store.
        clock: The time of the briefing.
        source: Notes tagged for the day and the calendar, when the app has them.
        summarizer: A model that may summarise it (``None``: the plain briefing).
    """

    def __init__(
        self,
        deliverer: Deliverer,
        *,
        store: BriefingStore,
        clock: Clock,
        source: BriefingSource | None = None,
        summarizer: AgentRunner | None = None,
    ) -> None:
        self._deliverer = deliverer
        self._store = store
        self._clock = clock
        self._source = source
        self._summarizer = summarizer

    async def run(self, task: Task, run: TaskRun) -> RunReport:
        """Build the briefing and deliver it as a RESULT."""
        data = task.execution
        if not isinstance(data, BriefingData):
            return wrong_data(task)
        sections = await self.sections(task)
        lines = [line for section in sections for line in section.lines]
        day = self._clock.now().astimezone(task.schedule.tz)
        text = render(sections, day)
        said = "briefing: nothing to tell" if not lines else f"briefing: {len(lines)} lines"
        if lines and data.summarize and self._summarizer is not None:
            summary = await self._summary(task, lines)
            if summary is not None:
                text, said = summary, f"{said}, summarised"
        return await self._deliverer.report(task, run, DeliveryKind.RESULT, text, said)

    async def sections(self, task: Task) -> list[BriefingSection]:
        """The briefing's sections for ``task``'s owner, now (empty ones left out)."""
        now = self._clock.now()
        zone = task.schedule.tz
        local = now.astimezone(zone)
        day = resolve_local(datetime.combine(local.date(), time(0)), zone)
        tomorrow = resolve_local(datetime.combine(local.date() + timedelta(days=1), time(0)), zone)
        since = task.last_run or now - FIRST_LOOK_BACK
        owner = task.owner_id
        others = [t for t in await self._store.list_tasks(owner) if t.id != task.id]
        recent = await self._store.runs_since(owner, since, limit=200)
        changes = await self._store.changes_since(owner, since)
        found = [
            BriefingSection("Today", today(others, now, tomorrow, zone)),
            BriefingSection("Overnight", overnight(recent, task.id, zone)),
            BriefingSection("Monitors that changed", changed(changes, zone)),
        ]
        if self._source is not None:
            # Local midnight (its date and weekday are the day's), as the source expects.
            local_day = day.astimezone(zone)
            found.extend(await self._source.sections(owner, day=local_day, since=since, now=now))
        return [section for section in found if section.lines]

    async def _summary(self, task: Task, lines: Sequence[BriefingLine]) -> str | None:
        assert self._summarizer is not None
        material = "\n".join(f"- {line.text} [{line.ref}]" for line in lines)
        try:
            # The lines hold notes and pages' words: material to read, never instructions.
            answer = await self._summarizer.run_task(
                SUMMARY_PROMPT, owner_id=task.owner_id, chat_id=task.chat_id, material=material
            )
        except Exception as exc:
            log.warning("summarising the briefing of task %s failed: %s", task.id, exc)
            return None
        summary = checked_summary(answer, lines)
        if summary is None:
            log.info("the summary of briefing %s cites what it was not given; not used", task.id)
            return None
        return f"Your briefing, in short (each line names where it comes from):\n{summary}"


def today(
    tasks: Sequence[Task], now: datetime, end: datetime, zone: ZoneInfo
) -> tuple[BriefingLine, ...]:
    """The tasks that run from ``now`` to ``end`` (the day's end), by time (monitors
    left out)."""
    coming: list[tuple[datetime, Task]] = []
    for task in tasks:
        if task.status is not TaskStatus.ACTIVE or task.next_run is None:
            continue
        if task.task_type is TaskType.MONITOR:  # its looks are not the day's events
            continue
        fire = task.next_run if task.next_run >= now else None
        if fire is None and not isinstance(task.schedule, OnceSchedule):
            fire = task.schedule.next_after(now)
        if fire is not None and fire < end:
            coming.append((fire, task))
    coming.sort(key=lambda pair: (pair[0], pair[1].id))
    return tuple(
        BriefingLine(
            f"{fire.astimezone(zone).strftime('%H:%M')} {_kind(task)}: {task.description}",
            f"task {task.id}",
        )
        for fire, task in coming
    )


def overnight(recent: Sequence[RecentRun], own: str, zone: ZoneInfo) -> tuple[BriefingLine, ...]:
    """What ran since the last briefing (``recent``: newest first), in order, failures first.

    Not the briefing itself, and not a monitor's checks that went well: what they saw is
    under "Monitors that changed". With more than ``MAX_OVERNIGHT``, the earliest that went
    well are counted in one line.
    """
    runs = [
        r
        for r in reversed(recent)
        if r.task.id != own
        and r.run.status not in _NOT_RUNS
        and (r.task.task_type is not TaskType.MONITOR or r.run.status in _FAILED)
    ]
    failed = [r for r in runs if r.run.status in _FAILED][:MAX_OVERNIGHT]
    went_well = [r for r in runs if r.run.status not in _FAILED]
    room = MAX_OVERNIGHT - len(failed)
    shown = went_well[-room:] if room > 0 else []
    hidden = went_well[: len(went_well) - len(shown)]
    lines = [_ran(r, zone) for r in failed]
    if hidden:
        lines.append(BriefingLine(f"… {len(hidden)} earlier runs", f"run {hidden[-1].run.id}"))
    lines.extend(_ran(r, zone) for r in shown)
    return tuple(lines)


def changed(changes: Sequence[WatchedChange], zone: ZoneInfo) -> tuple[BriefingLine, ...]:
    """The monitors whose observation changed since the last briefing."""
    lines = []
    for change in changes:
        when = change.observation.changed_at.astimezone(zone).strftime("%H:%M")
        holds = change.observation.holds
        state = "" if holds is None else "; its condition holds" if holds else "; not its condition"
        lines.append(
            BriefingLine(
                f"{change.task.description}: changed at {when}{state}", f"task {change.task.id}"
            )
        )
    return tuple(lines)


def render(sections: Sequence[BriefingSection], day: datetime) -> str:
    """The plain briefing: a heading per section, a line per row."""
    head = f"Good morning! Your briefing for {day:%a %Y-%m-%d} ({day.tzinfo}):"
    if not sections:
        return f"{head}\nNothing today: no tasks due, nothing ran since the last briefing."
    parts = [head]
    for section in sections:
        parts.append(f"\n{section.title}")
        parts.extend(f"- {line.text}" for line in section.lines)
    return "\n".join(parts)


def checked_summary(summary: str, lines: Sequence[BriefingLine]) -> str | None:
    """``summary`` when every line of it cites given references and says no number the
    cited lines do not; ``None`` otherwise."""
    by_ref: dict[str, list[str]] = {}
    for line in lines:
        by_ref.setdefault(line.ref, []).append(line.text)
    kept: list[str] = []
    for raw in summary.strip().splitlines():
        said = raw.strip()
        if not said:
            continue
        cited = [ref.strip() for ref in _CITED.findall(said)]
        if not cited or any(ref not in by_ref for ref in cited):
            return None
        sources = " ".join(text for ref in cited for text in by_ref[ref])
        claims = _NUMBER.findall(_CITED.sub("", said))
        if any(number not in sources for number in claims):
            return None
        kept.append(said)
    return "\n".join(kept) or None


def _ran(recent: RecentRun, zone: ZoneInfo) -> BriefingLine:
    run, task = recent.run, recent.task
    finished = run.finished_at or run.claimed_at
    when = finished.astimezone(zone).strftime("%H:%M")
    status = run.status.value.replace("_", " ")
    detail = " ".join((run.error or run.result or "").split())
    detail = detail if len(detail) <= 100 else detail[:99] + "…"
    text = f"{when} {task.description}: {status}" + (f" ({detail})" if detail else "")
    return BriefingLine(text, f"run {run.id}")


def _kind(task: Task) -> str:
    return task.task_type.value.replace("_", " ")

"""Runners per task type: what running a claimed task means, and how its result is delivered.

A runner never raises for an expected failure: it returns a ``RunReport`` whose status the
manager writes to the ledger. ``reminder`` needs no LLM at all; ``agent_task`` and
``web_search`` use the protocols the composition root passes in; ``api_call`` lives in
``tasks.api_call``.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol

from tasks.errors import TaskError
from tasks.execution import AgentTaskData, ReminderData, WebSearchData
from tasks.models import MisfireAction, RunStatus, Task, TaskRun, format_lateness
from tasks.protocols import (
    AgentRunner,
    Delivery,
    DeliveryKind,
    DeliveryStatus,
    Notifier,
    Searcher,
    SearchHit,
)
from tasks.schedule.model import format_local

log = logging.getLogger(__name__)

Sleep = Callable[[float], Awaitable[None]]
BLOCKED_ERROR = "the chat cannot be reached (the user blocked the bot or left the chat)"


@dataclass(frozen=True, slots=True)
class RunReport:
    """How a runner's work ended: SUCCEEDED, FAILED or UNDELIVERED, with a short account.

    Attributes:
        status: How it ended.
        result: What it did, for the ledger.
        error: Why it failed.
        notify_failure: Whether a failure is worth a notice to the owner (not when the
            failure was that messages cannot be delivered).
        retry_later: Whether running again later may succeed without repeating a side
            effect (a message that could not be delivered for now); a one-time task is then
            put back with a backoff instead of ending.
    """

    status: RunStatus
    result: str | None = None
    error: str | None = None
    notify_failure: bool = True
    retry_later: bool = False


class TaskRunner(Protocol):
    """Runs one claimed run of a task."""

    async def run(self, task: Task, run: TaskRun) -> RunReport:
        """Do the task's work and deliver its result; report how it went."""
        ...


class Deliverer:
    """Delivers through a ``Notifier``, retrying FAILED deliveries with backoff.

    Args:
        notifier: Where messages go.
        sleep: Waits between attempts (the clock's ``sleep``, so tests do not wait).
        attempts: Delivery attempts before a FAILED delivery is final.
        backoff: Seconds before the second attempt; doubles each time.
    """

    def __init__(
        self, notifier: Notifier, *, sleep: Sleep, attempts: int = 3, backoff: float = 1.0
    ) -> None:
        self.notifier = notifier
        self._sleep = sleep
        self._attempts = max(1, attempts)
        self._backoff = backoff

    async def deliver(self, delivery: Delivery) -> DeliveryStatus:
        """Deliver, retrying FAILED; BLOCKED and DELIVERED are final at once."""
        status = DeliveryStatus.FAILED
        for attempt in range(self._attempts):
            if attempt:
                await self._sleep(self._backoff * 2 ** (attempt - 1))
            try:
                status = await self.notifier.deliver(delivery)
            except Exception:
                # A Notifier must not raise; one that does counts as a failed attempt.
                log.exception("the notifier raised while delivering for task %s", delivery.task_id)
                status = DeliveryStatus.FAILED
            if status is not DeliveryStatus.FAILED:
                break
        return status

    async def report(
        self, task: Task, run: TaskRun, kind: DeliveryKind, text: str, result: str
    ) -> RunReport:
        """Deliver ``text`` for this run and turn the delivery status into a report."""
        delivery = Delivery(
            task_id=task.id,
            run_id=run.id,
            owner_id=task.owner_id,
            chat_id=task.chat_id,
            kind=kind,
            text=text + late_note(task, run),
            late_by=run.late_by,
        )
        status = await self.deliver(delivery)
        if status is DeliveryStatus.DELIVERED:
            return RunReport(RunStatus.SUCCEEDED, result=result)
        if status is DeliveryStatus.BLOCKED:
            return RunReport(RunStatus.UNDELIVERED, result=result, error=BLOCKED_ERROR)
        return RunReport(
            RunStatus.FAILED,
            result=result,
            error=f"the message could not be delivered after {self._attempts} attempts",
            notify_failure=False,
            retry_later=True,
        )


def late_note(task: Task, run: TaskRun) -> str:
    """Say why a run comes late: ``(late by 2 h: it was due at 09:00 (Europe/Berlin))``."""
    if run.late_by is None:
        return ""
    due = format_local(run.scheduled_for, task.schedule.tz)
    note = (
        f"\n(late by {format_lateness(run.late_by)}: it was due at {due} ({task.schedule.tz.key})"
    )
    if run.misfire is MisfireAction.COALESCED and run.missed:
        note += f"; {run.missed} earlier missed run{'s' if run.missed != 1 else ''} combined"
    return note + ")"


class ReminderRunner:
    """Delivers a reminder's text by code: zero LLM calls."""

    def __init__(self, deliverer: Deliverer) -> None:
        self._deliverer = deliverer

    async def run(self, task: Task, run: TaskRun) -> RunReport:
        """Deliver the reminder as a REMINDER message."""
        data = task.execution
        if not isinstance(data, ReminderData):
            return _wrong_data(task)
        return await self._deliverer.report(
            task, run, DeliveryKind.REMINDER, data.message, result="reminder delivered"
        )


class AgentTaskRunner:
    """Runs the agent on the task's prompt in a fresh context and delivers its answer."""

    def __init__(self, deliverer: Deliverer, agent: AgentRunner | None) -> None:
        self._deliverer = deliverer
        self._agent = agent

    async def run(self, task: Task, run: TaskRun) -> RunReport:
        """Ask the agent, then deliver the answer as a RESULT."""
        data = task.execution
        if not isinstance(data, AgentTaskData):
            return _wrong_data(task)
        if self._agent is None:
            return RunReport(
                RunStatus.FAILED,
                error="agent tasks need an agent, and none is configured for the scheduler",
            )
        answer = (
            await self._agent.run_task(data.prompt, owner_id=task.owner_id, chat_id=task.chat_id)
        ).strip()
        if not answer:
            return RunReport(RunStatus.FAILED, error="the agent returned an empty answer")
        return await self._deliverer.report(
            task, run, DeliveryKind.RESULT, f"{task.description}\n\n{answer}", _brief(answer)
        )


class WebSearchRunner:
    """Searches the web and delivers the top hits as a list, or a summary of them.

    Args:
        deliverer: Where the results go.
        searcher: The search backend, or ``None`` when search is not configured.
        summarizer: When given, the agent summarises the hits instead of listing them.
    """

    def __init__(
        self,
        deliverer: Deliverer,
        searcher: Searcher | None,
        *,
        summarizer: AgentRunner | None = None,
    ) -> None:
        self._deliverer = deliverer
        self._searcher = searcher
        self._summarizer = summarizer

    async def run(self, task: Task, run: TaskRun) -> RunReport:
        """Search, then deliver the hits (or their summary) as a RESULT."""
        data = task.execution
        if not isinstance(data, WebSearchData):
            return _wrong_data(task)
        if self._searcher is None:
            return RunReport(
                RunStatus.FAILED,
                error="web_search tasks need a search backend, and none is configured",
            )
        hits = await self._searcher.search(data.query, limit=data.limit)
        listing = format_hits(data.query, hits[: data.limit])
        text = listing
        if hits and self._summarizer is not None:
            text = await self._summarize(task, data.query, listing)
        return await self._deliverer.report(
            task, run, DeliveryKind.RESULT, text, f"{len(hits)} results for {data.query!r}"
        )

    async def _summarize(self, task: Task, query: str, listing: str) -> str:
        assert self._summarizer is not None
        prompt = (
            f"Summarise these web search results for the query {query!r} in a few short lines, "
            "keeping the links:"
        )
        try:
            # The results are someone else's words: material to read, never instructions.
            summary = await self._summarizer.run_task(
                prompt, owner_id=task.owner_id, chat_id=task.chat_id, material=listing
            )
        except (TaskError, TimeoutError) as exc:
            log.warning("summarising search results for task %s failed: %s", task.id, exc)
            return listing
        return summary.strip() or listing


def format_hits(query: str, hits: list[SearchHit]) -> str:
    """Render hits as a plain numbered list."""
    if not hits:
        return f"No results for {query!r}."
    lines = [f"Top results for {query!r}:"]
    for number, hit in enumerate(hits, start=1):
        lines.append(f"{number}. {hit.title} - {hit.link}")
        if hit.snippet:
            lines.append(f"   {hit.snippet}")
    return "\n".join(lines)


def _wrong_data(task: Task) -> RunReport:
    return RunReport(
        RunStatus.FAILED,
        error=(
            f"task {task.id!r} of type {task.task_type.value!r} carries "
            f"{type(task.execution).__name__} data; recreate the task"
        ),
    )


def _brief(text: str, limit: int = 200) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"

"""The ``web_search`` runner: the top hits for the task's query, delivered as a list or, when
the agent is there to summarise them, as a summary."""

from __future__ import annotations

import logging

from tasks.errors import TaskError
from tasks.execution import WebSearchData
from tasks.models import RunStatus, Task, TaskRun
from tasks.protocols import AgentRunner, DeliveryKind, Searcher, SearchHit
from tasks.runners.base import Deliverer, RunReport, wrong_data

log = logging.getLogger(__name__)


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
            return wrong_data(task)
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

"""The ``monitor`` runner: look at something, and speak only when it changed or a condition
holds.

A page is fetched through the program's one guarded HTTP client (``HttpSender``: the SSRF
guard, the allow list, redirects vetted hop by hop, a size cap) and read as text, or as the
text of what its CSS selector picks; a JSON document the same way, then the field its path
names; a web search through the ``Searcher``; a tool through the ``ToolRunner``, which runs
it as chat would, except that a tool waiting for approval is refused (nobody is there).

What it saw is compared with the last observation, kept in the task store (one per task, so
a restart changes nothing): ``tasks.monitors.judge`` decides. A silent check is a succeeded
run whose ledger row says what it found ("unchanged"); a failed look is a failed run, which
counts towards the failure alert, except its very first look, which its owner hears of at
once (the address may be wrong, and nothing else would say so for hours). The observation
is kept before the message is sent, with the message: should it not go out, the next check
sends it, and a check repeated after a crash finds it sent or sends it then, never twice in
a row for one change.
"""

from __future__ import annotations

import json
from typing import Protocol

from common import (
    Clock,
    HttpRequest,
    HttpRequestError,
    NotText,
    SelectorError,
    page_text,
    redact_url,
    select_text,
)
from tasks.errors import TaskError
from tasks.execution import MonitorData, MonitorSource
from tasks.models import RunStatus, Task, TaskRun
from tasks.monitors import Observation, judge, read_field, value_text
from tasks.protocols import DeliveryKind, HttpSender, Searcher, ToolRunner
from tasks.runners.base import Deliverer, RunReport, wrong_data

PAGE_BYTES = 2_000_000
"""The most bytes of a page or document a monitor reads."""
PAGE_TIMEOUT = 20.0
_ACCEPT = {
    MonitorSource.PAGE: "text/html, text/*;q=0.9, */*;q=0.1",
    MonitorSource.JSON: "application/json, */*;q=0.1",
}


class Observations(Protocol):
    """Where a monitor's last observation is kept (the task store)."""

    async def observation(self, task_id: str) -> Observation | None:
        """The monitor's last observation, or ``None`` before its first look."""
        ...

    async def save_observation(self, task_id: str, observation: Observation) -> None:
        """Keep ``observation`` as the monitor's last one."""
        ...


class MonitorRunner:
    """Looks, compares with the last look, and tells the owner when it is worth it.

    Args:
        deliverer: Where messages go.
        observations: Where the last observation of each monitor is kept.
        clock: The time of each look.
        http: The guarded HTTP client (pages, JSON documents); without it those fail.
        searcher: Web search (search monitors); without it those fail.
        tools: Runs a tool unattended (tool monitors); without it those fail.
    """

    def __init__(
        self,
        deliverer: Deliverer,
        *,
        observations: Observations,
        clock: Clock,
        http: HttpSender | None = None,
        searcher: Searcher | None = None,
        tools: ToolRunner | None = None,
    ) -> None:
        self._deliverer = deliverer
        self._observations = observations
        self._clock = clock
        self._http = http
        self._searcher = searcher
        self._tools = tools

    async def run(self, task: Task, run: TaskRun) -> RunReport:
        """Look, judge, keep the observation, and deliver a message when there is one."""
        data = task.execution
        if not isinstance(data, MonitorData):
            return wrong_data(task)
        before = await self._observations.observation(task.id)
        try:
            seen = await self.look(task, data)
            verdict = judge(
                data.parsed_condition(), before, seen, self._clock.now(), title=task.description
            )
        except TaskError as exc:
            # Its first look failing is told at once; a later failure waits for the alert.
            first = before is None and task.run_count == 0
            return RunReport(RunStatus.FAILED, error=str(exc), first_look=first)
        await self._observations.save_observation(task.id, verdict.observation)
        if verdict.message is None:
            return RunReport(RunStatus.SUCCEEDED, result=verdict.result)
        report = await self._deliverer.report(
            task, run, DeliveryKind.RESULT, verdict.message, verdict.result
        )
        if report.status is RunStatus.SUCCEEDED:
            await self._observations.save_observation(task.id, verdict.observation.delivered())
        return report

    async def look(self, task: Task, data: MonitorData) -> str:
        """What the monitor sees now, as text.

        Raises:
            TaskError: when it cannot look (unreachable, refused, not found, no such field),
                saying why.
        """
        if data.source is MonitorSource.SEARCH:
            return await self._search(data)
        if data.source is MonitorSource.TOOL:
            if self._tools is None:
                raise TaskError("tool monitors need the tool executor, and none is configured")
            assert data.tool is not None  # a tool monitor has one (MonitorData checks)
            return await self._tools.run_tool(
                data.tool, data.arguments, owner_id=task.owner_id, chat_id=task.chat_id
            )
        return await self._fetch(data)

    async def _search(self, data: MonitorData) -> str:
        if self._searcher is None:
            raise TaskError("search monitors need a search backend (set SERPAPI_API_KEY)")
        assert data.query is not None  # a search monitor has one (MonitorData checks)
        hits = await self._searcher.search(data.query, limit=data.limit)
        if not hits:
            return f"No results for {data.query!r}."
        return "\n".join(f"{hit.title} - {hit.link}" for hit in hits[: data.limit])

    async def _fetch(self, data: MonitorData) -> str:
        if self._http is None:
            raise TaskError("page monitors need the guarded HTTP client, and none is configured")
        assert data.url is not None  # a page or JSON monitor has one (MonitorData checks)
        url = redact_url(data.url)
        request = HttpRequest(
            "GET", data.url, {"Accept": _ACCEPT[data.source]}, None, PAGE_TIMEOUT, PAGE_BYTES
        )
        try:
            response = await self._http.send(request)
        except HttpRequestError as exc:
            raise TaskError(f"{url} could not be read: {exc}") from None
        if response.status_code >= 400:
            raise TaskError(f"{url} answered HTTP {response.status_code} {response.reason}".strip())
        if data.source is MonitorSource.JSON:
            return _field_of(response.text, data, url)
        if data.selector is not None:
            try:
                picked = select_text(response.text, data.selector)
            except SelectorError as exc:
                raise TaskError(str(exc)) from None
            if not picked:
                raise TaskError(
                    f"the selector {data.selector!r} picks nothing on {url}; the page may have "
                    "changed its layout: check the selector"
                )
            return "\n".join(picked)
        try:
            _, text = page_text(response)
        except NotText as exc:
            raise TaskError(f"{url} is {exc}; a page monitor reads HTML and text") from None
        return text


def _field_of(body: str, data: MonitorData, url: str) -> str:
    try:
        document = json.loads(body)
    except ValueError:
        start = " ".join(body.split())[:60]
        raise TaskError(f"{url} did not answer with JSON (it began {start!r})") from None
    if data.field is None:
        return value_text(document)
    return value_text(read_field(document, data.field))

"""The ``api_call`` runner: the stored HTTP request, retried where repeating it is safe.

GET, HEAD, PUT, DELETE and OPTIONS are retried on network errors and 5xx. POST and PATCH are
retried only when the connection could not be made (the request was surely not sent); a
timeout after sending, or a 5xx answer, means the server may have acted, so it is final.

The request is made exactly as it was approved when the task was created. The delivered
outcome names the method, the URL without its query or credentials, the status and a short
piece of the body; header values never appear in it (they are scrubbed from the body too).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import replace

import httpx

from common import is_secret_name, redact_url, scrub
from tasks.execution import ApiCallData
from tasks.models import RunStatus, Task, TaskRun
from tasks.protocols import DeliveryKind
from tasks.runners.base import Deliverer, RunReport, Sleep

log = logging.getLogger(__name__)

BODY_PREVIEW = 300
# Methods whose repetition may act twice: retried only when the request was surely not sent.
NOT_IDEMPOTENT = frozenset({"POST", "PATCH"})
NOT_SENT_ERRORS = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)


class ApiCallRunner:
    """Makes a task's HTTP request and delivers the outcome.

    Args:
        deliverer: Where the outcome goes.
        client: The HTTP client (the composition root decides its transport and guards);
            without one the runner makes its own on first use and ``aclose`` closes it.
        sleep: Waits between retries (the clock's ``sleep``, so tests do not wait).
        attempts: Requests before a network error or 5xx is final.
        backoff: Seconds before the second attempt; doubles each time.
    """

    def __init__(
        self,
        deliverer: Deliverer,
        client: httpx.AsyncClient | None = None,
        *,
        sleep: Sleep,
        attempts: int = 3,
        backoff: float = 1.0,
    ) -> None:
        self._deliverer = deliverer
        self._client = client
        self._owned: httpx.AsyncClient | None = None
        self._sleep = sleep
        self._attempts = max(1, attempts)
        self._backoff = backoff

    async def run(self, task: Task, run: TaskRun) -> RunReport:
        """Make the request (with retries), then deliver the outcome or report the failure."""
        data = task.execution
        if not isinstance(data, ApiCallData):
            return RunReport(
                RunStatus.FAILED,
                error=f"task {task.id!r} is an api_call without request data; recreate it",
            )
        target = f"{data.method} {redact_url(data.url)}"
        response, failure = await self._request(data)
        if response is None:
            return RunReport(RunStatus.FAILED, error=f"{target} failed: {failure}")
        outcome = f"{target} -> {response.status_code} {response.reason_phrase}".rstrip()
        preview = body_preview(response, _secrets(data, response))
        text = f"{outcome}\n{preview}" if preview else outcome
        if response.status_code >= 400:
            return RunReport(RunStatus.FAILED, result=outcome, error=text)
        report = await self._deliverer.report(task, run, DeliveryKind.RESULT, text, outcome)
        # The request was made: running the task again to deliver its outcome would repeat it.
        return replace(report, retry_later=False)

    async def _request(self, data: ApiCallData) -> tuple[httpx.Response | None, str]:
        idempotent = data.method not in NOT_IDEMPOTENT
        retried = httpx.TransportError if idempotent else NOT_SENT_ERRORS
        failure = "no attempt was made"
        for attempt in range(self._attempts):
            if attempt:
                await self._sleep(self._backoff * 2 ** (attempt - 1))
            try:
                response = await self._send(data)
            except retried as exc:
                failure = f"{type(exc).__name__}: {exc or 'no detail'}"
                log.info(
                    "api_call attempt %d to %s: %s", attempt + 1, redact_url(data.url), failure
                )
                continue
            except httpx.TransportError as exc:
                # The request may have reached the server: repeating it could act twice.
                detail = f"{type(exc).__name__}: {exc or 'no detail'}"
                return None, f"{detail} (not retried: a {data.method} may already have acted)"
            last = attempt == self._attempts - 1
            if response.status_code < 500 or last or not idempotent:
                return response, ""
            log.info(
                "api_call attempt %d to %s: HTTP %d",
                attempt + 1,
                redact_url(data.url),
                response.status_code,
            )
        return None, f"{failure} (after {self._attempts} attempts)"

    async def aclose(self) -> None:
        """Close the client this runner made itself (a given client is left alone)."""
        owned, self._owned = self._owned, None
        if owned is not None:
            await owned.aclose()

    def _http(self) -> httpx.AsyncClient:
        if self._client is not None:
            return self._client
        if self._owned is None:
            self._owned = httpx.AsyncClient(follow_redirects=False)
        return self._owned

    async def _send(self, data: ApiCallData) -> httpx.Response:
        body = data.body
        content = body if isinstance(body, str) else None
        json_body = None if body is None or isinstance(body, str) else body
        return await self._http().request(
            data.method,
            data.url,
            headers=data.headers,
            content=content,
            json=json_body,
            timeout=data.timeout,
        )


def _secrets(data: ApiCallData, response: httpx.Response) -> list[str]:
    """Header values the request carried (given, or derived such as Basic auth from the URL)."""
    sent = response.request.headers
    derived = [v for k, v in sent.items() if is_secret_name(k)]
    password = httpx.URL(data.url).password
    return [*data.headers.values(), *derived, *([password] if password else [])]


def body_preview(response: httpx.Response, secrets: Iterable[str]) -> str:
    """Return the start of the response body, flattened, with secret values scrubbed."""
    if not response.content:
        return ""
    text = scrub(" ".join(response.text.split()), secrets)
    return text if len(text) <= BODY_PREVIEW else text[: BODY_PREVIEW - 1] + "…"
